/* SPDX-License-Identifier: MIT */
/* test_flat.c - flat profiles (flat.c, flat_profile.c, flat_jsonl.c). */
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "log_files.h"
#include <tachyon/fmt.h>

#include "internal.h"
#include "tachyon/fmt_flat.h"

/* A frame "file:func:line" and a sample: stack root first, ';'-joined. */
typedef struct tsample {
    uint64_t tid;
    const char *stack;
    unsigned count;
} tsample;

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
    static char path[128];
    if (!tmpdir[0]) {
        strcpy(tmpdir, "/tmp/test_flat.XXXXXX");
        if (!mkdtemp(tmpdir))
            return NULL;
    }
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

/* Intern "file:func:line" into the writer. */
static int put_frame(tfmt_bin_writer *w, const char *spec, size_t n,
                     uint32_t *out)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%.*s", (int)n, spec);
    char *c1 = strchr(buf, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c2)
        return TFMT_EINVAL;
    *c1 = *c2 = '\0';
    int line = atoi(c2 + 1);
    return tfmt_bin_writer_location(w, buf, strlen(buf), c1 + 1, strlen(c1 + 1),
                                    line, line, 0, 1, -1, out);
}

static int put_sample(tfmt_bin_writer *w, const tsample *s, uint64_t *ts)
{
    uint32_t stack[64], depth = 0;
    const char *p = s->stack;
    while (*p && depth < 64) {
        const char *end = strchr(p, ';');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        int rc = put_frame(w, p, n, &stack[depth++]);
        if (rc < 0)
            return rc;
        p += n + (end ? 1 : 0);
    }
    for (unsigned i = 0; i < s->count; i++) {
        int rc = tfmt_bin_writer_sample(w, s->tid, 0, (*ts)++ * 1000,
                                        TFMT_STATUS_HAS_GIL, stack, depth);
        if (rc < 0)
            return rc;
    }
    return TFMT_OK;
}

/*
 * Write a binary log of `samples` at `path` (interval 1000 us), after
 * interning the frames "file:func:line" of `unused`, which no sample uses
 * (NULL-terminated; may be NULL).
 */
static int write_bin_with(const char *path, const tsample *samples, size_t n,
                          double duration, const char *const *unused)
{
    test_log_out out;
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.sample_interval_us = 1000;
    int rc = test_log_create(&out, path, &o, NULL);
    tfmt_bin_writer *w = out.w;
    uint32_t id;
    for (size_t i = 0; rc == TFMT_OK && unused && unused[i]; i++)
        rc = put_frame(w, unused[i], strlen(unused[i]), &id);
    uint64_t ts = 1;
    for (size_t i = 0; rc == TFMT_OK && i < n; i++)
        rc = put_sample(w, &samples[i], &ts);
    if (rc == TFMT_OK && duration > 0) {
        tfmt_stats st = {.present = true,
                         .size = 32,
                         .version = 1,
                         .duration_s = duration,
                         .sample_rate = 1000};
        rc = tfmt_bin_writer_stats(w, &st);
    }
    return test_log_finish(&out, rc);
}

static int write_bin(const char *path, const tsample *samples, size_t n,
                     double duration)
{
    return write_bin_with(path, samples, n, duration, NULL);
}

/* Load a binary log into a new flat. */
static tfmt_flat *flat_from_bin(const char *path, tfmt_flat_key key,
                                tfmt_match *m, bool stacks)
{
    tfmt_flat_options fo = TFMT_FLAT_OPTIONS_INIT;
    fo.key = key;
    fo.match = m;
    fo.stacks = stacks;
    test_log l;
    tfmt_profile *p = NULL;
    tfmt_flat *f = NULL;
    int rc = test_log_open(&l, path, NULL, NULL);
    if (rc == TFMT_OK)
        rc = tfmt_profile_new(&p, NULL);
    if (rc == TFMT_OK)
        rc = tfmt_profile_add_bin(p, l.r);
    if (rc == TFMT_OK)
        rc = tfmt_flat_new(&f, &fo);
    if (rc == TFMT_OK)
        rc = tfmt_flat_add_profile(f, p);
    CHECK(rc == TFMT_OK, "flat from %s: %d %s", path, rc,
          f ? tfmt_flat_error(f)->msg : "");
    tfmt_profile_free(p);
    test_log_close(&l);
    if (rc < 0) {
        tfmt_flat_free(f);
        return NULL;
    }
    return f;
}

