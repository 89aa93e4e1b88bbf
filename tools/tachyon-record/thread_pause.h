/* SPDX-License-Identifier: MIT */
/*
 * thread_pause.h - stop one thread of the target for the length of a
 * read, so that the stack read is one state it was in.
 */
#ifndef TREC_THREAD_PAUSE_H
#define TREC_THREAD_PAUSE_H

#include <sys/types.h>

typedef enum {
    PAUSE_OK = 0, /* stopped: read it, then thread_resume() */
    PAUSE_DENIED, /* not permitted (or not supported): read it running */
    PAUSE_GONE,   /* the thread exited or could not be stopped in time */
    PAUSE_SYSTEM  /* an unexpected error */
} pause_status;

/* A paused thread: what thread_resume() needs. */
typedef struct thread_pause {
    pid_t tid;
    int signal; /* a signal it stopped for, delivered again on resume */
} thread_pause;

/* Stop thread `tid` of process `pid`, waiting at most a few
 * milliseconds. */
pause_status thread_pause_stop(thread_pause *p, pid_t pid, pid_t tid);

/* Let it run again. */
void thread_pause_resume(thread_pause *p);

/* Let go of threads that could not be stopped in time and have stopped
 * since (called at every sample: such a thread must not stay stopped). */
void thread_pause_tidy(void);

#endif
