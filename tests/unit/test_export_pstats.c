/* SPDX-License-Identifier: MIT */
/*
 * test_export_pstats.c - the pstats marshal export: every CPython fixture
 * loads (python3 marshal) to a dict equal to CPython's expected.pstats; a
 * hand-built recursive profile gives hand-derived counts; pstats.Stats
 * accepts the file; merging two inputs is order independent.
 */
#include "test_export_common.h"

static int write_pstats(tfmt_profile *p, tfmt_sink *s)
{
    return tfmt_profile_write_pstats(p, s);
}

TEST(fixtures_equal_cpython)
{
    REQUIRE(have_cmd("python3"), "python3 is required");
    static char outs[NCASES][256];
    char cmd[NCASES * 600];
    size_t len = (size_t)snprintf(cmd, sizeof cmd, CHECKER "pstats-eq");
    for (size_t i = 0; i < NCASES; i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "pstats%zu", i);
        tmp_path(outs[i], sizeof outs[i], tag);
        tfmt_profile *p = load_fixture(fixture_cases[i], NULL);
        REQUIRE(p, "%s: load", fixture_cases[i]);
        CHECK(export_to(p, write_pstats, outs[i]) == TFMT_OK, "%s: export",
              fixture_cases[i]);
        len += (size_t)snprintf(cmd + len, sizeof cmd - len,
                                " %s %s/cpython/%s/expected.pstats", outs[i],
                                TESTDATA, fixture_cases[i]);
        tfmt_profile_free(p);
    }
    strcat(cmd, " >/dev/null");
    CHECK(run_cmd(cmd) == 0, "a dict differs from expected.pstats");
    for (size_t i = 0; i < NCASES; i++)
        unlink(outs[i]);
}

static uint32_t add_frame(tfmt_profile *p, const char *file, size_t flen,
                          const char *func, int32_t line)
{
    uint32_t fi = 0, fn = 0, fr = 0;
    tfmt__profile_intern_string(p, file, flen, &fi);
    tfmt__profile_intern_string(p, func, strlen(func), &fn);
    tfmt_frame f = {fi, fn, line, line, 0, 1, TFMT_NO_OPCODE};
    tfmt__profile_intern_frame(p, &f, &fr);
    return fr;
}

/* Stacks (root first) a>b>a (x2) and a>c (x1), interval 1000 us. */
static tfmt_profile *recursion_profile(void)
{
    tfmt_profile *p;
    if (tfmt_profile_new(&p, NULL) != TFMT_OK)
        return NULL;
    p->interval_us = 1000;
    uint32_t a = add_frame(p, "/t.py", 5, "a", 1);
    uint32_t b = add_frame(p, "/t.py", 5, "b", 2);
    uint32_t c = add_frame(p, "/t.py", 5, "c", 3);
    uint32_t s1[3] = {a, b, a}, s2[2] = {a, c};
    if (tfmt__profile_add_stack(p, 7, 0, s1, 3, 2) != TFMT_OK ||
        tfmt__profile_add_stack(p, 7, 0, s2, 2, 1) != TFMT_OK) {
        tfmt_profile_free(p);
        return NULL;
    }
    return p;
}

/*
 * recursion_profile's keys: a, b, c (line 1, 2, 3 of /t.py).
 * Hand-derived: a: direct 2 (the inner a is the leaf of the first stack),
 * cumulative 3 (counted once per sample); b: direct 0, cumulative 2; c:
 * direct 1, cumulative 1. Callers (callee <- caller, every adjacent
 * pair): b<-a 2, a<-b 2, c<-a 1.
 */
TEST(recursion_hand_derived)
{
    REQUIRE(have_cmd("python3"), "python3 is required");
    tfmt_profile *p = recursion_profile();
    REQUIRE(p, "profile");
    char out[256], cmd[2048];
    tmp_path(out, sizeof out, "pstats_rec");
    REQUIRE(export_to(p, write_pstats, out) == TFMT_OK, "export");
    snprintf(cmd, sizeof cmd,
             CHECKER "pstats-expect %s "
                     "\"{('/t.py',1,'a'):(2,3,0.002,0.003,{('/t.py',2,'b'):2}),"
                     "('/t.py',2,'b'):(0,2,0.0,0.002,{('/t.py',1,'a'):2}),"
                     "('/t.py',3,'c'):(1,1,0.001,0.001,{('/t.py',1,'a'):1}),"
                     "('__sampled__',):True}\"",
             out);
    CHECK(run_cmd(cmd) == 0, "recursion counts differ");
    /*
     * pstats.Stats: Python < 3.15 has no SampledStats and fails on the
     * ("__sampled__",) marker of CPython's own files ("TypeError: cannot
     * unpack non-iterable bool object"); ours must fare exactly as
     * CPython's expected.pstats does, and load once the marker is removed
     * (total_calls = sum of cumulative counts = 3 + 2 + 1).
     */
    snprintf(cmd, sizeof cmd,
             CHECKER "pstats-stats %s "
                     "%s/cpython/single_full/expected.pstats 6 >/dev/null 2>&1",
             out, TESTDATA);
    CHECK(run_cmd(cmd) == 0, "pstats.Stats: not as with CPython's file");
    char nm[300];
    snprintf(nm, sizeof nm, "%s.nm", out);
    unlink(nm);
    unlink(out);
    tfmt_profile_free(p);
}

