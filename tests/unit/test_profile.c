/* SPDX-License-Identifier: MIT */
/*
 * test_profile.c - the aggregated profile and its CPython-identical JSONL
 * and collapsed exporters: JSON string escaping and UTF-8 repair against
 * Python's own results, hand-built stacks against hand-derived outputs,
 * and every CPython fixture (all four binary variants) byte for byte.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "fail_alloc.h"
#include "log_files.h"
#include "json_escape.h"
#include "profile_internal.h"
#include "tachyon/fmt_export.h"

static const char *const fixture_cases[] = {
    "single_full",         "repeat_rle",       "suffix_calls", "pop_push",
    "interleaved_threads", "synthetic_frames", "workload",
};
static const char *const variants[] = {
    "none.bin",
    "zstd.bin",
    "none.hdr-u32.bin",
    "zstd.hdr-u32.bin",
};
#define NCASES (sizeof fixture_cases / sizeof fixture_cases[0])
#define NVARIANTS (sizeof variants / sizeof variants[0])
#define RUN_ID "00000000000000000000000000000000"

/* ---- helpers ---- */

static char outpath[512];

static void make_outpath(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(outpath, sizeof outpath, "%s/test_profile_%ld.out",
             t && *t ? t : "/tmp", (long)getpid());
}

enum { JSONL, COLLAPSED, PSTATS, TOP, TOP_THREADS };

static int write_as(tfmt_profile *p, int which, tfmt_sink *sink)
{
    tfmt_export_options xo = TFMT_EXPORT_OPTIONS_INIT;
    xo.per_thread = which == TOP_THREADS;
    switch (which) {
    case JSONL: return tfmt_profile_write_jsonl(p, sink, RUN_ID);
    case COLLAPSED: return tfmt_profile_write_collapsed(p, sink);
    case PSTATS: return tfmt_profile_write_pstats(p, sink);
    default: return tfmt_profile_write_top(p, sink, &xo);
    }
}

/* Export `p` through a path sink and return the bytes (malloc'd). */
static unsigned char *export(tfmt_profile *p, int which, size_t *len, int *rc)
{
    tfmt_sink *sink;
    tfmt_error err;
    make_outpath();
    *rc = tfmt_sink_open(&sink, outpath, TFMT_SINK_FORCE, NULL, &err);
    if (*rc != TFMT_OK)
        return NULL;
    *rc = write_as(p, which, sink);
    int frc = tfmt_sink_finish(sink);
    tfmt_sink_free(sink);
    if (*rc == TFMT_OK)
        *rc = frc;
    unsigned char *data = harness_slurp(outpath, len);
    unlink(outpath);
    return data;
}

static void check_export(tfmt_profile *p, int which, const char *want,
                         const char *what)
{
    size_t len = 0;
    int rc;
    unsigned char *got = export(p, which, &len, &rc);
    CHECK(rc == TFMT_OK, "%s: export status %d", what, rc);
    CHECK(got && len == strlen(want) && memcmp(got, want, len) == 0,
          "%s: got\n%.*s\nwant\n%s", what, got ? (int)len : 0,
          got ? (const char *)got : "", want);
    free(got);
}

/* Compare an export with a fixture file, byte for byte. */
static void check_export_file(tfmt_profile *p, int which, const char *path)
{
    size_t wlen = 0, glen = 0;
    int rc;
    unsigned char *want = harness_slurp(path, &wlen);
    unsigned char *got = export(p, which, &glen, &rc);
    CHECK(want != NULL, "cannot read %s", path);
    CHECK(rc == TFMT_OK, "%s: export status %d", path, rc);
    if (want && got) {
        size_t i = 0;
        while (i < wlen && i < glen && want[i] == got[i])
            i++;
        CHECK(wlen == glen && i == wlen,
              "%s: differs at byte %zu (got %zu bytes, want %zu): "
              "got \"%.60s\"",
              path, i, glen, wlen, (const char *)got + (i < glen ? i : glen));
    }
    free(want);
    free(got);
}

/* Build a profile from a binary log path, with one tree for all threads
   when `shared`. */
static tfmt_profile *profile_with(const char *path, bool skip_idle, bool shared,
                                  int *rc)
{
    test_log l;
    tfmt_profile *p = NULL;
    tfmt_error err;
    tfmt_profile_options o;
    memset(&o, 0, sizeof o);
    o.version = TFMT_PROFILE_OPTIONS_VERSION;
    o.skip_idle = skip_idle;
    o.shared_tree = shared;
    *rc = test_log_open(&l, path, NULL, &err);
    if (*rc == TFMT_OK)
        *rc = tfmt_profile_new(&p, &o);
    if (*rc == TFMT_OK)
        *rc = tfmt_profile_add_bin(p, l.r);
    test_log_close(&l);
    if (*rc != TFMT_OK) {
        tfmt_profile_free(p);
        return NULL;
    }
    return p;
}

static tfmt_profile *profile_of(const char *path, bool skip_idle, int *rc)
{
    return profile_with(path, skip_idle, false, rc);
}

/* ---- escaping and UTF-8 repair ---- */

/*
 * Expected values derived with CPython 3.11:
 *   python3 -c 'import json; print(json.dumps(B.decode("utf-8","replace"),
 *               separators=(",",":")))'
 * for each input B below.
 */
static const struct {
    const char *in;
    size_t len;
    const char *json;
} escapes[] = {
    {"plain ascii", 11, "\"plain ascii\""},
    {"quote\" back\\ slash/", 19, "\"quote\\\" back\\\\ slash/\""},
    {"\n\r\t\b\f\0\x01\x1f\x7f", 9,
     "\"\\n\\r\\t\\b\\f\\u0000\\u0001\\u001f\\u007f\""},
    /* "Привет" */
    {"\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82", 12,
     "\"\\u041f\\u0440\\u0438\\u0432\\u0435\\u0442\""},
    /* "漢字テスト" */
    {"\xe6\xbc\xa2\xe5\xad\x97\xe3\x83\x86\xe3\x82\xb9\xe3\x83\x88", 15,
     "\"\\u6f22\\u5b57\\u30c6\\u30b9\\u30c8\""},
    /* "x😀y": U+1F600 as a surrogate pair */
    {"x\xf0\x9f\x98\x80y", 6, "\"x\\ud83d\\ude00y\""},
    {"a\xff"
     "b",
     3, "\"a\\ufffdb\""},
    {"\xe2\x82", 2, "\"\\ufffd\""},
    {"\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\""},
    {"\xf0\x9f\x98", 3, "\"\\ufffd\""},
    {"\xc0\xaf\xf4\x90\x80\x80", 6,
     "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\""},
    /* "é\u2028\ufeff" */
    {"\xc3\xa9\xe2\x80\xa8\xef\xbb\xbf", 8, "\"\\u00e9\\u2028\\ufeff\""},
    {"", 0, "\"\""},
};

TEST(json_escape_matches_python)
{
    for (size_t i = 0; i < sizeof escapes / sizeof escapes[0]; i++) {
        tfmt_buf b;
        tfmt__buf_init(&b, NULL);
        int rc = tfmt__json_put_string(&b, escapes[i].in, escapes[i].len);
        CHECK(rc == TFMT_OK, "case %zu: status %d", i, rc);
        CHECK(b.len == strlen(escapes[i].json) &&
                  memcmp(b.data, escapes[i].json, b.len) == 0,
              "case %zu: got %.*s want %s", i, (int)b.len, b.data,
              escapes[i].json);
        tfmt__buf_free(&b);
    }
}

