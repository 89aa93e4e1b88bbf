/* SPDX-License-Identifier: MIT */
/*
 * test_jsonl_fast.c - the JSONL fast path (jsonl_fast.c) against json-c:
 * for every line it accepts, json-c must accept the line too and produce
 * the same record, field by field. Lines come from every JSONL file in
 * testdata and from a hand-made list of valid shapes (accepted) and of
 * near misses (declined, left to json-c).
 */
#define _GNU_SOURCE /* memmem */
#include <dirent.h>

#include "harness.h"
#include "jsonl_compare.h"
#include "jsonl_ref.h"

static jref ref;

static tfmt_jsonl_reader *new_reader(tfmt_source **src)
{
    tfmt_jsonl_reader *r = NULL;
    if (!ref.tok)
        jref_init(&ref);
    tfmt_source_open_memory(src, "", 0, 0, NULL);
    tfmt_jsonl_open(&r, *src, NULL, NULL);
    return r;
}

/*
 * Run both parsers on one line. Returns the fast path's verdict (TFMT_OK
 * or 1) after checking that an accepted line reads the same in json-c.
 */
static int compare_line(tfmt_jsonl_reader *r, const char *p, size_t n,
                        const char *where)
{
    r->lines.line++;
    int fast = tfmt__jsonl_fast(r, p, n);
    CHECK(fast == TFMT_OK || fast == 1, "%s: fast path rc %d", where, fast);
    if (fast != TFMT_OK)
        return fast;
    rcopy c;
    copy_record(&c, &r->rec);
    int rc = jref_parse_line(&ref, r, p, n);
    CHECK(rc == TFMT_OK,
          "%s: accepted by the fast path, json-c says %d "
          "(%s)",
          where, rc, r->err.msg);
    const char *d = rc == TFMT_OK ? differs(&c, &r->rec) : NULL;
    CHECK(!d, "%s: %s differs from json-c", where, d);
    free_copy(&c);
    return fast;
}

/* Every line of a file; counts the lines of the bulk types accepted. */
static void compare_file(const char *path, size_t *bulk, size_t *fast)
{
    size_t len = 0;
    char *data = (char *)harness_slurp(path, &len);
    REQUIRE(data, "cannot read %s", path);
    tfmt_source *src = NULL;
    tfmt_jsonl_reader *r = new_reader(&src);
    size_t lineno = 0;
    for (char *p = data, *end = data + len; p < end; lineno++) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        char where[600];
        snprintf(where, sizeof where, "%s:%zu", path, lineno + 1);
        int v = compare_line(r, p, n, where);
        bool is_bulk = memmem(p, n < 40 ? n : 40, "_table\"", 7) ||
                       memmem(p, n < 40 ? n : 40, "\"agg\"", 5);
        *bulk += is_bulk;
        *fast += is_bulk && v == TFMT_OK;
        p += n + 1;
    }
    tfmt_jsonl_free(r);
    tfmt_source_free(src);
    free(data);
}

static void compare_dir(const char *dir, const char *suffix, size_t *bulk,
                        size_t *fast)
{
    DIR *d = opendir(dir);
    REQUIRE(d, "cannot open %s", dir);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name), k = strlen(suffix);
        if (n < k || strcmp(e->d_name + n - k, suffix) != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        compare_file(path, bulk, fast);
    }
    closedir(d);
}

/*
 * CPython's v0 exports: every bulk line takes the fast path and reads as
 * json-c reads it. The v1 dialect and the bad and hand-made files only
 * have to agree wherever the fast path accepts.
 */
TEST(testdata_files_agree_with_json_c)
{
    static const char *cases[] = {
        "interleaved_threads", "pop_push",         "repeat_rle", "single_full",
        "suffix_calls",        "synthetic_frames", "workload"};
    size_t bulk = 0, fast = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/cpython/%s/expected.jsonl", TESTDATA,
                 cases[i]);
        compare_file(path, &bulk, &fast);
    }
    /* 7 cases: a string table, a frame table and an agg record each. */
    CHECK(bulk == 21, "%zu bulk lines in the fixtures", bulk);
    CHECK(fast == bulk, "%zu of %zu bulk lines took the fast path", fast, bulk);
    size_t other = 0, other_fast = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/cpython/%s/expected.v1.jsonl", TESTDATA,
                 cases[i]);
        compare_file(path, &other, &other_fast);
    }
    CHECK(other_fast == 0, "v1 lines go to json-c (%zu fast)", other_fast);
    compare_dir(TESTDATA "/jsonl", ".jsonl", &other, &other_fast);
    compare_dir(TESTDATA "/bad", ".jsonl", &other, &other_fast);
}

