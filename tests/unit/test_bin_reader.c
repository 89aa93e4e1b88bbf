/* SPDX-License-Identifier: MIT */
/*
 * test_bin_reader.c - the binary reader against CPython's own files.
 *
 * Ground truth is each fixture's input.json: the exact samples CPython's
 * writer was given. Every variant of every case (u64 and u32 headers, zstd
 * and uncompressed) must decode to those samples, per thread and in order,
 * after the writer's documented lossy storage rules. Damaged files must fail
 * with a located error, never crash.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "fail_alloc.h"
#include "fixture_input.h"
#include "log_files.h"
#include <tachyon/fmt.h>

#include "io_internal.h"

static const char *const CASES[] = {
    "single_full",         "repeat_rle",       "suffix_calls", "pop_push",
    "interleaved_threads", "synthetic_frames", "workload"};
#define NCASES (sizeof CASES / sizeof CASES[0])
static const char *const VARIANTS[] = {"none.bin", "zstd.bin",
                                       "none.hdr-u32.bin", "zstd.hdr-u32.bin"};

static char *path_of(const char *c, const char *file)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/cpython/%s/%s", TESTDATA, c, file);
    return buf;
}

/* ---- comparison with input.json ---- */

static bool str_is(const tfmt_bin_reader *r, uint32_t idx, const char *s)
{
    tfmt_str v;
    if (tfmt_bin_string(r, idx, &v) != TFMT_OK)
        return false;
    return v.len == strlen(s) && memcmp(v.ptr, s, v.len) == 0;
}

/* The frame CPython's reader returns for an input frame. */
static tfmt_frame stored(const fx_frame *f)
{
    tfmt_frame e;
    e.lineno = f->loc[0];
    e.end_lineno = f->loc[0] == -1   ? -1
                   : f->loc[1] == -1 ? f->loc[0]
                                     : f->loc[1];
    e.column = f->loc[2];
    e.end_column = f->loc[2] == -1   ? -1
                   : f->loc[3] == -1 ? f->loc[2]
                                     : f->loc[3];
    e.opcode = (f->opcode < 0 || f->opcode > 254) ? 255 : (uint8_t)f->opcode;
    return e;
}

static bool frame_matches(const tfmt_bin_reader *r, uint32_t idx,
                          const fx_frame *f)
{
    const tfmt_frame *got = tfmt_bin_frame(r, idx);
    tfmt_frame e = stored(f);
    return got && str_is(r, got->filename, f->filename) &&
           str_is(r, got->funcname, f->funcname) && got->lineno == e.lineno &&
           got->end_lineno == e.end_lineno && got->column == e.column &&
           got->end_column == e.end_column && got->opcode == e.opcode;
}

/* Find the next input sample of the same thread after cursor *c. */
static const fx_sample *next_of(const fx_input *in, size_t *cursor,
                                uint64_t tid, uint32_t interp)
{
    for (size_t i = *cursor; i < in->nsamples; i++)
        if (in->samples[i].tid == tid && in->samples[i].interp == interp) {
            *cursor = i + 1;
            return &in->samples[i];
        }
    return NULL;
}

#define MAX_THREADS 16

typedef struct cursors {
    uint64_t tid[MAX_THREADS];
    uint32_t interp[MAX_THREADS];
    size_t pos[MAX_THREADS];
    int n;
} cursors;

static size_t *cursor_for(cursors *c, uint64_t tid, uint32_t interp)
{
    for (int i = 0; i < c->n; i++)
        if (c->tid[i] == tid && c->interp[i] == interp)
            return &c->pos[i];
    c->tid[c->n] = tid;
    c->interp[c->n] = interp;
    c->pos[c->n] = 0;
    return &c->pos[c->n++];
}

static bool sample_matches(const tfmt_bin_reader *r, const tfmt_sample *s,
                           uint32_t k, const fx_sample *e)
{
    uint32_t depth = e->nframes < 256 ? e->nframes : 256;
    if (s->timestamps[k] != e->ts || s->status != (e->status & 0xff) ||
        s->depth != depth)
        return false;
    for (uint32_t i = 0; i < depth; i++)
        if (!frame_matches(r, s->stack[depth - 1 - i], &e->frames[i]))
            return false;
    return true;
}