/*
 * Python: B.decode("utf-8", "replace").encode("utf-8").hex() - one
 * U+FFFD (ef bf bd) per maximal invalid subpart.
 */
static const struct {
    const char *in;
    size_t len;
    const char *out;
    size_t outlen;
} repairs[] = {
    {"a\xff"
     "b",
     3,
     "a\xef\xbf\xbd"
     "b",
     5},
    {"\xe2\x82", 2, "\xef\xbf\xbd", 3},
    {"\xe2\x82"
     "A",
     3,
     "\xef\xbf\xbd"
     "A",
     4},
    {"\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 9},
    {"\xf0\x80", 2, "\xef\xbf\xbd\xef\xbf\xbd", 6},
    {"\xe0\x80\xaf", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 9},
    {"ok \xd0\x9f", 5, "ok \xd0\x9f", 5},
};

TEST(utf8_repair_matches_python)
{
    for (size_t i = 0; i < sizeof repairs / sizeof repairs[0]; i++) {
        tfmt_buf b;
        tfmt__buf_init(&b, NULL);
        CHECK(tfmt__utf8_repair(&b, repairs[i].in, repairs[i].len) == TFMT_OK,
              "case %zu", i);
        CHECK(b.len == repairs[i].outlen &&
                  memcmp(b.data, repairs[i].out, b.len) == 0,
              "case %zu: got %zu bytes", i, b.len);
        CHECK(tfmt__utf8_valid(repairs[i].in, repairs[i].len) == (i == 6),
              "case %zu validity", i);
        tfmt__buf_free(&b);
    }
}

/* ---- the fast paths of base against plain versions of themselves ---- */

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Decimals of every size against printf. */
TEST(decimals_match_printf)
{
    static const uint64_t edges[] = {0,
                                     9,
                                     10,
                                     99,
                                     100,
                                     999,
                                     1000,
                                     9999,
                                     10000,
                                     99999999,
                                     100000000,
                                     4294967295u,
                                     4294967296u,
                                     9999999999999999999u,
                                     10000000000000000000u,
                                     UINT64_MAX};
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < 2000000; i++) {
        uint64_t v = i < sizeof edges / sizeof *edges
                         ? edges[i]
                         : xorshift(&seed) >> (xorshift(&seed) % 64);
        char a[24], b[24], c[24];
        *tfmt__fmt_u64(a, v) = '\0';
        *tfmt__put_dec(b, v) = '\0';
        snprintf(c, sizeof c, "%llu", (unsigned long long)v);
        if (strcmp(a, c) || strcmp(b, c)) {
            CHECK(false, "%s: fmt %s, put_dec %s", c, a, b);
            return;
        }
    }
}

/*
 * The JSON escape of one string, a byte at a time from the rules (the
 * library goes by a table and eight plain bytes at a time).
 */
static void plain_escape(tfmt_buf *b, const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    tfmt__buf_putc(b, '"');
    for (size_t i = 0; i < n;) {
        uint8_t c = p[i];
        const char *shorts = strchr("\"\\\n\r\t\b\f", c);
        if (c >= 0x80) {
            size_t bad = 0, len = tfmt__utf8_seq(p + i, n - i, &bad);
            uint32_t cp = 0xfffd;
            if (len) {
                cp = p[i] & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
                for (size_t k = 1; k < len; k++)
                    cp = cp << 6 | (p[i + k] & 0x3f);
            }
            uint32_t units[2] = {cp, 0};
            if (cp >= 0x10000) {
                units[0] = 0xd800 | (cp - 0x10000) >> 10;
                units[1] = 0xdc00 | ((cp - 0x10000) & 0x3ff);
            }
            for (int u = 0; u < (units[1] ? 2 : 1); u++)
                tfmt__buf_printf(b, "\\u%04x", (unsigned)units[u]);
            i += len ? len : bad;
        } else if (c && shorts) {
            char e[3] = {'\\', "\"\\nrtbf"[shorts - "\"\\\n\r\t\b\f"], 0};
            tfmt__buf_puts(b, e);
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            tfmt__buf_printf(b, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
            i++;
        } else {
            tfmt__buf_putc(b, (char)c);
            i++;
        }
    }
    tfmt__buf_putc(b, '"');
}

/* Whether p is valid UTF-8, a sequence at a time (no ASCII words). */
static bool plain_valid(const uint8_t *p, size_t n)
{
    for (size_t i = 0, bad; i < n;) {
        size_t len = tfmt__utf8_seq(p + i, n - i, &bad);
        if (!len)
            return false;
        i += len;
    }
    return true;
}

/* Random strings, mostly plain runs of every length, against both. */
TEST(escape_and_utf8_check_match_plain_versions)
{
    static const uint8_t odd[] = {
        '"',  '\\', '\n', 0x01, 0x1f, 0x7f, 0x00, 0xc3, 0xa9, 0xe2, 0x82, 0xac,
        0xf0, 0x9f, 0x98, 0x80, 0xff, 0xed, 0xa0, 0x80, 0x20, '~',  0x80, 0xbf};
    uint64_t seed = 0x2545f4914f6cdd1du;
    for (size_t t = 0; t < 200000; t++) {
        uint8_t s[48];
        size_t n = xorshift(&seed) % sizeof s;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = xorshift(&seed);
            s[i] =
                r % 8 ? (uint8_t)(' ' + r / 8 % 95) : odd[r / 8 % sizeof odd];
        }
        tfmt_buf a, b;
        tfmt__buf_init(&a, NULL);
        tfmt__buf_init(&b, NULL);
        tfmt__json_put_string(&a, (const char *)s, n);
        plain_escape(&b, s, n);
        bool same = a.len == b.len && !memcmp(a.data, b.data, a.len);
        bool valid = tfmt__utf8_valid((const char *)s, n) == plain_valid(s, n);
        CHECK(same && valid, "string %zu: %.*s against %.*s, valid %d", t,
              (int)a.len, a.data, (int)b.len, b.data, valid);
        tfmt__buf_free(&a);
        tfmt__buf_free(&b);
        if (!same || !valid)
            return;
    }
}

TEST(intern_string_repairs_and_dedups)
{
    tfmt_profile *p;
    REQUIRE(tfmt_profile_new(&p, NULL) == TFMT_OK, "new");
    uint32_t a, b, c;
    CHECK(tfmt__profile_intern_string(p,
                                      "a\xff"
                                      "b",
                                      3, &a) == TFMT_OK,
          "a");
    CHECK(tfmt__profile_intern_string(p,
                                      "a\xfe"
                                      "b",
                                      3, &b) == TFMT_OK,
          "b");
    CHECK(tfmt__profile_intern_string(p,
                                      "a\xef\xbf\xbd"
                                      "b",
                                      5, &c) == TFMT_OK,
          "c");
    /* All three decode to "a\ufffdb" in Python: one string. */
    CHECK(a == 0 && b == 0 && c == 0, "ids %u %u %u", a, b, c);
    tfmt_str s = tfmt__profile_str(p, a);
    CHECK(s.len == 5 && memcmp(s.ptr,
                               "a\xef\xbf\xbd"
                               "b",
                               5) == 0,
          "stored %zu bytes", s.len);
    tfmt_profile_free(p);
}

