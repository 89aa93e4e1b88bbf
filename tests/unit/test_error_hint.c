/* SPDX-License-Identifier: MIT */
/*
 * test_error_hint.c - the next step a reader's error names
 * (tfmt_error.hint, fmt_error.h) for the faults a user meets: RECOVER for
 * a binary log whose end is missing (not when it was decompressed),
 * CHECK for damaged contents, the limit's own hint when a caller's limit
 * stopped the input, NONE for a wrong magic, a version, a compression cut
 * short; the hint survives the copy into a profile; and the words of
 * tfmt_detect_error for the inputs no reader takes.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "log_files.h"
#include <tachyon/fmt.h>

#define BAD TESTDATA "/bad/"

/* Open and read the log at `path` whole; the first error it meets. */
static int bin_error(const char *path, const tfmt_bin_options *bo,
                     tfmt_error *out)
{
    test_log l;
    memset(out, 0, sizeof *out);
    int rc = test_log_open(&l, path, bo, out);
    const tfmt_sample *s;
    while (rc == TFMT_OK)
        rc = tfmt_bin_next(l.r, &s);
    if (rc < 0 && l.r)
        *out = *tfmt_bin_error(l.r);
    test_log_close(&l);
    return rc;
}

TEST(binary_faults)
{
    static const struct {
        const char *file;
        int hint;
    } cases[] = {
        {"bin_truncated.bin", TFMT_HINT_RECOVER},
        {"bin_string_offset.bin", TFMT_HINT_RECOVER},
        {"bin_footer_size.bin", TFMT_HINT_RECOVER},
        {"bin_too_small.bin", TFMT_HINT_RECOVER},
        {"bin_header_zero.bin", TFMT_HINT_RECOVER},
        {"bin_encoding.bin", TFMT_HINT_CHECK},
        {"bin_frame_index.bin", TFMT_HINT_CHECK},
        {"bin_table_order.bin", TFMT_HINT_CHECK},
        {"bin_zstd_corrupt.bin", TFMT_HINT_CHECK},
        {"bin_sample_count.bin", TFMT_HINT_CHECK},
        {"bin_magic.bin", TFMT_HINT_NONE},
        {"bin_version.bin", TFMT_HINT_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        tfmt_error e;
        snprintf(path, sizeof path, "%s%s", BAD, cases[i].file);
        CHECK(bin_error(path, NULL, &e) < 0, "%s read", cases[i].file);
        CHECK(e.hint == cases[i].hint, "%s: hint %d, want %d (%s)",
              cases[i].file, e.hint, cases[i].hint, e.msg);
    }
}

/* A file of `len` bytes of `data` written through a sink (so a .gz path
 * is compressed). */
static void write_file(const char *path, const void *data, size_t len)
{
    tfmt_sink *sink = NULL;
    int rc = tfmt_sink_open(&sink, path, TFMT_SINK_FORCE, NULL, NULL);
    if (rc == TFMT_OK)
        rc = tfmt_sink_write(sink, data, len);
    if (rc == TFMT_OK)
        rc = tfmt_sink_finish(sink);
    tfmt_sink_free(sink);
    CHECK(rc == TFMT_OK, "writing %s", path);
}

/* Recovery restores a file as recorded, not a compressed copy of it. */
TEST(decompressed_log_cut_short)
{
    size_t len = 0;
    unsigned char *log = harness_slurp(BAD "bin_truncated.bin", &len);
    REQUIRE(log, "fixture");
    char path[] = "/tmp/test_error_hint.XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0, "temp name");
    close(fd);
    unlink(path);
    char gz[64];
    snprintf(gz, sizeof gz, "%s.gz", path);
    write_file(gz, log, len);
    tfmt_error e;
    CHECK(bin_error(gz, NULL, &e) == TFMT_ETRUNC, "%s", e.msg);
    CHECK(e.hint == TFMT_HINT_NONE, "hint %d", e.hint);
    unlink(gz);
    free(log);
}

TEST(caller_limits)
{
    tfmt_bin_options bo = TFMT_BIN_OPTIONS_INIT;
    tfmt_error e;
    bo.max_threads = 1;
    CHECK(bin_error(TESTDATA "/cpython/interleaved_threads/none.bin", &bo,
                    &e) == TFMT_ELIMIT,
          "%s", e.msg);
    CHECK(e.hint == TFMT_HINT_MAX_THREADS, "threads: hint %d", e.hint);

    size_t len = 0;
    unsigned char *log = harness_slurp(TESTDATA "/example.bin", &len);
    REQUIRE(log, "fixture");
    char gz[] = "/tmp/test_error_hint_limit.bin.gz";
    write_file(gz, log, len);
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    REQUIRE(tfmt_source_open_path(&src, gz, NULL, &e) == TFMT_OK, "%s", e.msg);
    tfmt_source_set_limits(src, 1024, 0);
    CHECK(tfmt_bin_open(&r, src, NULL, &e) == TFMT_ELIMIT, "%s", e.msg);
    CHECK(e.hint == TFMT_HINT_MAX_SIZE, "size: hint %d (%s)", e.hint, e.msg);
    tfmt_bin_free(r);
    tfmt_source_free(src);
    unlink(gz);
    free(log);
}

/* A profile's error is the reader's, hint and all. */
TEST(hint_survives_the_copy)
{
    test_log l;
    tfmt_profile *p = NULL;
    REQUIRE(test_log_open(&l, BAD "bin_encoding.bin", NULL, NULL) == TFMT_OK &&
                tfmt_profile_new(&p, NULL) == TFMT_OK,
            "open");
    CHECK(tfmt_profile_add_bin(p, l.r) < 0, "add fails");
    CHECK(tfmt_profile_error(p)->hint == TFMT_HINT_CHECK, "hint %d",
          tfmt_profile_error(p)->hint);
    tfmt_profile_free(p);
    test_log_close(&l);
}

/* The first error of the JSONL reader on `text`. */
static int jsonl_error(const char *text, tfmt_error *out)
{
    tfmt_source *src = NULL;
    tfmt_jsonl_reader *r = NULL;
    tfmt_jsonl_options jo = TFMT_JSONL_OPTIONS_INIT;
    jo.max_line = 64;
    int rc = tfmt_source_open_memory(&src, text, strlen(text), 0, NULL);
    if (rc == TFMT_OK)
        rc = tfmt_jsonl_open(&r, src, &jo, out);
    const tfmt_jsonl_record *rec;
    while (rc == TFMT_OK)
        rc = tfmt_jsonl_next(r, &rec);
    if (rc < 0 && r)
        *out = *tfmt_jsonl_error(r);
    tfmt_jsonl_free(r);
    tfmt_source_free(src);
    return rc;
}

TEST(jsonl_faults)
{
    static const char meta[] =
        "{\"type\":\"meta\",\"v\":0,\"run_id\":\"r\",\"sample_interval_usec\":"
        "1000}\n";
    static const struct {
        const char *rest;
        int hint;
    } cases[] = {
        {"", TFMT_HINT_CHECK}, /* no end */
        {"{\"type\":\"end\",\"v\":2,\"run_id\":\"r\"}\n", TFMT_HINT_NONE},
        {"[1]\n", TFMT_HINT_CHECK}, /* an array */
        {"{\"type\":\"meta\",\"v\":0,\"run_id\":\"r\",\"x\":\""
         "0123456789012345678901234567890123456789\"}\n",
         TFMT_HINT_NONE}, /* over max_line */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        tfmt_error e;
        snprintf(text, sizeof text, "%s%s", meta, cases[i].rest);
        memset(&e, 0, sizeof e);
        CHECK(jsonl_error(text, &e) < 0, "case %zu read", i);
        CHECK(e.hint == cases[i].hint, "case %zu: hint %d, want %d (%s)", i,
              e.hint, cases[i].hint, e.msg);
    }
}

TEST(rows_fault)
{
    static const char text[] =
        "{\"run_id\":\"r\",\"row\":1,\"stack_hash\":1}\n";
    tfmt_source *src = NULL;
    tfmt_rows_reader *r = NULL;
    tfmt_error e;
    REQUIRE(tfmt_source_open_memory(&src, text, strlen(text), 0, NULL) ==
                    TFMT_OK &&
                tfmt_rows_open(&r, src, NULL, &e) == TFMT_OK,
            "open");
    const tfmt_row *row;
    CHECK(tfmt_rows_next(r, &row) < 0, "a row without its columns");
    CHECK(tfmt_rows_error(r)->hint == TFMT_HINT_CHECK, "hint %d (%s)",
          tfmt_rows_error(r)->hint, tfmt_rows_error(r)->msg);
    tfmt_rows_free(r);
    tfmt_source_free(src);
}

TEST(detect_words)
{
    tfmt_detection d;
    tfmt_error e;
    memset(&d, 0, sizeof d);
    d.kind = TFMT_KIND_EMPTY;
    CHECK(tfmt_detect_error(&d, &e) == TFMT_EFORMAT &&
              strcmp(e.msg, "file is empty") == 0 && e.hint == TFMT_HINT_NONE,
          "empty: '%s'", e.msg);
    d.kind = TFMT_KIND_TEXT;
    d.head_len = 2;
    memcpy(d.head, "hi", 2);
    CHECK(tfmt_detect_error(&d, &e) == TFMT_EFORMAT &&
              strcmp(e.msg, "not a Tachyon profile (neither a binary log "
                            "nor JSONL: first byte 0x68)") == 0,
          "text: '%s'", e.msg);
    static const tfmt_kind readable[] = {TFMT_KIND_DATA,     TFMT_KIND_BIN,
                                         TFMT_KIND_JSONL,    TFMT_KIND_JSONL_V0,
                                         TFMT_KIND_JSONL_V1, TFMT_KIND_ROWS};
    for (size_t i = 0; i < sizeof readable / sizeof readable[0]; i++) {
        d.kind = readable[i];
        CHECK(tfmt_detect_error(&d, NULL) == TFMT_OK, "kind %d has a reader",
              (int)readable[i]);
    }
}

TESTS(TCASE(binary_faults), TCASE(decompressed_log_cut_short),
      TCASE(caller_limits), TCASE(hint_survives_the_copy), TCASE(jsonl_faults),
      TCASE(rows_fault), TCASE(detect_words))
