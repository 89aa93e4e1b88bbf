/* SPDX-License-Identifier: MIT */
/*
 * test_detect.c - tfmt_detect: every kind from its first bytes (whole
 * buffer and 1-byte chunks), the JSONL dialect from the first line, and
 * that detection consumes nothing: after it, a plain read, a JSONL reader
 * and a binary reader (on a file, a compressed file and a pipe) all see
 * the input from its first byte.
 */
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include <tachyon/fmt.h>

#define CPY TESTDATA "/cpython/workload/"

static tfmt_kind kind_in(const char *data, size_t n, size_t chunk)
{
    tfmt_source *src = NULL;
    tfmt_detection d;
    if (tfmt_source_open_memory(&src, data, n, chunk, NULL) != TFMT_OK)
        return (tfmt_kind)-1;
    int rc = tfmt_detect(src, &d, NULL);
    tfmt_source_free(src);
    return rc == TFMT_OK ? d.kind : (tfmt_kind)-1;
}

static void check_kind(const char *data, size_t n, tfmt_kind want)
{
    CHECK(kind_in(data, n, 0) == want, "whole '%.*s': %d, want %s", (int)n,
          data, (int)kind_in(data, n, 0), tfmt_kind_name(want));
    CHECK(kind_in(data, n, 1) == want, "1-byte chunks '%.*s': %d, want %s",
          (int)n, data, (int)kind_in(data, n, 1), tfmt_kind_name(want));
}

#define KIND(lit, want) check_kind(lit, sizeof lit - 1, want)

TEST(kinds)
{
    KIND("", TFMT_KIND_EMPTY);
    KIND("TACH\x01\x00", TFMT_KIND_BIN);
    KIND("HCAT", TFMT_KIND_BIN);
    KIND("TAC", TFMT_KIND_TEXT); /* too short for the magic */
    KIND("hello world\n", TFMT_KIND_TEXT);
    KIND("\x7f"
         "ELF",
         TFMT_KIND_DATA);
    KIND("\0\0\0\0", TFMT_KIND_DATA); /* a header never written */
    KIND("{}", TFMT_KIND_JSONL);
    KIND("\n\n{\"type\":\"meta\",\"v\":0}\n", TFMT_KIND_JSONL);
    KIND(" x", TFMT_KIND_JSONL); /* blank first: the reader says */
}

TEST(dialects)
{
    KIND("{\"type\":\"meta\",\"v\":0,\"run_id\":\"a\"}\n", TFMT_KIND_JSONL_V0);
    KIND("{\"type\":\"meta\",\"v\":1}\n{\"v\":0}\n", TFMT_KIND_JSONL_V1);
    KIND("{ \"type\" : \"meta\" , \"v\" : 0 }", TFMT_KIND_JSONL_V0);
    KIND("{\"host\":{\"v\":1,\"x\":[1,{\"v\":1}]},\"v\":0}\n",
         TFMT_KIND_JSONL_V0); /* nested "v" is not the record's */
    KIND("{\"run_id\":\"\\\"v\\\":1\",\"v\":0}\n", TFMT_KIND_JSONL_V0);
    KIND("{\"v\":2}\n", TFMT_KIND_JSONL);
    KIND("{\"v\":\"0\"}\n", TFMT_KIND_JSONL);
    KIND("{\"v\":01}\n", TFMT_KIND_JSONL);
    KIND("{\"type\":\"meta\"}\n{\"v\":1}\n", TFMT_KIND_JSONL);
    KIND("{\"type\":\"meta\",\"v\n\":1}", TFMT_KIND_JSONL);
}

TEST(head_kept_for_messages)
{
    tfmt_source *src = NULL;
    tfmt_detection d;
    REQUIRE(tfmt_source_open_memory(&src, "hello world", 11, 0, NULL) == 0,
            "open");
    CHECK(tfmt_detect(src, &d, NULL) == TFMT_OK && d.kind == TFMT_KIND_TEXT,
          "text");
    CHECK(d.head_len == TFMT_DETECT_HEAD &&
              memcmp(d.head, "hello wo", TFMT_DETECT_HEAD) == 0,
          "head %zu '%.*s'", d.head_len, (int)d.head_len, d.head);
    tfmt_source_free(src);
    REQUIRE(tfmt_source_open_memory(&src, "hel", 3, 1, NULL) == 0, "open");
    CHECK(tfmt_detect(src, &d, NULL) == TFMT_OK && d.head_len == 3 &&
              memcmp(d.head, "hel", 3) == 0,
          "short input keeps what it has");
    tfmt_source_free(src);
}

