/* SPDX-License-Identifier: MIT */
/*
 * test_pyrepr_python.c - tfmt__pyrepr against Python's own repr, value by
 * value: the doubles of pyrepr_values.h are piped in batches to
 * pyrepr_oracle.py (python3 from PATH, or $PYTHON) and every line it
 * prints must equal our repr; a value that is a whole number of
 * microseconds over 1000 must also come out the same through
 * tfmt__pyrepr_millis. Skips (exit 77) without a Python.
 *
 * usage: test_pyrepr_python ORACLE.py [COUNT [SEED]]
 *   COUNT defaults to 1000000; SEED picks another reproducible stream.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "pyrepr.h"
#include "pyrepr_values.h"

#define BATCH 65536
#define SHOW_MAX 20

typedef struct oracle {
    pid_t pid;
    int to;     /* its stdin */
    FILE *from; /* its stdout */
} oracle;

static int oracle_start(oracle *o, const char *script)
{
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0)
        return -1;
    o->pid = fork();
    if (o->pid < 0)
        return -1;
    if (o->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        const char *py = getenv("PYTHON");
        py = py && *py ? py : "python3";
        execlp(py, py, script, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    o->to = in[1];
    o->from = fdopen(out[0], "r");
    return o->from ? 0 : -1;
}

/* Exit status of the oracle once its input is closed. */
static int oracle_stop(oracle *o)
{
    if (o->to >= 0)
        close(o->to);
    o->to = -1;
    if (o->from)
        fclose(o->from);
    o->from = NULL;
    int status = 0;
    if (waitpid(o->pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static long mismatches;
static uint64_t millis_checked;

/* v is us / 1000 for a whole number of microseconds |us| < 10^15. */
static bool whole_us(double v, int64_t *us)
{
    if (!(fabs(v) < 1e12) || (v == 0 && signbit(v)))
        return false; /* -0.0 is no integer divided */
    *us = llround(v * 1000.0);
    return (double)*us / 1000.0 == v;
}

/* Send one batch and compare the lines that come back; -1: no oracle. */
static int run_batch(oracle *o, const double *v, uint32_t n)
{
    unsigned char head[4] = {(unsigned char)n, (unsigned char)(n >> 8),
                             (unsigned char)(n >> 16),
                             (unsigned char)(n >> 24)};
    if (write_all(o->to, head, 4) != 0 ||
        write_all(o->to, v, n * sizeof *v) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        char want[64], got[TFMT_PYREPR_MAX];
        if (!fgets(want, sizeof want, o->from))
            return -1;
        want[strcspn(want, "\n")] = '\0';
        tfmt__pyrepr(v[i], got);
        if (strcmp(got, want) != 0 && ++mismatches <= SHOW_MAX)
            fprintf(stderr, "%a: got \"%s\", Python \"%s\"\n", v[i], got, want);
        int64_t us;
        if (!whole_us(v[i], &us))
            continue;
        millis_checked++;
        tfmt__pyrepr_millis(us, got);
        if (strcmp(got, want) != 0 && ++mismatches <= SHOW_MAX)
            fprintf(stderr, "%lld us: got \"%s\", Python \"%s\"\n",
                    (long long)us, got, want);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_pyrepr_python ORACLE [COUNT [SEED]]\n");
        return 2;
    }
    uint64_t count = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000;
    pv_gen g = {argc > 3 ? strtoull(argv[3], NULL, 0) : 0x13198a2e03707344, 0};
    signal(SIGPIPE, SIG_IGN);
    oracle o = {-1, -1, NULL};
    if (oracle_start(&o, argv[1]) != 0) {
        perror("test_pyrepr_python: oracle");
        return 2;
    }
    static double batch[BATCH];
    uint64_t done = 0;
    while (done < count) {
        uint32_t n = count - done < BATCH ? (uint32_t)(count - done) : BATCH;
        for (uint32_t i = 0; i < n; i++)
            batch[i] = pv_next(&g);
        if (run_batch(&o, batch, n) != 0)
            break;
        done += n;
    }
    int status = oracle_stop(&o);
    if (done == 0 && status == 127) {
        printf("skip: no python3 to compare with\n");
        return 77;
    }
    CHECK(done == count && status == 0,
          "oracle stopped after %llu of %llu values (exit %d)",
          (unsigned long long)done, (unsigned long long)count, status);
    CHECK(mismatches == 0, "%ld of %llu reprs differ from Python's", mismatches,
          (unsigned long long)done);
    printf("%llu values compared with Python's repr (%llu of them also as "
           "whole microseconds), %ld differ\n",
           (unsigned long long)done, (unsigned long long)millis_checked,
           mismatches);
    return harness_failed_checks ? 1 : 0;
}