/* Decode `path` fully and check it against `in`; returns samples seen. */
static uint64_t check_against(const char *path, const fx_input *in)
{
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    tfmt_error err;
    cursors cur = {.n = 0};
    uint64_t seen = 0;
    int rc = tfmt_source_open_path(&src, path, NULL, &err);
    if (rc == TFMT_OK)
        rc = tfmt_bin_open(&r, src, NULL, &err);
    CHECK(rc == TFMT_OK, "%s: open: %s", path, err.msg);
    const tfmt_sample *s;
    while (r && (rc = tfmt_bin_next(r, &s)) == TFMT_OK) {
        for (uint32_t k = 0; k < s->weight; k++, seen++) {
            size_t *c = cursor_for(&cur, s->thread_id, s->interpreter_id);
            const fx_sample *e =
                next_of(in, c, s->thread_id, s->interpreter_id);
            CHECK(e && sample_matches(r, s, k, e),
                  "%s: sample %" PRIu64 " of thread %" PRIu64
                  " differs from input.json",
                  path, seen, s->thread_id);
        }
    }
    CHECK(!r || rc == TFMT_DONE, "%s: %s", path, tfmt_bin_error(r)->msg);
    if (r) {
        CHECK(tfmt_bin_info(r)->start_time_us == in->start_time_us,
              "%s: start time", path);
        CHECK(tfmt_bin_info(r)->sample_interval_us == in->sample_interval_us,
              "%s: interval", path);
    }
    tfmt_bin_free(r);
    tfmt_source_free(src);
    return seen;
}

TEST(fixtures_decode_to_their_input)
{
    for (size_t c = 0; c < NCASES; c++) {
        fx_input in;
        REQUIRE(fx_input_load(&in, path_of(CASES[c], "input.json")) == 0,
                "cannot load %s input.json", CASES[c]);
        for (size_t v = 0; v < 4; v++) {
            uint64_t n = check_against(path_of(CASES[c], VARIANTS[v]), &in);
            CHECK(n == in.nsamples,
                  "%s/%s: %" PRIu64 " samples, input has "
                  "%zu",
                  CASES[c], VARIANTS[v], n, in.nsamples);
        }
        fx_input_free(&in);
    }
}

/* testdata/bigendian: each fixture byte-swapped by tests/tools/bin_bswap
 * (regenerate with tests/tools/make_bigendian.sh). */
TEST(big_endian_twins_decode_to_the_same_input)
{
    static const char *const V[3] = {"none", "zstd", "none.hdr-u32"};
    for (size_t c = 0; c < NCASES; c++) {
        fx_input in;
        REQUIRE(fx_input_load(&in, path_of(CASES[c], "input.json")) == 0,
                "cannot load %s input.json", CASES[c]);
        for (size_t v = 0; v < 3; v++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/bigendian/%s.%s.bin", TESTDATA,
                     CASES[c], V[v]);
            uint64_t n = check_against(path, &in);
            CHECK(n == in.nsamples, "%s: %" PRIu64 " samples", path, n);
        }
        fx_input_free(&in);
    }
}

TEST(layouts_are_detected)
{
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    const char *files[2] = {"none.bin", "zstd.hdr-u32.bin"};
    tfmt_layout want[2] = {TFMT_LAYOUT_U64_COUNT, TFMT_LAYOUT_U32_COUNT};
    for (int i = 0; i < 2; i++) {
        REQUIRE(tfmt_source_open_path(&src, path_of("workload", files[i]), NULL,
                                      NULL) == TFMT_OK,
                "open");
        REQUIRE(tfmt_bin_open(&r, src, NULL, NULL) == TFMT_OK, "bin open");
        const tfmt_info *info = tfmt_bin_info(r);
        CHECK(info->layout == want[i], "%s layout", files[i]);
        CHECK(info->sample_count == 3224, "workload declares 3224 samples");
        CHECK(info->thread_count == 4 && info->string_count == 47 &&
                  info->frame_count == 116,
              "workload counts (README.txt)");
        CHECK(info->python_version[0] == 3 && info->python_version[1] == 15,
              "python 3.15");
        CHECK(info->mode == TFMT_MODE_UNKNOWN && !info->stats.present,
              "no mode, no stats");
        CHECK(info->compression == (uint32_t)i, "compression %u",
              info->compression);
        tfmt_bin_free(r);
        tfmt_source_free(src);
    }
}

/* ---- damaged files ---- */