/* Large counts use marshal's TYPE_LONG; non-ASCII names TYPE_UNICODE. */
TEST(big_counts)
{
    REQUIRE(have_cmd("python3"), "python3 is required");
    tfmt_profile *p;
    REQUIRE(tfmt_profile_new(&p, NULL) == TFMT_OK, "new");
    p->interval_us = 1;
    uint32_t fr = add_frame(p, "f\xc3\xa9.py", 6, "g", 4);
    CHECK(tfmt__profile_add_stack(p, 1, 0, &fr, 1, 1ULL << 40) == TFMT_OK,
          "add");
    char out[256], cmd[1024];
    tmp_path(out, sizeof out, "pstats_big");
    REQUIRE(export_to(p, write_pstats, out) == TFMT_OK, "export");
    /* 2**40 * 1e-06 = 1099511.627776 */
    snprintf(cmd, sizeof cmd,
             CHECKER
             "pstats-expect %s "
             "\"{('f\\u00e9.py',4,'g'):(1099511627776,1099511627776,"
             "1099511.627776,1099511.627776,{}),('__sampled__',):True}\"",
             out);
    CHECK(run_cmd(cmd) == 0, "big counts or non-ASCII names differ");
    unlink(out);
    tfmt_profile_free(p);
}

static int write_compat(tfmt_profile *p, tfmt_sink *s)
{
    return tfmt_profile_write_pstats_compat(p, s);
}

/*
 * --pstats-compat on recursion_profile (figures as in recursion_hand_derived):
 * the same figures, no marker, callers as (n, n, tt, ct). tt is the callee's
 * self weight under that caller: a<-b holds the inner a's 2 leaf samples, b<-a
 * none (b is never a leaf), c<-a c's 1. pstats.Stats of this python3
 * (Debian's 3.11) loads it and counts 3 + 2 + 1 calls.
 */
TEST(compat_hand_derived)
{
    REQUIRE(have_cmd("python3"), "python3 is required");
    tfmt_profile *p = recursion_profile();
    REQUIRE(p, "profile");
    char out[256], cmd[2048];
    tmp_path(out, sizeof out, "pstats_compat");
    REQUIRE(export_to(p, write_compat, out) == TFMT_OK, "export");
    snprintf(cmd, sizeof cmd,
             CHECKER "pstats-expect %s "
                     "\"{('/t.py',1,'a'):(2,3,0.002,0.003,"
                     "{('/t.py',2,'b'):(2,2,0.002,0.002)}),"
                     "('/t.py',2,'b'):(0,2,0.0,0.002,"
                     "{('/t.py',1,'a'):(2,2,0.0,0.002)}),"
                     "('/t.py',3,'c'):(1,1,0.001,0.001,"
                     "{('/t.py',1,'a'):(1,1,0.001,0.001)})}\"",
             out);
    CHECK(run_cmd(cmd) == 0, "compat counts differ");
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import pstats,io,sys; s=pstats.Stats(sys.argv[1],"
             "stream=io.StringIO()); s.print_callers(); "
             "sys.exit(s.total_calls != 6)\" %s",
             out);
    CHECK(run_cmd(cmd) == 0, "pstats.Stats does not load the compat file");
    unlink(out);
    tfmt_profile_free(p);
}

TEST(merge_order_independent)
{
    size_t la = 0, lb = 0;
    unsigned char *a = merged_export("workload", "none.bin", "synthetic_frames",
                                     "zstd.bin", write_pstats, &la);
    unsigned char *b = merged_export("synthetic_frames", "none.bin", "workload",
                                     "zstd.bin", write_pstats, &lb);
    CHECK(a && b && la == lb && memcmp(a, b, la) == 0,
          "A+B and B+A differ (%zu vs %zu bytes)", la, lb);
    free(a);
    free(b);
}

TESTS(TCASE(fixtures_equal_cpython), TCASE(recursion_hand_derived),
      TCASE(big_counts), TCASE(compat_hand_derived),
      TCASE(merge_order_independent))
