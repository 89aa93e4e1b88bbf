/* SPDX-License-Identifier: MIT */
/*
 * test_rows.c - ClickHouse rows: tfmt_profile_write_clickhouse and the
 * rows reader (fmt_rows.h). Every CPython fixture goes profile -> rows ->
 * profile and gives CPython's own collapsed output and the same JSONL,
 * the rows read whole, in 1-byte and in 7-byte chunks; rows written back
 * from the rows are the same bytes; one row's bytes are pinned (its
 * stack_hash recomputed here from the documented rule); ClickHouse's way
 * of writing (quoted 64-bit integers, \/ and \u escapes, columns in any
 * order, unknown columns) reads; every bad row is a located error of its
 * check, after which reading goes on; every allocation failure is clean.
 */
#include <tachyon/fmt_detect.h>

#include "test_export_common.h"

typedef struct buf {
    unsigned char *data;
    size_t len;
} buf;

static int write_rows(tfmt_profile *p, const char *run_id, buf *out)
{
    static const char *const keys[] = {"service", "host"};
    static const char *const values[] = {"api", "h\"1\n"};
    tfmt_clickhouse_run run = TFMT_CLICKHOUSE_RUN_INIT;
    run.run_id = run_id;
    run.label_keys = keys;
    run.label_values = values;
    run.nlabels = 2;
    run.time = 1700000000;
    run.python = "3.15.0";
    char path[256];
    tmp_path(path, sizeof path, "rows");
    tfmt_sink *sink;
    tfmt_error err;
    int rc = tfmt_sink_open(&sink, path, TFMT_SINK_FORCE, NULL, &err);
    if (rc != TFMT_OK)
        return rc;
    rc = tfmt_profile_write_clickhouse(p, sink, &run);
    int frc = tfmt_sink_finish(sink);
    tfmt_sink_free(sink);
    out->data =
        rc == TFMT_OK && frc == TFMT_OK ? slurp_file(path, &out->len) : NULL;
    unlink(path);
    return rc == TFMT_OK ? frc : rc;
}

/* Rows read (in chunks of `chunk`, 0: whole) into a new profile. */
static tfmt_profile *read_rows(const buf *b, size_t chunk, bool split,
                               const tfmt_allocator *a, int *rc)
{
    tfmt_profile_options o = TFMT_PROFILE_OPTIONS_INIT;
    tfmt_rows_options ro = TFMT_ROWS_OPTIONS_INIT;
    o.split_status = split;
    o.alloc = a;
    ro.alloc = a;
    tfmt_source *src = NULL;
    tfmt_rows_reader *r = NULL;
    tfmt_profile *p = NULL;
    tfmt_error err;
    *rc = tfmt_source_open_memory(&src, b->data, b->len, chunk, NULL);
    if (*rc == TFMT_OK)
        *rc = tfmt_rows_open(&r, src, &ro, &err);
    if (*rc == TFMT_OK)
        *rc = tfmt_profile_new(&p, &o);
    if (*rc == TFMT_OK)
        *rc = tfmt_profile_add_rows(p, r);
    tfmt_rows_free(r);
    tfmt_source_free(src);
    if (*rc != TFMT_OK) {
        tfmt_profile_free(p);
        return NULL;
    }
    return p;
}

static int w_collapsed(tfmt_profile *p, tfmt_sink *s)
{
    return tfmt_profile_write_collapsed(p, s);
}

static int w_jsonl(tfmt_profile *p, tfmt_sink *s)
{
    return tfmt_profile_write_jsonl(p, s, "00000000000000000000000000000000");
}

static unsigned char *exported(tfmt_profile *p, export_fn fn, size_t *len)
{
    char path[256];
    tmp_path(path, sizeof path, "rows_x");
    unsigned char *d =
        export_to(p, fn, path) == TFMT_OK ? slurp_file(path, len) : NULL;
    unlink(path);
    return d;
}

static bool same_export(tfmt_profile *a, tfmt_profile *b, export_fn fn)
{
    size_t la = 0, lb = 0;
    unsigned char *da = exported(a, fn, &la), *db = exported(b, fn, &lb);
    bool same = da && db && la == lb && memcmp(da, db, la) == 0;
    free(da);
    free(db);
    return same;
}

static const char run_id[] = "0123456789abcdef0123456789abcdef";

