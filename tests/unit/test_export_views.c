/* SPDX-License-Identifier: MIT */
/*
 * test_export_views.c - the speedscope, SVG and top exports. speedscope:
 * its schema's rules, and its samples re-collapsed equal CPython's
 * expected.collapsed for every fixture. SVG: well-formed XML with the
 * (escaped) title, the root box full width and each thread box its share
 * of CPython's counts; hostile names stay well-formed. top: a hand-built
 * recursive profile gives a hand-derived table. All three: merging inputs
 * in either order gives identical bytes.
 */
#include "test_export_common.h"

static tfmt_export_options xo = TFMT_EXPORT_OPTIONS_INIT;

static int write_speedscope(tfmt_profile *p, tfmt_sink *s)
{
    return tfmt_profile_write_speedscope(p, s, &xo);
}

static int write_svg(tfmt_profile *p, tfmt_sink *s)
{
    return tfmt_profile_write_svg(p, s, &xo);
}

static int write_top(tfmt_profile *p, tfmt_sink *s)
{
    return tfmt_profile_write_top(p, s, &xo);
}

static int write_html(tfmt_profile *p, tfmt_sink *s)
{
    return tfmt_profile_write_html(p, s, &xo);
}

/* Export every fixture, then check them all in one python3 run. */
static void check_fixtures(export_fn fn, const char *check, const char *arg)
{
    static char outs[NCASES][256];
    char cmd[NCASES * 700];
    size_t len = (size_t)snprintf(cmd, sizeof cmd, CHECKER "%s", check);
    for (size_t i = 0; i < NCASES; i++) {
        char tag[64];
        snprintf(tag, sizeof tag, "%s%zu", check, i);
        tmp_path(outs[i], sizeof outs[i], tag);
        tfmt_profile *p = load_fixture(fixture_cases[i], NULL);
        REQUIRE(p, "%s: load", fixture_cases[i]);
        CHECK(export_to(p, fn, outs[i]) == TFMT_OK, "%s: export",
              fixture_cases[i]);
        char a[64];
        snprintf(a, sizeof a, "%llu",
                 (unsigned long long)tfmt_profile_interval_us(p));
        len += (size_t)snprintf(cmd + len, sizeof cmd - len,
                                " %s %s/cpython/%s/expected.collapsed '%s'",
                                outs[i], TESTDATA, fixture_cases[i],
                                arg ? arg : a);
        tfmt_profile_free(p);
    }
    CHECK(run_cmd(cmd) == 0, "%s failed", check);
    for (size_t i = 0; i < NCASES; i++)
        unlink(outs[i]);
}

TEST(speedscope_fixtures)
{
    REQUIRE(have_cmd("python3"), "python3 is required");
    check_fixtures(write_speedscope, "speedscope-collapsed", NULL);
}

TEST(svg_fixtures)
{
    REQUIRE(have_cmd("python3"), "python3 is required");
    xo.title = "a <b> & \"c\"";
    check_fixtures(write_svg, "svg-check", xo.title);
    xo.title = NULL;
}

static tfmt_profile *hand_profile(const char *a_name)
{
    tfmt_profile *p;
    if (tfmt_profile_new(&p, NULL) != TFMT_OK)
        return NULL;
    p->interval_us = 1000;
    uint32_t file, fn[3], fr[3];
    const char *names[3] = {a_name, "b", "c"};
    tfmt__profile_intern_string(p, "/t.py", 5, &file);
    for (int i = 0; i < 3; i++) {
        tfmt__profile_intern_string(p, names[i], strlen(names[i]), &fn[i]);
        tfmt_frame f = {file, fn[i], i + 1, i + 1, 0, 1, TFMT_NO_OPCODE};
        tfmt__profile_intern_frame(p, &f, &fr[i]);
    }
    uint32_t s1[3] = {fr[0], fr[1], fr[0]}, s2[2] = {fr[0], fr[2]};
    tfmt__profile_add_stack(p, 7, 0, s1, 3, 2);
    tfmt__profile_add_stack(p, 7, 0, s2, 2, 1);
    return p;
}

