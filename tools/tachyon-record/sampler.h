/* SPDX-License-Identifier: MIT */
/*
 * sampler.h - the sampling loop: steady ticks on the monotonic clock
 * until the target exits, the duration ends or a stop is requested.
 */
#ifndef TREC_SAMPLER_H
#define TREC_SAMPLER_H

#include <signal.h>
#include <stdint.h>

#include "emit.h"
#include "target.h"
#include "unwind.h"

typedef enum {
    SAMPLER_TARGET_EXITED = 0,
    SAMPLER_DURATION = 1,
    SAMPLER_SIGNAL = 2,
    SAMPLER_DENIED = 3,      /* reading the target is not permitted */
    SAMPLER_WRITE_ERROR = 4, /* the writer failed: see its error */
    SAMPLER_LOST = 5,        /* every sample fails (the target exec'd?) */
    SAMPLER_EXECED = 6       /* a fork image was located, then it exec'd */
} sampler_end;

/* Lateness histogram: bucket k counts samples late by [2^k - 1, 2^(k+1)
 * - 1) microseconds (bucket 0: under 1 us). */
#define SAMPLER_LATE_BUCKETS 24

typedef struct sampler_config {
    uint64_t interval_ns;
    uint64_t deadline_ns; /* monotonic end (--duration), 0: none */
} sampler_config;

typedef struct sampler_result {
    sampler_end end;
    uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC */
    uint64_t attempts;         /* ticks on which a sample was taken */
    uint64_t failed;           /* dropped: a read failed or was torn */
    uint64_t failed_in_row;    /* consecutive failures, for SAMPLER_LOST */
    uint64_t skipped;          /* ticks not taken because we ran late */
    uint64_t late;             /* taken over half an interval late */
    uint64_t thread_samples;   /* written to the log */
    uint64_t busy_ns;          /* time spent taking + writing samples */
    uint64_t late_max_ns;
    uint64_t late_hist[SAMPLER_LATE_BUCKETS];
} sampler_result;

/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t sampler_now_ns(void);

/*
 * Called after every tick (checkpoints, the live view, following
 * children); a non-zero return ends the run with SAMPLER_WRITE_ERROR.
 */
typedef int (*sampler_hook)(void *ctx, const unwinder *u,
                            const sampler_result *r);

/*
 * Sample until an end condition; `stop` is set by a signal handler. The
 * writer must already be open with a start time of `start_ns` / 1000.
 * `hook` may be NULL.
 */
void sampler_run(unwinder *u, emitter *e, target *t, const sampler_config *cfg,
                 uint64_t start_ns, volatile sig_atomic_t *stop,
                 sampler_hook hook, void *ctx, sampler_result *r);

/* Fill the statistics block from a result: duration, achieved rate,
 * failed samples, and as missed the ticks skipped or taken late. */
void sampler_stats(const sampler_result *r, tfmt_stats *out);

/* Missed ticks (skipped or late) as a percentage of those due. */
double sampler_missed_pct(const sampler_result *r);

/* The lateness below which a fraction `q` of the samples fall, in ns
 * (from the histogram: an upper bound within a factor of 2). */
uint64_t sampler_late_quantile(const sampler_result *r, double q);

#endif
