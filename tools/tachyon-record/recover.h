/* SPDX-License-Identifier: MIT */
/*
 * recover.h - --recover FILE: a log killed in the middle of a checkpoint
 * made valid again from FILE.recover.
 */
#ifndef TREC_RECOVER_H
#define TREC_RECOVER_H

/*
 * Make the log at `path` valid again from `path`.recover (the samples up
 * to the last checkpoint), or say it already is. The copy is checked
 * against the log first, the result is built in a new file and checked
 * by the reader, and only then renamed over the log: whatever fails, the
 * log stays byte for byte as it was. Reports on stderr; returns an exit
 * code (0, 1 for a log or copy that cannot be used, 2 for trouble).
 */
int checkpoint_recover(const char *path);

#endif