TEST(fixtures_round_trip)
{
    static const size_t chunks[] = {0, 1, 7};
    tfmt_profile_options split = TFMT_PROFILE_OPTIONS_INIT;
    split.split_status = true;
    for (size_t i = 0; i < NCASES; i++) {
        const char *name = fixture_cases[i];
        tfmt_profile *orig = load_fixture(name, NULL);
        tfmt_profile *by_status = load_fixture(name, &split);
        buf rows = {NULL, 0};
        REQUIRE(orig && by_status, "%s: load", name);
        CHECK(write_rows(by_status, run_id, &rows) == TFMT_OK, "%s", name);
        for (size_t k = 0; rows.data && k < 3; k++) {
            int rc;
            tfmt_profile *back = read_rows(&rows, chunks[k], false, NULL, &rc);
            CHECK(back, "%s chunk %zu: read rc %d", name, chunks[k], rc);
            if (!back)
                continue;
            CHECK(same_export(orig, back, w_collapsed),
                  "%s chunk %zu: collapsed differs", name, chunks[k]);
            CHECK(same_export(orig, back, w_jsonl),
                  "%s chunk %zu: jsonl differs", name, chunks[k]);
            tfmt_profile_free(back);
        }
        /* Rows read apart by status write the same rows again. */
        int rc;
        tfmt_profile *again =
            rows.data ? read_rows(&rows, 0, true, NULL, &rc) : NULL;
        buf rows2 = {NULL, 0};
        CHECK(again && write_rows(again, run_id, &rows2) == TFMT_OK &&
                  rows2.len == rows.len &&
                  memcmp(rows.data, rows2.data, rows.len) == 0,
              "%s: rows -> rows differ", name);
        free(rows2.data);
        tfmt_profile_free(again);
        free(rows.data);
        tfmt_profile_free(orig);
        tfmt_profile_free(by_status);
    }
}

/* The documented stack_hash: FNV-1a 64 of each frame, root first. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

static uint64_t fnv_le32(uint64_t h, int32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8),
                          (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    return fnv(h, b, 4);
}

TEST(one_row_pinned)
{
    tfmt_profile *p;
    tfmt_profile_options o = TFMT_PROFILE_OPTIONS_INIT;
    o.split_status = true;
    REQUIRE(tfmt_profile_new(&p, &o) == TFMT_OK, "new");
    uint32_t file, func, f;
    tfmt__profile_intern_string(p, "/a/x.py", 7, &file);
    tfmt__profile_intern_string(p, "f\x01", 2, &func);
    tfmt_frame fr = {file, func, 3, 4, 5, 6, 7};
    tfmt__profile_intern_frame(p, &fr, &f);
    REQUIRE(tfmt__profile_add_status(p, 9, 1, 3, &f, 1, 2) == TFMT_OK, "add");
    buf rows = {NULL, 0};
    REQUIRE(write_rows(p, run_id, &rows) == TFMT_OK, "write");
    uint64_t h = 0xcbf29ce484222325ULL;
    h = fnv(fnv(h, "/a/x.py", 7), "", 1);
    h = fnv(fnv(h, "f\x01", 2), "", 1);
    h = fnv_le32(fnv_le32(fnv_le32(fnv_le32(h, 3), 4), 5), 6);
    h = fnv(h, "\x07", 1);
    char want[1024];
    snprintf(want, sizeof want,
             "{\"run_id\":\"%s\",\"row\":0,\"stack_hash\":%llu,"
             "\"run_id_version\":2,\"time\":1700000000,\"labels.key\":["
             "\"service\",\"host\"],"
             "\"labels.value\":[\"api\",\"h\\\"1\\n\"],\"python\":\"3.15.0\","
             "\"mode\":\"\",\"start_time_us\":0,\"interval_us\":0,"
             "\"thread_id\":9,\"interpreter_id\":1,\"status\":3,"
             "\"frames.file\":[\"/a/x.py\"],\"frames.function\":[\"f\\u0001\"],"
             "\"frames.line\":[3],\"frames.end_line\":[4],"
             "\"frames.column\":[5],\"frames.end_column\":[6],"
             "\"frames.opcode\":[7],\"count\":2}\n",
             run_id, (unsigned long long)h);
    CHECK(rows.len == strlen(want) && memcmp(rows.data, want, rows.len) == 0,
          "got %.*s\nwant %s", (int)rows.len, rows.data, want);
    free(rows.data);
    tfmt_profile_free(p);
}

/* All rows of `text`; errors as "LINE:CHECK " in `errs`. */
static int read_text(const char *text, size_t chunk, char *errs, size_t cap,
                     uint64_t *samples)
{
    tfmt_source *src;
    tfmt_rows_reader *r;
    tfmt_error err;
    int rc = tfmt_source_open_memory(&src, text, strlen(text), chunk, NULL);
    if (rc == TFMT_OK)
        rc = tfmt_rows_open(&r, src, NULL, &err);
    if (rc != TFMT_OK)
        return rc;
    errs[0] = '\0';
    *samples = 0;
    const tfmt_row *row;
    while ((rc = tfmt_rows_next(r, &row)) != TFMT_DONE) {
        size_t n = strlen(errs);
        if (rc == TFMT_OK)
            *samples += row->count;
        else if (rc == TFMT_EFORMAT || rc == TFMT_ESCHEMA || rc == TFMT_ELIMIT)
            snprintf(errs + n, cap - n, "%llu:%d ",
                     (unsigned long long)tfmt_rows_error(r)->line,
                     tfmt_rows_error(r)->check);
        else
            break;
    }
    tfmt_rows_free(r);
    tfmt_source_free(src);
    return rc;
}

