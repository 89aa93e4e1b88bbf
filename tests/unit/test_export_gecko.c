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
        case 1: v = (double)(x % 9999) / 1000.0 - (double)(x >> 40) / 1000.0;
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
    snprintf(cmd, sizeof cmd, "python3 -c 'import sys\n"
             "for l in open(sys.argv[1]):\n"
             " h, r = l.split()\n"
             " if repr(float.fromhex(h)) != r: sys.exit(l)' %s", out);
    CHECK(run_cmd(cmd) == 0, "a float differs from Python's repr");
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
        int rc = gecko_file("interleaved_threads", "none.bin", &o,
                            "/dev/null");
        ok_seen = rc == TFMT_OK;
        CHECK(rc == TFMT_OK || rc == TFMT_ENOMEM,
              "failing allocation %ld: status %d", n, rc);
        CHECK(cnt.live == 0, "failing allocation %ld: %ld blocks leaked", n,
              cnt.live);
    }
    CHECK(ok_seen, "never succeeded");
}

TESTS(TCASE(fixtures_equal_cpython), TCASE(float_repr_is_pythons),
      TCASE(every_allocation_failing))
