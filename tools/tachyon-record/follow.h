/* SPDX-License-Identifier: MIT */
/*
 * follow.h - --subprocesses: a recorder for every Python process the
 * target starts (fork, exec, multiprocessing, subprocess, wrappers such
 * as `sh -c`), one log each.
 */
#ifndef TREC_FOLLOW_H
#define TREC_FOLLOW_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "options.h"

/* At most this many child recorders at a time, as CPython. */
#define FOLLOW_MAX_RECORDERS 100

/*
 * How a child recorder ends when its process turns out not to run Python
 * (it exec'd another program after the follower looked): quietly, with
 * no log; the follower looks at the process again.
 */
#define FOLLOW_EXIT_NOT_PYTHON 3

/*
 * ... and when its process, a fork recorded as such, exec'd: its log is
 * kept, and the follower looks at what the process became; if that is
 * Python, the fork's log is renamed NAME.PID.fork.bin and the new
 * program's is NAME.PID.bin.
 */
#define FOLLOW_EXIT_EXECED 4

typedef struct follow follow;

/*
 * Follow the descendants of `root` with the recording options `o` (its
 * -o names the children's logs: DIR/NAME.bin gives DIR/NAME.PID.bin).
 * `deadline_ns` (0: none) bounds the child recorders too. NULL when out
 * of memory.
 */
follow *follow_new(const rec_options *o, pid_t root, uint64_t deadline_ns);

/* Look for new Python descendants and start recorders for them; cheap to
 * call often (it looks every FOLLOW_PERIOD_NS at most). */
void follow_poll(follow *f, uint64_t now_ns);

/* Recorders started so far. */
int follow_started(const follow *f);

/*
 * End: with `stop`, ask the child recorders to finish now (SIGTERM);
 * without, let them record until their processes exit, or until
 * *stop_flag is set (a signal). Waits for them; returns how many ended
 * with an error.
 */
int follow_end(follow *f, bool stop, volatile sig_atomic_t *stop_flag);

void follow_free(follow *f);

/* The longest name a child's log may have (PATH_MAX). */
#define FOLLOW_NAME_MAX 4096

/* The log name for process `pid` under output `path` (NAME.PID.EXT) into
 * `out`; -1 when it does not fit in `len` bytes (never cut short). */
int follow_log_name(const char *path, pid_t pid, char *out, size_t len);

#endif
