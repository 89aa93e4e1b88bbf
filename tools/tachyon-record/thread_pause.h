/* SPDX-License-Identifier: MIT */
/*
 * thread_pause.h - stop one thread of the target for the length of a
 * read, so that the stack read is one state it was in.
 *
 * A stop is asked for, then waited for: a thread expected to be running
 * is asked before the tick's other reads and its stop collected after
 * them, so that the few microseconds a running thread takes to stop are
 * not waited for. A thread that has not stopped when it is waited for
 * (preempted, or asleep in the kernel) is let go as soon as it stops.
 */
#ifndef TREC_THREAD_PAUSE_H
#define TREC_THREAD_PAUSE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum {
    PAUSE_OK = 0, /* asked (thread_pause_ask), stopped (the others) */
    PAUSE_DENIED, /* not permitted (or not supported): read it running */
    PAUSE_GONE,   /* the thread exited, or is still stopping from before */
    PAUSE_SYSTEM, /* an unexpected error */
    PAUSE_LATE    /* thread_pause_wait: not stopped in time; let go when it
                     stops */
} pause_status;

/* A paused thread: what thread_pause_resume() needs. */
typedef struct thread_pause {
    pid_t pid, tid;
    int signal;   /* a signal it stopped for, delivered again on resume */
    bool stopped; /* its stop was seen */
} thread_pause;

/* Ask thread `tid` of process `pid` to stop, without waiting for it. A
 * thread still stopping from an earlier pause is taken over. */
pause_status thread_pause_ask(thread_pause *p, pid_t pid, pid_t tid);

/* Wait at most `wait_ns` for an asked thread to stop: PAUSE_OK (read it,
 * then thread_pause_resume), PAUSE_GONE (it exited) or PAUSE_LATE (it is
 * let go when it stops; p is done with). */
pause_status thread_pause_wait(thread_pause *p, uint64_t wait_ns);

/* Ask and wait a few milliseconds: PAUSE_LATE is reported as PAUSE_GONE. */
pause_status thread_pause_stop(thread_pause *p, pid_t pid, pid_t tid);

/* Let it run again. */
void thread_pause_resume(thread_pause *p);

/* Let go of threads that could not be stopped in time and have stopped
 * since (called at every sample: such a thread must not stay stopped). */
void thread_pause_tidy(void);

/* How many threads are still to be let go when they stop. */
int thread_pause_lingering(void);

#endif
