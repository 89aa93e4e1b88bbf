/* SPDX-License-Identifier: MIT */
/*
 * log_out.h - the log a recording writes: opened through the library's
 * sink, checkpointed while the recording runs, finished at its end.
 */
#ifndef TREC_LOG_OUT_H
#define TREC_LOG_OUT_H

#include <stdbool.h>
#include <stdint.h>

#include <tachyon/fmt.h>

#include "checkpoint.h"
#include "options.h"
#include "sampler.h"

typedef struct log_out {
    const char *path; /* as given ("-": stdout) */
    char name[600];   /* escaped, for messages */
    bool in_place;    /* a file of its own, written in place: a valid log
                         after every checkpoint (else: stdout, a FIFO, a
                         device, written once at the end) */
    tfmt_sink *sink;
    tfmt_bin_writer *w;
    checkpoint cp;
} log_out;

/*
 * Before the target is started: an output that exists (as a file, or a
 * link) is refused without --force, as in tachyon-conv; stdout ("-"), a
 * FIFO or a device is written as it is. Reports; returns an exit code.
 */
int log_out_check(const rec_options *o, const char *path);

/*
 * Open the log at `path` for a CPython `hexversion` recording started at
 * `start_ns` (monotonic) and, written in place, make it a valid empty log
 * at once (the first checkpoint). Reports; returns an exit code. Close
 * `l` whatever it returns.
 */
int log_out_open(log_out *l, const rec_options *o, const char *path,
                 uint32_t hexversion, uint64_t start_ns);

/* A checkpoint with the figures as of `r` (in place only; a no-op
 * otherwise). Reports; returns an exit code. */
int log_out_checkpoint(log_out *l, const rec_options *o,
                       const sampler_result *r);

/* Statistics, tables, header; the file gets its name; the checkpoint
 * copy goes. Reports; returns an exit code. */
int log_out_finish(log_out *l, const rec_options *o, const sampler_result *r);

/* Release; a log not finished stays as its last checkpoint left it. */
void log_out_close(log_out *l);

#endif
