/* SPDX-License-Identifier: MIT */
/*
 * sync_dir.h - make a rename durable.
 */
#ifndef TREC_SYNC_DIR_H
#define TREC_SYNC_DIR_H

/* fsync the directory holding `path`, so that a rename into it survives a
 * crash (best effort: failures are ignored). */
void sync_dir(const char *path);

#endif