/* Decode a memory image; returns the final status and fills *err. */
static int decode_memory(const uint8_t *data, size_t n, size_t chunk,
                         const tfmt_allocator *a, tfmt_error *err)
{
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    tfmt_bin_options opts = TFMT_BIN_OPTIONS_INIT;
    opts.alloc = a;
    int rc = tfmt_source_open_memory(&src, data, n, chunk, a);
    if (rc != TFMT_OK)
        return rc;
    rc = tfmt_bin_open(&r, src, &opts, err);
    const tfmt_sample *s;
    while (rc == TFMT_OK && (rc = tfmt_bin_next(r, &s)) == TFMT_OK)
        ;
    if (r && rc != TFMT_DONE)
        *err = *tfmt_bin_error(r);
    tfmt_bin_free(r);
    tfmt_source_free(src);
    return rc;
}

static uint8_t *load(const char *c, const char *v, size_t *n)
{
    return harness_slurp(path_of(c, v), n);
}

TEST(every_truncation_fails_cleanly)
{
    const char *files[2] = {"none.bin", "zstd.bin"};
    for (int f = 0; f < 2; f++) {
        size_t n;
        uint8_t *d = load("interleaved_threads", files[f], &n);
        REQUIRE(d, "fixture");
        for (size_t len = 0; len < n; len++) {
            tfmt_error err = {0};
            int rc = decode_memory(d, len, 0, NULL, &err);
            CHECK(rc < 0 && err.msg[0], "%s cut to %zu bytes gave %d", files[f],
                  len, rc);
        }
        free(d);
    }
}

TEST(every_byte_flip_is_survived)
{
    size_t n;
    uint8_t *d = load("workload", "zstd.bin", &n);
    REQUIRE(d, "fixture");
    /* Each flipped byte must give DONE or a located error, never a crash
     * (run under ASan/UBSan in CI). Every 7th byte keeps it quick there. */
    for (size_t i = 0; i < n; i += 7) {
        d[i] ^= 0x5a;
        tfmt_error err = {0};
        int rc = decode_memory(d, n, 0, NULL, &err);
        CHECK(rc == TFMT_DONE || (rc < 0 && err.msg[0]), "flip at %zu gave %d",
              i, rc);
        d[i] ^= 0x5a;
    }
    free(d);
}

/* A patched copy of interleaved_threads/none.bin fails with `want`. */
static void expect_error(const char *what, size_t off, const void *bytes,
                         size_t len, int code, uint64_t at, const char *want)
{
    size_t n;
    uint8_t *d = load("interleaved_threads", "none.bin", &n);
    REQUIRE(d, "fixture");
    memcpy(d + off, bytes, len);
    tfmt_error err = {0};
    int rc = decode_memory(d, n, 0, NULL, &err);
    CHECK(rc == code, "%s: status %d, want %d (%s)", what, rc, code, err.msg);
    CHECK(strcmp(err.msg, want) == 0, "%s: message\n  got:  %s\n  want: %s",
          what, err.msg, want);
    CHECK(err.has_offset && err.offset == at,
          "%s: offset %" PRIu64 ", want %" PRIu64, what, err.offset, at);
    free(d);
}

TEST(cpython_validation_messages)
{
    /* interleaved_threads/none.bin: 1928 bytes, 3 threads, 80 samples,
     * 17 strings, 13 frames (README.txt). */
    uint32_t one = 1, two = 2, big = 0xffffffffu, bad = 0x12345678u;
    uint64_t two64 = 2;
    /* The second thread first appears in the record at byte 86. */
    expect_error("thread count", 36, &one, 4, TFMT_EFORMAT, 86,
                 "invalid thread count: sample data contains more unique "
                 "threads than declared in header (declared 1, found at "
                 "least 2)");
    expect_error("sample count", 28, &two64, 8, TFMT_EFORMAT, 28,
                 "sample count mismatch: header declares 2 samples but "
                 "replay decoded 80");
    expect_error("magic", 0, &bad, 4, TFMT_EFORMAT, 0,
                 "invalid magic number: 0x12345678");
    expect_error("version", 4, &two, 4, TFMT_EVERSION, 4,
                 "binary file was created with Python 3.15.0 (format "
                 "version 2), but this reader supports format version 1");
    /* Tables at 1682 and 1805: at most 1928 - 1682 = 246 one-byte
     * strings and (1928 - 1805) / 7 = 17 seven-byte frames fit. */
    expect_error("string count", 1928 - 32, &big, 4, TFMT_EFORMAT, 1928 - 32,
                 "invalid string count 4294967295 exceeds "
                 "maximum possible 246");
    expect_error("frame count", 1928 - 28, &big, 4, TFMT_EFORMAT, 1928 - 28,
                 "invalid frame count 4294967295 exceeds "
                 "maximum possible 17");
}

