/* SPDX-License-Identifier: MIT */
/*
 * test_export_gecko.c - the Firefox Profiler (Gecko) export: every CPython
 * fixture, in every binary variant, equals CPython's expected.gecko.json
 * once the machine-dependent fields are normalized (compared as parsed
 * JSON by python3); times and durations are Python's floats for any
 * timestamps; the spool keeps memory flat on a long input.
 */
#include "test_export_common.h"
#include "export_gecko.h"
#include "log_files.h"

/* The Gecko export of the log at `path` to `out`. */
static int gecko_path(const char *path, const tfmt_profile_options *o,
                      const char *out)
{
    tfmt_gecko *g;
    test_log l;
    tfmt_sink *sink;
    tfmt_error err;
    int rc = tfmt_gecko_new(&g, o);
    if (rc != TFMT_OK)
        return rc;
    rc = test_log_open(&l, path, NULL, &err);
    if (rc == TFMT_OK)
        rc = tfmt_gecko_add_bin(g, l.r);
    test_log_close(&l);
    if (rc == TFMT_OK)
        rc = tfmt_sink_open(&sink, out, TFMT_SINK_FORCE, NULL, &err);
    if (rc == TFMT_OK) {
        rc = tfmt_gecko_write(g, sink);
        int frc = tfmt_sink_finish(sink);
        tfmt_sink_free(sink);
        if (rc == TFMT_OK)
            rc = frc;
    }
    tfmt_gecko_free(g);
    return rc;
}

static int gecko_file(const char *name, const char *variant,
                      const tfmt_profile_options *o, const char *out)
{
    char path[512];
    snprintf(path, sizeof path, "%s/cpython/%s/%s", TESTDATA, name, variant);
    return gecko_path(path, o, out);
}

TEST(fixtures_equal_cpython)
{
    REQUIRE(have_cmd("python3"), "python3 is required");
    static const char *const variants[] = {
        "none.bin",
        "zstd.bin",
        "none.hdr-u32.bin",
        "zstd.hdr-u32.bin",
    };
    /* every output first, then one python3 run checks all pairs */
    static char outs[NCASES * 4][256];
    char cmd[NCASES * 4 * 600];
    size_t len = (size_t)snprintf(cmd, sizeof cmd, CHECKER "gecko-eq");
    for (size_t i = 0; i < NCASES; i++) {
        for (size_t v = 0; v < 4; v++) {
            char tag[64];
            char *out = outs[i * 4 + v];
            snprintf(tag, sizeof tag, "gecko%zu", i * 4 + v);
            tmp_path(out, 256, tag);
            int rc = gecko_file(fixture_cases[i], variants[v], NULL, out);
            CHECK(rc == TFMT_OK, "%s/%s: status %d", fixture_cases[i],
                  variants[v], rc);
            len += (size_t)snprintf(cmd + len, sizeof cmd - len,
                                    " %s %s/cpython/%s/expected.gecko.json",
                                    out, TESTDATA, fixture_cases[i]);
        }
    }
    strcat(cmd, " >/dev/null");
    CHECK(run_cmd(cmd) == 0, "an output differs from CPython's");
    for (size_t i = 0; i < NCASES * 4; i++)
        unlink(outs[i]);
}

/*
 * Floats are written as Python's repr: 60,000 values (whole milliseconds,
 * differences of them, random bit patterns, tiny and huge magnitudes)
 * checked by python3 itself.
 */
TEST(float_repr_is_pythons)
{
    REQUIRE(have_cmd("python3"), "python3 is required");
    char out[256], cmd[1200];
    tmp_path(out, sizeof out, "pyfloat");
    FILE *f = fopen(out, "w");
    REQUIRE(f, "open %s", out);
    tfmt_buf b;
    tfmt__buf_init(&b, NULL);
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 60000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v;
        switch (i % 4) {
        case 0: v = (double)(x % 100000000) / 1000.0; break;
        case 1:
            v = (double)(x % 9999) / 1000.0 - (double)(x >> 40) / 1000.0;
            break;
        case 2: memcpy(&v, &x, 8); break;
        default: v = (double)(x % 1000) * 1e-7 + (i % 3 ? 0 : 1e16);
        }
        if (v != v || v - v != 0)
            v = 0.5;
        b.len = 0;
        CHECK(tfmt__put_pyfloat(&b, v) == TFMT_OK, "put");
        fprintf(f, "%a %.*s\n", v, (int)b.len, b.data);
    }
    fclose(f);
    tfmt__buf_free(&b);
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import sys\n"
             "for l in open(sys.argv[1]):\n"
             " h, r = l.split()\n"
             " if repr(float.fromhex(h)) != r: sys.exit(l)' %s",
             out);
    CHECK(run_cmd(cmd) == 0, "a float differs from Python's repr");
    unlink(out);
}

/*
 * A log whose timestamps start at `base` and wander: back before it, by
 * whole milliseconds and odd microseconds, and far past 10^15 us (where
 * milliseconds are no longer spelled from integers). Writes the log to
 * `path` and each thread's timestamps to `times` ("tid ts" lines).
 */
