/* SPDX-License-Identifier: MIT */
/*
 * checkpoint.h - a recording that survives being killed: the log is
 * written out whole every second, and a copy of its end kept beside it
 * (FILE.recover) for a kill in the middle of writing it; --recover
 * (recover.h) puts that copy back.
 */
#ifndef TREC_CHECKPOINT_H
#define TREC_CHECKPOINT_H

#include <stddef.h>

/* Seconds between checkpoints. */
#define CHECKPOINT_PERIOD_NS 1000000000ull

typedef struct checkpoint {
    char *copy; /* PATH.recover */
    int fd;     /* the log, read-only: the file the writer's sink made */
} checkpoint;

/*
 * Start keeping checkpoints for the log just created at `path`: it is
 * opened for reading once, now (not through a link, a regular file), so
 * that every copy is taken from the file the recorder writes, whatever
 * the name comes to point at later. 0, or -1 with errno.
 */
int checkpoint_open(checkpoint *c, const char *path);

/*
 * After a checkpoint is on disk (written and synced): copy its header and
 * trailer (tables, statistics, footer) into PATH.recover through a sink
 * (a new temporary file, synced, renamed over the old copy, so the copy
 * is always one whole checkpoint and a link there is replaced, not
 * followed). 0, or -1 with the reason (one line) in `why`.
 */
int checkpoint_save(checkpoint *c, char *why, size_t why_len);

/* Remove PATH.recover (after a normal finish). */
void checkpoint_discard(const checkpoint *c);

/* Release (the copy stays on disk). */
void checkpoint_close(checkpoint *c);

#endif