TEST(stricter_than_cpython)
{
    uint64_t size = 1000;
    expect_error("footer size", 1928 - 24, &size, 8, TFMT_EFORMAT, 1928 - 24,
                 "footer declares a file size of 1000 bytes but the file "
                 "has 1928");
}

/*
 * tfmt_bin_fingerprint names a run in run id version 1, the run ids of
 * tachyon 0.1 (fmt_model.h), which ClickHouse tables loaded then still
 * hold: it may never change. testdata/clickhouse/fixtures-0.1.rows.json
 * is what tachyon 0.1 loaded for four fixtures (labelled fixture=NAME):
 * every row of a fixture carries its fingerprint.
 */
TEST(fingerprint_is_tachyon_0_1s_run_id)
{
    static const char *const names[] = {"interleaved_threads", "pop_push",
                                        "synthetic_frames", "suffix_calls"};
    static char rows[1 << 16];
    FILE *f = fopen(TESTDATA "/clickhouse/fixtures-0.1.rows.json", "rb");
    size_t len = f ? fread(rows, 1, sizeof rows - 1, f) : 0;
    if (f)
        fclose(f);
    REQUIRE(len > 0 && len < sizeof rows - 1, "fixtures-0.1.rows.json");
    rows[len] = '\0';
    for (size_t i = 0; i < 4; i++) {
        test_log l;
        int rc = test_log_open(&l, path_of(names[i], "none.bin"), NULL, NULL);
        char fp[33] = "", label[64], want[64];
        if (rc == TFMT_OK)
            tfmt_bin_fingerprint(l.r, fp);
        test_log_close(&l);
        REQUIRE(rc == TFMT_OK, "%s: open", names[i]);
        snprintf(label, sizeof label, "\"labels.value\":[\"%s\",", names[i]);
        snprintf(want, sizeof want, "{\"run_id\":\"%s\",", fp);
        int seen = 0;
        for (char *line = rows; line && *line; line = strchr(line, '\n')) {
            line += *line == '\n';
            char *end = strchr(line, '\n');
            size_t n = end ? (size_t)(end - line) : strlen(line);
            char *hit = strstr(line, label);
            if (!hit || hit >= line + n)
                continue;
            seen++;
            CHECK(strncmp(line, want, strlen(want)) == 0,
                  "%s: a row of run %.32s, the fingerprint is %s", names[i],
                  line + 11, fp);
        }
        CHECK(seen > 0, "%s: no row", names[i]);
    }
}

/* ---- chunked sources and failing allocations ---- */

TEST(chunked_sources_decode_identically)
{
    size_t n;
    uint8_t *d = load("workload", "zstd.bin", &n);
    REQUIRE(d, "fixture");
    size_t chunks[3] = {0, 1, 7};
    for (int i = 0; i < 3; i++) {
        tfmt_error err = {0};
        int rc = decode_memory(d, n, chunks[i], NULL, &err);
        CHECK(rc == TFMT_DONE, "chunk %zu: %d %s", chunks[i], rc, err.msg);
    }
    free(d);
}

TEST(every_allocation_failure_is_reported)
{
    size_t n;
    uint8_t *d = load("interleaved_threads", "zstd.bin", &n);
    REQUIRE(d, "fixture");
    int done = 0;
    for (long k = 0; k < 200 && !done; k++) {
        test_failing f = {k + 1, 0, false}; /* k allocations succeed */
        tfmt_allocator a = test_failing_alloc(&f);
        tfmt_error err = {0};
        int rc = decode_memory(d, n, 0, &a, &err);
        CHECK(rc == TFMT_DONE || rc == TFMT_ENOMEM,
              "failing allocation %ld gave %d (%s)", k, rc, err.msg);
        done = rc == TFMT_DONE;
    }
    CHECK(done, "decoding never succeeded within 200 allocations");
    free(d);
}

TESTS(TCASE(fixtures_decode_to_their_input),
      TCASE(big_endian_twins_decode_to_the_same_input),
      TCASE(layouts_are_detected), TCASE(every_truncation_fails_cleanly),
      TCASE(every_byte_flip_is_survived), TCASE(cpython_validation_messages),
      TCASE(stricter_than_cpython), TCASE(fingerprint_is_tachyon_0_1s_run_id),
      TCASE(chunked_sources_decode_identically),
      TCASE(every_allocation_failure_is_reported))
