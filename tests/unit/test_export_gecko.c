/*
 * test_export_gecko.c - the Firefox Profiler (Gecko) export: every CPython
 * fixture, in every binary variant, equals CPython's expected.gecko.json
 * once the machine-dependent fields are normalized (compared as parsed
 * JSON by python3); the spool keeps memory flat on a long input.
 */
#include "test_export_common.h"

static int gecko_file(const char *name, const char *variant,
                      const tfmt_profile_options *o, const char *out)
{
    char path[512];
    snprintf(path, sizeof path, "%s/cpython/%s/%s", TESTDATA, name, variant);
    tfmt_gecko *g;
    tfmt_source *src;
    tfmt_bin_reader *r;
    tfmt_sink *sink;
    tfmt_error err;
    int rc = tfmt_gecko_new(&g, o);
    if (rc != TFMT_OK)
        return rc;
    rc = tfmt_source_open_path(&src, path, NULL, &err);
    if (rc == TFMT_OK) {
        rc = tfmt_bin_open(&r, src, NULL, &err);
        if (rc == TFMT_OK) {
            rc = tfmt_gecko_add_bin(g, r);
            tfmt_bin_free(r);
        }
        tfmt_source_free(src);
    }
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

TEST(fixtures_equal_cpython)
{
    REQUIRE(have_cmd("python3"), "python3 is required");
    static const char *const variants[] = {
        "none.bin", "zstd.bin", "none.hdr-u32.bin", "zstd.hdr-u32.bin",
    };
    char out[256], cmd[1024];
    tmp_path(out, sizeof out, "gecko");
    for (size_t i = 0; i < NCASES; i++) {
        for (size_t v = 0; v < 4; v++) {
            int rc = gecko_file(fixture_cases[i], variants[v], NULL, out);
            CHECK(rc == TFMT_OK, "%s/%s: status %d", fixture_cases[i],
                  variants[v], rc);
            snprintf(cmd, sizeof cmd,
                     CHECKER "gecko-eq %s %s/cpython/%s/expected.gecko.json",
                     out, TESTDATA, fixture_cases[i]);
            CHECK(run_cmd(cmd) == 0, "%s/%s: differs from CPython's",
                  fixture_cases[i], variants[v]);
        }
    }
    unlink(out);
}

TESTS(TCASE(fixtures_equal_cpython))
