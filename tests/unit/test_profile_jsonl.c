/* SPDX-License-Identifier: MIT */
/*
 * test_profile_jsonl.c - JSONL exports into a profile
 * (tfmt_profile_add_jsonl): for every CPython fixture, a v0 export comes
 * back byte for byte and the pre-release dialect as v0, read whole and in
 * 1- and 7-byte chunks; an export merged with a binary log, in either
 * order, equals the two binary logs merged; the writers that need stacks
 * and the filters that need samples refuse an export; every allocation
 * of a merge fails cleanly.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "fail_alloc.h"
#include <tachyon/fmt_export.h>

#include "profile_internal.h"

static const char *const fixtures[] = {
    "single_full",         "repeat_rle",       "suffix_calls", "pop_push",
    "interleaved_threads", "synthetic_frames", "workload",
};
#define NCASES (sizeof fixtures / sizeof fixtures[0])
#define RUN_ID "00000000000000000000000000000000"

static char *fixture(const char *c, const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/cpython/%s/%s", TESTDATA, c, name);
    return path;
}

/* Add the input at `path` (a binary log or an export), read in chunks. */
static int add_path(tfmt_profile *p, const char *path, size_t chunk)
{
    size_t len = 0;
    unsigned char *data = harness_slurp(path, &len);
    if (!data)
        return 99;
    tfmt_source *src = NULL;
    tfmt_error err;
    int rc = tfmt_source_open_memory(&src, data, len, chunk, NULL);
    bool jsonl = len > 0 && data[0] == '{';
    if (rc == TFMT_OK && jsonl) {
        tfmt_jsonl_reader *r = NULL;
        rc = tfmt_jsonl_open(&r, src, NULL, &err);
        if (rc == TFMT_OK)
            rc = tfmt_profile_add_jsonl(p, r);
        tfmt_jsonl_free(r);
    } else if (rc == TFMT_OK) {
        tfmt_bin_reader *r = NULL;
        rc = tfmt_bin_open(&r, src, NULL, &err);
        if (rc == TFMT_OK)
            rc = tfmt_profile_add_bin(p, r);
        tfmt_bin_free(r);
    }
    tfmt_source_free(src);
    free(data);
    return rc;
}

/* The JSONL export of `p` (malloc'd, *len bytes), or NULL. */
static char *jsonl_of(tfmt_profile *p, size_t *len, int *rc)
{
    char path[512];
    const char *t = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/test_profile_jsonl_%ld.out",
             t && *t ? t : "/tmp", (long)getpid());
    tfmt_sink *sink = NULL;
    tfmt_error err;
    *rc = tfmt_sink_open(&sink, path, TFMT_SINK_FORCE, NULL, &err);
    if (*rc != TFMT_OK)
        return NULL;
    *rc = tfmt_profile_write_jsonl(p, sink, RUN_ID);
    int frc = tfmt_sink_finish(sink);
    tfmt_sink_free(sink);
    if (*rc == TFMT_OK)
        *rc = frc;
    char *out = (char *)harness_slurp(path, len);
    unlink(path);
    return out;
}

/* Build a profile from up to two inputs and export it as JSONL. */
static char *convert(const char *a, const char *b, size_t chunk,
                     const tfmt_allocator *alloc, size_t *len, int *rc)
{
    tfmt_profile_options o = TFMT_PROFILE_OPTIONS_INIT;
    o.alloc = alloc;
    tfmt_profile *p = NULL;
    char *out = NULL;
    *rc = tfmt_profile_new(&p, &o);
    if (*rc == TFMT_OK)
        *rc = add_path(p, a, chunk);
    if (*rc == TFMT_OK && b)
        *rc = add_path(p, b, chunk);
    if (*rc == TFMT_OK)
        out = jsonl_of(p, len, rc);
    tfmt_profile_free(p);
    return out;
}

static bool same_as_file(const char *got, size_t len, const char *path)
{
    size_t wlen = 0;
    unsigned char *want = harness_slurp(path, &wlen);
    bool same = want && got && wlen == len && memcmp(want, got, len) == 0;
    free(want);
    return same;
}

TEST(v0_identity_and_v1_upgrade_every_chunking)
{
    static const size_t chunks[] = {0, 1, 7};
    for (size_t c = 0; c < NCASES; c++) {
        char want[512];
        snprintf(want, sizeof want, "%s",
                 fixture(fixtures[c], "expected.jsonl"));
        for (size_t k = 0; k < 3; k++) {
            static const char *const names[] = {"expected.jsonl",
                                                "expected.v1.jsonl"};
            for (int d = 0; d < 2; d++) {
                size_t len = 0;
                int rc;
                char *got = convert(fixture(fixtures[c], names[d]), NULL,
                                    chunks[k], NULL, &len, &rc);
                CHECK(rc == TFMT_OK && same_as_file(got, len, want),
                      "%s %s chunk %zu: rc %d", fixtures[c], names[d],
                      chunks[k], rc);
                free(got);
            }
        }
    }
}

