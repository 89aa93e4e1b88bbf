/* SPDX-License-Identifier: MIT */
/*
 * checkpoint.h - a recording that survives being killed: the log is
 * written out whole every second, and a copy of its end kept beside it
 * (FILE.recover) for a kill in the middle of writing it.
 */
#ifndef TREC_CHECKPOINT_H
#define TREC_CHECKPOINT_H

#include <stddef.h>

/* Seconds between checkpoints. */
#define CHECKPOINT_PERIOD_NS 1000000000ull

/*
 * After a checkpoint is on disk (written and synced): copy its header and
 * trailer (tables, statistics, footer) from the log at `path` into
 * `path`.recover, replacing the previous copy atomically. 0, or -1 with
 * errno.
 */
int checkpoint_save(const char *path);

/* Remove `path`.recover (after a normal finish). */
void checkpoint_discard(const char *path);

/*
 * --recover: make the log at `path` valid again from `path`.recover (the
 * samples up to the last checkpoint), or say it already is. Reports on
 * stderr; returns an exit code.
 */
int checkpoint_recover(const char *path);

#endif
