/* SPDX-License-Identifier: MIT */
/*
 * par_stages.c - tachyon-par-stages: the stages of reading a binary log on
 * several threads (libfmt/src/profile/profile_par.c), each timed alone on
 * one thread, for bench/README.md's estimates of what 8 and 16 cores give.
 *
 * usage: tachyon-par-stages LOG
 *
 * Prints "scan_s SCAN" (the scans over the whole sample region, which
 * run one after the other: the chain every part's decode waits on) and
 * "read_s READ" (the log added to a profile on one thread: decode and
 * call tree), both CPU seconds of this thread, the best of three.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>

#include "bin_slice.h"
#include "profile_internal.h"

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One stage on a freshly opened log: 0 scans it whole, 1 reads it. */
static int stage(const char *path, int which, double *cpu)
{
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    tfmt_profile *p = NULL;
    tfmt_error err;
    int rc = tfmt_source_open_path(&src, path, NULL, &err);
    if (rc == TFMT_OK)
        rc = tfmt_bin_open(&r, src, NULL, &err);
    if (rc == TFMT_OK && which == 1)
        rc = tfmt_profile_new(&p, NULL);
    double t0 = thread_cpu();
    if (rc == TFMT_OK && which == 0) {
        tfmt_bin_scan scan;
        uint64_t region = tfmt__bin_region_size(r);
        rc = region ? tfmt__bin_scan(r, 0, region, &scan) : TFMT_EINVAL;
        tfmt__bin_scan_free(&scan);
    } else if (rc == TFMT_OK) {
        rc = tfmt_profile_add_bin(p, r);
    }
    *cpu = thread_cpu() - t0;
    tfmt_profile_free(p);
    tfmt_bin_free(r);
    tfmt_source_free(src);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: tachyon-par-stages LOG (uncompressed)\n");
        return 2;
    }
    static const char *names[] = {"scan_s", "read_s"};
    for (int which = 0; which < 2; which++) {
        double best = -1;
        for (int run = 0; run < 3; run++) {
            double cpu;
            if (stage(argv[1], which, &cpu) != TFMT_OK) {
                fprintf(stderr, "tachyon-par-stages: %s: cannot %s it\n",
                        argv[1], which ? "read" : "scan");
                return 1;
            }
            best = best < 0 || cpu < best ? cpu : best;
        }
        printf("%s %.3f\n", names[which], best);
    }
    return 0;
}
