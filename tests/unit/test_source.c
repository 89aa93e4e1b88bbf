/* SPDX-License-Identifier: MIT */
/*
 * test_source.c - byte sources: chunked memory reads, transparent
 * decompression of the testdata/io fixtures (made with the gzip, zstd, xz
 * and bzip2 command-line tools from plain.txt), truncation errors, stdin
 * pipes and random access through the spool.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "fail_alloc.h"
#include <tachyon/fmt.h>

#include "io_internal.h"

#define IO_DIR TESTDATA "/io/"
#define PLAIN_SIZE 6607 /* wc -c testdata/io/plain.txt */

static unsigned char *plain(size_t *len)
{
    unsigned char *p = harness_slurp(IO_DIR "plain.txt", len);
    if (p && *len != PLAIN_SIZE) {
        free(p);
        return NULL;
    }
    return p;
}

/*
 * Read `src` to the end in reads of `cap`, checking no read exceeds
 * `limit`; returns the status of the last read, bytes in *out.
 */
static int drain(tfmt_source *src, size_t cap, size_t limit,
                 unsigned char **out, size_t *len, tfmt_error *err)
{
    size_t n = 0, got;
    unsigned char *buf = malloc(1 << 20);
    int rc;
    *out = buf;
    for (;;) {
        rc = tfmt_source_read(src, buf + n, cap, &got, err);
        if (rc != TFMT_OK || got == 0)
            break;
        if (limit && got > limit) {
            rc = -100;
            break;
        }
        n += got;
        if (n + cap > (1 << 20)) {
            rc = -101;
            break;
        }
    }
    *len = n;
    return rc;
}

static void check_memory_chunk(size_t chunk)
{
    size_t len;
    unsigned char *data = plain(&len);
    REQUIRE(data, "plain.txt missing or not %d bytes", PLAIN_SIZE);
    tfmt_source *src;
    REQUIRE(tfmt_source_open_memory(&src, data, len, chunk, NULL) == 0,
            "open memory");
    unsigned char *got;
    size_t glen;
    tfmt_error err = {0};
    int rc = drain(src, 100, chunk, &got, &glen, &err);
    CHECK(rc == TFMT_OK, "chunk %zu: rc %d", chunk, rc);
    CHECK(glen == len && memcmp(got, data, len) == 0,
          "chunk %zu: %zu bytes differ from plain.txt", chunk, glen);
    CHECK(strcmp(tfmt_source_compression(src), "none") == 0, "compression");
    free(got);
    free(data);
    tfmt_source_free(src);
}

TEST(memory_chunk_1)
{
    check_memory_chunk(1);
}

TEST(memory_chunk_7)
{
    check_memory_chunk(7);
}

TEST(memory_whole)
{
    check_memory_chunk(0);
}

static void check_path(const char *name, const char *comp)
{
    size_t len;
    unsigned char *data = plain(&len);
    REQUIRE(data, "plain.txt");
    char path[512];
    snprintf(path, sizeof path, "%s%s", IO_DIR, name);
    tfmt_source *src;
    tfmt_error err = {0};
    int rc = tfmt_source_open_path(&src, path, NULL, &err);
    REQUIRE(rc == TFMT_OK, "%s: open rc %d: %s", name, rc, err.msg);
    CHECK(strcmp(tfmt_source_compression(src), comp) == 0,
          "%s: compression %s, expected %s", name, tfmt_source_compression(src),
          comp);
    unsigned char *got;
    size_t glen;
    rc = drain(src, 1000, 0, &got, &glen, &err);
    CHECK(rc == TFMT_OK, "%s: read rc %d: %s", name, rc, err.msg);
    CHECK(glen == len && memcmp(got, data, len) == 0,
          "%s: %zu bytes, expected plain.txt's %zu", name, glen, len);
    CHECK(tfmt__source_memory(src, 0, 1) == NULL, "path is not memory");
    free(got);
    free(data);
    tfmt_source_free(src);
}

TEST(path_plain)
{
    check_path("plain.txt", "none");
}

TEST(path_gzip)
{
    check_path("plain.txt.gz", "gzip");
}

TEST(path_zstd)
{
    check_path("plain.txt.zst", "zstd");
}

TEST(path_xz)
{
    check_path("plain.txt.xz", "xz");
}

TEST(path_bzip2)
{
    check_path("plain.txt.bz2", "bzip2");
}