/* tfmt_flat_add_bin of the log at `path`: the streaming path. */
static int add_bin_path(tfmt_flat *f, const char *path)
{
    test_log l;
    int rc = test_log_open(&l, path, NULL, NULL);
    if (rc == TFMT_OK)
        rc = tfmt_flat_add_bin(f, l.r);
    test_log_close(&l);
    return rc;
}

/* The streaming path into a new flat, without a call tree. */
static tfmt_flat *flat_from_bin_stream(const char *path, tfmt_flat_key key,
                                       tfmt_match *m)
{
    tfmt_flat_options fo = TFMT_FLAT_OPTIONS_INIT;
    fo.key = key;
    fo.match = m;
    tfmt_flat *f = NULL;
    int rc = tfmt_flat_new(&f, &fo);
    if (rc == TFMT_OK)
        rc = add_bin_path(f, path);
    CHECK(rc == TFMT_OK, "stream %s: %d %s", path, rc,
          f ? tfmt_flat_error(f)->msg : "");
    if (rc < 0) {
        tfmt_flat_free(f);
        return NULL;
    }
    return f;
}

/* Same keys with the same three counts, and the same totals. */
static void check_same(const tfmt_flat *a, const tfmt_flat *b, const char *what)
{
    CHECK(tfmt_flat_count(a) == tfmt_flat_count(b), "%s: %zu vs %zu keys", what,
          tfmt_flat_count(a), tfmt_flat_count(b));
    CHECK(tfmt_flat_get_info(a)->samples == tfmt_flat_get_info(b)->samples,
          "%s: samples", what);
    for (size_t i = 0; i < tfmt_flat_count(a); i++) {
        tfmt_flat_row ra, rb;
        tfmt_flat_row_at(a, i, &ra);
        size_t j = tfmt_flat_find(b, &ra);
        if (j == SIZE_MAX) {
            CHECK(false, "%s: key %.*s missing", what, (int)ra.func.len,
                  ra.func.ptr);
            continue;
        }
        tfmt_flat_row_at(b, j, &rb);
        CHECK(ra.self == rb.self && ra.cumulative == rb.cumulative &&
                  ra.cumulative_frames == rb.cumulative_frames,
              "%s: %.*s: %llu/%llu/%llu vs %llu/%llu/%llu", what,
              (int)ra.func.len, ra.func.ptr, (unsigned long long)ra.self,
              (unsigned long long)ra.cumulative,
              (unsigned long long)ra.cumulative_frames,
              (unsigned long long)rb.self, (unsigned long long)rb.cumulative,
              (unsigned long long)rb.cumulative_frames);
    }
}

static tfmt_flat *flat_from_jsonl_mem(const char *text, tfmt_flat_key key,
                                      int *rc_out)
{
    tfmt_flat_options fo = TFMT_FLAT_OPTIONS_INIT;
    fo.key = key;
    tfmt_source *src = NULL;
    tfmt_jsonl_reader *r = NULL;
    tfmt_flat *f = NULL;
    int rc = tfmt_source_open_memory(&src, text, strlen(text), 7, NULL);
    if (rc == TFMT_OK)
        rc = tfmt_jsonl_open(&r, src, NULL, NULL);
    if (rc == TFMT_OK)
        rc = tfmt_flat_new(&f, &fo);
    if (rc == TFMT_OK)
        rc = tfmt_flat_add_jsonl(f, r);
    *rc_out = rc;
    tfmt_jsonl_free(r);
    tfmt_source_free(src);
    return f;
}

/* Row of (file, func, line) or NULL. */
static bool get_row(const tfmt_flat *f, const char *file, const char *func,
                    int32_t line, tfmt_flat_row *out)
{
    tfmt_flat_row k = {
        {file, strlen(file)}, {func, strlen(func)}, line, 0, 0, 0};
    size_t i = tfmt_flat_find(f, &k);
    if (i == SIZE_MAX)
        return false;
    tfmt_flat_row_at(f, i, out);
    return true;
}

static void check_counts(const tfmt_flat *f, const char *file, const char *func,
                         int32_t line, uint64_t self, uint64_t cum)
{
    tfmt_flat_row r;
    if (!get_row(f, file, func, line, &r)) {
        CHECK(false, "no row %s:%s:%d", file, func, line);
        return;
    }
    CHECK(r.self == self && r.cumulative == cum,
          "%s:%s:%d: self %llu cum %llu, want %llu %llu", file, func, line,
          (unsigned long long)r.self, (unsigned long long)r.cumulative,
          (unsigned long long)self, (unsigned long long)cum);
}