/* Control characters and markup in names: still well-formed XML. */
TEST(svg_hostile_names)
{
    REQUIRE(have_cmd("python3"), "python3 is required");
    tfmt_profile *p = hand_profile("a\x01<&>\"'\x7f\xc3\xa9");
    REQUIRE(p, "profile");
    char out[256], cmd[700];
    tmp_path(out, sizeof out, "svg_hostile");
    CHECK(export_to(p, write_svg, out) == TFMT_OK, "export");
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import sys, xml.dom.minidom as "
             "m; d=m.parse(sys.argv[1]); sys.exit(len(d.getElementsByTagName"
             "(\"rect\"))!=7)' %s",
             out);
    /* background + all + thread + a + b + a + c = 7 rects */
    CHECK(run_cmd(cmd) == 0, "hostile names: not well-formed or not 7 rects");
    unlink(out);
    tfmt_profile_free(p);
}

/*
 * Stacks a>b>a (x2), a>c (x1): a self 2 (leaf of the first), cumulative 3
 * (recursion once); c self 1, cumulative 1; b self 0, cumulative 2. Rows
 * by self: a, c, b; shares of 3 samples.
 */
TEST(top_hand_derived)
{
    tfmt_profile *p = hand_profile("a");
    REQUIRE(p, "profile");
    char out[256];
    tmp_path(out, sizeof out, "top");
    CHECK(export_to(p, write_top, out) == TFMT_OK, "export");
    size_t len = 0;
    unsigned char *got = slurp_file(out, &len);
    const char *want = "3 samples, 1 thread, interval 1000 us\n"
                       "  self%       self  cumul%      cumul  function  file\n"
                       "  66.7%          2  100.0%          3  a  /t.py\n"
                       "  33.3%          1   33.3%          1  c  /t.py\n"
                       "   0.0%          0   66.7%          2  b  /t.py\n";
    CHECK(got && strcmp((char *)got, want) == 0, "got\n%s\nwant\n%s",
          got ? (char *)got : "", want);
    free(got);
    unlink(out);
    tfmt_profile_free(p);
}

TEST(merge_order_independent)
{
    export_fn fns[] = {write_speedscope, write_svg, write_top, write_html};
    xo.per_thread = true;
    for (size_t i = 0; i < 4; i++) {
        size_t la = 0, lb = 0;
        unsigned char *a = merged_export("workload", "none.bin", "pop_push",
                                         "none.bin", fns[i], &la);
        unsigned char *b = merged_export("pop_push", "none.bin", "workload",
                                         "none.bin", fns[i], &lb);
        CHECK(a && b && la == lb && la > 0 && memcmp(a, b, la) == 0,
              "export %zu: A+B and B+A differ (%zu vs %zu bytes)", i, la, lb);
        free(a);
        free(b);
    }
    xo.per_thread = false;
}

/*
 * HTML: the page's <svg> is the SVG export's (less the XML declaration,
 * scaled to the page) and its <pre> is the per-thread top table.
 */
TEST(html_page)
{
    REQUIRE(have_cmd("python3"), "python3 is required");
    tfmt_profile *p = load_fixture("interleaved_threads", NULL);
    REQUIRE(p, "load");
    char h[256], t[256], cmd[1500];
    tmp_path(h, sizeof h, "html");
    tmp_path(t, sizeof t, "html_top");
    xo.title = "T <&>";
    CHECK(export_to(p, write_html, h) == TFMT_OK, "html");
    xo.per_thread = true;
    CHECK(export_to(p, write_top, t) == TFMT_OK, "top");
    xo.per_thread = false;
    xo.title = NULL;
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import html, re, sys\n"
             "page = open(sys.argv[1]).read()\n"
             "top = open(sys.argv[2]).read()\n"
             "pre = re.search(\"<pre>(.*)</pre>\", page, re.S).group(1)\n"
             "ok = html.unescape(pre) == top and page.count(\"<svg \") == 1"
             " and \"<title>T &lt;&amp;&gt;</title>\" in page and "
             "page.startswith(\"<!DOCTYPE html>\")\n"
             "sys.exit(not ok)' %s %s",
             h, t);
    CHECK(run_cmd(cmd) == 0, "html page: table, svg or title wrong");
    unlink(h);
    unlink(t);
    tfmt_profile_free(p);
}

/* ---- every allocation failing in turn ---- */

static int write_pprof(tfmt_profile *p, tfmt_sink *s)
{
    return tfmt_profile_write_pprof(p, s, &xo);
}

