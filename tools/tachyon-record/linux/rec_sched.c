/* SPDX-License-Identifier: MIT */
/*
 * rec_sched.c - scheduling for the recorder. On a busy machine a sampler
 * that sleeps between ticks is woken late, and it tends to get the CPU
 * exactly when the target stops running (a sleep, a lock, I/O), so late
 * samples see the target idle: a bias, not just noise. What helps is a
 * short time slice: with EEVDF (Linux 6.6+) a task asking for a short
 * slice gets an early deadline and preempts at wake-up. Since Linux 6.12
 * any task may ask for one for itself through sched_setattr() with
 * SCHED_OTHER and sched_runtime (here 100 us, the kernel's minimum).
 * Fallbacks, in order: SCHED_FIFO at the lowest real-time priority where
 * permitted (root, CAP_SYS_NICE, RLIMIT_RTPRIO), then the highest nice
 * value permitted. Every setting resets on fork, so a started target or a
 * child recorder begins with default scheduling.
 */
#define _GNU_SOURCE
#include "rec_sched.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SLICE_NS 100000u
#define FLAG_RESET_ON_FORK 0x01u

/* struct sched_attr of <linux/sched/types.h>, first version (48 bytes). */
typedef struct rec_sched_attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
} rec_sched_attr;

static int set_attr(rec_sched_attr *a)
{
    a->size = sizeof *a;
    return (int)syscall(SYS_sched_setattr, 0, a, 0);
}

static int get_attr(rec_sched_attr *a)
{
    memset(a, 0, sizeof *a);
    return (int)syscall(SYS_sched_getattr, 0, a, sizeof *a, 0);
}

/* A short EEVDF slice; the kernel reports it back only where it is
 * honoured (6.12+), older kernels ignore the field. */
static int short_slice(void)
{
    rec_sched_attr a = {0};
    a.policy = SCHED_OTHER;
    a.flags = FLAG_RESET_ON_FORK;
    a.nice = getpriority(PRIO_PROCESS, 0);
    a.runtime = SLICE_NS;
    if (set_attr(&a) != 0 || get_attr(&a) != 0)
        return -1;
    return a.runtime == SLICE_NS ? 0 : -1;
}

static int fifo(void)
{
    struct sched_param p = {sched_get_priority_min(SCHED_FIFO)};
    return sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &p);
}

/* The most favourable nice value permitted, if better than now. */
static int best_nice(int *got)
{
    int now = getpriority(PRIO_PROCESS, 0);
    for (int want = -10; want < now; want++) {
        if (setpriority(PRIO_PROCESS, 0, want) == 0) {
            *got = want;
            return 0;
        }
    }
    return -1;
}

int rec_sched_setup(char *what, size_t len)
{
    int nice;
    /* For measuring what the scheduling buys (bench/record_bench.sh). */
    if (getenv("TACHYON_RECORD_DEFAULT_SCHED")) {
        snprintf(what, len,
                 "default scheduling "
                 "(TACHYON_RECORD_DEFAULT_SCHED)");
        return -1;
    }
    /* Timers of the recorder fire on time, not up to 50 us late (the
     * default slack): the ticks, and the short waits for a paused thread
     * (thread_pause.c). */
    prctl(PR_SET_TIMERSLACK, 1ul, 0ul, 0ul, 0ul);
    if (short_slice() == 0) {
        snprintf(what, len, "short time slice (sched_setattr, %u us)",
                 SLICE_NS / 1000);
        return 0;
    }
    if (fifo() == 0) {
        snprintf(what, len,
                 "SCHED_FIFO priority %d (no short time "
                 "slice before Linux 6.12)",
                 sched_get_priority_min(SCHED_FIFO));
        return 0;
    }
    if (best_nice(&nice) == 0) {
        snprintf(what, len,
                 "nice %d (no short time slice before Linux "
                 "6.12, no SCHED_FIFO permitted)",
                 nice);
        return 0;
    }
    snprintf(what, len,
             "default scheduling (no short time slice, "
             "SCHED_FIFO or lower nice permitted: samples may be late "
             "on a busy machine)");
    return -1;
}

void rec_sched_reset(void)
{
    prctl(PR_SET_TIMERSLACK, 0ul, 0ul, 0ul, 0ul); /* the default again */
    rec_sched_attr a = {0};
    a.policy = SCHED_OTHER;
    a.nice = getpriority(PRIO_PROCESS, 0);
    set_attr(&a);
}