#define ST "{\"type\":\"string_table\",\"v\":0,\"run_id\":\"r\",\"strings\":["
#define FT "{\"type\":\"frame_table\",\"v\":0,\"run_id\":\"r\",\"frames\":["
#define AG                                                                     \
    "{\"type\":\"agg\",\"v\":0,\"run_id\":\"r\",\"kind\":\"frame\","           \
    "\"scope\":\"final\",\"samples_total\":9,\"entries\":["
#define STR(v) ST "{\"str_id\":0,\"value\":\"" v "\"}]}"

/* Valid records in the shapes the fast path takes. */
static const char *const accepted[] = {
    ST "]}",
    ST "{\"str_id\":0,\"value\":\"a\"},"
       "{\"value\":\"b\",\"str_id\":4294967295}]}",
    " {\t\"type\" : \"string_table\" ,\r\"v\":0 , \"run_id\" : \"\" , "
    "\"strings\" : [ { \"str_id\" : 1 , \"value\" : \"x\" } , "
    "{\"str_id\":2,\"value\":\"\"} ] }\r",
    "{\"type\":\"string_table\",\"strings\":[],\"run_id\":\"r\",\"v\":0}",
    STR("a\\\"b\\\\c\\/d\\b\\f\\n\\r\\te"),
    STR("\\u00e9\\u4E2D\\ud83d\\ude00\\u0041\\u007f\\u0800"),
    STR("\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\x7f"),
    STR("<module> /a b.py:10 \xf4\x8f\xbf\xbf"),
    FT "{\"frame_id\":0,\"path_str_id\":1,\"func_str_id\":2,\"line\":5,"
       "\"end_line\":6,\"col\":0,\"end_col\":12}]}",
    FT "{\"line\":0,\"func_str_id\":2,\"path_str_id\":1,\"frame_id\":7},"
       "{\"frame_id\":8,\"path_str_id\":1,\"func_str_id\":2,"
       "\"line\":2147483647,\"end_line\":1,\"end_col\":2147483647}]}",
    AG "{\"frame_id\":0,\"self\":0,\"cumulative\":18446744073709551614},"
       "{\"cumulative\":3,\"self\":2,\"frame_id\":4294967295}]}",
    ("{\"type\":\"agg\",\"entries\":[],\"samples_total\":18446744073709551614,"
     "\"scope\":\"final\",\"kind\":\"frame\",\"run_id\":\"r\",\"v\":0}"),
};