/* An export and a binary log merged, either way round, as two logs. */
TEST(export_and_log_merge_as_two_logs)
{
    for (size_t i = 0; i < NCASES; i++) {
        for (size_t j = 0; j < NCASES; j += 3) {
            char bin_a[512], bin_b[512], jsonl_a[512], jsonl_b[512];
            snprintf(bin_a, sizeof bin_a, "%s",
                     fixture(fixtures[i], "none.bin"));
            snprintf(bin_b, sizeof bin_b, "%s",
                     fixture(fixtures[j], "zstd.bin"));
            snprintf(jsonl_a, sizeof jsonl_a, "%s",
                     fixture(fixtures[i], "expected.jsonl"));
            snprintf(jsonl_b, sizeof jsonl_b, "%s",
                     fixture(fixtures[j], "expected.v1.jsonl"));
            size_t n0 = 0, n1 = 0, n2 = 0;
            int r0, r1, r2;
            char *want = convert(bin_a, bin_b, 0, NULL, &n0, &r0);
            char *x = convert(jsonl_a, bin_b, 0, NULL, &n1, &r1);
            char *y = convert(bin_a, jsonl_b, 0, NULL, &n2, &r2);
            CHECK(r0 == TFMT_OK && r1 == TFMT_OK && r2 == TFMT_OK,
                  "%s+%s: %d %d %d", fixtures[i], fixtures[j], r0, r1, r2);
            CHECK(want && x && n0 == n1 && memcmp(want, x, n0) == 0,
                  "%s export + %s log differs", fixtures[i], fixtures[j]);
            CHECK(want && y && n0 == n2 && memcmp(want, y, n0) == 0,
                  "%s log + %s export differs", fixtures[i], fixtures[j]);
            free(want);
            free(x);
            free(y);
        }
    }
}

/* Writers that need stacks refuse an export; so do sample filters. */
TEST(refusals)
{
    tfmt_profile *p = NULL;
    REQUIRE(tfmt_profile_new(&p, NULL) == TFMT_OK, "new");
    CHECK(!tfmt_profile_has_jsonl(p), "fresh profile has no export");
    REQUIRE(add_path(p, fixture("workload", "expected.jsonl"), 0) == TFMT_OK,
            "add");
    CHECK(tfmt_profile_has_jsonl(p) && tfmt_profile_samples(p) == 3224,
          "samples %llu", (unsigned long long)tfmt_profile_samples(p));
    tfmt_sink *sink = NULL;
    REQUIRE(tfmt_sink_open(&sink, "/dev/null", 0, NULL, NULL) == TFMT_OK,
            "sink");
    CHECK(tfmt_profile_write_collapsed(p, sink) == TFMT_EINVAL &&
              strcmp(tfmt_profile_error(p)->msg, TFMT_JSONL_NO_STACKS) == 0,
          "collapsed: %s", tfmt_profile_error(p)->msg);
    CHECK(tfmt_profile_write_svg(p, sink, NULL) == TFMT_EINVAL,
          "svg accepted an export");
    tfmt_sink_free(sink);
    tfmt_profile_free(p);

    uint64_t tid = 1;
    tfmt_profile_options o = TFMT_PROFILE_OPTIONS_INIT;
    o.thread_ids = &tid;
    o.nthread_ids = 1;
    REQUIRE(tfmt_profile_new(&p, &o) == TFMT_OK, "new");
    CHECK(add_path(p, fixture("workload", "expected.jsonl"), 0) == TFMT_EINVAL,
          "a thread filter applied to an export");
    tfmt_profile_free(p);
}

/* Every allocation of a merge (export first) and its export fails cleanly. */
TEST(failing_allocations)
{
    char a[512], b[512];
    snprintf(a, sizeof a, "%s", fixture("synthetic_frames", "expected.jsonl"));
    snprintf(b, sizeof b, "%s", fixture("interleaved_threads", "none.bin"));
    test_failing all = {0, 0, false};
    tfmt_allocator al = test_failing_alloc(&all);
    size_t len;
    int rc;
    free(convert(a, b, 0, &al, &len, &rc));
    REQUIRE(rc == TFMT_OK && all.calls > 10, "unrestricted: rc %d, %ld", rc,
            all.calls);
    for (long n = 0; n < all.calls; n++) {
        test_failing f = {n + 1, 0, true}; /* n allocations succeed */
        tfmt_allocator fa = test_failing_alloc(&f);
        free(convert(a, b, 0, &fa, &len, &rc));
        CHECK(rc == TFMT_ENOMEM, "allocation %ld: status %d", n, rc);
    }
}

TESTS(TCASE(v0_identity_and_v1_upgrade_every_chunking),
      TCASE(export_and_log_merge_as_two_logs), TCASE(refusals),
      TCASE(failing_allocations))