/* ---- hand-built stacks ---- */

static uint32_t str_id(tfmt_profile *p, const char *s)
{
    uint32_t id = TFMT_NO_ID;
    tfmt__profile_intern_string(p, s, strlen(s), &id);
    return id;
}

static uint32_t frame_id(tfmt_profile *p, const char *file, const char *func,
                         int32_t line, int32_t end_line, int32_t col,
                         int32_t end_col, uint8_t opcode)
{
    tfmt_frame f = {str_id(p, file), str_id(p, func), line, end_line, col,
                    end_col,         opcode};
    uint32_t id = TFMT_NO_ID;
    tfmt__profile_intern_frame(p, &f, &id);
    return id;
}

/*
 * F0 = x.py f line 1 (1,1,0,5); F1 = x.py g line 2 (2,2,-1,-1);
 * F2 = F0 with another opcode (same JSONL and collapsed frame);
 * F3 = "~" <GC> without location; F4 = /b/x.py f line 1 (1,0,3,-1),
 * which renders like F0 in collapsed output but is another key.
 */
static tfmt_profile *small_profile(void)
{
    tfmt_profile *p;
    if (tfmt_profile_new(&p, NULL) != TFMT_OK)
        return NULL;
    uint32_t f0 = frame_id(p, "/a/x.py", "f", 1, 1, 0, 5, 10);
    uint32_t f1 = frame_id(p, "/a/x.py", "g", 2, 2, -1, -1, 10);
    uint32_t f2 = frame_id(p, "/a/x.py", "f", 1, 1, 0, 5, 11);
    uint32_t f3 = frame_id(p, "~", "<GC>", -1, -1, -1, -1, 255);
    uint32_t f4 = frame_id(p, "/b/x.py", "f", 1, 0, 3, -1, 255);
    const uint32_t s1[] = {f0, f1, f0}, s2[] = {f0}, s3[] = {f2, f1};
    const uint32_t s4[] = {f0, f1}, s5[] = {f0, f3}, s6[] = {f4};
    int rc = tfmt__profile_add_stack(p, 7, 0, s1, 3, 2);
    rc |= tfmt__profile_add_stack(p, 7, 0, s2, 1, 1);
    rc |= tfmt__profile_add_stack(p, 7, 0, s3, 2, 3);
    rc |= tfmt__profile_add_stack(p, 8, 0, s4, 2, 1);
    rc |= tfmt__profile_add_stack(p, 8, 0, s5, 2, 1);
    rc |= tfmt__profile_add_stack(p, 9, 0, s6, 1, 1);
    rc |= tfmt__profile_add_stack(p, 9, 1, s2, 1, 1);
    rc |= tfmt__profile_add_stack(p, 9, 0, s2, 0, 5); /* empty: ignored */
    p->interval_us = 1234;
    p->mode = TFMT_MODE_CPU;
    if (rc != TFMT_OK) {
        tfmt_profile_free(p);
        return NULL;
    }
    return p;
}

/*
 * Derived by hand from the stacks above. JSONL frames: J0 = {F0, F2},
 * J1 = F1, J2 = F3, J3 = F4; strings funcname first: f, /a/x.py, g, <GC>,
 * ~, /b/x.py. self: J0 2+1+1, J1 3+1, J2 1, J3 1. cumulative: J0 counts
 * every stack once (10 - 1 for F4's stack = 9), J1 2+3+1, J2 1, J3 1.
 */
static const char small_jsonl[] =
    "{\"type\":\"meta\",\"v\":0,\"run_id\":\"" RUN_ID "\","
    "\"sample_interval_usec\":1234,\"mode\":\"cpu\"}\n"
    "{\"type\":\"string_table\",\"v\":0,\"run_id\":\"" RUN_ID "\","
    "\"strings\":[{\"str_id\":0,\"value\":\"f\"},"
    "{\"str_id\":1,\"value\":\"/a/x.py\"},{\"str_id\":2,\"value\":\"g\"},"
    "{\"str_id\":3,\"value\":\"<GC>\"},{\"str_id\":4,\"value\":\"~\"},"
    "{\"str_id\":5,\"value\":\"/b/x.py\"}]}\n"
    "{\"type\":\"frame_table\",\"v\":0,\"run_id\":\"" RUN_ID "\","
    "\"frames\":[{\"frame_id\":0,\"path_str_id\":1,\"func_str_id\":0,"
    "\"line\":1,\"end_line\":1,\"col\":0,\"end_col\":5},"
    "{\"frame_id\":1,\"path_str_id\":1,\"func_str_id\":2,\"line\":2,"
    "\"end_line\":2},"
    "{\"frame_id\":2,\"path_str_id\":4,\"func_str_id\":3,\"line\":0},"
    "{\"frame_id\":3,\"path_str_id\":5,\"func_str_id\":0,\"line\":1,"
    "\"col\":3}]}\n"
    "{\"type\":\"agg\",\"v\":0,\"run_id\":\"" RUN_ID "\",\"kind\":\"frame\","
    "\"scope\":\"final\",\"samples_total\":10,\"entries\":["
    "{\"frame_id\":0,\"self\":4,\"cumulative\":9},"
    "{\"frame_id\":1,\"self\":4,\"cumulative\":6},"
    "{\"frame_id\":2,\"self\":1,\"cumulative\":1},"
    "{\"frame_id\":3,\"self\":1,\"cumulative\":1}]}\n"
    "{\"type\":\"end\",\"v\":0,\"run_id\":\"" RUN_ID "\","
    "\"samples_total\":10}\n";

/*
 * Collapsed keys ignore columns, opcodes and interpreters: F2 == F0, and
 * thread 9's two interpreters merge; F4 renders like F0 but is its own
 * line. Sorted by count, then text ('<' < 'x').
 */
static const char small_collapsed[] = "tid:7;x.py:f:1;x.py:g:2 3\n"
                                      "tid:7;x.py:f:1;x.py:g:2;x.py:f:1 2\n"
                                      "tid:7;x.py:f:1 1\n"
                                      "tid:8;x.py:f:1;<GC> 1\n"
                                      "tid:8;x.py:f:1;x.py:g:2 1\n"
                                      "tid:9;x.py:f:1 1\n"
                                      "tid:9;x.py:f:1 1\n";

TEST(small_profile_jsonl)
{
    tfmt_profile *p = small_profile();
    REQUIRE(p != NULL, "building the profile failed");
    CHECK(tfmt_profile_samples(p) == 10, "samples %llu",
          (unsigned long long)tfmt_profile_samples(p));
    check_export(p, JSONL, small_jsonl, "small jsonl");
    tfmt_profile_free(p);
}

TEST(small_profile_collapsed)
{
    tfmt_profile *p = small_profile();
    REQUIRE(p != NULL, "building the profile failed");
    check_export(p, COLLAPSED, small_collapsed, "small collapsed");
    tfmt_profile_free(p);
}