static int write_pstats(tfmt_profile *p, tfmt_sink *s)
{
    return tfmt_profile_write_pstats(p, s);
}

/*
 * Each export, with its n-th allocation failing for every n, returns
 * TFMT_OK or TFMT_ENOMEM (with the error recorded) and frees all it took.
 */
TEST(every_allocation_failing)
{
    counting cnt = {0, 0, -1};
    tfmt_allocator a = {c_malloc, c_realloc, c_free, &cnt};
    tfmt_profile_options o = TFMT_PROFILE_OPTIONS_INIT;
    o.alloc = &a;
    tfmt_profile *p = load_fixture("interleaved_threads", &o);
    REQUIRE(p, "load");
    export_fn fns[] = {write_speedscope, write_svg,    write_top,
                       write_pprof,      write_pstats, write_html};
    /* Writers free the node index (tfmt__xorder_build): not theirs. */
    tfmt__profile_drop_index(p);
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        long base = cnt.live;
        bool ok_seen = false;
        for (long n = 0; n < 400 && !ok_seen; n++) {
            cnt.calls = 0;
            cnt.fail_at = n;
            int rc = export_to(p, fns[f], "/dev/null");
            cnt.fail_at = -1;
            ok_seen = rc == TFMT_OK;
            CHECK(rc == TFMT_OK || (rc == TFMT_ENOMEM &&
                                    tfmt_profile_error(p)->code == TFMT_ENOMEM),
                  "export %zu, failing allocation %ld: status %d", f, n, rc);
            CHECK(cnt.live == base,
                  "export %zu, failing allocation %ld: "
                  "%ld blocks leaked",
                  f, n, cnt.live - base);
        }
        CHECK(ok_seen, "export %zu never succeeded", f);
    }
    tfmt_profile_free(p);
    CHECK(cnt.live == 0, "%ld blocks leaked", cnt.live);
}

/*
 * The timeline (speedscope's) and the "<truncated>" marker under a
 * failing allocator: loading fails cleanly at every allocation, nothing
 * leaks, and the export then fails cleanly at every one of its own.
 */
TEST(timeline_allocation_failing)
{
    counting cnt = {0, 0, -1};
    tfmt_allocator a = {c_malloc, c_realloc, c_free, &cnt};
    tfmt_profile_options o = TFMT_PROFILE_OPTIONS_INIT;
    o.alloc = &a;
    o.timeline = true;
    o.mark_truncated = true;
    bool loaded = false;
    for (long n = 0; n < 2000 && !loaded; n++) {
        tfmt_profile *p;
        cnt.calls = 0;
        cnt.fail_at = -1;
        REQUIRE(tfmt_profile_new(&p, &o) == TFMT_OK, "new");
        cnt.fail_at = n;
        int rc = add_fixture(p, "interleaved_threads", "none.bin");
        cnt.fail_at = -1;
        loaded = rc == TFMT_OK;
        CHECK(rc == TFMT_OK || rc == TFMT_ENOMEM,
              "load, failing allocation %ld: status %d", n, rc);
        if (loaded) {
            tfmt__profile_drop_index(p); /* writers free it */
            long base = cnt.live;
            bool ok_seen = false;
            for (long m = 0; m < 400 && !ok_seen; m++) {
                cnt.calls = 0;
                cnt.fail_at = m;
                rc = export_to(p, write_speedscope, "/dev/null");
                cnt.fail_at = -1;
                ok_seen = rc == TFMT_OK;
                CHECK(rc == TFMT_OK || rc == TFMT_ENOMEM,
                      "export, failing allocation %ld: status %d", m, rc);
                CHECK(cnt.live == base,
                      "export, failing allocation %ld: "
                      "%ld blocks leaked",
                      m, cnt.live - base);
            }
            CHECK(ok_seen, "export never succeeded");
        }
        tfmt_profile_free(p);
        CHECK(cnt.live == 0,
              "load, failing allocation %ld: %ld blocks "
              "leaked",
              n, cnt.live);
    }
    CHECK(loaded, "load never succeeded");
}

TESTS(TCASE(speedscope_fixtures), TCASE(timeline_allocation_failing),
      TCASE(svg_fixtures), TCASE(svg_hostile_names), TCASE(top_hand_derived),
      TCASE(merge_order_independent), TCASE(html_page),
      TCASE(every_allocation_failing))