static void check_empty(const char *name, const char *comp)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", IO_DIR, name);
    tfmt_source *src;
    tfmt_error err = {0};
    REQUIRE(tfmt_source_open_path(&src, path, NULL, &err) == TFMT_OK, "%s: %s",
            name, err.msg);
    CHECK(strcmp(tfmt_source_compression(src), comp) == 0, "%s", name);
    char buf[16];
    size_t got = 99;
    CHECK(tfmt_source_read(src, buf, sizeof buf, &got, &err) == TFMT_OK &&
              got == 0,
          "%s: expected EOF, got %zu", name, got);
    uint64_t size = 99;
    CHECK(tfmt__source_seekable(src, &size, &err) == TFMT_OK && size == 0,
          "%s: size %llu", name, (unsigned long long)size);
    tfmt_source_free(src);
}

TEST(empty_plain)
{
    check_empty("empty.txt", "none");
}

TEST(empty_gzip)
{
    check_empty("empty.txt.gz", "gzip");
}

TEST(missing_file)
{
    tfmt_source *src = (tfmt_source *)1;
    tfmt_error err = {0};
    int rc = tfmt_source_open_path(&src, IO_DIR "no-such-file", NULL, &err);
    CHECK(rc == TFMT_EIO && err.code == TFMT_EIO, "rc %d", rc);
    CHECK(err.sys_errno == ENOENT, "errno %d", err.sys_errno);
    CHECK(strcmp(err.msg, strerror(ENOENT)) == 0, "msg '%s'", err.msg);
    CHECK(src == NULL, "out not cleared");
}

/* Write the first `keep` bytes of fixture `name` to a temporary file. */
static int truncated_copy(const char *name, size_t cut, char *path)
{
    size_t len;
    char src[512];
    snprintf(src, sizeof src, "%s%s", IO_DIR, name);
    unsigned char *data = harness_slurp(src, &len);
    if (!data || cut > len)
        return -1;
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(path, 512, "%s/test_source_XXXXXX", dir);
    int fd = mkstemp(path);
    int ok = fd >= 0 && write(fd, data, len - cut) == (ssize_t)(len - cut);
    if (fd >= 0)
        close(fd);
    free(data);
    return ok ? 0 : -1;
}

/* A truncated input must fail, at open or while reading, never EOF. */
static void check_truncated(const char *name, size_t cut)
{
    char path[512];
    REQUIRE(truncated_copy(name, cut, path) == 0, "temp copy of %s", name);
    tfmt_source *src = NULL;
    tfmt_error err = {0};
    int rc = tfmt_source_open_path(&src, path, NULL, &err);
    if (rc == TFMT_OK) {
        unsigned char *got;
        size_t glen;
        rc = drain(src, 1000, 0, &got, &glen, &err);
        CHECK(glen < PLAIN_SIZE, "%s cut %zu: %zu bytes", name, cut, glen);
        CHECK(!err.has_offset || err.offset == glen,
              "%s: offset %llu, delivered %zu", name,
              (unsigned long long)err.offset, glen);
        free(got);
    }
    CHECK(rc == TFMT_ETRUNC || rc == TFMT_EFORMAT, "%s cut %zu: rc %d", name,
          cut, rc);
    CHECK(err.msg[0] != '\0' && !strchr(err.msg, '\n'),
          "%s: one-line message '%s'", name, err.msg);
    tfmt_source_free(src);
    unlink(path);
}

TEST(truncated_gzip_trailer)
{
    check_truncated("plain.txt.gz", 4);
}

TEST(truncated_gzip_stream)
{
    check_truncated("plain.txt.gz", 200);
}

TEST(truncated_zstd)
{
    check_truncated("plain.txt.zst", 5);
}

TEST(truncated_xz)
{
    check_truncated("plain.txt.xz", 30);
}

TEST(truncated_bzip2)
{
    check_truncated("plain.txt.bz2", 30);
}

TEST(truncated_gzip_message)
{
    char path[512];
    REQUIRE(truncated_copy("plain.txt.gz", 4, path) == 0, "temp copy");
    tfmt_source *src = NULL;
    tfmt_error err = {0};
    int rc = tfmt_source_open_path(&src, path, NULL, &err);
    if (rc == TFMT_OK)
        rc = tfmt__source_seekable(src, NULL, &err);
    CHECK(rc == TFMT_ETRUNC, "rc %d", rc);
    CHECK(strcmp(err.msg, "truncated gzip input") == 0, "msg '%s'", err.msg);
    tfmt_source_free(src);
    unlink(path);
}