/*
 * Lines whose texts are prefixes of each other, all but one with count 1,
 * added out of order. A = a.py:f:1, A2 = the same text from another file
 * (another key), B = a.py:f:10, C = a.py:f:2, G = <GC>, H = a "~" frame
 * whose funcname is "a.py:f:1;x" (its text spans what is a frame boundary
 * in other lines). Expected order (checked with Python's sorted() on
 * (-count, text.encode(), first)): count 2 first; "tid:1844..." < "tid:5"
 * ('1' < '5'); "tid:50;" < "tid:5;" ('0' 0x30 < ';' 0x3b); after
 * "tid:5;a.py:f:1" the end of the line < '0' (of ":10") < ';'; after
 * "tid:5;a.py:f:1;": '<' 0x3c < 'a' < 'x', and "...:f:1" < "...:f:2".
 * Equal texts (A and A2, [A,C] and [A2,C]) keep first-appearance order,
 * which the bytes cannot show.
 */
static const char prefix_collapsed[] = "tid:50;a.py:f:2 2\n"
                                       "tid:18446744073709551615;a.py:f:1 1\n"
                                       "tid:50;a.py:f:1 1\n"
                                       "tid:5;a.py:f:1 1\n"
                                       "tid:5;a.py:f:1 1\n"
                                       "tid:5;a.py:f:10 1\n"
                                       "tid:5;a.py:f:10;a.py:f:1 1\n"
                                       "tid:5;a.py:f:1;<GC> 1\n"
                                       "tid:5;a.py:f:1;a.py:f:1 1\n"
                                       "tid:5;a.py:f:1;a.py:f:2 1\n"
                                       "tid:5;a.py:f:1;a.py:f:2 1\n"
                                       "tid:5;a.py:f:1;x 1\n";

TEST(collapsed_prefix_order)
{
    tfmt_profile *p;
    REQUIRE(tfmt_profile_new(&p, NULL) == TFMT_OK, "new");
    uint32_t a = frame_id(p, "/p/a.py", "f", 1, 1, 0, 1, 0);
    uint32_t a2 = frame_id(p, "/q/a.py", "f", 1, 1, 0, 1, 0);
    uint32_t b = frame_id(p, "/p/a.py", "f", 10, 10, 0, 1, 0);
    uint32_t c = frame_id(p, "/p/a.py", "f", 2, 2, 0, 1, 0);
    uint32_t g = frame_id(p, "~", "<GC>", -1, -1, -1, -1, 255);
    uint32_t h = frame_id(p, "~", "a.py:f:1;x", -1, -1, -1, -1, 255);
    const uint32_t s1[] = {a}, s2[] = {b}, s3[] = {a, c}, s4[] = {a2};
    const uint32_t s5[] = {b, a}, s6[] = {a, g}, s7[] = {a, a};
    const uint32_t s8[] = {a2, c}, s9[] = {h}, s10[] = {c};
    int rc = tfmt__profile_add_stack(p, 5, 0, s1, 1, 1);
    rc |= tfmt__profile_add_stack(p, 5, 0, s2, 1, 1);
    rc |= tfmt__profile_add_stack(p, 5, 0, s3, 2, 1);
    rc |= tfmt__profile_add_stack(p, 50, 0, s1, 1, 1);
    rc |= tfmt__profile_add_stack(p, 5, 0, s4, 1, 1);
    rc |= tfmt__profile_add_stack(p, 5, 0, s5, 2, 1);
    rc |= tfmt__profile_add_stack(p, 5, 0, s6, 2, 1);
    rc |= tfmt__profile_add_stack(p, 5, 0, s7, 2, 1);
    rc |= tfmt__profile_add_stack(p, 5, 0, s8, 2, 1);
    rc |= tfmt__profile_add_stack(p, 5, 0, s9, 1, 1);
    rc |= tfmt__profile_add_stack(p, 50, 0, s10, 1, 2);
    rc |= tfmt__profile_add_stack(p, UINT64_MAX, 0, s1, 1, 1);
    CHECK(rc == TFMT_OK, "adding stacks");
    check_export(p, COLLAPSED, prefix_collapsed, "prefix collapsed");
    tfmt_profile_free(p);
}

/* ---- collapsed order against materialised lines and memcmp ---- */

#define PX_FRAMES 8
#define PX_STACKS 3000
#define PX_MAXLINE 128

typedef struct px_line {
    uint64_t tid, count;
    uint32_t depth, frames[6];
    size_t first;
    char text[PX_MAXLINE];
} px_line;

/* Texts that are prefixes of each other, and a "~" one spanning a ';'. */
static const char *const px_files[PX_FRAMES] = {
    "/p/a.py", "/q/a.py", "/p/a.py", "/p/a.py", "/p/a.py", "/p/a.py", "~", "~",
};
static const char *const px_funcs[PX_FRAMES] = {
    "f", "f", "f", "f", "ff", "f:1", "a.py:f:1;a.py:f", "a.py:f",
};
static const int32_t px_lines[PX_FRAMES] = {1, 1, 10, 100, 1, 0, -1, -1};
static const char *const px_texts[PX_FRAMES] = {
    "a.py:f:1",  "a.py:f:1",   "a.py:f:10",       "a.py:f:100",
    "a.py:ff:1", "a.py:f:1:0", "a.py:f:1;a.py:f", "a.py:f",
};

static uint64_t px_state = 777;

/* Knuth's MMIX LCG; the high bits, as the low ones have short periods. */
static uint32_t px_rand(uint32_t n)
{
    px_state = px_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(px_state >> 33) % n;
}

