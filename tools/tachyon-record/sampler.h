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
    SAMPLER_DENIED = 3,         /* reading the target is not permitted */
    SAMPLER_WRITE_ERROR = 4,    /* the writer failed: see its error */
    SAMPLER_LOST = 5            /* every sample fails (the target exec'd?) */
} sampler_end;

typedef struct sampler_config {
    uint64_t interval_ns;
    uint64_t duration_ns;       /* 0: until the target exits */
} sampler_config;

typedef struct sampler_result {
    sampler_end end;
    uint64_t start_ns, end_ns;  /* CLOCK_MONOTONIC */
    uint64_t attempts;          /* ticks on which a sample was taken */
    uint64_t failed;            /* dropped: a read failed or was torn */
    uint64_t failed_in_row;     /* consecutive failures, for SAMPLER_LOST */
    uint64_t missed;            /* ticks skipped because we ran late */
    uint64_t thread_samples;    /* written to the log */
    uint64_t busy_ns;           /* time spent taking + writing samples */
    uint64_t reads;             /* process_vm_readv calls */
} sampler_result;

/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t sampler_now_ns(void);

/*
 * Sample until an end condition; `stop` is set by a signal handler. The
 * writer must already be open with a start time of `start_ns` / 1000.
 */
void sampler_run(unwinder *u, emitter *e, target *t,
                 const sampler_config *cfg, uint64_t start_ns,
                 volatile sig_atomic_t *stop, sampler_result *r);

/* Fill the statistics block from a result (duration, rate, failed %,
 * missed %). */
void sampler_stats(const sampler_result *r, const sampler_config *cfg,
                   tfmt_stats *out);

#endif