/* Random access on a compressed file goes through the spool. */
TEST(seekable_spool)
{
    size_t len;
    unsigned char *data = plain(&len);
    REQUIRE(data, "plain.txt");
    tfmt_source *src;
    tfmt_error err = {0};
    REQUIRE(tfmt_source_open_path(&src, IO_DIR "plain.txt.zst", NULL, &err) ==
                TFMT_OK,
            "%s", err.msg);
    uint64_t size = 0;
    CHECK(tfmt__source_seekable(src, &size, &err) == TFMT_OK, "%s", err.msg);
    CHECK(size == PLAIN_SIZE, "size %llu", (unsigned long long)size);
    unsigned char buf[200];
    CHECK(tfmt__source_pread(src, buf, 200, 5000, &err) == TFMT_OK &&
              memcmp(buf, data + 5000, 200) == 0,
          "pread at 5000");
    CHECK(tfmt__source_pread(src, buf, 10, 0, &err) == TFMT_OK &&
              memcmp(buf, "line 0001:", 10) == 0,
          "pread at 0");
    int rc = tfmt__source_pread(src, buf, 8, PLAIN_SIZE - 4, &err);
    CHECK(rc == TFMT_ETRUNC && err.has_offset && err.offset == PLAIN_SIZE - 4,
          "short pread rc %d offset %llu", rc, (unsigned long long)err.offset);
    free(data);
    tfmt_source_free(src);
}

/* A tool may sniff the first bytes of a stream, then seek. */
TEST(seekable_after_sniff)
{
    size_t len;
    unsigned char *data = plain(&len);
    REQUIRE(data, "plain.txt");
    tfmt_source *src;
    tfmt_error err = {0};
    REQUIRE(tfmt_source_open_path(&src, IO_DIR "plain.txt.gz", NULL, &err) ==
                TFMT_OK,
            "%s", err.msg);
    char head[4];
    size_t got;
    REQUIRE(tfmt_source_read(src, head, 4, &got, &err) == TFMT_OK && got == 4,
            "sniff");
    uint64_t size = 0;
    CHECK(tfmt__source_seekable(src, &size, &err) == TFMT_OK &&
              size == PLAIN_SIZE,
          "size %llu: %s", (unsigned long long)size, err.msg);
    unsigned char *all;
    size_t alen;
    CHECK(drain(src, 333, 0, &all, &alen, &err) == TFMT_OK, "rest");
    CHECK(alen == len - 4 && memcmp(all, data + 4, alen) == 0,
          "sequential read continues after the sniffed bytes");
    CHECK(tfmt__source_pread(src, all, PLAIN_SIZE, 0, &err) == TFMT_OK &&
              memcmp(all, data, len) == 0,
          "whole pread");
    free(all);
    free(data);
    tfmt_source_free(src);
}

TEST(seekable_plain_file)
{
    tfmt_source *src;
    tfmt_error err = {0};
    REQUIRE(tfmt_source_open_path(&src, IO_DIR "plain.txt", NULL, &err) ==
                TFMT_OK,
            "%s", err.msg);
    uint64_t size = 0;
    CHECK(tfmt__source_seekable(src, &size, &err) == TFMT_OK &&
              size == PLAIN_SIZE,
          "size %llu", (unsigned long long)size);
    char buf[8];
    CHECK(tfmt__source_pread(src, buf, 8, PLAIN_SIZE - 8, &err) == TFMT_OK &&
              memcmp(buf, "\ntail\x00\x01\xff", 8) == 0,
          "last 8 bytes of plain.txt");
    tfmt_source_free(src);
}

TEST(memory_random_access)
{
    static const char text[] = "0123456789abcdef";
    tfmt_source *src;
    REQUIRE(tfmt_source_open_memory(&src, text, 16, 3, NULL) == 0, "open");
    uint64_t size = 0;
    tfmt_error err = {0};
    CHECK(tfmt__source_seekable(src, &size, &err) == TFMT_OK && size == 16,
          "size");
    CHECK(tfmt__source_memory(src, 10, 6) == (const uint8_t *)text + 10,
          "zero-copy pointer");
    CHECK(tfmt__source_memory(src, 10, 7) == NULL, "past the end");
    char buf[4];
    CHECK(tfmt__source_pread(src, buf, 4, 12, &err) == TFMT_OK &&
              memcmp(buf, "cdef", 4) == 0,
          "pread");
    CHECK(tfmt__source_pread(src, buf, 4, 13, &err) == TFMT_ETRUNC &&
              err.offset == 13,
          "short pread");
    tfmt_source_free(src);
}

/*
 * Put fixture `name` into a pipe on fd 0 (it fits the pipe buffer), open
 * "-" and compare with plain.txt; `seek` also spools the pipe.
 */
