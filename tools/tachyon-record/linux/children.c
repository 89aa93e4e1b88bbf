/* SPDX-License-Identifier: MIT */
/*
 * children.c - descendants of a process from /proc/PID/task/TID/children
 * (every thread's children), walked breadth first; the executable a
 * process runs from /proc/PID/exe; child recorders started from
 * /proc/self/exe.
 */
#define _GNU_SOURCE
#include "children.h"

#include "proc_maps.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Append the children of every thread of `pid` to out[*n...]. */
static int add_children(pid_t pid, pid_t *out, int *n, int cap)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && *n < cap) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char file[300];
        snprintf(file, sizeof file, "/proc/%d/task/%s/children", (int)pid,
                 e->d_name);
        FILE *f = fopen(file, "r");
        if (!f)
            continue;
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[got] = '\0';
        for (char *s = buf, *end; *n < cap; s = end) {
            long v = strtol(s, &end, 10);
            if (end == s)
                break;
            out[(*n)++] = (pid_t)v;
        }
    }
    closedir(d);
    return 0;
}

int children_of(pid_t root, pid_t *out, int cap)
{
    int n = 0;
    if (add_children(root, out, &n, cap) != 0)
        return -1;
    /* Breadth first: out[] is both the result and the queue. */
    for (int i = 0; i < n && n < cap; i++)
        add_children(out[i], out, &n, cap);
    return n;
}

void children_exe(pid_t pid, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
    ssize_t got = readlink(path, buf, len - 1);
    buf[got > 0 ? got : 0] = '\0';
}

bool children_runs_python(pid_t pid, const char *exe)
{
    const char *base = strrchr(exe, '/');
    pmap_file files[4];
    if (strstr(base ? base + 1 : exe, "python"))
        return true;
    return pmap_find_files(pid, "libpython", files, 4) > 0;
}

int children_spawn_recorder(char *const argv[], pid_t *out)
{
    pid_t parent = getpid(), pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent ||
            setenv("TACHYON_RECORD_CHILD", "1", 1) != 0)
            _exit(2);
        execv("/proc/self/exe", argv);
        _exit(2);
    }
    *out = pid;
    return 0;
}
