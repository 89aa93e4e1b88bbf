/* SPDX-License-Identifier: MIT */
/*
 * test_export_filter.c - the profile filters (thread, status, skip_idle,
 * rewrite, include/exclude on samples or frames, recursion collapsing).
 * Each case filters a CPython fixture and compares the collapsed export
 * with an independent Python model applied to the fixture's input.json
 * (test_export_check.py reference_collapsed); the Gecko export honours
 * the same filters.
 */
#include "test_export_common.h"
#include "tachyon/fmt_match.h"

typedef struct fcase {
    const char *fixture;
    const char *spec; /* the same filter for the Python model */
    uint64_t thread;  /* 0: none */
    uint8_t all;
    bool skip_idle, drop_frames, collapse;
    const char *include, *exclude, *rewrite;
} fcase;

static const fcase fcases[] = {
    {"interleaved_threads", "{\"threads\":[1]}", 1, 0, false, false, false,
     NULL, NULL, NULL},
    {"interleaved_threads", "{\"all\":1}", 0, TFMT_STATUS_HAS_GIL, false, false,
     false, NULL, NULL, NULL},
    {"interleaved_threads", "{\"all\":18}", 0,
     TFMT_STATUS_ON_CPU | TFMT_STATUS_HAS_EXCEPTION, false, false, false, NULL,
     NULL, NULL},
    {"repeat_rle", "{\"skip_idle\":true}", 0, 0, true, false, false, NULL, NULL,
     NULL},
    {"interleaved_threads", "{\"exclude\":[\"fn0_1\"]}", 0, 0, false, false,
     false, NULL, "fn0_1", NULL},
    {"interleaved_threads", "{\"exclude\":[\"fn0_1\"],\"drop_frames\":true}", 0,
     0, false, true, false, NULL, "fn0_1", NULL},
    {"interleaved_threads", "{\"include\":[\"^fn1_3$\"]}", 0, 0, false, false,
     false, "^fn1_3$", NULL, NULL},
    {"interleaved_threads",
     "{\"include\":[\"t1\\\\.py\"],"
     "\"drop_frames\":true}",
     0, 0, false, true, false, "t1\\.py", NULL, NULL},
    {"interleaved_threads", "{\"collapse\":true}", 0, 0, false, false, true,
     NULL, NULL, NULL},
    {"interleaved_threads",
     "{\"rewrite\":[\"fn(\\\\d)_\\\\d=>g$1\"],"
     "\"collapse\":true,\"exclude\":[\"^g2$\"]}",
     0, 0, false, false, true, NULL, "^g2$", "fn(\\d)_\\d=>g$1"},
    /* every fnN_M renamed main: main.py's main, then t0.py's mains, is a
     * run of one name in two files, which collapses per file */
    {"interleaved_threads",
     "{\"rewrite\":[\"fn\\\\d_\\\\d=>main\"],\"collapse\":true}", 0, 0, false,
     false, true, NULL, NULL, "fn\\d_\\d=>main"},
    {"synthetic_frames",
     "{\"rewrite\":[\"^/app/=>\"],\"exclude\":"
     "[\"<GC>\"],\"drop_frames\":true}",
     0, 0, false, true, false, NULL, "<GC>", "^/app/=>"},
};
#define NFCASES (sizeof fcases / sizeof fcases[0])

static int write_collapsed(tfmt_profile *p, tfmt_sink *s)
{
    return tfmt_profile_write_collapsed(p, s);
}

/* Options for case `c`; the matchers go to *rules and *focus. */
static void make_options(const fcase *c, tfmt_profile_options *o,
                         tfmt_match **rules, tfmt_match **focus, uint64_t *tid)
{
    tfmt_profile_options init = TFMT_PROFILE_OPTIONS_INIT;
    *o = init;
    *rules = *focus = NULL;
    *tid = c->thread;
    o->thread_ids = tid;
    o->nthread_ids = c->thread ? 1 : 0;
    o->status_all = c->all;
    o->skip_idle = c->skip_idle;
    o->drop_frames = c->drop_frames;
    o->collapse_recursion = c->collapse;
    tfmt_match_new(rules, NULL);
    tfmt_match_new(focus, NULL);
    if (c->rewrite)
        tfmt_match_add(*rules, TFMT_MATCH_REWRITE, c->rewrite, NULL);
    if (c->exclude)
        tfmt_match_add(*rules, TFMT_MATCH_EXCLUDE, c->exclude, NULL);
    if (c->include)
        tfmt_match_add(*focus, TFMT_MATCH_INCLUDE, c->include, NULL);
    o->rules = *rules;
    o->focus = *focus;
}

TEST(filters_match_reference_model)
{
    REQUIRE(have_cmd("python3"), "python3 is required");
    static char outs[NFCASES][256];
    char cmd[NFCASES * 800];
    size_t len = (size_t)snprintf(cmd, sizeof cmd, CHECKER "filter-collapsed");
    for (size_t i = 0; i < NFCASES; i++) {
        const fcase *c = &fcases[i];
        tfmt_profile_options o;
        tfmt_match *rules, *focus;
        uint64_t tid;
        char tag[32];
        snprintf(tag, sizeof tag, "filter%zu", i);
        tmp_path(outs[i], sizeof outs[i], tag);
        make_options(c, &o, &rules, &focus, &tid);
        tfmt_profile *p = load_fixture(c->fixture, &o);
        CHECK(p != NULL, "case %zu: load", i);
        if (p)
            CHECK(export_to(p, write_collapsed, outs[i]) == TFMT_OK,
                  "case %zu: export", i);
        len += (size_t)snprintf(cmd + len, sizeof cmd - len,
                                " %s %s/cpython/%s/input.json '%s'", outs[i],
                                TESTDATA, c->fixture, c->spec);
        tfmt_profile_free(p);
        tfmt_match_free(rules);
        tfmt_match_free(focus);
    }
    CHECK(run_cmd(cmd) == 0, "a filtered profile differs from the model");
    for (size_t i = 0; i < NFCASES; i++)
        unlink(outs[i]);
}