/*
 * main -> f -> g -> f (recursion through another line) once, main -> f
 * twice, main -> h once. Independent counts: self f = 3, h = 1; cumulative
 * main 4, f 3 (the recursive stack counts once), g 1, h 1.
 */
static const tsample recursion[] = {
    {1, "a.py:main:1;a.py:f:10;a.py:g:20;a.py:f:11", 1},
    {1, "a.py:main:1;a.py:f:10", 2},
    {2, "a.py:main:1;b.py:h:5", 1},
};

TEST(profile_counts_recursion_once)
{
    const char *path = tmp_path("rec.bin");
    REQUIRE(write_bin(path, recursion, 3, 0.004) == TFMT_OK, "write");
    tfmt_flat *f = flat_from_bin(path, TFMT_FLAT_KEY_FILE_FUNC, NULL, false);
    REQUIRE(f, "flat");
    CHECK(tfmt_flat_count(f) == 4, "4 keys, got %zu", tfmt_flat_count(f));
    check_counts(f, "a.py", "main", -1, 0, 4);
    check_counts(f, "a.py", "f", -1, 3, 3);
    check_counts(f, "a.py", "g", -1, 0, 1);
    check_counts(f, "b.py", "h", -1, 1, 1);
    /* JSONL's way: f:10 (3) + f:11 (1) = 4, at most the 4 samples. */
    tfmt_flat_row r;
    REQUIRE(get_row(f, "a.py", "f", -1, &r), "row f");
    CHECK(r.cumulative_frames == 4, "f per frame: %llu",
          (unsigned long long)r.cumulative_frames);
    REQUIRE(get_row(f, "a.py", "main", -1, &r), "row main");
    CHECK(r.cumulative_frames == 4, "main per frame: %llu",
          (unsigned long long)r.cumulative_frames);
    const tfmt_flat_info *in = tfmt_flat_get_info(f);
    CHECK(in->samples == 4 && in->inputs == 1, "samples %llu",
          (unsigned long long)in->samples);
    CHECK(in->interval_us == 1000 && in->has_duration && in->exact_cumulative &&
              !in->has_stacks,
          "info");
    CHECK(in->ticks > 3.999 && in->ticks < 4.001, "ticks %f", in->ticks);
    tfmt_flat_free(f);

    /* Per line, f:10 and f:11 are different keys: each counts once. */
    f = flat_from_bin(path, TFMT_FLAT_KEY_FILE_FUNC_LINE, NULL, false);
    REQUIRE(f, "flat");
    check_counts(f, "a.py", "f", 10, 2, 3);
    check_counts(f, "a.py", "f", 11, 1, 1);
    tfmt_flat_free(f);
}

TEST(func_key_merges_files_and_rewrites_apply)
{
    static const tsample s[] = {
        {1, "/v1/site-packages/m.py:run:1;/v1/site-packages/m.py:f:2", 3},
        {1, "/v2/lib/site-packages/m.py:run:1;x.py:f:7", 2},
    };
    const char *path = tmp_path("merge.bin");
    REQUIRE(write_bin(path, s, 2, 0) == TFMT_OK, "write");
    tfmt_flat *f = flat_from_bin(path, TFMT_FLAT_KEY_FUNC, NULL, false);
    REQUIRE(f, "flat");
    CHECK(tfmt_flat_count(f) == 2, "run and f: %zu", tfmt_flat_count(f));
    check_counts(f, "", "f", -1, 5, 5);
    check_counts(f, "ignored", "run", -1, 0, 5);
    CHECK(!tfmt_flat_get_info(f)->has_duration, "no stats block");
    tfmt_flat_free(f);

    tfmt_match *m = NULL;
    REQUIRE(tfmt_match_new(&m, NULL) == TFMT_OK, "match");
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_REWRITE, "^.*/site-packages/=>",
                           NULL) == TFMT_OK,
            "rule");
    f = flat_from_bin(path, TFMT_FLAT_KEY_FILE_FUNC, m, false);
    REQUIRE(f, "flat");
    CHECK(tfmt_flat_count(f) == 3, "m.py:run, m.py:f, x.py:f: %zu",
          tfmt_flat_count(f));
    check_counts(f, "m.py", "run", -1, 0, 5);
    check_counts(f, "m.py", "f", -1, 3, 3);
    check_counts(f, "x.py", "f", -1, 2, 2);
    tfmt_flat_free(f);
    tfmt_match_free(m);
}

