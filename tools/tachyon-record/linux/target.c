/*
 * target.c - process lifecycle. A spawned child is sampled until it exits;
 * an attached process is only ever read, never signalled.
 */
#define _GNU_SOURCE
#include "target.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int target_spawn(target *t, char *const argv[])
{
    memset(t, 0, sizeof *t);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        execvp(argv[0], argv);
        fprintf(stderr, "tachyon-record: %s: %s\n", argv[0],
                strerror(errno));
        _exit(127);
    }
    t->pid = pid;
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

/* Scheduler state letter of a process, or 0 if it is gone. */
static char proc_state(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    return paren && paren[1] == ' ' ? paren[2] : 0;
}

bool target_alive(target *t)
{
    if (t->exited)
        return false;
    if (t->spawned) {
        pid_t r = waitpid(t->pid, &t->wait_status, WNOHANG);
        if (r == t->pid || (r < 0 && errno == ECHILD))
            t->exited = true;
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
    if (grace_ms > 0 && wait_exit(t, grace_ms))
        return;
    kill(t->pid, SIGTERM);
    if (wait_exit(t, 2000))
        return;
    kill(t->pid, SIGKILL);
    waitpid(t->pid, &t->wait_status, 0);
    t->exited = true;
}