/* Detect, then read all of `path`: the bytes must equal the file's. */
static void check_unconsumed(const char *path, const char *plain_path)
{
    size_t want_len = 0;
    unsigned char *want = harness_slurp(plain_path, &want_len);
    REQUIRE(want, "read %s", plain_path);
    tfmt_source *src = NULL;
    tfmt_error err = {0};
    tfmt_detection d;
    REQUIRE(tfmt_source_open_path(&src, path, NULL, &err) == TFMT_OK, "%s: %s",
            path, err.msg);
    CHECK(tfmt_detect(src, &d, &err) == TFMT_OK, "%s: %s", path, err.msg);
    unsigned char *got = malloc(want_len + 1);
    size_t n = 0;
    while (got && n <= want_len) {
        size_t k = 0;
        if (tfmt_source_read(src, got + n, want_len + 1 - n, &k, &err) < 0 ||
            k == 0)
            break;
        n += k;
    }
    CHECK(got && n == want_len && memcmp(got, want, n) == 0,
          "%s: %zu bytes after detect, want %zu", path, n, want_len);
    free(got);
    free(want);
    tfmt_source_free(src);
}

TEST(nothing_consumed)
{
    check_unconsumed(TESTDATA "/io/plain.txt", TESTDATA "/io/plain.txt");
    check_unconsumed(TESTDATA "/io/plain.txt.gz", TESTDATA "/io/plain.txt");
    check_unconsumed(TESTDATA "/io/plain.txt.zst", TESTDATA "/io/plain.txt");
    check_unconsumed(CPY "expected.jsonl", CPY "expected.jsonl");
}

/* Count the records a JSONL reader finds after detection. */
static void check_jsonl_after(const char *path, tfmt_kind want)
{
    tfmt_source *src = NULL;
    tfmt_jsonl_reader *r = NULL;
    tfmt_error err = {0};
    tfmt_detection d;
    REQUIRE(tfmt_source_open_path(&src, path, NULL, &err) == TFMT_OK, "%s",
            err.msg);
    CHECK(tfmt_detect(src, &d, &err) == TFMT_OK && d.kind == want, "%s: %s",
          path, tfmt_kind_name(d.kind));
    REQUIRE(tfmt_jsonl_open(&r, src, NULL, &err) == TFMT_OK, "%s", err.msg);
    const tfmt_jsonl_record *rec;
    int first = -1;
    int rc = tfmt_jsonl_next(r, &rec);
    for (; rc == TFMT_OK; rc = tfmt_jsonl_next(r, &rec))
        if (first < 0)
            first = (int)rec->type;
    CHECK(rc == TFMT_DONE, "%s: %s", path, tfmt_jsonl_error(r)->msg);
    CHECK(first == TFMT_JREC_META, "%s: first record is meta", path);
    tfmt_jsonl_free(r);
    tfmt_source_free(src);
}

TEST(jsonl_reader_after_detect)
{
    check_jsonl_after(CPY "expected.jsonl", TFMT_KIND_JSONL_V0);
    check_jsonl_after(CPY "expected.v1.jsonl", TFMT_KIND_JSONL_V1);
}

/* Open a binary reader after detection and count its samples. */
static uint64_t samples_after_detect(const char *path)
{
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    tfmt_error err = {0};
    tfmt_detection d;
    uint64_t n = 0;
    if (tfmt_source_open_path(&src, path, NULL, &err) != TFMT_OK)
        return 0;
    CHECK(tfmt_detect(src, &d, &err) == TFMT_OK && d.kind == TFMT_KIND_BIN,
          "%s: %s", path, tfmt_kind_name(d.kind));
    if (tfmt_bin_open(&r, src, NULL, &err) == TFMT_OK) {
        const tfmt_sample *s;
        int rc = tfmt_bin_next(r, &s);
        while (rc == TFMT_OK)
            rc = tfmt_bin_next(r, &s);
        CHECK(rc == TFMT_DONE, "%s: %s", path, tfmt_bin_error(r)->msg);
        n = tfmt_bin_samples_read(r);
    }
    CHECK(r, "%s: %s", path, err.msg);
    tfmt_bin_free(r);
    tfmt_source_free(src);
    return n;
}

TEST(bin_reader_after_detect)
{
    uint64_t want = samples_after_detect(CPY "none.bin");
    CHECK(want > 0, "samples of none.bin");
    CHECK(samples_after_detect(CPY "zstd.bin") == want, "zstd.bin");
    /* A pipe is spooled after detection: the peeked bytes go first. */
    size_t len = 0;
    unsigned char *file = harness_slurp(CPY "none.bin", &len);
    REQUIRE(file && len < 60000, "fixture fits a pipe");
    int p[2];
    REQUIRE(pipe(p) == 0, "pipe");
    REQUIRE(write(p[1], file, len) == (ssize_t)len, "fill pipe");
    close(p[1]);
    int saved = dup(0);
    dup2(p[0], 0);
    close(p[0]);
    CHECK(samples_after_detect("-") == want, "stdin pipe");
    dup2(saved, 0);
    close(saved);
    free(file);
}

TEST(names)
{
    CHECK(strcmp(tfmt_kind_name(TFMT_KIND_BIN), "binary log") == 0, "bin");
    CHECK(tfmt_kind_is_jsonl(TFMT_KIND_JSONL_V1) &&
              !tfmt_kind_is_jsonl(TFMT_KIND_TEXT),
          "is_jsonl");
}

TESTS(TCASE(kinds), TCASE(dialects), TCASE(head_kept_for_messages),
      TCASE(nothing_consumed), TCASE(jsonl_reader_after_detect),
      TCASE(bin_reader_after_detect), TCASE(names))