/* Lines left to json-c: other records and near misses of every kind. */
static const char *const declined[] = {
    "",
    "[]",
    "{\"type\":\"meta\",\"v\":0,\"run_id\":\"r\",\"sample_interval_usec\":1}",
    "{\"type\":\"end\",\"v\":0,\"run_id\":\"r\",\"samples_total\":1}",
    "{\"type\":\"str_def\",\"v\":1,\"run_id\":\"r\",\"defs\":[]}",
    "{\"v\":0,\"type\":\"string_table\",\"run_id\":\"r\",\"strings\":[]}",
    "{\"type\":\"string_table\",\"v\":1,\"run_id\":\"r\",\"strings\":[]}",
    "{\"type\":\"string_table\",\"v\":00,\"run_id\":\"r\",\"strings\":[]}",
    "{\"type\":\"string_table\",\"v\":-0,\"run_id\":\"r\",\"strings\":[]}",
    "{\"type\":\"string_table\",\"v\":0.0,\"run_id\":\"r\",\"strings\":[]}",
    "{\"type\":\"string_table\",\"v\":0,\"strings\":[]}",
    "{\"type\":\"string_table\",\"v\":0,\"run_id\":\"r\"}",
    "{\"type\":\"string_table\",\"v\":0,\"run_id\":1,\"strings\":[]}",
    ST "],\"extra\":1}",
    ST "],\"strings\":[]}",
    ST "{\"str_id\":0,\"value\":\"a\",\"x\":1}]}",
    ST "{\"str_id\":0,\"str_id\":1,\"value\":\"a\"}]}",
    ST "{\"str_id\":0}]}",
    ST "{\"str_id\":01,\"value\":\"a\"}]}",
    ST "{\"str_id\":-1,\"value\":\"a\"}]}",
    ST "{\"str_id\":1.0,\"value\":\"a\"}]}",
    ST "{\"str_id\":1e2,\"value\":\"a\"}]}",
    ST "{\"str_id\":1E2,\"value\":\"a\"}]}",
    ST "{\"str_id\":4294967296,\"value\":\"a\"}]}",
    ST "{\"str_id\":\"0\",\"value\":\"a\"}]}",
    ST "{\"str_id\":0,\"value\":1}]}",
    ST "{\"str\\u005fid\":0,\"value\":\"a\"}]}",
    ST "1]}",
    ST "{\"str_id\":0,\"value\":\"a\"},]}",
    ST "{\"str_id\":0,\"value\":\"a\",}]}",
    ST "]} x",
    ST "]},",
    ST "]",
    STR("\x01"),
    STR("a\tb"),
    STR("\\u0000"),
    STR("\\ud83d"),
    STR("\\ude00"),
    STR("\\ud83d\\u0041"),
    STR("\\x"),
    STR("\\u00g1"),
    "{\"type\":\"string_table\",\"v\":0,\"run_id\":\"r\",\"strings\":"
    "[{\"str_id\":0,\"value\":\"\\u00",
    STR("\xff"),
    STR("\xc0\x80"),
    STR("\xed\xa0\x80"),
    STR("\xe4\xb8"),
    STR("\xf4\x90\x80\x80"),
    FT "{\"frame_id\":0,\"path_str_id\":1,\"func_str_id\":2}]}",
    FT "{\"frame_id\":0,\"path_str_id\":1,\"func_str_id\":2,"
       "\"line\":2147483648}]}",
    FT "{\"frame_id\":0,\"path_str_id\":1,\"func_str_id\":2,\"line\":1,"
       "\"end_line\":0}]}",
    FT "{\"frame_id\":0,\"path_str_id\":1,\"func_str_id\":2,\"line\":1,"
       "\"synthetic\":true}]}",
    AG "{\"frame_id\":0,\"self\":18446744073709551615,\"cumulative\":1}]}",
    AG "{\"frame_id\":0,\"self\":18446744073709551616,\"cumulative\":1}]}",
    AG "{\"frame_id\":0,\"self\":1}]}",
    "{\"type\":\"agg\",\"v\":0,\"run_id\":\"r\",\"kind\":\"frames\","
    "\"scope\":\"final\",\"samples_total\":9,\"entries\":[]}",
    "{\"type\":\"agg\",\"v\":0,\"run_id\":\"r\",\"kind\":\"frame\","
    "\"scope\":\"partial\",\"samples_total\":9,\"entries\":[]}",
    "{\"type\":\"agg\",\"v\":0,\"run_id\":\"r\",\"kind\":\"frame\","
    "\"scope\":\"final\",\"entries\":[]}",
    "{\"type\":\"agg\",\"v\":1,\"run_id\":\"r\",\"kind\":\"frame\","
    "\"scope\":\"final\",\"samples_total\":9,\"entries\":[]}",
};

/* Every line of `lines` gets the fast path's verdict `want`. */
static void check_verdicts(const char *const *lines, size_t n, const char *name,
                           int want)
{
    tfmt_source *src = NULL;
    tfmt_jsonl_reader *r = new_reader(&src);
    for (size_t i = 0; i < n; i++) {
        char where[32];
        snprintf(where, sizeof where, "%s[%zu]", name, i);
        int v = compare_line(r, lines[i], strlen(lines[i]), where);
        CHECK(v == want, "%s: fast path verdict %d", where, v);
    }
    tfmt_jsonl_free(r);
    tfmt_source_free(src);
}

TEST(valid_shapes_are_taken_and_agree)
{
    check_verdicts(accepted, sizeof accepted / sizeof accepted[0], "accepted",
                   TFMT_OK);
}

TEST(near_misses_are_left_to_json_c)
{
    check_verdicts(declined, sizeof declined / sizeof declined[0], "declined",
                   1);
}

/* Decoded strings, checked against their intended bytes (not json-c). */
TEST(escapes_decode_to_utf8)
{
    tfmt_source *src = NULL;
    tfmt_jsonl_reader *r = new_reader(&src);
    static const char line[] = STR("\\u00e9\\ud83d\\ude00\\n\\/x");
    REQUIRE(tfmt__jsonl_fast(r, line, sizeof line - 1) == TFMT_OK, "declined");
    REQUIRE(r->rec.n_strings == 1, "%zu strings", r->rec.n_strings);
    static const char want[] = "\xc3\xa9\xf0\x9f\x98\x80\n/x";
    tfmt_str v = r->rec.strings[0].value;
    CHECK(v.len == sizeof want - 1 && memcmp(v.ptr, want, v.len) == 0,
          "decoded to %.*s", (int)v.len, v.ptr);
    tfmt_jsonl_free(r);
    tfmt_source_free(src);
}

TESTS(TCASE(testdata_files_agree_with_json_c),
      TCASE(valid_shapes_are_taken_and_agree),
      TCASE(near_misses_are_left_to_json_c), TCASE(escapes_decode_to_utf8))