static void check_stdin(const char *name, const char *comp, bool seek)
{
    size_t len = 0, flen = 0;
    unsigned char *data = plain(&len);
    char path[512];
    snprintf(path, sizeof path, "%s%s", IO_DIR, name);
    unsigned char *file = harness_slurp(path, &flen);
    REQUIRE(data && file && flen < 60000, "fixtures");
    int p[2];
    REQUIRE(pipe(p) == 0, "pipe");
    REQUIRE(write(p[1], file, flen) == (ssize_t)flen, "fill pipe");
    close(p[1]);
    int saved = dup(0);
    dup2(p[0], 0);
    close(p[0]);
    tfmt_source *src;
    tfmt_error err = {0};
    int rc = tfmt_source_open_path(&src, "-", NULL, &err);
    CHECK(rc == TFMT_OK, "%s: %s", name, err.msg);
    if (rc == TFMT_OK) {
        CHECK(strcmp(tfmt_source_compression(src), comp) == 0, "%s", name);
        uint64_t size = 0;
        if (seek)
            CHECK(tfmt__source_seekable(src, &size, &err) == TFMT_OK &&
                      size == PLAIN_SIZE,
                  "%s: spooled size", name);
        unsigned char *got;
        size_t glen;
        CHECK(drain(src, 4096, 0, &got, &glen, &err) == TFMT_OK, "read");
        CHECK(glen == len && memcmp(got, data, len) == 0, "%s bytes", name);
        free(got);
        tfmt_source_free(src);
    }
    dup2(saved, 0);
    close(saved);
    free(data);
    free(file);
}

TEST(stdin_pipe_plain)
{
    check_stdin("plain.txt", "none", false);
}

TEST(stdin_pipe_gzip)
{
    check_stdin("plain.txt.gz", "gzip", false);
}

TEST(stdin_pipe_spool)
{
    check_stdin("plain.txt.xz", "xz", true);
}

TEST(stdin_pipe_empty)
{
    int p[2];
    REQUIRE(pipe(p) == 0, "pipe");
    close(p[1]);
    int saved = dup(0);
    dup2(p[0], 0);
    close(p[0]);
    tfmt_source *src;
    tfmt_error err = {0};
    int rc = tfmt_source_open_path(&src, "-", NULL, &err);
    CHECK(rc == TFMT_OK, "empty pipe: %s", err.msg);
    if (rc == TFMT_OK) {
        char buf[8];
        size_t got = 1;
        CHECK(tfmt_source_read(src, buf, 8, &got, &err) == TFMT_OK && got == 0,
              "EOF");
        tfmt_source_free(src);
    }
    dup2(saved, 0);
    close(saved);
}

/* Every allocation site fails cleanly: ENOMEM, nothing leaked. */
TEST(failing_allocator)
{
    int n;
    for (n = 1; n < 20; n++) {
        test_failing f = {n, 0, false};
        tfmt_allocator a = test_failing_alloc(&f);
        tfmt_source *src;
        tfmt_error err = {0};
        int rc = tfmt_source_open_path(&src, IO_DIR "plain.txt.gz", &a, &err);
        unsigned char *got = NULL;
        size_t glen = 0;
        if (rc == TFMT_OK)
            rc = drain(src, 100, 0, &got, &glen, &err);
        if (rc == TFMT_OK)
            rc = tfmt__source_seekable(src, NULL, &err);
        if (rc != TFMT_OK)
            CHECK(rc == TFMT_ENOMEM, "n=%d: rc %d %s", n, rc, err.msg);
        free(got);
        tfmt_source_free(src);
        if (rc == TFMT_OK)
            break;
    }
    CHECK(n > 2 && n < 20, "expected a few allocation sites, got %d", n);
}

TESTS(TCASE(memory_chunk_1), TCASE(memory_chunk_7), TCASE(memory_whole),
      TCASE(path_plain), TCASE(path_gzip), TCASE(path_zstd), TCASE(path_xz),
      TCASE(path_bzip2), TCASE(empty_plain), TCASE(empty_gzip),
      TCASE(missing_file), TCASE(truncated_gzip_trailer),
      TCASE(truncated_gzip_stream), TCASE(truncated_zstd), TCASE(truncated_xz),
      TCASE(truncated_bzip2), TCASE(truncated_gzip_message),
      TCASE(seekable_spool), TCASE(seekable_after_sniff),
      TCASE(seekable_plain_file), TCASE(memory_random_access),
      TCASE(stdin_pipe_plain), TCASE(stdin_pipe_gzip), TCASE(stdin_pipe_spool),
      TCASE(stdin_pipe_empty), TCASE(failing_allocator))