TEST(filters_drop_rows_not_samples)
{
    const char *path = tmp_path("rec2.bin");
    REQUIRE(write_bin(path, recursion, 3, 0) == TFMT_OK, "write");
    tfmt_match *m = NULL;
    REQUIRE(tfmt_match_new(&m, NULL) == TFMT_OK, "match");
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_EXCLUDE, "^g$", NULL) == 0, "rule");
    tfmt_flat *f = flat_from_bin(path, TFMT_FLAT_KEY_FILE_FUNC, m, true);
    REQUIRE(f, "flat");
    tfmt_flat_row r;
    CHECK(!get_row(f, "a.py", "g", -1, &r), "g excluded");
    check_counts(f, "a.py", "f", -1, 3, 3);
    CHECK(tfmt_flat_get_info(f)->samples == 4, "totals keep all samples");
    /* Stacks hide g; the two thread-1 paths stay apart. */
    CHECK(tfmt_flat_stack_count(f) == 3, "stacks %zu",
          tfmt_flat_stack_count(f));
    const char *want[] = {"a.py:main;a.py:f;a.py:f", "a.py:main;a.py:f",
                          "a.py:main;b.py:h"};
    const uint64_t counts[] = {1, 2, 1};
    for (int i = 0; i < 3; i++) {
        size_t at = tfmt_flat_stack_find(f, want[i], strlen(want[i]));
        tfmt_str s;
        uint64_t c = 0;
        if (at != SIZE_MAX)
            tfmt_flat_stack_at(f, at, &s, &c);
        CHECK(at != SIZE_MAX && c == counts[i], "stack %s: %llu", want[i],
              (unsigned long long)c);
    }
    tfmt_flat_free(f);
    tfmt_match_free(m);
}

TEST(stacks_merge_threads)
{
    static const tsample s[] = {
        {1, "a.py:main:1;a.py:f:2", 3},
        {2, "a.py:main:1;a.py:f:3", 2},
        {2, "a.py:main:1", 1},
    };
    const char *path = tmp_path("threads.bin");
    REQUIRE(write_bin(path, s, 3, 0) == TFMT_OK, "write");
    tfmt_flat *f = flat_from_bin(path, TFMT_FLAT_KEY_FILE_FUNC, NULL, true);
    REQUIRE(f, "flat");
    CHECK(tfmt_flat_stack_count(f) == 2, "%zu", tfmt_flat_stack_count(f));
    size_t at = tfmt_flat_stack_find(f, "a.py:main;a.py:f", 16);
    tfmt_str st;
    uint64_t c = 0;
    if (at != SIZE_MAX)
        tfmt_flat_stack_at(f, at, &st, &c);
    CHECK(c == 5, "threads and lines merged: %llu", (unsigned long long)c);
    at = tfmt_flat_stack_find(f, "a.py:main", 9);
    c = 0;
    if (at != SIZE_MAX)
        tfmt_flat_stack_at(f, at, &st, &c);
    CHECK(c == 1, "main alone: %llu", (unsigned long long)c);
    tfmt_flat_free(f);
}

/* The run_id every JSONL test record carries. */
#define RUN "\"run_id\":\"00000000000000000000000000000000\""

/* f at lines 10 and 20 both on one stack: JSONL can only sum. */
static const char jsonl_rec[] =
    "{\"type\":\"meta\",\"v\":0," RUN ","
    "\"sample_interval_usec\":250}\n"
    "{\"type\":\"string_table\",\"v\":0," RUN ","
    "\"strings\":[{\"str_id\":0,\"value\":\"f\"},"
    "{\"str_id\":1,\"value\":\"a.py\"},"
    "{\"str_id\":2,\"value\":\"main\"}]}\n"
    "{\"type\":\"frame_table\",\"v\":0," RUN ","
    "\"frames\":["
    "{\"frame_id\":0,\"path_str_id\":1,\"func_str_id\":0,\"line\":10},"
    "{\"frame_id\":1,\"path_str_id\":1,\"func_str_id\":0,\"line\":20},"
    "{\"frame_id\":2,\"path_str_id\":1,\"func_str_id\":2,\"line\":1}]}\n"
    "{\"type\":\"agg\",\"v\":0," RUN ","
    "\"kind\":\"frame\",\"scope\":\"final\",\"samples_total\":4,\"entries\":["
    "{\"frame_id\":0,\"self\":1,\"cumulative\":3},"
    "{\"frame_id\":1,\"self\":2,\"cumulative\":3},"
    "{\"frame_id\":2,\"self\":0,\"cumulative\":4}]}\n"
    "{\"type\":\"end\",\"v\":0," RUN ","
    "\"samples_total\":4}\n";