static int times_log(const char *path, const char *times, uint64_t base)
{
    /* microseconds from one sample to the next, cycled */
    static const int64_t steps[] = {0,
                                    1000,
                                    1,
                                    -2000,
                                    999,
                                    123456789,
                                    -7,
                                    1000000000000000,
                                    -1,
                                    1,
                                    4503599627370496,
                                    3,
                                    -5000000,
                                    1500}; /* clang-format: keep */
    test_log_out out = {NULL, NULL};
    tfmt_bin_writer_options wo = TFMT_BIN_WRITER_OPTIONS_INIT;
    wo.start_time_us = base;
    wo.sample_interval_us = 1000;
    FILE *f = fopen(times, "w");
    int rc = f ? test_log_create(&out, path, &wo, NULL) : TFMT_EIO;
    tfmt_bin_writer *w = out.w;
    uint32_t fr[2];
    for (int i = 0; i < 2 && rc == TFMT_OK; i++)
        rc = tfmt_bin_writer_location(w, "/t.py", 5, i ? "g" : "f", 1, 10 + i,
                                      10 + i, 0, 4, -1, &fr[i]);
    uint64_t ts = base;
    for (int n = 0; n < 3 * 14 && rc == TFMT_OK; n++) {
        ts += (uint64_t)steps[n % 14];
        uint64_t tid = 1 + (uint64_t)(n % 2);
        uint8_t status = n % 3 ? TFMT_STATUS_HAS_GIL : TFMT_STATUS_ON_CPU;
        rc = tfmt_bin_writer_sample(w, tid, 0, ts, status, fr,
                                    1 + (uint32_t)(n % 5 != 0));
        fprintf(f, "%llu %llu\n", (unsigned long long)tid,
                (unsigned long long)ts);
    }
    rc = test_log_finish(&out, rc);
    if (f)
        fclose(f);
    return rc;
}

/*
 * Sample times are Python's repr of (ts - first) / 1000, marker durations
 * the repr of endTime - startTime, whatever the timestamps: near zero,
 * above 2^63, backwards, and 10^15 us or more apart (python3 checks).
 */
TEST(times_are_pythons)
{
    REQUIRE(have_cmd("python3"), "python3 is required");
    static const uint64_t bases[] = {1000000, 0x8000000000001234ULL,
                                     0x4000000000000000ULL};
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        char log[256], times[256], out[256], cmd[1024];
        tmp_path(log, sizeof log, "times_log");
        tmp_path(times, sizeof times, "times_txt");
        tmp_path(out, sizeof out, "times_gecko");
        REQUIRE(times_log(log, times, bases[i]) == TFMT_OK, "log %zu", i);
        REQUIRE(gecko_path(log, NULL, out) == TFMT_OK, "gecko %zu", i);
        snprintf(cmd, sizeof cmd,
                 "python3 %s/../tests/unit/"
                 "test_export_check.py gecko-times %s %s",
                 TESTDATA, out, times);
        CHECK(run_cmd(cmd) == 0, "base %zu: times differ from Python's", i);
        unlink(log);
        unlink(times);
        unlink(out);
    }
}

/* n / 1000 past 2^53 is Python's int true division, for 50,000 n. */
TEST(div1000_is_pythons)
{
    REQUIRE(have_cmd("python3"), "python3 is required");
    char out[256], cmd[1024];
    tmp_path(out, sizeof out, "div1000");
    FILE *f = fopen(out, "w");
    REQUIRE(f, "open %s", out);
    uint64_t x = 0x2545f4914f6cdd1dULL;
    for (int i = 0; i < 50000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int shift = i % 12; /* 2^52 .. 2^64, and exact multiples of 1000 */
        uint64_t n = x >> shift;
        if (i % 7 == 0)
            n = n / 1000 * 1000 + (uint64_t)(i % 3) * 500;
        double v = tfmt__gecko_div1000(n, i & 1);
        fprintf(f, "%s%llu %a\n", i & 1 ? "-" : "", (unsigned long long)n, v);
    }
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import sys\n"
             "for l in open(sys.argv[1]):\n"
             " n, h = l.split()\n"
             " if int(n) / 1000 != float.fromhex(h): sys.exit(l)' %s",
             out);
    CHECK(run_cmd(cmd) == 0, "a quotient differs from Python's");
    unlink(out);
}

/* Every allocation of a Gecko conversion failing in turn: ENOMEM, no leak. */
TEST(every_allocation_failing)
{
    counting cnt = {0, 0, -1};
    tfmt_allocator a = {c_malloc, c_realloc, c_free, &cnt};
    tfmt_profile_options o = TFMT_PROFILE_OPTIONS_INIT;
    o.alloc = &a;
    bool ok_seen = false;
    for (long n = 0; n < 2000 && !ok_seen; n++) {
        cnt.calls = 0;
        cnt.fail_at = n;
        int rc = gecko_file("interleaved_threads", "none.bin", &o, "/dev/null");
        ok_seen = rc == TFMT_OK;
        CHECK(rc == TFMT_OK || rc == TFMT_ENOMEM,
              "failing allocation %ld: status %d", n, rc);
        CHECK(cnt.live == 0, "failing allocation %ld: %ld blocks leaked", n,
              cnt.live);
    }
    CHECK(ok_seen, "never succeeded");
}

TESTS(TCASE(fixtures_equal_cpython), TCASE(float_repr_is_pythons),
      TCASE(times_are_pythons), TCASE(div1000_is_pythons),
      TCASE(every_allocation_failing))
