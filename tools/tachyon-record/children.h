/* SPDX-License-Identifier: MIT */
/*
 * children.h - the processes a target starts, and recorders for them.
 */
#ifndef TREC_CHILDREN_H
#define TREC_CHILDREN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * The descendants of `root` (children, grandchildren, ...), up to `cap`
 * of them, in no particular order. Returns how many, or -1 if `root`'s
 * children cannot be read (it exited).
 */
int children_of(pid_t root, pid_t *out, int cap);

/* The program a process runs now (/proc/PID/exe), "" if unknown. */
void children_exe(pid_t pid, char *buf, size_t len);

/* Whether process `pid`, running `exe`, runs Python: by the executable's
 * name, or a mapped libpython (a program embedding Python). */
bool children_runs_python(pid_t pid, const char *exe);

/*
 * Start another tachyon-record (this executable) with `argv`; it gets
 * SIGTERM if this process dies, so it finalizes its log. 0 or -1.
 */
int children_spawn_recorder(char *const argv[], pid_t *out);

#endif
