/* SPDX-License-Identifier: MIT */
/*
 * tachyon-pause-cost MODE RATE PHASE_MS -- COMMAND... - what one of the
 * recorder's means of reading a running thread costs that thread, alone.
 *
 * Starts COMMAND (bench/phased_target.py) and, RATE times a second but
 * only in the even PHASE_MS phases of CLOCK_MONOTONIC, does MODE to its
 * main thread:
 *
 *   none      nothing (the phases should then cost the same)
 *   clock     read its perf task clock once (the ON_CPU status reading:
 *             the counter lives on the thread's CPU, which is interrupted)
 *   clock3    three such readings (a status and a clocked read)
 *   seize     PTRACE_SEIZE, PTRACE_INTERRUPT, wait for the stop,
 *             PTRACE_DETACH: the recorder's pause
 *   seized    PTRACE_SEIZE once at the start, then PTRACE_INTERRUPT, wait,
 *             PTRACE_CONT: a thread kept seized between pauses
 *   hold      as seize, holding the thread stopped 100 us longer (what a
 *             longer pause costs)
 *
 * COMMAND prints its extra CPU time in the phases acted in; this prints
 * the mean time the tracer spent on each act to stderr. Run it through
 * bench/pause_cost.sh.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
    struct timespec ts = {(time_t)(t / 1000000000ull),
                          (long)(t % 1000000000ull)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* A task-clock counter on thread `tid`, as thread_status.c opens it. */
static int open_clock(pid_t tid)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1,
                        PERF_FLAG_FD_CLOEXEC);
}

/* Wait for the traced thread to stop, as thread_pause.c does (polls
 * without sleeping first). 0 stopped, -1 gone. */
static int wait_stop(pid_t tid)
{
    uint64_t start = now_ns();
    struct timespec step = {0, 5 * 1000};
    for (;;) {
        int status;
        pid_t r = waitpid(tid, &status, WNOHANG | __WALL);
        if (r == tid)
            return WIFSTOPPED(status) ? 0 : -1;
        if (r < 0)
            return -1;
        if (now_ns() - start > 60 * 1000)
            nanosleep(&step, NULL);
    }
}

static void hold(uint64_t ns)
{
    uint64_t end = now_ns() + ns;
    while (now_ns() < end)
        ;
}

/* One act of `mode` on `tid`; -1 when the child is gone. */
static int act(const char *mode, pid_t tid, int clock_fd)
{
    uint64_t v;
    int reads = !strcmp(mode, "clock") ? 1 : !strcmp(mode, "clock3") ? 3 : 0;
    for (int i = 0; i < reads; i++)
        if (read(clock_fd, &v, sizeof v) != sizeof v)
            return -1;
    bool seized = !strcmp(mode, "seized");
    if (reads || !strcmp(mode, "none"))
        return 0;
    if (!seized && ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0)
        return -1;
    if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) != 0 || wait_stop(tid) != 0)
        return -1;
    if (!strcmp(mode, "hold"))
        hold(100 * 1000);
    return ptrace(seized ? PTRACE_CONT : PTRACE_DETACH, tid, NULL, NULL) ? -1
                                                                         : 0;
}

static bool exited(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
           si.si_pid == pid;
}

/* Act at `rate` Hz in the even phases until the child exits. */
static void run(const char *mode, pid_t child, uint64_t rate, uint64_t phase)
{
    int clock_fd = open_clock(child);
    uint64_t acts = 0, spent = 0, deadline = now_ns();
    if (!strcmp(mode, "seized") && ptrace(PTRACE_SEIZE, child, NULL, NULL))
        perror("pause_cost: PTRACE_SEIZE");
    while (!exited(child)) {
        deadline += 1000000000ull / rate;
        sleep_until(deadline);
        uint64_t t0 = now_ns();
        if ((t0 / phase) % 2 != 0)
            continue;
        if (act(mode, child, clock_fd) != 0)
            break;
        spent += now_ns() - t0;
        acts++;
    }
    if (!strcmp(mode, "seized"))
        ptrace(PTRACE_DETACH, child, NULL, NULL);
    fprintf(stderr, "%s: %llu acts, %.1f us each in the tracer\n", mode,
            (unsigned long long)acts,
            acts ? (double)spent / 1e3 / (double)acts : 0.0);
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"none",  "clock",  "clock3",
                                        "seize", "seized", "hold"};
    bool known = false;
    for (size_t i = 0; argc > 1 && i < sizeof modes / sizeof *modes; i++)
        if (!strcmp(argv[1], modes[i]))
            known = true;
    if (argc < 6 || !known || strcmp(argv[4], "--") != 0) {
        fprintf(stderr, "usage: tachyon-pause-cost none|clock|clock3|seize|"
                        "seized|hold RATE PHASE_MS -- COMMAND...\n");
        return 2;
    }
    uint64_t rate = strtoull(argv[2], NULL, 10);
    uint64_t phase = strtoull(argv[3], NULL, 10) * 1000000ull;
    if (!rate || !phase)
        return 2;
    pid_t child = fork();
    if (child == 0) {
        execvp(argv[5], argv + 5);
        _exit(127);
    }
    prctl(PR_SET_TIMERSLACK, 1ul, 0ul, 0ul, 0ul);
    usleep(50 * 1000); /* the interpreter starts */
    run(argv[1], child, rate, phase);
    /* A child that exited while traced may have been reaped by the wait
     * for its stop already. */
    int status;
    if (waitpid(child, &status, 0) != child)
        return 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