static int px_cmp(const void *x, const void *y)
{
    const px_line *a = x, *b = y;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    int r = strcmp(a->text, b->text); /* UTF-8 byte order = memcmp */
    if (r != 0)
        return r;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* Count one random stack into `lines` (keyed on tid and frame ids). */
static size_t px_add(px_line *lines, size_t n, const px_line *s)
{
    for (size_t i = 0; i < n; i++) {
        if (lines[i].tid == s->tid && lines[i].depth == s->depth &&
            memcmp(lines[i].frames, s->frames,
                   s->depth * sizeof s->frames[0]) == 0) {
            lines[i].count += s->count;
            return n;
        }
    }
    lines[n] = *s;
    lines[n].first = n;
    int len = snprintf(lines[n].text, PX_MAXLINE, "tid:%llu",
                       (unsigned long long)s->tid);
    for (uint32_t d = 0; d < s->depth; d++)
        len += snprintf(lines[n].text + len, (size_t)(PX_MAXLINE - len), ";%s",
                        px_texts[s->frames[d]]);
    return n + 1;
}

TEST(collapsed_order_matches_memcmp)
{
    static const uint64_t tids[] = {5, 50, 500, 1};
    static px_line lines[PX_STACKS];
    static char want[PX_STACKS * (PX_MAXLINE + 24)];
    tfmt_profile *p;
    REQUIRE(tfmt_profile_new(&p, NULL) == TFMT_OK, "new");
    uint32_t ids[PX_FRAMES];
    for (int i = 0; i < PX_FRAMES; i++)
        ids[i] = frame_id(p, px_files[i], px_funcs[i], px_lines[i], px_lines[i],
                          0, 1, 0);
    size_t n = 0;
    int rc = TFMT_OK;
    for (int k = 0; k < PX_STACKS; k++) {
        px_line s;
        memset(&s, 0, sizeof s);
        s.tid = tids[px_rand(4)];
        s.count = 1 + (px_rand(8) == 0);
        s.depth = 1 + px_rand(4);
        uint32_t stack[6];
        for (uint32_t d = 0; d < s.depth; d++) {
            s.frames[d] = px_rand(PX_FRAMES);
            stack[d] = ids[s.frames[d]];
        }
        rc |= tfmt__profile_add_stack(p, s.tid, 0, stack, s.depth, s.count);
        n = px_add(lines, n, &s);
    }
    REQUIRE(rc == TFMT_OK, "adding stacks");
    qsort(lines, n, sizeof *lines, px_cmp);
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len +=
            (size_t)snprintf(want + len, sizeof want - len, "%s %llu\n",
                             lines[i].text, (unsigned long long)lines[i].count);
    CHECK(n > 500, "only %zu distinct lines", n);
    check_export(p, COLLAPSED, want, "random prefix lines");
    tfmt_profile_free(p);
}

/*
 * More than 65536 collapsed frames: paths take four bytes a level. Frame
 * i is m.py:f:<i + 1>; stack i is [F(i)], and every 1000th also
 * [F(WD_FRAMES - 1), F(i)] (ids above 65535 at level 0). Expected lines
 * are materialised and sorted with strcmp here (no ties: texts differ).
 */
#define WD_FRAMES 66000

typedef struct wd_line {
    uint64_t count;
    char text[48];
} wd_line;

static int wd_cmp(const void *x, const void *y)
{
    const wd_line *a = x, *b = y;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return strcmp(a->text, b->text);
}

TEST(collapsed_wide_frame_ids)
{
    static wd_line lines[WD_FRAMES + WD_FRAMES / 1000 + 1];
    static char want[sizeof lines / sizeof lines[0] * 64];
    static uint32_t ids[WD_FRAMES];
    tfmt_profile *p;
    REQUIRE(tfmt_profile_new(&p, NULL) == TFMT_OK, "new");
    int rc = TFMT_OK;
    for (int32_t i = 0; i < WD_FRAMES; i++)
        ids[i] = frame_id(p, "/m.py", "f", i + 1, i + 1, 0, 1, 0);
    size_t n = 0;
    for (uint32_t i = 0; i < WD_FRAMES; i++) {
        uint64_t w = 1 + (i % 3 == 0);
        rc |= tfmt__profile_add_stack(p, 1, 0, &ids[i], 1, w);
        lines[n].count = w;
        snprintf(lines[n++].text, 48, "tid:1;m.py:f:%u", i + 1);
        if (i % 1000 != 0)
            continue;
        const uint32_t s[] = {ids[WD_FRAMES - 1], ids[i]};
        rc |= tfmt__profile_add_stack(p, 1, 0, s, 2, 1);
        lines[n].count = 1;
        snprintf(lines[n++].text, 48, "tid:1;m.py:f:%u;m.py:f:%u", WD_FRAMES,
                 i + 1);
    }
    REQUIRE(rc == TFMT_OK, "adding stacks");
    qsort(lines, n, sizeof *lines, wd_cmp);
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len +=
            (size_t)snprintf(want + len, sizeof want - len, "%s %llu\n",
                             lines[i].text, (unsigned long long)lines[i].count);
    check_export(p, COLLAPSED, want, "wide frame ids");
    tfmt_profile_free(p);
}

TEST(tree_walk_visits_parents_first)
{
    tfmt_profile *p = small_profile();
    REQUIRE(p != NULL, "building the profile failed");
    tfmt_ptree t;
    REQUIRE(tfmt__ptree_build(p, &t) == TFMT_OK, "ptree");
    /* Thread 7's root holds 6 samples, thread 8's 2; totals add up. */
    CHECK(t.total[p->threads[0].root] == 6, "t7 total %llu",
          (unsigned long long)t.total[p->threads[0].root]);
    CHECK(t.total[p->threads[1].root] == 2, "t8 total");
    tfmt_pwalk w;
    uint32_t n, enters = 0, leaves = 0, depth = 0, maxdepth = 0;
    int ev;
    tfmt__pwalk_init(&w, p, &t);
    for (;;) {
        ev = tfmt__pwalk_next(&w, &n);
        if (ev == 0)
            break;
        if (ev > 0) {
            CHECK(p->nodes[n].depth == depth, "node %u depth", n);
            enters++;
            depth++;
        } else {
            leaves++;
            depth--;
        }
        maxdepth = depth > maxdepth ? depth : maxdepth;
    }
    CHECK(enters == p->nnodes && leaves == p->nnodes, "%u/%u of %zu", enters,
          leaves, p->nnodes);
    CHECK(maxdepth == 4, "max depth %u (root + 3 frames)", maxdepth);
    uint32_t path[8];
    uint32_t d = tfmt__profile_path(p, 3, path, 8);
    CHECK(d == 3 && path[0] == 0 && path[1] == 1 && path[2] == 0,
          "path of node 3: depth %u", d);
    tfmt__ptree_free(p, &t);
    tfmt_profile_free(p);
}

TEST(empty_profile)
{
    tfmt_profile *p;
    REQUIRE(tfmt_profile_new(&p, NULL) == TFMT_OK, "new");
    p->interval_us = 100;
    check_export(p, COLLAPSED, "", "empty collapsed");
    check_export(p, JSONL,
                 "{\"type\":\"meta\",\"v\":0,\"run_id\":\"" RUN_ID "\","
                 "\"sample_interval_usec\":100}\n"
                 "{\"type\":\"end\",\"v\":0,\"run_id\":\"" RUN_ID "\","
                 "\"samples_total\":0}\n",
                 "empty jsonl");
    tfmt_profile_free(p);
}

/* A frame no counted stack uses (a filter dropped its sample) is absent. */
TEST(jsonl_skips_unused_frames)
{
    tfmt_profile *p;
    REQUIRE(tfmt_profile_new(&p, NULL) == TFMT_OK, "new");
    frame_id(p, "/u.py", "unused", 5, 5, 0, 1, 0);
    uint32_t f = frame_id(p, "/a.py", "used", 7, 7, -1, -1, 0);
    REQUIRE(tfmt__profile_add_stack(p, 1, 0, &f, 1, 3) == TFMT_OK, "add");
    p->interval_us = 10;
    check_export(p, JSONL,
                 "{\"type\":\"meta\",\"v\":0,\"run_id\":\"" RUN_ID "\","
                 "\"sample_interval_usec\":10}\n"
                 "{\"type\":\"string_table\",\"v\":0,\"run_id\":\"" RUN_ID
                 "\",\"strings\":[{\"str_id\":0,\"value\":\"used\"},"
                 "{\"str_id\":1,\"value\":\"/a.py\"}]}\n"
                 "{\"type\":\"frame_table\",\"v\":0,\"run_id\":\"" RUN_ID
                 "\",\"frames\":[{\"frame_id\":0,\"path_str_id\":1,"
                 "\"func_str_id\":0,\"line\":7,\"end_line\":7}]}\n"
                 "{\"type\":\"agg\",\"v\":0,\"run_id\":\"" RUN_ID "\","
                 "\"kind\":\"frame\",\"scope\":\"final\",\"samples_total\":3,"
                 "\"entries\":[{\"frame_id\":0,\"self\":3,"
                 "\"cumulative\":3}]}\n"
                 "{\"type\":\"end\",\"v\":0,\"run_id\":\"" RUN_ID "\","
                 "\"samples_total\":3}\n",
                 "unused frame");
    tfmt_profile_free(p);
}

/* 300 frames: records of 256 then 44 entries, samples_total on each. */
TEST(jsonl_chunks_of_256)
{
    tfmt_profile *p;
    REQUIRE(tfmt_profile_new(&p, NULL) == TFMT_OK, "new");
    for (int i = 0; i < 300; i++) {
        char name[16];
        snprintf(name, sizeof name, "fn%d", i);
        uint32_t f = frame_id(p, "m.py", name, i + 1, i + 1, 0, 1, 0);
        tfmt__profile_add_stack(p, 1, 0, &f, 1, 1);
    }
    size_t len = 0;
    int rc;
    char *out = (char *)export(p, JSONL, &len, &rc);
    REQUIRE(rc == TFMT_OK && out, "export %d", rc);
    int lines = 0, aggs = 0, strs = 0, totals = 0;
    for (char *l = out; l < out + len; l = strchr(l, '\n') + 1) {
        lines++;
        aggs += strncmp(l, "{\"type\":\"agg\"", 13) == 0;
        totals += strstr(l, "\"samples_total\":300") != NULL &&
                  strstr(l, "\"samples_total\":300") < strchr(l, '\n');
        strs += strncmp(l, "{\"type\":\"string_table\"", 22) == 0;
    }
    /* meta, 2 strings (301 strings), 2 frames, 2 agg, end. */
    CHECK(lines == 8 && aggs == 2 && strs == 2 && totals == 3,
          "lines %d aggs %d strs %d totals %d", lines, aggs, strs, totals);
    CHECK(strstr(out, "{\"str_id\":255,\"value\":\"fn254\"}]}\n") != NULL,
          "first string chunk ends at id 255");
    CHECK(strstr(out, "{\"frame_id\":256,\"self\":1,\"cumulative\":1}") != NULL,
          "second agg chunk");
    free(out);
    tfmt_profile_free(p);
}

/* ---- CPython fixtures ---- */

TEST(fixtures_jsonl_and_collapsed)
{
    char path[512], want[512];
    for (size_t c = 0; c < NCASES; c++) {
        for (size_t v = 0; v < NVARIANTS; v++) {
            snprintf(path, sizeof path, "%s/cpython/%s/%s", TESTDATA,
                     fixture_cases[c], variants[v]);
            int rc;
            tfmt_profile *p = profile_of(path, false, &rc);
            CHECK(p != NULL, "%s: status %d", path, rc);
            if (!p)
                continue;
            snprintf(want, sizeof want, "%s/cpython/%s/expected.jsonl",
                     TESTDATA, fixture_cases[c]);
            check_export_file(p, JSONL, want);
            snprintf(want, sizeof want, "%s/cpython/%s/expected.collapsed",
                     TESTDATA, fixture_cases[c]);
            check_export_file(p, COLLAPSED, want);
            tfmt_profile_free(p);
        }
    }
}

static void check_shared(const char *path, bool skip_idle, tfmt_profile *p);

/* One tree for all threads: CPython's JSONL still, and what one tree per
   thread gives (check_shared). */
TEST(fixtures_shared_tree)
{
    char path[512], want[512];
    for (size_t c = 0; c < NCASES; c++) {
        snprintf(path, sizeof path, "%s/cpython/%s/zstd.bin", TESTDATA,
                 fixture_cases[c]);
        int rc;
        tfmt_profile *p = profile_with(path, false, true, &rc);
        CHECK(p != NULL, "%s: status %d", path, rc);
        if (!p)
            continue;
        snprintf(want, sizeof want, "%s/cpython/%s/expected.jsonl", TESTDATA,
                 fixture_cases[c]);
        check_export_file(p, JSONL, want);
        tfmt_profile_free(p);
        p = profile_of(path, false, &rc);
        CHECK(p != NULL, "%s: status %d", path, rc);
        if (p)
            check_shared(path, false, p);
        tfmt_profile_free(p);
    }
}

/*
 * skip_idle expectations come from tests/tools/profile_expect.py, a
 * Python model of CPython's collectors over input.json that first
 * reproduces every CPython-written expected.* file exactly.
 */
TEST(fixtures_skip_idle)
{
    char path[512], want[512];
    for (size_t c = 0; c < NCASES; c++) {
        snprintf(path, sizeof path, "%s/cpython/%s/zstd.bin", TESTDATA,
                 fixture_cases[c]);
        int rc;
        tfmt_profile *p = profile_of(path, true, &rc);
        CHECK(p != NULL, "%s: status %d", path, rc);
        if (!p)
            continue;
        snprintf(want, sizeof want, "%s/profile/%s.skip_idle.jsonl", TESTDATA,
                 fixture_cases[c]);
        check_export_file(p, JSONL, want);
        snprintf(want, sizeof want, "%s/profile/%s.skip_idle.collapsed",
                 TESTDATA, fixture_cases[c]);
        check_export_file(p, COLLAPSED, want);
        tfmt_profile_free(p);
    }
}

static void put_le(unsigned char *d, size_t off, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        d[off + (size_t)i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *d, size_t off, int n)
{
    uint64_t v = 0;
    for (int i = n; i-- > 0;)
        v = v << 8 | d[off + (size_t)i];
    return v;
}

/*
 * A thread whose only record is a REPEAT of count 0 takes a reader thread
 * index but delivers no sample (CPython: no collect call). Built from
 * interleaved_threads/none.bin (layout G, little endian) by inserting such
 * a record first and moving the table offsets, thread count and footer
 * size: the exports must still equal the fixture's.
 */
TEST(empty_repeat_thread_is_invisible)
{
    char path[512], want[512];
    snprintf(path, sizeof path, "%s/cpython/interleaved_threads/none.bin",
             TESTDATA);
    size_t n = 0;
    unsigned char *orig = harness_slurp(path, &n);
    REQUIRE(orig && n > 96, "cannot read %s", path);
    unsigned char *d = malloc(n + 14);
    REQUIRE(d != NULL, "malloc");
    memcpy(d, orig, 64);
    put_le(d, 64, 4242, 8); /* thread id */
    put_le(d, 72, 0, 4);    /* interpreter id */
    d[76] = 0;              /* REPEAT */
    d[77] = 0;              /* count 0 */
    memcpy(d + 78, orig + 64, n - 64);
    put_le(d, 36, get_le(d, 36, 4) + 1, 4);
    put_le(d, 40, get_le(d, 40, 8) + 14, 8);
    put_le(d, 48, get_le(d, 48, 8) + 14, 8);
    put_le(d, n + 14 - 24, n + 14, 8);
    tfmt_source *src;
    tfmt_bin_reader *r;
    tfmt_profile *p;
    tfmt_error err;
    REQUIRE(tfmt_source_open_memory(&src, d, n + 14, 0, NULL) == TFMT_OK,
            "source");
    REQUIRE(tfmt_bin_open(&r, src, NULL, &err) == TFMT_OK, "open: %s", err.msg);
    REQUIRE(tfmt_profile_new(&p, NULL) == TFMT_OK, "new");
    int rc = tfmt_profile_add_bin(p, r);
    CHECK(rc == TFMT_OK, "add_bin %d: %s", rc, tfmt_profile_error(p)->msg);
    snprintf(want, sizeof want,
             "%s/cpython/interleaved_threads/"
             "expected.jsonl",
             TESTDATA);
    check_export_file(p, JSONL, want);
    snprintf(want, sizeof want,
             "%s/cpython/interleaved_threads/"
             "expected.collapsed",
             TESTDATA);
    check_export_file(p, COLLAPSED, want);
    tfmt_profile_free(p);
    tfmt_bin_free(r);
    tfmt_source_free(src);
    free(d);
    free(orig);
}

/* Two inputs merge by content: every count doubles, ids stay. */
TEST(two_readers_merge)
{
    char path[512];
    snprintf(path, sizeof path, "%s/cpython/repeat_rle/none.bin", TESTDATA);
    int rc;
    tfmt_profile *p = profile_of(path, false, &rc);
    REQUIRE(p != NULL, "first: %d", rc);
    tfmt_source *src;
    tfmt_bin_reader *r;
    tfmt_error err;
    REQUIRE(tfmt_source_open_path(&src, path, NULL, &err) == TFMT_OK, "s");
    REQUIRE(tfmt_bin_open(&r, src, NULL, &err) == TFMT_OK, "open");
    CHECK(tfmt_profile_add_bin(p, r) == TFMT_OK, "second add");
    tfmt_bin_free(r);
    tfmt_source_free(src);
    CHECK(tfmt_profile_samples(p) == 92, "samples %llu",
          (unsigned long long)tfmt_profile_samples(p));
    CHECK(p->nframes == 4 && p->nstrings == 7 && p->nthreads == 1,
          "frames %zu strings %zu threads %zu", p->nframes, p->nstrings,
          p->nthreads);
    /* repeat_rle's expected.collapsed, counts doubled. */
    check_export(p, COLLAPSED,
                 "tid:1;main.py:main:10;hot.py:outer:3;hot.py:spin:7 90\n"
                 "tid:1;main.py:main:10;cold.py:cold:1 2\n",
                 "merged collapsed");
    tfmt_profile_free(p);
}

/* ---- add_bin's O(changed) paths against the plain O(depth) path ---- */

#define RW_FRAMES 40
#define RW_SAMPLES 20000

static uint32_t rw_state = 12345;

static uint32_t rw_rand(uint32_t n)
{
    rw_state = rw_state * 1103515245u + 12345u;
    return (rw_state >> 8) % n;
}

typedef struct rw_ref {
    tfmt_profile *p;
    uint32_t map[RW_FRAMES]; /* writer frame -> reference frame */
    char names[RW_FRAMES][2][24];
} rw_ref;

/* The reference: frames interned innermost first, then add_stack. */
static int ref_add(rw_ref *ref, uint64_t tid, uint32_t iid,
                   const uint32_t *stack, uint32_t depth)
{
    uint32_t mapped[64];
    for (uint32_t i = depth; i-- > 0;) {
        uint32_t x = stack[i];
        if (ref->map[x] == TFMT_NO_ID) {
            tfmt_frame f = {0, 0, (int32_t)x + 1,  (int32_t)x + 1,
                            0, 9, (uint8_t)(x % 3)};
            f.filename = str_id(ref->p, ref->names[x][0]);
            f.funcname = str_id(ref->p, ref->names[x][1]);
            if (tfmt__profile_intern_frame(ref->p, &f, &ref->map[x]))
                return -1;
        }
        mapped[i] = ref->map[x];
    }
    return tfmt__profile_add_stack(ref->p, tid, iid, mapped, depth, 1);
}

/* One random-walk step of a thread's stack (root first). */
static void rw_step(uint32_t *stack, uint32_t *depth)
{
    uint32_t r = rw_rand(100);
    if (r < 40)
        return; /* same stack: REPEAT */
    if (r < 45) {
        *depth = 0; /* empty stack */
        return;
    }
    uint32_t pop = rw_rand(4);
    *depth = pop > *depth ? 0 : *depth - pop;
    uint32_t push = rw_rand(5);
    while (push-- > 0 && *depth < 60)
        stack[(*depth)++] = rw_rand(RW_FRAMES);
}

/* Write RW_SAMPLES random samples; feed the counted ones to `ref`. */
static int rw_write(tfmt_bin_writer *w, rw_ref *ref, bool skip_idle)
{
    static const uint8_t statuses[] = {0, 1, 2, 3, 4, 8, 16, 32};
    uint32_t stacks[4][64], depth[4] = {0, 0, 0, 0}, wf[RW_FRAMES];
    for (uint32_t i = 0; i < RW_FRAMES; i++) {
        snprintf(ref->names[i][0], 24, "/src/m%u.py", i % 7);
        snprintf(ref->names[i][1], 24, "fn%u", i);
        const char *a = ref->names[i][0], *b = ref->names[i][1];
        if (tfmt_bin_writer_location(w, a, strlen(a), b, strlen(b),
                                     (int32_t)i + 1, (int32_t)i + 1, 0, 9,
                                     (int)(i % 3), &wf[i]) != TFMT_OK)
            return -1;
        ref->map[i] = TFMT_NO_ID;
    }
    for (uint32_t n = 0; n < RW_SAMPLES; n++) {
        uint32_t t = rw_rand(4);
        uint8_t status = statuses[rw_rand(8)];
        rw_step(stacks[t], &depth[t]);
        uint32_t ws[64];
        for (uint32_t i = 0; i < depth[t]; i++)
            ws[i] = wf[stacks[t][i]];
        /* Threads 2 and 3 share a thread id in two interpreters. */
        uint64_t tid = t < 3 ? 100 + t : 102;
        uint32_t iid = t == 3;
        if (tfmt_bin_writer_sample(w, tid, iid, 1000 + n, status, ws,
                                   depth[t]) != TFMT_OK)
            return -1;
        bool idle = !(status & (TFMT_STATUS_HAS_GIL | TFMT_STATUS_ON_CPU));
        if (!(skip_idle && idle) &&
            ref_add(ref, tid, iid, stacks[t], depth[t]) != TFMT_OK)
            return -1;
    }
    return TFMT_OK;
}

static void check_same_exports(tfmt_profile *a, tfmt_profile *b,
                               const char *what)
{
    for (int which = JSONL; which <= COLLAPSED; which++) {
        size_t la, lb;
        int ra, rb;
        unsigned char *oa = export(a, which, &la, &ra);
        unsigned char *ob = export(b, which, &lb, &rb);
        CHECK(ra == TFMT_OK && rb == TFMT_OK, "%s: %d %d", what, ra, rb);
        CHECK(oa && ob && la == lb && memcmp(oa, ob, la) == 0,
              "%s: %s exports differ (%zu vs %zu bytes)", what,
              which == JSONL ? "jsonl" : "collapsed", la, lb);
        free(oa);
        free(ob);
    }
}

static const char *const which_name[] = {"jsonl", "collapsed", "pstats", "top",
                                         "top per thread"};

/*
 * A profile with one tree for all threads (read from `path` again) gives
 * the bytes of `p`, one tree per thread, for the outputs that do not tell
 * threads apart, counts the same threads and samples, and is refused by
 * the writers that split by thread.
 */
static void check_shared(const char *path, bool skip_idle, tfmt_profile *p)
{
    int rc;
    tfmt_profile *s = profile_with(path, skip_idle, true, &rc);
    CHECK(s != NULL, "%s: shared tree: status %d", path, rc);
    if (!s)
        return;
    CHECK(s->nthreads == p->nthreads && s->nnodes <= p->nnodes &&
              s->samples_total == p->samples_total,
          "%s: threads %zu/%zu nodes %zu/%zu", path, s->nthreads, p->nthreads,
          s->nnodes, p->nnodes);
    for (size_t t = 0; t < s->nthreads && t < p->nthreads; t++)
        CHECK(s->threads[t].samples == p->threads[t].samples,
              "%s: thread %zu samples", path, t);
    for (int which = JSONL; which <= TOP_THREADS; which++) {
        size_t la, lb;
        int ra, rb;
        unsigned char *oa = export(s, which, &la, &ra);
        unsigned char *ob = export(p, which, &lb, &rb);
        if (which == COLLAPSED || which == TOP_THREADS) {
            CHECK(ra == TFMT_EINVAL &&
                      strstr(tfmt_profile_error(s)->msg, "shared_tree"),
                  "%s: %s refuses a shared tree (%d)", path, which_name[which],
                  ra);
        } else {
            CHECK(ra == TFMT_OK && rb == TFMT_OK && oa && ob && la == lb &&
                      memcmp(oa, ob, la) == 0,
                  "%s: %s differs with a shared tree (%zu vs %zu bytes)", path,
                  which_name[which], la, lb);
        }
        free(oa);
        free(ob);
    }
    /* The writers freed the node index: the log read again finds every
       node again (none added), through an index built anew. */
    size_t nodes = s->nnodes;
    uint64_t samples = s->samples_total;
    test_log l;
    tfmt_error err;
    rc = test_log_open(&l, path, NULL, &err);
    if (rc == TFMT_OK)
        rc = tfmt_profile_add_bin(s, l.r);
    test_log_close(&l);
    CHECK(
        rc == TFMT_OK && s->nnodes == nodes && s->samples_total == 2 * samples,
        "%s: read again: status %d, nodes %zu/%zu", path, rc, s->nnodes, nodes);
    tfmt_profile_free(s);
}

static void random_walk_case(bool skip_idle)
{
    char path[512];
    const char *t = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/test_profile_rw_%ld.bin",
             t && *t ? t : "/tmp", (long)getpid());
    rw_ref ref;
    tfmt_sink *sink;
    tfmt_bin_writer *w;
    tfmt_error err;
    tfmt_bin_writer_options wo = TFMT_BIN_WRITER_OPTIONS_INIT;
    wo.sample_interval_us = 1000;
    REQUIRE(tfmt_profile_new(&ref.p, NULL) == TFMT_OK, "new");
    REQUIRE(tfmt_sink_open(&sink, path, TFMT_SINK_FORCE | TFMT_SINK_SEEKABLE,
                           NULL, &err) == TFMT_OK,
            "sink: %s", err.msg);
    REQUIRE(tfmt_bin_writer_open(&w, sink, &wo, &err) == TFMT_OK, "writer");
    int rc = rw_write(w, &ref, skip_idle);
    CHECK(rc == TFMT_OK, "writing samples: %d", rc);
    CHECK(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    tfmt_bin_writer_free(w);
    CHECK(tfmt_sink_finish(sink) == TFMT_OK, "sink finish");
    tfmt_sink_free(sink);
    ref.p->interval_us = 1000;
    tfmt_profile *p = profile_of(path, skip_idle, &rc);
    CHECK(p != NULL, "reading back: %d", rc);
    if (p) {
        CHECK(tfmt_profile_samples(p) == tfmt_profile_samples(ref.p) &&
                  p->nnodes == ref.p->nnodes && p->nframes == ref.p->nframes,
              "samples %llu/%llu nodes %zu/%zu",
              (unsigned long long)tfmt_profile_samples(p),
              (unsigned long long)tfmt_profile_samples(ref.p), p->nnodes,
              ref.p->nnodes);
        check_same_exports(p, ref.p, skip_idle ? "skip_idle" : "all");
        check_shared(path, skip_idle, p);
    }
    tfmt_profile_free(p);
    tfmt_profile_free(ref.p);
    unlink(path);
}

TEST(random_walk_matches_reference)
{
    random_walk_case(false);
}

/* Skipped samples in the middle of a thread: unchanged is relative to
 * them, and add_bin must not reuse path entries they invalidated. */
TEST(random_walk_skip_idle_matches_reference)
{
    random_walk_case(true);
}

/* ---- failing allocations ---- */

/* Build and export with allocation N failing; returns the first error. */
static int run_failing(const char *path, test_failing *f)
{
    tfmt_allocator a = test_failing_alloc(f);
    tfmt_profile_options o;
    memset(&o, 0, sizeof o);
    o.version = TFMT_PROFILE_OPTIONS_VERSION;
    o.alloc = &a;
    tfmt_source *src;
    tfmt_bin_reader *r;
    tfmt_profile *p = NULL;
    tfmt_error err;
    if (tfmt_source_open_path(&src, path, NULL, &err) != TFMT_OK)
        return 99;
    int rc = tfmt_bin_open(&r, src, NULL, &err);
    if (rc == TFMT_OK)
        rc = tfmt_profile_new(&p, &o);
    if (rc == TFMT_OK)
        rc = tfmt_profile_add_bin(p, r);
    size_t len;
    unsigned char *out = NULL;
    if (rc == TFMT_OK) {
        out = export(p, JSONL, &len, &rc);
        free(out);
    }
    if (rc == TFMT_OK) {
        out = export(p, COLLAPSED, &len, &rc);
        free(out);
    }
    tfmt_profile_free(p);
    tfmt_bin_free(r);
    tfmt_source_free(src);
    return rc;
}

/* Every allocation site fails cleanly (ENOMEM, no leak under ASan). */
TEST(failing_allocations)
{
    char path[512];
    snprintf(path, sizeof path, "%s/cpython/interleaved_threads/none.bin",
             TESTDATA);
    test_failing all = {0, 0, false};
    REQUIRE(run_failing(path, &all) == TFMT_OK, "unrestricted run");
    REQUIRE(all.calls > 10, "only %ld allocations", all.calls);
    for (long n = 0; n < all.calls; n++) {
        test_failing f = {n + 1, 0, true}; /* n allocations succeed */
        int rc = run_failing(path, &f);
        CHECK(rc == TFMT_ENOMEM, "allocation %ld: status %d", n, rc);
    }
}

TESTS(TCASE(json_escape_matches_python), TCASE(utf8_repair_matches_python),
      TCASE(decimals_match_printf),
      TCASE(escape_and_utf8_check_match_plain_versions),
      TCASE(intern_string_repairs_and_dedups), TCASE(small_profile_jsonl),
      TCASE(small_profile_collapsed), TCASE(tree_walk_visits_parents_first),
      TCASE(empty_profile), TCASE(jsonl_skips_unused_frames),
      TCASE(jsonl_chunks_of_256), TCASE(fixtures_jsonl_and_collapsed),
      TCASE(fixtures_shared_tree), TCASE(fixtures_skip_idle),
      TCASE(two_readers_merge), TCASE(empty_repeat_thread_is_invisible),
      TCASE(random_walk_matches_reference),
      TCASE(random_walk_skip_idle_matches_reference),
      TCASE(failing_allocations), TCASE(collapsed_prefix_order),
      TCASE(collapsed_order_matches_memcmp), TCASE(collapsed_wide_frame_ids))