#define HEAD "{\"run_id\":\"0123456789abcdef0123456789abcdef\""
#define STACK                                                                  \
    ",\"frames.file\":[\"a\"],\"frames.function\":[\"f\"],"                    \
    "\"frames.line\":[1]"

TEST(clickhouse_spelling)
{
    /* Quoted 64-bit integers, \/ and \u escapes (a surrogate pair), columns
       in another order, unknown columns of any JSON, optional columns
       absent, blank lines. */
    const char *text =
        "{\"count\":\"18446744073709551615\",\"run_id\":"
        "\"0123456789abcdef0123456789abcdef\",\"row\":\"4294967295\","
        "\"thread_id\":\"18446744073709551615\",\"status\":255,"
        "\"extra\":{\"a\":[1,2.5e3,null,true,\"x\"]},"
        "\"frames.file\":[\"\\/a\\/b.py\",\"\\ud83d\\ude00\"],"
        "\"frames.function\":[\"f\",\"g\"],\"frames.line\":[-2147483648,"
        "2147483647],\"time\":\"2023-11-14 22:13:20\"}\n"
        "\n  \n";
    char errs[256];
    uint64_t samples;
    int rc = read_text(text, 1, errs, sizeof errs, &samples);
    CHECK(rc == TFMT_DONE && errs[0] == '\0', "rc %d errs %s", rc, errs);
    CHECK(samples == UINT64_MAX, "count %llu", (unsigned long long)samples);
}

