/* SPDX-License-Identifier: MIT */
/*
 * test_export_pprof.c - the pprof export, decoded by an independent
 * decoder (gzip + protoc --decode with pprof's message definitions):
 * checked against pprof's validity rules, and its stacks, re-collapsed as
 * CPython keys them, equal CPython's expected.collapsed for every fixture;
 * the raw (ungzipped) form; merge order independence.
 */
#include "test_export_common.h"

#define PROTO TESTDATA "/../tests/unit/test_export_profile.proto"

static int write_gz(tfmt_profile *p, tfmt_sink *s)
{
    return tfmt_profile_write_pprof(p, s, NULL);
}

static int write_raw(tfmt_profile *p, tfmt_sink *s)
{
    tfmt_export_options o = TFMT_EXPORT_OPTIONS_INIT;
    o.gzip = false;
    return tfmt_profile_write_pprof(p, s, &o);
}

TEST(fixtures_match_cpython_collapsed)
{
    REQUIRE(have_cmd("python3") && have_cmd("protoc"),
            "python3 and protoc (protobuf-compiler) are required");
    static char outs[NCASES][256];
    char cmd[NCASES * 800];
    size_t len = (size_t)snprintf(cmd, sizeof cmd, CHECKER "pprof-collapsed");
    for (size_t i = 0; i < NCASES; i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "pprof%zu", i);
        tmp_path(outs[i], sizeof outs[i], tag);
        tfmt_profile *p = load_fixture(fixture_cases[i], NULL);
        REQUIRE(p, "%s: load", fixture_cases[i]);
        CHECK(export_to(p, write_gz, outs[i]) == TFMT_OK, "%s: export",
              fixture_cases[i]);
        len += (size_t)snprintf(
            cmd + len, sizeof cmd - len,
            " %s " PROTO " %s/cpython/%s/expected.collapsed %llu", outs[i],
            TESTDATA, fixture_cases[i],
            (unsigned long long)tfmt_profile_interval_us(p));
        tfmt_profile_free(p);
    }
    CHECK(run_cmd(cmd) == 0, "pprof stacks differ from CPython's");
    for (size_t i = 0; i < NCASES; i++)
        unlink(outs[i]);
}

/* Without gzip the bytes are the message: gzip of them is the default. */
TEST(raw_is_gunzipped_default)
{
    REQUIRE(have_cmd("gzip"), "gzip is required");
    char a[256], b[256], cmd[700];
    tmp_path(a, sizeof a, "pprof_gz");
    tmp_path(b, sizeof b, "pprof_raw");
    tfmt_profile *p = load_fixture("workload", NULL);
    REQUIRE(p, "load");
    CHECK(export_to(p, write_gz, a) == TFMT_OK, "export gz");
    CHECK(export_to(p, write_raw, b) == TFMT_OK, "export raw");
    snprintf(cmd, sizeof cmd, "gzip -dc < %s | cmp -s - %s", a, b);
    CHECK(run_cmd(cmd) == 0, "gunzip(default) != raw");
    unlink(a);
    unlink(b);
    tfmt_profile_free(p);
}

TEST(merge_order_independent)
{
    size_t la = 0, lb = 0;
    unsigned char *a =
        merged_export("workload", "none.bin", "interleaved_threads", "none.bin",
                      write_raw, &la);
    unsigned char *b = merged_export("interleaved_threads", "none.bin",
                                     "workload", "none.bin", write_raw, &lb);
    CHECK(a && b && la == lb && la > 0 && memcmp(a, b, la) == 0,
          "A+B and B+A differ (%zu vs %zu bytes)", la, lb);
    free(a);
    free(b);
}

TESTS(TCASE(fixtures_match_cpython_collapsed), TCASE(raw_is_gunzipped_default),
      TCASE(merge_order_independent))