TEST(jsonl_sums_and_caps_cumulative)
{
    int rc;
    tfmt_flat *f = flat_from_jsonl_mem(jsonl_rec, TFMT_FLAT_KEY_FILE_FUNC, &rc);
    REQUIRE(f && rc == TFMT_OK, "rc %d %s", rc,
            f ? tfmt_flat_error(f)->msg : "");
    /* 3 + 3 = 6 > samples_total 4: capped. */
    check_counts(f, "a.py", "f", -1, 3, 4);
    check_counts(f, "a.py", "main", -1, 0, 4);
    const tfmt_flat_info *in = tfmt_flat_get_info(f);
    CHECK(in->samples == 4 && in->interval_us == 250, "info");
    CHECK(!in->has_stacks && !in->has_duration && !in->exact_cumulative,
          "JSONL: no stacks/duration");
    tfmt_flat_free(f);

    f = flat_from_jsonl_mem(jsonl_rec, TFMT_FLAT_KEY_FILE_FUNC_LINE, &rc);
    REQUIRE(f && rc == TFMT_OK, "rc %d", rc);
    check_counts(f, "a.py", "f", 10, 1, 3);
    check_counts(f, "a.py", "f", 20, 2, 3);
    tfmt_flat_free(f);
}

TEST(jsonl_unknown_frame_is_located)
{
    static const char text[] =
        "{\"type\":\"meta\",\"v\":0," RUN ","
        "\"sample_interval_usec\":250}\n"
        "{\"type\":\"agg\",\"v\":0," RUN ","
        "\"kind\":\"frame\",\"scope\":\"final\",\"samples_total\":4,"
        "\"entries\":["
        "{\"frame_id\":7,\"self\":1,\"cumulative\":3}]}\n";
    int rc;
    tfmt_flat *f = flat_from_jsonl_mem(text, TFMT_FLAT_KEY_FILE_FUNC, &rc);
    REQUIRE(f, "flat");
    const tfmt_error *e = tfmt_flat_error(f);
    /* The reader's rulebook (TV123) finds it before the flat does. */
    CHECK(rc == TFMT_ESCHEMA && e->line == 2 &&
              e->check == TFMT_JCHK_FRAME_REF &&
              strcmp(e->msg, "entries[0].frame_id: frame 7 is not defined "
                             "earlier") == 0,
          "rc %d line %llu msg %s", rc, (unsigned long long)e->line, e->msg);
    tfmt_flat_free(f);

    /* A truncated file (no end record) reports the reader's error. */
    static const char trunc[] = "{\"type\":\"meta\",\"v\":0," RUN ","
                                "\"sample_interval_usec\":250}\n";
    f = flat_from_jsonl_mem(trunc, TFMT_FLAT_KEY_FILE_FUNC, &rc);
    REQUIRE(f, "flat");
    CHECK(rc == TFMT_ETRUNC && tfmt_flat_error(f)->code == TFMT_ETRUNC, "rc %d",
          rc);
    tfmt_flat_free(f);
}

/* The batched join answers exactly what row-by-row lookups answer, for
 * whole and partial ranges. */
static void check_batched_find(const tfmt_flat *in, const tfmt_flat *f)
{
    size_t n = tfmt_flat_count(f);
    uint32_t *out = malloc((n + 1) * sizeof *out);
    REQUIRE(out, "memory");
    size_t ranges[3][2] = {{0, n}, {1, n / 2}, {n / 2, n}};
    for (int r = 0; r < 3; r++) {
        size_t from = ranges[r][0], to = ranges[r][1];
        tfmt_flat_find_rows(in, f, from, to, out);
        for (size_t i = from; i < to; i++) {
            tfmt_flat_row row;
            tfmt_flat_row_at(f, i, &row);
            size_t want = tfmt_flat_find(in, &row);
            CHECK(out[i - from] ==
                      (want == SIZE_MAX ? UINT32_MAX : (uint32_t)want),
                  "row %zu of [%zu, %zu)", i, from, to);
        }
    }
    free(out);
}

