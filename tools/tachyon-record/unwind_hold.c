/* SPDX-License-Identifier: MIT */
/*
 * unwind_hold.c - a thread that was running at the last sample is stopped
 * before this one reads it.
 *
 * A thread that runs while it is read must be paused for the read to be
 * one state of it (unwind_walk.c). Found out the usual way, a running
 * thread costs a reading of its CPU clock for its status, a read that
 * cannot be used (it ran during it), a read between two more readings of
 * its clock that cannot be used either, and then the pause. Each reading
 * of a running thread's clock interrupts its CPU (the perf counter lives
 * there); on a VM such an interrupt costs the target about as much as
 * the stop itself. A thread seen running at the last sample (read paused,
 * and on a CPU for nearly all of the interval) very likely still runs, so
 * it is asked to stop first if it still holds the GIL (free-threaded: is
 * attached), is runnable, and was last on another CPU than the recorder
 * (on the recorder's own CPU it cannot be running): the other threads'
 * statuses are read while it stops, its own clock is read once it is
 * stopped (no interrupt: a stopped thread's counter is on no CPU), and
 * it is read stopped, in one batch with any others so held. Its CPU is
 * interrupted once a sample, for the stop, instead of four times (and
 * woken once when it is let go, as before); measured, 5 interrupts of its
 * CPU a tick became 2.
 *
 * A thread that does not stop within HOLD_WAIT_NS (preempted on a busy
 * machine: it stops when it next gets a CPU, and is let go then) is read
 * the usual way, so a tick never waits long for one: a sampler that waits
 * for threads that do not run would take its samples late, when the
 * target is busy, and see the busy share too low.
 */
#include <stdlib.h>
#include <time.h>

#include "unwind.h"

/* How long a thread asked to stop is waited for (after the other threads'
 * statuses were read): a running thread stops within tens of
 * microseconds. */
#define HOLD_WAIT_NS (100 * 1000ull)
/* A thread counts as still running if it was on a CPU for this share of
 * the interval before its last sample, leaving out the time the recorder
 * held it stopped: one that ran for part of it may be waiting for a CPU
 * now (more runnable threads than CPUs), and would stop only once it gets
 * one, too late to be read stopped. */
#define HOT_SHARE 0.9

static uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool is_hot(const unwinder *u, uint64_t tid)
{
    for (uint32_t i = 0; i < u->nhot; i++)
        if (u->hot[i] == tid)
            return true;
    return false;
}

uint64_t unwind_held_for(const unwinder *u, uint64_t tid)
{
    for (uint32_t i = 0; i < u->nheld; i++)
        if ((uint64_t)u->held[i].tid == tid)
            return clock_ns() - u->held_ns[i];
    return 0;
}

bool unwind_held(const unwinder *u, uint64_t tid)
{
    for (uint32_t i = 0; i < u->nheld; i++)
        if ((uint64_t)u->held[i].tid == tid)
            return true;
    return false;
}

void unwind_hold_ask(unwinder *u)
{
    u->nheld = 0;
    if (!u->cfg.pause || u->pause_denied)
        return;
    for (uint32_t i = 0; i < u->nlisted && u->nheld < UNWIND_MAX_HOT; i++) {
        const listed_thread *l = &u->listed[i];
        uint64_t tid = unwind_u64(l->ts, u->off.ts_native_tid);
        if (!tid || !is_hot(u, tid) || !unwind_holds_gil(u, l) ||
            unwind_held(u, tid) || !tstat_running_elsewhere(u->tstat, tid))
            continue;
        thread_pause *p = &u->held[u->nheld];
        u->held_ns[u->nheld] = clock_ns();
        pause_status s = thread_pause_ask(p, u->pid, (pid_t)tid);
        if (s == PAUSE_OK)
            u->nheld++;
        else if (s == PAUSE_DENIED)
            u->pause_denied = true;
    }
}

/* Read the thread states of the held threads again, now that they are
 * stopped: the listing may have read one before its stop. */
static int refresh_states(unwinder *u)
{
    static rmem_piece p[UNWIND_MAX_HOT];
    size_t n = 0;
    for (uint32_t i = 0; i < u->nlisted && n < UNWIND_MAX_HOT; i++) {
        listed_thread *l = &u->listed[i];
        if (unwind_held(u, unwind_u64(l->ts, u->off.ts_native_tid)))
            p[n++] = (rmem_piece){l->tstate, l->ts, u->off.ts_size};
    }
    return n ? unwind_read_pieces(u->pid, p, n) : RMEM_OK;
}

/*
 * TACHYON_RECORD_TEST_HOLD_LATE (tests only: record.*.threads_late): every
 * thread that stops is let go at once and counted late, as when it
 * stops after HOLD_WAIT_NS, so the sampling of threads whose stop failed
 * is tested every tick instead of by chance.
 */
static bool test_hold_late(void)
{
    static int late = -1;
    if (late < 0)
        late = getenv("TACHYON_RECORD_TEST_HOLD_LATE") != NULL;
    return late;
}

int unwind_hold_wait(unwinder *u)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < u->nheld; i++) {
        pause_status s = thread_pause_wait(&u->held[i], HOLD_WAIT_NS);
        if (s == PAUSE_OK && test_hold_late()) {
            thread_pause_resume(&u->held[i]);
            s = PAUSE_LATE;
        }
        if (s == PAUSE_OK) {
            u->held[k] = u->held[i];
            u->held_ns[k++] = u->held_ns[i];
        } else if (s == PAUSE_LATE) {
            u->counters.held_late++;
        }
    }
    u->nheld = k;
    u->counters.held += k;
    return refresh_states(u);
}

void unwind_hold_release(unwinder *u)
{
    uint64_t now = clock_ns();
    for (uint32_t i = 0; i < u->nheld; i++) {
        thread_pause_resume(&u->held[i]);
        u->counters.pauses++;
        u->counters.pause_ns += now - u->held_ns[i];
    }
    u->nheld = 0;
}

/* Whether job j's thread ran for nearly all of the interval before its
 * sample that the recorder did not hold it stopped (this tick's pause
 * stands for the one in that interval: they take about as long). */
static bool still_running(const unwinder *u, const walk_job *j)
{
    uint64_t ran, span;
    if (!j->paused || tstat_last_run(u->tstat, j->t->tid, &ran, &span) != 0)
        return false;
    uint64_t unheld = span > j->stopped_ns ? span - j->stopped_ns : 0;
    return (double)ran >= HOT_SHARE * (double)unheld;
}

void unwind_hold_note(unwinder *u, const walk_job *jobs, uint32_t n)
{
    u->nhot = 0;
    for (uint32_t i = 0; i < n && u->nhot < UNWIND_MAX_HOT; i++)
        if (still_running(u, &jobs[i]))
            u->hot[u->nhot++] = jobs[i].t->tid;
}