TEST(bad_rows_located_and_skipped)
{
    static const struct {
        const char *line;
        int check;
    } bad[] = {
        {"[1]", TFMT_ROWS_CHECK_JSON},
        {HEAD ",\"row\":0,\"thread_id\":1,\"status\":0" STACK "}",
         TFMT_ROWS_CHECK_MISSING},
        {HEAD ",\"row\":\"x\",\"thread_id\":1,\"status\":0,\"count\":1" STACK
              "}",
         TFMT_ROWS_CHECK_TYPE},
        {HEAD ",\"row\":1.5,\"thread_id\":1,\"status\":0,\"count\":1" STACK "}",
         TFMT_ROWS_CHECK_TYPE},
        {HEAD ",\"row\":0,\"thread_id\":1,\"status\":256,\"count\":1" STACK "}",
         TFMT_ROWS_CHECK_RANGE},
        {HEAD ",\"row\":0,\"thread_id\":1,\"status\":0,\"count\":0" STACK "}",
         TFMT_ROWS_CHECK_RANGE},
        /* 2^64: one past the largest, not wrapped round to 0 */
        {HEAD ",\"row\":0,\"thread_id\":\"18446744073709551616\",\"status\":0,"
              "\"count\":1" STACK "}",
         TFMT_ROWS_CHECK_RANGE},
        {"{\"run_id\":\"XYZ\",\"row\":0,\"thread_id\":1,\"status\":0,"
         "\"count\":1" STACK "}",
         TFMT_ROWS_CHECK_RANGE},
        {HEAD ",\"row\":0,\"thread_id\":1,\"status\":0,\"count\":1,"
              "\"frames.file\":[\"a\"],\"frames.function\":[],"
              "\"frames.line\":[1]}",
         TFMT_ROWS_CHECK_FRAMES},
        {HEAD
         ",\"row\":0,\"row\":1,\"thread_id\":1,\"status\":0,\"count\":1" STACK
         "}",
         TFMT_ROWS_CHECK_JSON},
        {HEAD ",\"row\":0,\"thread_id\":1,\"status\":0,\"count\":01" STACK "}",
         TFMT_ROWS_CHECK_JSON},
        {HEAD ",\"row\":0,\"thread_id\":1,\"status\":0,\"count\":1,"
              "\"frames.file\":[\"\\ud800\"],\"frames.function\":[\"f\"],"
              "\"frames.line\":[1]}",
         TFMT_ROWS_CHECK_JSON},
        {HEAD ",\"row\":0,\"thread_id\":1,\"status\":0,\"count\":1" STACK "} x",
         TFMT_ROWS_CHECK_JSON},
        {HEAD ",\"row\":0,\"thread_id\":1,\"status\":0,\"count\":1,"
              "\"mode\":\"nope\"" STACK "}",
         TFMT_ROWS_CHECK_RANGE},
    };
    static const char good[] = HEAD
        ",\"row\":%zu,\"thread_id\":1,\"status\":0,\"count\":1" STACK "}\n";
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        /* good row 0, the bad line, good row 1 */
        char text[2048], want[32], errs[256];
        int n = snprintf(text, sizeof text, good, (size_t)0);
        n += snprintf(text + n, sizeof text - (size_t)n, "%s\n", bad[i].line);
        snprintf(text + n, sizeof text - (size_t)n, good, (size_t)1);
        snprintf(want, sizeof want, "2:%d ", bad[i].check);
        uint64_t samples;
        int rc = read_text(text, 7, errs, sizeof errs, &samples);
        CHECK(rc == TFMT_DONE && strcmp(errs, want) == 0 && samples == 2,
              "case %zu: rc %d errs '%s' want '%s' samples %llu", i, rc, errs,
              want, (unsigned long long)samples);
    }
}

TEST(runs_checked_across_rows)
{
    const char *text =
        HEAD ",\"row\":0,\"thread_id\":1,\"status\":0,\"count\":1,"
             "\"interval_us\":1000" STACK "}\n" HEAD
             ",\"row\":1,\"thread_id\":1,\"status\":0,\"count\":1,"
             "\"interval_us\":500" STACK "}\n" HEAD
             ",\"row\":0,\"thread_id\":1,\"status\":0,\"count\":1,"
             "\"interval_us\":1000" STACK "}\n"
             "{\"run_id\":\"fedcba9876543210fedcba9876543210\",\"row\":0,"
             "\"thread_id\":1,\"status\":0,\"count\":5" STACK "}\n";
    char errs[256];
    uint64_t samples;
    int rc = read_text(text, 0, errs, sizeof errs, &samples);
    char want[64];
    snprintf(want, sizeof want, "2:%d ", TFMT_ROWS_CHECK_RUN);
    CHECK(rc == TFMT_DONE && strcmp(errs, want) == 0 && samples == 6,
          "rc %d errs '%s' samples %llu", rc, errs,
          (unsigned long long)samples);
}

/* Read `text` whole; the reader is kept for its runs. */
static tfmt_rows_reader *read_all(const char *text, tfmt_source **src,
                                  char *errs, size_t cap, uint64_t *samples)
{
    tfmt_rows_reader *r = NULL;
    tfmt_error err;
    if (tfmt_source_open_memory(src, text, strlen(text), 0, NULL) != TFMT_OK ||
        tfmt_rows_open(&r, *src, NULL, &err) != TFMT_OK)
        return NULL;
    errs[0] = '\0';
    *samples = 0;
    const tfmt_row *row;
    int rc;
    while ((rc = tfmt_rows_next(r, &row)) != TFMT_DONE) {
        size_t n = strlen(errs);
        if (rc == TFMT_OK)
            *samples += row->count;
        else if (rc == TFMT_ESCHEMA)
            snprintf(errs + n, cap - n, "%llu:%d ",
                     (unsigned long long)tfmt_rows_error(r)->line,
                     tfmt_rows_error(r)->check);
        else
            break;
    }
    return r;
}

