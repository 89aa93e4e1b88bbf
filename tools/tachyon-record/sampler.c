/* SPDX-License-Identifier: MIT */
/*
 * sampler.c - the sampling loop. Ticks are absolute deadlines on
 * CLOCK_MONOTONIC (clock_nanosleep TIMER_ABSTIME), so the interval does
 * not drift with the time a sample takes. Each sample's lateness (wake-up
 * time minus deadline) is measured: one taken more than half an interval
 * late counts as late. After any sample the next deadline is at least
 * half an interval away, so late ticks are never taken in a burst; the
 * ticks that passed meanwhile are skipped and counted, never given the
 * stack seen after the late wake-up. Timestamps are the times the samples
 * were actually taken. A failed walk is dropped and counted unless the
 * target has gone, which ends the recording instead.
 */
#define _GNU_SOURCE
#include "sampler.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "remote_mem.h"

/* Consecutive failed ticks after which the recorder looks whether the
 * target still runs the image whose interpreter was located: it is given
 * up on only if it exec'd. A long run of failures in the same image (a
 * recursion thousands of frames deep changing faster than it can be
 * read) is counted and sampling goes on. */
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

/* One tick. Returns -1 when recording must end (r->end set), 1 when a
 * sample was written, 0 when it was not. */
static int tick(unwinder *u, emitter *e, target *t, sampler_result *r,
                uint64_t now_ns)
{
    u->now_ns = now_ns;
    int rc = unwind_sample(u);
    if (rc == RMEM_GONE || (rc != RMEM_OK && !target_alive(t))) {
        t->going = true;
        r->end = SAMPLER_TARGET_EXITED;
        return -1;
    }
    if (rc == RMEM_DENIED) {
        r->end = SAMPLER_DENIED;
        return -1;
    }
    if (rc != RMEM_OK && target_execed(t)) {
        r->end = SAMPLER_EXECED;
        return -1;
    }
    r->attempts++;
    if (rc != RMEM_OK) {
        r->failed++;
        if (++r->failed_in_row % LOST_AFTER != 0 || !target_image_changed(t))
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
    return 1;
}

static void note_lateness(sampler_result *r, uint64_t late_ns,
                          uint64_t interval_ns)
{
    uint64_t us = late_ns / 1000;
    int k = 0;
    while (k + 1 < SAMPLER_LATE_BUCKETS && us + 1 >= (2ull << k))
        k++;
    r->late_hist[k]++;
    if (late_ns > r->late_max_ns)
        r->late_max_ns = late_ns;
    if (late_ns > interval_ns / 2)
        r->late++;
}

/* The first tick deadline at least half an interval after `after`,
 * counting the ticks skipped on the way. */
static uint64_t next_deadline(uint64_t deadline, uint64_t after,
                              uint64_t interval, sampler_result *r)
{
    uint64_t earliest = after + interval / 2;
    deadline += interval;
    if (deadline < earliest) {
        uint64_t skip = (earliest - deadline + interval - 1) / interval;
        r->skipped += skip;
        deadline += skip * interval;
    }
    return deadline;
}

static bool should_stop(const sampler_config *cfg, uint64_t now,
                        volatile sig_atomic_t *stop, sampler_result *r)
{
    if (*stop) {
        r->end = SAMPLER_SIGNAL;
        return true;
    }
    if (cfg->deadline_ns && now >= cfg->deadline_ns) {
        r->end = SAMPLER_DURATION;
        return true;
    }
    return false;
}

void sampler_run(unwinder *u, emitter *e, target *t, const sampler_config *cfg,
                 uint64_t start_ns, volatile sig_atomic_t *stop,
                 sampler_hook hook, void *ctx, sampler_result *r)
{
    memset(r, 0, sizeof *r);
    r->start_ns = start_ns;
    target_note_image(t);
    uint64_t deadline = start_ns;
    for (;;) {
        uint64_t now = sampler_now_ns();
        if (should_stop(cfg, now, stop, r))
            break;
        note_lateness(r, now > deadline ? now - deadline : 0, cfg->interval_ns);
        int done = tick(u, e, t, r, now);
        if (done >= 0 && hook && hook(ctx, u, r) != 0) {
            r->end = SAMPLER_WRITE_ERROR;
            done = -1;
        }
        uint64_t after = sampler_now_ns();
        r->busy_ns += after - now;
        if (done < 0)
            break;
        deadline = next_deadline(deadline, after, cfg->interval_ns, r);
        sleep_until(deadline);
    }
    r->end_ns = sampler_now_ns();
}

double sampler_missed_pct(const sampler_result *r)
{
    uint64_t due = r->attempts + r->skipped;
    return due ? 100.0 * (double)(r->skipped + r->late) / (double)due : 0.0;
}

void sampler_stats(const sampler_result *r, tfmt_stats *out)
{
    double secs = (double)(r->end_ns - r->start_ns) / 1e9;
    memset(out, 0, sizeof *out);
    out->present = true;
    out->size = 56;
    out->version = 1;
    out->duration_s = secs;
    out->sample_rate = secs > 0 ? (double)r->attempts / secs : 0.0;
    out->error_rate =
        r->attempts ? 100.0 * (double)r->failed / (double)r->attempts : 0.0;
    out->missed = sampler_missed_pct(r);
    out->flags = TFMT_STATS_HAS_ERROR_RATE | TFMT_STATS_HAS_MISSED;
}

uint64_t sampler_late_quantile(const sampler_result *r, double q)
{
    uint64_t total = 0, seen = 0;
    for (int k = 0; k < SAMPLER_LATE_BUCKETS; k++)
        total += r->late_hist[k];
    for (int k = 0; k < SAMPLER_LATE_BUCKETS; k++) {
        seen += r->late_hist[k];
        if (total && (double)seen >= q * (double)total) {
            uint64_t bound = ((2ull << k) - 1) * 1000;
            return bound < r->late_max_ns ? bound : r->late_max_ns;
        }
    }
    return r->late_max_ns;
}
