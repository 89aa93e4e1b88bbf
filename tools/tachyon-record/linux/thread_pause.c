/* SPDX-License-Identifier: MIT */
/*
 * thread_pause.c - pause one thread with ptrace for the length of a read.
 *
 * A thread that runs Python code while its frame stack is copied can be
 * copied half before and half after a return and a call, and the walk
 * then joins frames of two moments: a stack that never existed. A thread
 * that holds no GIL cannot change its frames (unwind_walk.c proves that
 * from the GIL's switch count); the one that runs is stopped here, as
 * py-spy does by default for the whole process.
 *
 * PTRACE_SEIZE attaches without stopping or sending a signal, and
 * PTRACE_INTERRUPT stops the thread wherever it is; a system call in
 * progress is restarted after the detach. Any stop will do for reading:
 * if the thread stopped for a signal instead, the signal is handed back on
 * detach (detaching also drops the interrupt still pending). Exits are
 * only looked at with WNOWAIT, so the recorder's own wait for a started
 * target still sees its exit status.
 *
 * The stop is asked for (PTRACE_SEIZE, PTRACE_INTERRUPT) and waited for
 * separately, so that a caller can ask before other work and collect the
 * stop after it. A thread that has not stopped when it is waited for
 * stays seized with the interrupt pending ("lingering") and is let go when
 * it stops, or taken over by the next ask for it, its stop then serving
 * that pause. Seizing and detaching at every pause, rather than keeping
 * the thread seized, costs the recorder two system calls (a few
 * microseconds) and the target nothing measurable, and leaves the target
 * untraced between samples: its signals, stops and exec go on as without
 * the recorder, and a debugger can attach to it.
 */
#define _GNU_SOURCE
#include "thread_pause.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

/* How long a running thread may take to stop: an IPI and a reschedule
 * take microseconds; a thread in uninterruptible sleep does not run
 * Python code, and is given up on. */
#define STOP_WAIT_NS (20 * 1000 * 1000ull)
/* Waiting for a stop polls without sleeping this long first: a running
 * thread stops within tens of microseconds, and a sleep between polls
 * would add the recorder's own wake-up (on a VM, an idle CPU's halt and
 * wake) to every pause. The polls yield the CPU between them. */
#define SPIN_NS (60 * 1000ull)

static unsigned long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull +
           (unsigned long long)ts.tv_nsec;
}

/* 1: stopped (its signal in *sig, 0 for the interrupt or a group stop),
 * 0: not yet, -1: exited or gone. A thread of process `pid` that exited
 * while seized waits for its tracer to reap it, and until it is, the
 * process's own exit is never reported: it is reaped here. The main
 * thread's exit is the process's, left for whoever waits for that. */
static int poll_stop(pid_t pid, pid_t tid, int *sig)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)tid, &si,
               WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL) < 0)
        return -1;
    if (si.si_pid == 0)
        return 0;
    int status;
    if (si.si_code != CLD_TRAPPED && si.si_code != CLD_STOPPED) {
        if (tid != pid)
            waitpid(tid, &status, WNOHANG | __WALL);
        return -1;
    }
    if (waitpid(tid, &status, WNOHANG | __WALL) != tid || !WIFSTOPPED(status))
        return -1;
    /* A signal-delivery stop carries the signal; an interrupt or a
     * group stop is a PTRACE_EVENT_STOP (status >> 16). */
    *sig = (status >> 16) == 0 ? WSTOPSIG(status) : 0;
    return 1;
}

/* Threads seized that did not stop in time: each stops when it leaves
 * its uninterruptible sleep or gets a CPU, and must then be let go. */
#define MAX_LINGERING 16
static pid_t lingering[MAX_LINGERING], lingering_pid[MAX_LINGERING];
static int nlingering;
/* Threads asked to stop and not yet resumed or lingering: each may join
 * the lingering ones, so there must be room for all. */
static int nasked;

static void drop_lingering(int i)
{
    nlingering--;
    lingering[i] = lingering[nlingering];
    lingering_pid[i] = lingering_pid[nlingering];
}

static void linger(pid_t pid, pid_t tid)
{
    lingering_pid[nlingering] = pid;
    lingering[nlingering++] = tid;
}