/* CPython's own bin and JSONL of the same run: self agrees everywhere. */
TEST(cpython_workload_bin_matches_jsonl)
{
    static const tfmt_flat_key keys[] = {TFMT_FLAT_KEY_FUNC,
                                         TFMT_FLAT_KEY_FILE_FUNC,
                                         TFMT_FLAT_KEY_FILE_FUNC_LINE};
    size_t len = 0;
    char *text = (char *)harness_slurp(
        TESTDATA "/cpython/workload/expected.jsonl", &len);
    REQUIRE(text, "fixture");
    for (int k = 0; k < 3; k++) {
        int rc;
        tfmt_flat *j = flat_from_jsonl_mem(text, keys[k], &rc);
        tfmt_flat *b = flat_from_bin(TESTDATA "/cpython/workload/none.bin",
                                     keys[k], NULL, false);
        REQUIRE(j && b && rc == TFMT_OK, "flats");
        CHECK(tfmt_flat_get_info(j)->samples == 3224 &&
                  tfmt_flat_get_info(b)->samples == 3224,
              "samples");
        size_t nonzero = 0, differ = 0;
        for (size_t i = 0; i < tfmt_flat_count(b); i++) {
            tfmt_flat_row rb, rj;
            tfmt_flat_row_at(b, i, &rb);
            size_t at = tfmt_flat_find(j, &rb);
            REQUIRE(at != SIZE_MAX, "key %.*s in jsonl", (int)rb.func.len,
                    rb.func.ptr);
            tfmt_flat_row_at(j, at, &rj);
            CHECK(rb.self == rj.self, "self %.*s", (int)rb.func.len,
                  rb.func.ptr);
            /* JSONL can only over-count cumulative (recursion)... */
            CHECK(rb.cumulative <= rj.cumulative, "cum %.*s", (int)rb.func.len,
                  rb.func.ptr);
            /* ...and the binary side reproduces its figure exactly. */
            CHECK(rb.cumulative_frames == rj.cumulative &&
                      rj.cumulative_frames == rj.cumulative,
                  "cum_frames %.*s: "
                  "%llu vs %llu",
                  (int)rb.func.len, rb.func.ptr,
                  (unsigned long long)rb.cumulative_frames,
                  (unsigned long long)rj.cumulative);
            differ += rb.cumulative != rj.cumulative;
            nonzero += rb.self > 0;
        }
        CHECK(nonzero > 10, "a real profile: %zu leaf keys", nonzero);
        check_batched_find(j, b);
        if (keys[k] != TFMT_FLAT_KEY_FILE_FUNC_LINE)
            printf("key %d: %zu keys where JSONL over-counts cumulative\n",
                   (int)keys[k], differ);
        tfmt_flat_free(j);
        tfmt_flat_free(b);
    }
    free(text);
}

/* The streaming path counts exactly what the call-tree path counts. */
TEST(stream_equals_tree)
{
    static const char *const fixtures[] = {
        TESTDATA "/cpython/workload/none.bin",
        TESTDATA "/cpython/workload/zstd.bin",
        TESTDATA "/cpython/interleaved_threads/none.bin",
        TESTDATA "/cpython/synthetic_frames/none.bin",
        TESTDATA "/cpython/repeat_rle/none.bin",
    };
    const char *rec = tmp_path("rec3.bin");
    REQUIRE(write_bin(rec, recursion, 3, 0.004) == TFMT_OK, "write");
    for (int k = 1; k <= 3; k++) {
        for (size_t i = 0; i <= 5; i++) {
            const char *path = i < 5 ? fixtures[i] : rec;
            tfmt_flat *a = flat_from_bin(path, (tfmt_flat_key)k, NULL, false);
            tfmt_flat *b = flat_from_bin_stream(path, (tfmt_flat_key)k, NULL);
            REQUIRE(a && b, "flats of %s", path);
            check_same(a, b, path);
            check_same(b, a, path);
            CHECK(tfmt_flat_get_info(b)->exact_cumulative &&
                      !tfmt_flat_get_info(b)->has_stacks,
                  "stream info");
            tfmt_flat_free(a);
            tfmt_flat_free(b);
        }
    }
    /* With filters, too. */
    tfmt_match *m = NULL;
    REQUIRE(tfmt_match_new(&m, NULL) == TFMT_OK, "match");
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_EXCLUDE, "^g$", NULL) == 0, "rule");
    tfmt_flat *a = flat_from_bin(rec, TFMT_FLAT_KEY_FILE_FUNC, m, false);
    tfmt_flat *b = flat_from_bin_stream(rec, TFMT_FLAT_KEY_FILE_FUNC, m);
    REQUIRE(a && b, "filtered flats");
    check_same(a, b, "filtered");
    tfmt_flat_free(a);
    tfmt_flat_free(b);
    tfmt_match_free(m);
}