TEST(double_load_read_once)
{
    /* Run A's two rows, then both again byte for byte (a second load),
       then row 1 once more with another count: copies are skipped and
       counted, the differing copy is an error naming the run. */
    const char *a0 = HEAD ",\"row\":0,\"thread_id\":1,\"status\":0,"
                          "\"count\":3,\"run_id_version\":2" STACK "}\n";
    const char *a1 = HEAD ",\"row\":1,\"thread_id\":2,\"status\":0,"
                          "\"count\":4,\"run_id_version\":2" STACK "}\n";
    const char *a1x = HEAD ",\"row\":1,\"thread_id\":2,\"status\":0,"
                           "\"count\":5,\"run_id_version\":2" STACK "}\n";
    char text[2048], errs[128], want[32];
    snprintf(text, sizeof text, "%s%s%s%s%s", a0, a1, a1, a0, a1x);
    tfmt_source *src = NULL;
    uint64_t samples;
    tfmt_rows_reader *r = read_all(text, &src, errs, sizeof errs, &samples);
    REQUIRE(r, "open");
    snprintf(want, sizeof want, "5:%d ", TFMT_ROWS_CHECK_DUPLICATE);
    const tfmt_rows_run *run = tfmt_rows_run_at(r, 0);
    CHECK(strcmp(errs, want) == 0, "errs '%s' want '%s'", errs, want);
    CHECK(samples == 7, "samples %llu", (unsigned long long)samples);
    CHECK(tfmt_rows_run_count(r) == 1 && run->rows == 2 && run->copies == 2 &&
              run->samples == 7 && run->run_id_version == 2 && !run->twin,
          "rows %llu copies %llu samples %llu version %u",
          (unsigned long long)run->rows, (unsigned long long)run->copies,
          (unsigned long long)run->samples, run->run_id_version);
    tfmt_rows_free(r);
    tfmt_source_free(src);
}

TEST(one_recording_two_run_ids)
{
    /* The same recording (start time, interval, mode) under an id of
       version 1 (no column) and one of version 2; a third run with another
       start time, and two runs without a start time, are no twins. */
    const char *rows =
        "{\"run_id\":\"11111111111111111111111111111111\",\"row\":0,"
        "\"thread_id\":1,\"status\":0,\"count\":1,\"start_time_us\":77,"
        "\"interval_us\":100,\"mode\":\"cpu\"" STACK "}\n"
        "{\"run_id\":\"22222222222222222222222222222222\",\"row\":0,"
        "\"thread_id\":1,\"status\":0,\"count\":1,\"start_time_us\":78,"
        "\"interval_us\":100,\"mode\":\"cpu\"" STACK "}\n"
        "{\"run_id\":\"33333333333333333333333333333333\",\"row\":0,"
        "\"run_id_version\":2,\"thread_id\":1,\"status\":0,\"count\":1,"
        "\"start_time_us\":77,\"interval_us\":100,\"mode\":\"cpu\"" STACK "}\n"
        "{\"run_id\":\"44444444444444444444444444444444\",\"row\":0,"
        "\"thread_id\":1,\"status\":0,\"count\":1" STACK "}\n"
        "{\"run_id\":\"55555555555555555555555555555555\",\"row\":0,"
        "\"thread_id\":1,\"status\":0,\"count\":1" STACK "}\n"
        "{\"run_id\":\"33333333333333333333333333333333\",\"row\":1,"
        "\"run_id_version\":0,\"thread_id\":1,\"status\":0,\"count\":1,"
        "\"start_time_us\":77,\"interval_us\":100,\"mode\":\"cpu\"" STACK "}\n";
    tfmt_source *src = NULL;
    char errs[128], want[32];
    uint64_t samples;
    tfmt_rows_reader *r = read_all(rows, &src, errs, sizeof errs, &samples);
    REQUIRE(r, "open");
    uint32_t twins[5], versions[5];
    for (size_t i = 0; i < 5; i++) {
        twins[i] = tfmt_rows_run_at(r, i)->twin;
        versions[i] = tfmt_rows_run_at(r, i)->run_id_version;
    }
    CHECK(twins[0] == 0 && twins[1] == 0 && twins[2] == 1 && twins[3] == 0 &&
              twins[4] == 0,
          "twins %u %u %u %u %u", twins[0], twins[1], twins[2], twins[3],
          twins[4]);
    CHECK(versions[0] == 1 && versions[2] == 2, "versions %u %u", versions[0],
          versions[2]);
    /* a run's rows must agree on the version */
    snprintf(want, sizeof want, "6:%d ", TFMT_ROWS_CHECK_RUN);
    CHECK(strcmp(errs, want) == 0, "errs '%s' want '%s'", errs, want);
    tfmt_rows_free(r);
    tfmt_source_free(src);
}

