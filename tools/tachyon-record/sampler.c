/*
 * sampler.c - the sampling loop. Ticks are absolute deadlines on
 * CLOCK_MONOTONIC (clock_nanosleep TIMER_ABSTIME), so the interval does
 * not drift with the time a sample takes. When a sample overruns whole
 * intervals the missed ticks are counted and skipped rather than taken in
 * a burst. A failed walk is dropped and counted unless the target has
 * gone, which ends the recording instead.
 */
#define _GNU_SOURCE
#include "sampler.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "remote_mem.h"

/* Consecutive failed samples after which the target is given up on: it
 * no longer runs the interpreter that was located (exec, corruption). */
#define LOST_AFTER 1000

uint64_t sampler_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t deadline_ns)
{
    struct timespec ts = {(time_t)(deadline_ns / 1000000000ull),
                          (long)(deadline_ns % 1000000000ull)};
    /* EINTR (SIGINT) returns early; the loop checks the stop flag. */
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* One tick. Returns -1 when recording must end (r->end set). */
static int tick(unwinder *u, emitter *e, target *t, sampler_result *r,
                uint64_t now_ns)
{
    int rc = unwind_sample(u);
    if (rc == RMEM_GONE || (rc != RMEM_OK && !target_alive(t))) {
        r->end = SAMPLER_TARGET_EXITED;
        return -1;
    }
    if (rc == RMEM_DENIED) {
        r->end = SAMPLER_DENIED;
        return -1;
    }
    r->attempts++;
    if (rc != RMEM_OK) {
        r->failed++;
        if (++r->failed_in_row < LOST_AFTER)
            return 0;
        r->end = SAMPLER_LOST;
        return -1;
    }
    r->failed_in_row = 0;
    if (emit_sample(e, u, now_ns / 1000) != TFMT_OK) {
        r->end = SAMPLER_WRITE_ERROR;
        return -1;
    }
    r->thread_samples += u->nthreads;
    return 0;
}

/* Advance the deadline past `now`, counting whole ticks skipped. */
static uint64_t next_deadline(uint64_t deadline, uint64_t now,
                              uint64_t interval, sampler_result *r)
{
    deadline += interval;
    if (now > deadline) {
        uint64_t late = (now - deadline) / interval;
        r->missed += late;
        deadline += late * interval;
    }
    return deadline;
}

void sampler_run(unwinder *u, emitter *e, target *t,
                 const sampler_config *cfg, uint64_t start_ns,
                 volatile sig_atomic_t *stop, sampler_result *r)
{
    memset(r, 0, sizeof *r);
    r->start_ns = start_ns;
    uint64_t deadline = start_ns, reads0 = rmem_calls();
    for (;;) {
        uint64_t now = sampler_now_ns();
        if (*stop) {
            r->end = SAMPLER_SIGNAL;
            break;
        }
        if (cfg->duration_ns && now - start_ns >= cfg->duration_ns) {
            r->end = SAMPLER_DURATION;
            break;
        }
        int done = tick(u, e, t, r, now);
        uint64_t after = sampler_now_ns();
        r->busy_ns += after - now;
        if (done)
            break;
        deadline = next_deadline(deadline, after, cfg->interval_ns, r);
        sleep_until(deadline);
    }
    r->end_ns = sampler_now_ns();
    r->reads = rmem_calls() - reads0;
}

void sampler_stats(const sampler_result *r, const sampler_config *cfg,
                   tfmt_stats *out)
{
    double secs = (double)(r->end_ns - r->start_ns) / 1e9;
    double expected = secs * 1e9 / (double)cfg->interval_ns;
    memset(out, 0, sizeof *out);
    out->present = true;
    out->size = 56;
    out->version = 1;
    out->duration_s = secs;
    out->sample_rate = secs > 0 ? (double)r->attempts / secs : 0.0;
    out->error_rate = r->attempts ?
        100.0 * (double)r->failed / (double)r->attempts : 0.0;
    out->missed = 0.0;
    if (expected >= 1.0 && expected > (double)r->attempts)
        out->missed = 100.0 * (expected - (double)r->attempts) / expected;
    out->flags = TFMT_STATS_HAS_ERROR_RATE | TFMT_STATS_HAS_MISSED;
}