/*
 * The streaming path resolves the whole frame table up front; frames no
 * sample reaches must still give no key (the call tree never sees them),
 * and a key an earlier input made stays even when this one lacks it.
 */
TEST(unreached_frames_give_no_key)
{
    /* Two frames no sample uses, one a second location of a.py:f. */
    static const tsample s[] = {{1, "a.py:main:1;a.py:f:2", 2},
                                {1, "a.py:main:1", 1}};
    static const char *const unused[] = {"z.py:unused:9", "a.py:f:7", NULL};
    const char *path = tmp_path("unreached.bin");
    REQUIRE(write_bin_with(path, s, 2, 0, unused) == TFMT_OK, "write");
    for (int k = 1; k <= 3; k++) {
        tfmt_flat *a = flat_from_bin(path, (tfmt_flat_key)k, NULL, false);
        tfmt_flat *b = flat_from_bin_stream(path, (tfmt_flat_key)k, NULL);
        REQUIRE(a && b, "flats");
        check_same(a, b, "unreached");
        check_same(b, a, "unreached");
        /* main and f (f:2 only, under file:func:line). */
        CHECK(tfmt_flat_count(b) == 2, "key %d: %zu keys", k,
              tfmt_flat_count(b));
        tfmt_flat_free(a);
        tfmt_flat_free(b);
    }
    tfmt_flat *f = flat_from_bin_stream(path, TFMT_FLAT_KEY_FILE_FUNC, NULL);
    REQUIRE(f, "flat");
    int rc = add_bin_path(f, path);
    CHECK(rc == TFMT_OK, "second add: %d", rc);
    check_counts(f, "a.py", "main", -1, 2, 6);
    check_counts(f, "a.py", "f", -1, 4, 4);
    CHECK(tfmt_flat_count(f) == 2, "%zu keys after two inputs",
          tfmt_flat_count(f));
    tfmt_flat_free(f);
}

/* Names are read as CPython decodes them: invalid UTF-8 becomes U+FFFD. */
TEST(invalid_utf8_names_repaired)
{
    static const tsample s[] = {
        {1, "a.py:main:1;a.py:bad\xff:2", 3},
        {1, "a.py:main:1;a.py:bad\xef\xbf\xbd:2", 1},
    };
    const char *path = tmp_path("utf8.bin");
    REQUIRE(write_bin(path, s, 2, 0) == TFMT_OK, "write");
    tfmt_flat *a = flat_from_bin(path, TFMT_FLAT_KEY_FILE_FUNC, NULL, false);
    tfmt_flat *b = flat_from_bin_stream(path, TFMT_FLAT_KEY_FILE_FUNC, NULL);
    REQUIRE(a && b, "flats");
    /* Both spellings decode to "bad\ufffd": one key with all 4 samples. */
    check_counts(a, "a.py", "bad\xef\xbf\xbd", -1, 4, 4);
    check_counts(b, "a.py", "bad\xef\xbf\xbd", -1, 4, 4);
    CHECK(tfmt_flat_count(b) == 2, "main and bad: %zu", tfmt_flat_count(b));
    tfmt_flat_free(a);
    tfmt_flat_free(b);
}

TESTS(TCASE(profile_counts_recursion_once), TCASE(stream_equals_tree),
      TCASE(invalid_utf8_names_repaired), TCASE(unreached_frames_give_no_key),
      TCASE(func_key_merges_files_and_rewrites_apply),
      TCASE(filters_drop_rows_not_samples), TCASE(stacks_merge_threads),
      TCASE(jsonl_sums_and_caps_cumulative),
      TCASE(jsonl_unknown_frame_is_located),
      TCASE(cpython_workload_bin_matches_jsonl))