void thread_pause_tidy(void)
{
    for (int i = nlingering; i-- > 0;) {
        int sig = 0, r = poll_stop(lingering_pid[i], lingering[i], &sig);
        if (r > 0)
            ptrace(PTRACE_DETACH, lingering[i], NULL, (void *)(long)sig);
        if (r != 0)
            drop_lingering(i);
    }
}

int thread_pause_lingering(void)
{
    return nlingering;
}

/* Take over p->tid if it is lingering: 1 taken (p->stopped says whether
 * it stopped already), 0 not lingering, -1 it exited. */
static int take_lingering(thread_pause *p)
{
    for (int i = 0; i < nlingering; i++) {
        if (lingering[i] != p->tid)
            continue;
        int r = poll_stop(p->pid, p->tid, &p->signal);
        drop_lingering(i);
        p->stopped = r > 0;
        return r < 0 ? -1 : 1;
    }
    return 0;
}

/* Whether thread `tid` of `pid` is exiting or gone (the kernel refuses
 * to attach to one with EPERM, as it refuses a tracer it does not
 * permit). */
static bool exiting(pid_t pid, pid_t tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    FILE *f = fopen(path, "re");
    if (!f)
        return true;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    return !paren || paren[1] != ' ' || paren[2] == 'Z' || paren[2] == 'X';
}

static pause_status seize_error(pid_t pid, pid_t tid)
{
    int e = errno;
    if (e == ESRCH || (e == EPERM && exiting(pid, tid)))
        return PAUSE_GONE;
    if (e == EPERM || e == ENOSYS || e == EIO)
        return PAUSE_DENIED;
    return PAUSE_SYSTEM;
}

pause_status thread_pause_ask(thread_pause *p, pid_t pid, pid_t tid)
{
    *p = (thread_pause){.pid = pid, .tid = tid};
    int taken = take_lingering(p);
    if (taken < 0)
        return PAUSE_GONE;
    if (taken == 0) {
        if (nlingering + nasked >= MAX_LINGERING)
            thread_pause_tidy();
        if (nlingering + nasked >= MAX_LINGERING)
            return PAUSE_GONE; /* until some of them stop */
        if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0)
            return seize_error(pid, tid);
        if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) != 0) {
            linger(pid, tid); /* exiting: its exit is reaped by the tidy */
            return PAUSE_GONE;
        }
    }
    nasked++;
    return PAUSE_OK;
}

pause_status thread_pause_wait(thread_pause *p, uint64_t wait_ns)
{
    unsigned long long start = now_ns(), t = start;
    struct timespec step = {0, 5 * 1000};
    while (!p->stopped) {
        int r = poll_stop(p->pid, p->tid, &p->signal);
        if (r < 0) {
            nasked--;
            return PAUSE_GONE; /* exited: the tracee link went with it */
        }
        p->stopped = r > 0;
        if (p->stopped)
            break;
        t = now_ns();
        if (t - start > wait_ns) {
            /* A tracee that has not stopped cannot be detached: it is
             * let go when it stops (thread_pause_tidy, at every sample),
             * or when the recorder exits. */
            nasked--;
            linger(p->pid, p->tid);
            return PAUSE_LATE;
        }
        /* Polling yields the CPU to a thread that may be waiting for it
         * (the one asked to stop, preempted by the recorder), without
         * sleeping; then it sleeps (the recorder's timer slack is 1 ns:
         * rec_sched.c). */
        if (t - start > SPIN_NS)
            nanosleep(&step, NULL);
        else
            sched_yield();
    }
    return PAUSE_OK;
}

pause_status thread_pause_stop(thread_pause *p, pid_t pid, pid_t tid)
{
    pause_status s = thread_pause_ask(p, pid, tid);
    if (s == PAUSE_OK)
        s = thread_pause_wait(p, STOP_WAIT_NS);
    return s == PAUSE_LATE ? PAUSE_GONE : s;
}

void thread_pause_resume(thread_pause *p)
{
    nasked--;
    ptrace(PTRACE_DETACH, p->tid, NULL, (void *)(long)p->signal);
}
