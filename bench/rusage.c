/* SPDX-License-Identifier: MIT */
/*
 * rusage.c - tachyon-rusage: run a command once and append its cost to a
 * file, for bench/lib.sh.
 *
 * usage: tachyon-rusage OUT CMD [ARG...]
 *
 * Appends one line "CPU_S WALL_S MAXRSS_KB": CPU is user + system time of
 * CMD (and its children) from wait4, to the microsecond (/usr/bin/time
 * prints centiseconds, and md5sum of the bench profile takes 0.05 s);
 * wall time from CLOCK_MONOTONIC; peak RSS as the kernel counts it. A
 * small C parent matters for the RSS: the kernel keeps the largest RSS a
 * process had before exec, so a command started from a Python or shell
 * child would report at least its parent's. CMD's standard output goes to
 * /dev/null, its standard error passes through. A CMD that fails or
 * cannot start makes this exit 1, so a broken case never reads as a fast
 * one.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The child: standard output to /dev/null, then CMD. */
static void start(char **cmd)
{
    int fd = open("/dev/null", O_WRONLY);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) {
        perror("tachyon-rusage: /dev/null");
        _exit(127);
    }
    close(fd);
    execvp(cmd[0], cmd);
    fprintf(stderr, "tachyon-rusage: cannot run %s\n", cmd[0]);
    _exit(127);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tachyon-rusage OUT CMD [ARG...]\n");
        return 2;
    }
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0) {
        perror("tachyon-rusage: fork");
        return 2;
    }
    if (pid == 0)
        start(argv + 2);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("tachyon-rusage: wait4");
        return 2;
    }
    double wall = now() - t0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFEXITED(status))
            fprintf(stderr, "tachyon-rusage: %s exited with %d\n", argv[2],
                    WEXITSTATUS(status));
        else
            fprintf(stderr, "tachyon-rusage: %s killed by signal %d\n", argv[2],
                    WTERMSIG(status));
        return 1;
    }
    FILE *f = fopen(argv[1], "a");
    if (!f ||
        fprintf(f, "%.6f %.6f %ld\n",
                seconds(ru.ru_utime) + seconds(ru.ru_stime), wall,
                ru.ru_maxrss) < 0 ||
        fclose(f) != 0) {
        perror(argv[1]);
        return 2;
    }
    return 0;
}