/* Gecko: a thread filter keeps only that thread, with its samples. */
TEST(gecko_thread_filter)
{
    REQUIRE(have_cmd("python3"), "python3 is required");
    tfmt_profile_options o = TFMT_PROFILE_OPTIONS_INIT;
    uint64_t tid = 1;
    o.thread_ids = &tid;
    o.nthread_ids = 1;
    tfmt_gecko *g;
    REQUIRE(tfmt_gecko_new(&g, &o) == TFMT_OK, "new");
    char path[512], out[256], cmd[1024];
    snprintf(path, sizeof path, "%s/cpython/interleaved_threads/none.bin",
             TESTDATA);
    tmp_path(out, sizeof out, "filter_gecko");
    tfmt_source *src;
    tfmt_bin_reader *r;
    tfmt_sink *sink;
    REQUIRE(tfmt_source_open_path(&src, path, NULL, NULL) == TFMT_OK, "src");
    REQUIRE(tfmt_bin_open(&r, src, NULL, NULL) == TFMT_OK, "open");
    CHECK(tfmt_gecko_add_bin(g, r) == TFMT_OK, "add");
    REQUIRE(tfmt_sink_open(&sink, out, TFMT_SINK_FORCE, NULL, NULL) == TFMT_OK,
            "sink");
    CHECK(tfmt_gecko_write(g, sink) == TFMT_OK, "write");
    CHECK(tfmt_sink_finish(sink) == TFMT_OK, "finish");
    /* input.json: thread 1 has 20 samples in interleaved_threads */
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json,sys; d=json.load("
             "open(sys.argv[1])); t=d[\"threads\"]; sys.exit(not (len(t)"
             "==1 and t[0][\"tid\"]==1 and t[0][\"samples\"][\"length\"]"
             "==20))' %s",
             out);
    CHECK(run_cmd(cmd) == 0, "gecko thread filter");
    tfmt_sink_free(sink);
    tfmt_bin_free(r);
    tfmt_source_free(src);
    tfmt_gecko_free(g);
    unlink(out);
}

static int write_pstats(tfmt_profile *p, tfmt_sink *s)
{
    return tfmt_profile_write_pstats(p, s);
}

static int write_speedscope(tfmt_profile *p, tfmt_sink *s)
{
    return tfmt_profile_write_speedscope(p, s, NULL);
}

static int write_pprof(tfmt_profile *p, tfmt_sink *s)
{
    tfmt_export_options xo = TFMT_EXPORT_OPTIONS_INIT;
    xo.gzip = false;
    return tfmt_profile_write_pprof(p, s, &xo);
}

/*
 * Frames of dropped samples stay interned in the profile; the exports
 * must not list them: no pstats key without samples, no unreferenced
 * speedscope frame, no pprof string of an excluded function.
 */
TEST(dropped_frames_not_listed)
{
    REQUIRE(have_cmd("python3"), "python3 is required");
    tfmt_profile_options o;
    tfmt_match *rules, *focus;
    uint64_t tid;
    make_options(&fcases[4], &o, &rules, &focus, &tid); /* exclude fn0_1 */
    tfmt_profile *p = load_fixture("interleaved_threads", &o);
    REQUIRE(p, "load");
    char a[256], b[256], c[256], cmd[1500];
    tmp_path(a, sizeof a, "drop_pstats");
    tmp_path(b, sizeof b, "drop_ss");
    tmp_path(c, sizeof c, "drop_pprof");
    CHECK(export_to(p, write_pstats, a) == TFMT_OK, "pstats");
    CHECK(export_to(p, write_speedscope, b) == TFMT_OK, "speedscope");
    CHECK(export_to(p, write_pprof, c) == TFMT_OK, "pprof");
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json, marshal, sys\n"
             "d = marshal.load(open(sys.argv[1], \"rb\"))\n"
             "bad = [k for k, v in d.items() if v is not True and "
             "(v[1] == 0 or k[2] == \"fn0_1\")]\n"
             "s = json.load(open(sys.argv[2]))\n"
             "used = {i for p in s[\"profiles\"] for st in p[\"samples\"]"
             " for i in st}\n"
             "n = len(s[\"shared\"][\"frames\"])\n"
             "raw = open(sys.argv[3], \"rb\").read()\n"
             "sys.exit(bool(bad) or used != set(range(n)) or "
             "b\"fn0_1\" in raw)' %s %s %s",
             a, b, c);
    CHECK(run_cmd(cmd) == 0, "an export lists frames of dropped samples");
    unlink(a);
    unlink(b);
    unlink(c);
    tfmt_profile_free(p);
    tfmt_match_free(rules);
    tfmt_match_free(focus);
}

TESTS(TCASE(filters_match_reference_model), TCASE(gecko_thread_filter),
      TCASE(dropped_frames_not_listed))
