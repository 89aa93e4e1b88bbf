/* SPDX-License-Identifier: MIT */
/*
 * summary.h - what tachyon-record says on stderr once a recording ends:
 * the figures, the warnings about a log that is not what was asked for,
 * how the target ended, and the command that opens the log.
 */
#ifndef TREC_SUMMARY_H
#define TREC_SUMMARY_H

#include "options.h"
#include "sampler.h"
#include "target.h"
#include "unwind.h"

/* "tachyon-record: run.bin: N ticks in S s (H Hz), N samples, ..." and,
 * with -v, the timing and cache figures. `name` is the log's name,
 * escaped. Nothing with -q. */
void summary_figures(const rec_options *o, const char *name,
                     const sampler_result *r, const unwinder *u);

/* Warnings (dropped with -q): a rate far below the one asked for, an
 * empty profile, threads that could not be paused. */
void summary_warnings(const rec_options *o, const char *name,
                      const sampler_result *r, const unwinder *u);

/*
 * The last lines, once the target was finished: how it ended ("python3
 * exited with status 3", "process 42 exited"), then the command that
 * opens the log at `path` (NULL: no log to open, as on stdout):
 * "open it with: tachyon-conv -o run.html run.bin". Nothing with -q.
 */
void summary_ending(const rec_options *o, const target *t, const char *path);

/* "python3 exited with status 0" for a started COMMAND (escaped), in
 * `buf`; for the message of a failed recording. */
void summary_how_ended(const target *t, char *buf, size_t len);

/* The shell word for `path` in a command to copy: as it is when it holds
 * only safe characters, else in single quotes (its text escaped). */
void summary_shell_word(const char *path, char *buf, size_t len);

#endif
