/* SPDX-License-Identifier: MIT */
/*
 * target.c - process lifecycle. A spawned child is sampled until it exits
 * and dies with the recorder (PR_SET_PDEATHSIG), so a killed recorder
 * leaves no orphan running; an attached process is only ever read, never
 * signalled.
 */
#define _GNU_SOURCE
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rec_sched.h"

/* In the child: prepare, exec, and on failure send errno up the pipe. */
static void exec_child(char *const argv[], int report_fd, pid_t parent,
                       bool silent)
{
    int null = silent ? open("/dev/null", O_RDWR | O_CLOEXEC) : -1;
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
    }
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(127); /* the recorder is already gone */
    rec_sched_reset();
    execvp(argv[0], argv);
    int e = errno;
    if (write(report_fd, &e, sizeof e) != (ssize_t)sizeof e)
        _exit(127);
    _exit(127);
}

int target_spawn(target *t, char *const argv[], bool silent)
{
    int fds[2], e;
    memset(t, 0, sizeof *t);
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) {
        e = errno;
        close(fds[0]);
        close(fds[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        exec_child(argv, fds[1], parent, silent);
    }
    close(fds[1]);
    /* The pipe closes on a successful exec; an errno means it failed. */
    ssize_t got;
    do
        got = read(fds[0], &e, sizeof e);
    while (got < 0 && errno == EINTR);
    close(fds[0]);
    if (got == (ssize_t)sizeof e) {
        waitpid(pid, NULL, 0);
        errno = e;
        return -1;
    }
    t->pid = pid;
    t->name = argv[0];
    t->spawned = true;
    return 0;
}

int target_attach(target *t, pid_t pid)
{
    memset(t, 0, sizeof *t);
    if (pid <= 0 || (kill(pid, 0) != 0 && errno == ESRCH)) {
        errno = ESRCH;
        return -1;
    }
    t->pid = pid;
    return 0;
}

/* /proc/PID/stat after the command name ("S ppid ..."), in buf; NULL if
 * the process is gone. */
static const char *proc_stat(pid_t pid, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    return paren && paren[1] == ' ' && paren[2] ? paren + 2 : NULL;
}

/* Scheduler state letter of a process, or 0 if it is gone. */
static char proc_state(pid_t pid)
{
    char buf[512];
    const char *s = proc_stat(pid, buf, sizeof buf);
    return s ? s[0] : 0;
}

#define PF_FORKNOEXEC_BIT 0x40u /* include/linux/sched.h */

bool target_forked_unexeced(pid_t pid)
{
    char buf[512];
    const char *s = proc_stat(pid, buf, sizeof buf);
    char state;
    unsigned flags = 0;
    int ppid, pgrp, session, tty, tpgid;
    /* state ppid pgrp session tty_nr tpgid flags */
    if (!s || sscanf(s, "%c %d %d %d %d %d %u", &state, &ppid, &pgrp, &session,
                     &tty, &tpgid, &flags) != 7)
        return false;
    return (flags & PF_FORKNOEXEC_BIT) != 0;
}

/* Fields 28 (startstack) and 48 (arg_start) of /proc/PID/stat; false
 * if the process is gone or the kernel hides them (0 without ptrace
 * access). */
static bool image_of(pid_t pid, uint64_t *stack, uint64_t *args)
{
    char buf[1024];
    const char *s = proc_stat(pid, buf, sizeof buf);
    if (!s)
        return false;
    /* s starts at field 3 (state); skip to field 28, then to field 48 */
    unsigned long long v = 0;
    int field = 3;
    *stack = *args = 0;
    for (const char *p = s; *p; p++) {
        if (*p != ' ')
            continue;
        field++;
        if ((field == 28 || field == 48) && sscanf(p + 1, "%llu", &v) == 1)
            *(field == 28 ? stack : args) = v;
        if (field == 48)
            break;
    }
    return *stack != 0 && *args != 0;
}

void target_note_image(target *t)
{
    if (!image_of(t->pid, &t->image_stack, &t->image_args))
        t->image_stack = t->image_args = 0;
}

bool target_image_changed(const target *t)
{
    uint64_t stack, args;
    if (t->image_stack == 0 || !image_of(t->pid, &stack, &args))
        return false;
    return stack != t->image_stack || args != t->image_args;
}

bool target_execed(const target *t)
{
    return t->fork_image && !target_forked_unexeced(t->pid) &&
           proc_state(t->pid) != 0;
}

/*
 * Whether the started target has exited, reaping it if so. Only an exit
 * is taken: a thread the recorder paused (thread_pause.c) reports its
 * stop to the same wait, whatever the options, and that report is left
 * for the pause to collect.
 */
static bool reap_exit(target *t, bool block)
{
    siginfo_t si;
    for (;;) {
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)t->pid, &si,
                   WEXITED | WNOWAIT | (block ? 0 : WNOHANG)) != 0)
            return errno == ECHILD;
        if (si.si_pid == 0)
            return false;
        if (si.si_code == CLD_EXITED || si.si_code == CLD_KILLED ||
            si.si_code == CLD_DUMPED)
            return waitpid(t->pid, &t->wait_status, WNOHANG) == t->pid;
        if (!block)
            return false;
        struct timespec step = {0, 1000 * 1000};
        nanosleep(&step, NULL); /* a stop the pause will collect */
    }
}

bool target_alive(target *t)
{
    if (t->exited)
        return false;
    if (t->spawned) {
        t->exited = reap_exit(t, false);
        return !t->exited;
    }
    char s = proc_state(t->pid);
    if (s == 0 || s == 'Z' || s == 'X')
        t->exited = true;
    return !t->exited;
}

static bool wait_exit(target *t, int ms)
{
    struct timespec step = {0, 10 * 1000 * 1000};
    for (int waited = 0; waited < ms; waited += 10) {
        if (!target_alive(t))
            return true;
        nanosleep(&step, NULL);
    }
    return !target_alive(t);
}

void target_finish(target *t, int grace_ms)
{
    if (!t->spawned || !target_alive(t))
        return;
    if (t->going && grace_ms < 1000)
        grace_ms = 1000;
    if (grace_ms > 0 && wait_exit(t, grace_ms))
        return;
    t->ended_by = SIGTERM;
    kill(t->pid, SIGTERM);
    if (wait_exit(t, 2000))
        return;
    t->ended_by = SIGKILL;
    kill(t->pid, SIGKILL);
    reap_exit(t, true);
    t->exited = true;
}