TEST(line_limit)
{
    tfmt_source *src;
    tfmt_rows_reader *r;
    tfmt_rows_options o = TFMT_ROWS_OPTIONS_INIT;
    tfmt_error err;
    o.max_line = 40;
    const char *text = HEAD ",\"row\":0,\"thread_id\":1}\n\n";
    tfmt_source_open_memory(&src, text, strlen(text), 0, NULL);
    REQUIRE(tfmt_rows_open(&r, src, &o, &err) == TFMT_OK, "open");
    const tfmt_row *row;
    int rc = tfmt_rows_next(r, &row);
    CHECK(rc == TFMT_ELIMIT &&
              tfmt_rows_error(r)->check == TFMT_ROWS_CHECK_LINE &&
              tfmt_rows_error(r)->line == 1,
          "rc %d check %d line %llu", rc, tfmt_rows_error(r)->check,
          (unsigned long long)tfmt_rows_error(r)->line);
    CHECK(tfmt_rows_next(r, &row) == TFMT_DONE, "reads on");
    tfmt_rows_free(r);
    tfmt_source_free(src);
}

TEST(detect_rows)
{
    static const struct {
        const char *text;
        tfmt_kind kind;
    } cases[] = {
        {HEAD ",\"row\":0,\"stack_hash\":\"1\"}\n", TFMT_KIND_ROWS},
        {"{\"stack_hash\":1}", TFMT_KIND_ROWS},
        {"{\"type\":\"x\",\"stack_hash\":1}\n", TFMT_KIND_JSONL},
        {"{\"type\":\"meta\",\"v\":0}\n", TFMT_KIND_JSONL_V0},
        {"{\"a\":{\"stack_hash\":1}}\n", TFMT_KIND_JSONL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tfmt_source *src;
        tfmt_detection d;
        tfmt_error err;
        tfmt_source_open_memory(&src, cases[i].text, strlen(cases[i].text), 0,
                                NULL);
        CHECK(tfmt_detect(src, &d, &err) == TFMT_OK && d.kind == cases[i].kind,
              "case %zu: kind %d", i, (int)d.kind);
        tfmt_source_free(src);
    }
}

TEST(allocation_failures)
{
    tfmt_profile_options split = TFMT_PROFILE_OPTIONS_INIT;
    split.split_status = true;
    tfmt_profile *p = load_fixture("workload", &split);
    buf rows = {NULL, 0};
    REQUIRE(p && write_rows(p, run_id, &rows) == TFMT_OK, "rows");
    int rc = TFMT_ENOMEM;
    long n;
    for (n = 0; rc == TFMT_ENOMEM && n < 100000; n++) {
        counting c = {0, 0, n};
        tfmt_allocator a = {c_malloc, c_realloc, c_free, &c};
        tfmt_profile *back = read_rows(&rows, 0, false, &a, &rc);
        tfmt_profile_free(back);
        CHECK(c.live == 0, "fail at %ld: %ld blocks leaked", n, c.live);
        CHECK(rc == TFMT_OK || rc == TFMT_ENOMEM, "fail at %ld: rc %d", n, rc);
    }
    CHECK(rc == TFMT_OK && n > 10, "never succeeded (%ld)", n);
    free(rows.data);
    tfmt_profile_free(p);
}

TESTS(TCASE(fixtures_round_trip), TCASE(one_row_pinned),
      TCASE(clickhouse_spelling), TCASE(bad_rows_located_and_skipped),
      TCASE(runs_checked_across_rows), TCASE(double_load_read_once),
      TCASE(one_recording_two_run_ids), TCASE(line_limit), TCASE(detect_rows),
      TCASE(allocation_failures))
