/* SPDX-License-Identifier: MIT */
/*
 * test_sink.c - byte sinks: atomic replacement through a temporary file,
 * refusal to clobber, cleanup on free, patching with pwrite (in place, via
 * the spool, on a pipe), compressed output read back through the source,
 * reproducible gzip bytes and write errors (/dev/full).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "fail_alloc.h"
#include <tachyon/fmt.h>

#include "io_internal.h"

static char dir[256];

/* A fresh scratch directory for each test. */
static int scratch(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_sink_XXXXXX", t && *t ? t : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static void in_dir(char *out, const char *name)
{
    snprintf(out, 512, "%s/%s", dir, name);
}

/* Names in the scratch directory, joined by spaces, sorted by readdir. */
static int list_dir(char *names, size_t cap)
{
    DIR *d = opendir(dir);
    int n = 0;
    names[0] = '\0';
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n++)
            strncat(names, " ", cap - strlen(names) - 1);
        strncat(names, e->d_name, cap - strlen(names) - 1);
    }
    if (d)
        closedir(d);
    return n;
}

static void cleanup(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        in_dir(path, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Deterministic test bytes: a 32-bit LCG, so every byte value occurs. */
static unsigned char *pattern(size_t n)
{
    unsigned char *p = malloc(n);
    uint32_t x = 12345;
    for (size_t i = 0; p && i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (unsigned char)(x >> 24);
    }
    return p;
}

/* Write `data` in pieces of 1..37 bytes, then one large block. */
static int write_pieces(tfmt_sink *s, const unsigned char *data, size_t n)
{
    size_t off = 0, step = 1;
    while (off < n / 2) {
        size_t k = step < n / 2 - off ? step : n / 2 - off;
        int rc = tfmt_sink_write(s, data + off, k);
        if (rc != TFMT_OK)
            return rc;
        off += k;
        step = step % 37 + 1;
    }
    return tfmt_sink_write(s, data + off, n - off);
}

/* Read a whole path back through the source (decompressing). */
static unsigned char *read_back(const char *path, size_t *len,
                                const char **comp)
{
    tfmt_source *src;
    if (tfmt_source_open_path(&src, path, NULL, NULL) != TFMT_OK)
        return NULL;
    *comp = tfmt_source_compression(src);
    size_t cap = 1 << 16, n = 0, got;
    unsigned char *buf = malloc(cap);
    while (buf) {
        if (n == cap)
            buf = realloc(buf, cap *= 2);
        if (!buf ||
            tfmt_source_read(src, buf + n, cap - n, &got, NULL) != TFMT_OK) {
            free(buf);
            buf = NULL;
        } else if (got == 0) {
            break;
        } else {
            n += got;
        }
    }
    tfmt_source_free(src);
    *len = n;
    return buf;
}

/*
 * Write through a temporary file: anonymous (O_TMPFILE: nothing in the
 * directory before the commit) or, with `named`, PATH.tmp.XXXXXX, whose
 * name tfmt_sink_temp_path publishes while it exists.
 */
static void atomic_write(bool named)
{
    if (named)
        setenv("TACHYON_NO_TMPFILE", "1", 1);
    REQUIRE(scratch() == 0, "scratch dir");
    char path[512], names[1024];
    in_dir(path, "out.txt");
    size_t n = 700 * 1024; /* more than the 256 KiB buffer */
    unsigned char *data = pattern(n);
    tfmt_sink *s;
    tfmt_error err = {0};
    REQUIRE(tfmt_sink_open(&s, path, 0, NULL, &err) == TFMT_OK, "%s", err.msg);
    CHECK(write_pieces(s, data, n) == TFMT_OK, "write");
    CHECK(tfmt_sink_tell(s) == n, "tell %llu",
          (unsigned long long)tfmt_sink_tell(s));
    const char *tmp = tfmt_sink_temp_path(s);
    char published[600];
    snprintf(published, sizeof published, "%s", tmp ? tmp : "(null)");
    if (named)
        CHECK(list_dir(names, sizeof names) == 1 &&
                  strncmp(names, "out.txt.tmp.", 12) == 0 &&
                  strlen(names) == 18 && strlen(published) > 18 &&
                  strcmp(published + strlen(published) - 18, names) == 0,
              "before finish only the temp file: '%s' (published '%s')", names,
              published);
    else
        CHECK(list_dir(names, sizeof names) == 0 && !*published,
              "before finish no name at all: '%s' (published '%s')", names,
              published);
    CHECK(tfmt_sink_finish(s) == TFMT_OK, "finish: %s",
          tfmt_sink_error(s)->msg);
    CHECK(tfmt_sink_temp_path(s) && !*tfmt_sink_temp_path(s),
          "no temporary name after the commit");
    tfmt_sink_free(s);
    CHECK(list_dir(names, sizeof names) == 1 && strcmp(names, "out.txt") == 0,
          "after finish: '%s'", names);
    size_t len;
    unsigned char *back = harness_slurp(path, &len);
    CHECK(back && len == n && memcmp(back, data, n) == 0, "content");
    free(back);
    free(data);
    cleanup();
    unsetenv("TACHYON_NO_TMPFILE");
}

TEST(atomic_write_anonymous)
{
    atomic_write(false);
}

TEST(atomic_write_named)
{
    atomic_write(true);
}

TEST(refuse_existing)
{
    REQUIRE(scratch() == 0, "scratch dir");
    char path[512], names[1024];
    in_dir(path, "out.txt");
    put_file(path, "keep me\n");
    tfmt_sink *s = (tfmt_sink *)1;
    tfmt_error err = {0};
    int rc = tfmt_sink_open(&s, path, 0, NULL, &err);
    CHECK(rc == TFMT_EINVAL && err.code == TFMT_EINVAL, "rc %d", rc);
    CHECK(strcmp(err.msg, "file exists") == 0, "msg '%s'", err.msg);
    CHECK(s == NULL, "out cleared");
    size_t len;
    unsigned char *back = harness_slurp(path, &len);
    CHECK(back && len == 8 && memcmp(back, "keep me\n", 8) == 0, "kept");
    free(back);
    CHECK(list_dir(names, sizeof names) == 1, "no temp file: '%s'", names);
    cleanup();
}

TEST(force_replaces_at_finish)
{
    REQUIRE(scratch() == 0, "scratch dir");
    char path[512];
    in_dir(path, "out.txt");
    put_file(path, "old\n");
    tfmt_sink *s;
    REQUIRE(tfmt_sink_open(&s, path, TFMT_SINK_FORCE, NULL, NULL) == 0, "open");
    CHECK(tfmt_sink_write(s, "new content\n", 12) == TFMT_OK, "write");
    size_t len;
    unsigned char *back = harness_slurp(path, &len);
    CHECK(back && len == 4 && memcmp(back, "old\n", 4) == 0,
          "old content until finish");
    free(back);
    CHECK(tfmt_sink_finish(s) == TFMT_OK, "finish");
    tfmt_sink_free(s);
    back = harness_slurp(path, &len);
    CHECK(back && len == 12 && memcmp(back, "new content\n", 12) == 0,
          "replaced");
    free(back);
    cleanup();
}

static void free_without_finish(bool named)
{
    if (named)
        setenv("TACHYON_NO_TMPFILE", "1", 1);
    REQUIRE(scratch() == 0, "scratch dir");
    char path[512], kept[512], names[1024];
    in_dir(path, "out.txt.gz");
    in_dir(kept, "kept.txt");
    put_file(kept, "old\n");
    tfmt_sink *s, *t;
    REQUIRE(tfmt_sink_open(&s, path, 0, NULL, NULL) == 0, "open new");
    REQUIRE(tfmt_sink_open(&t, kept, TFMT_SINK_FORCE | TFMT_SINK_SEEKABLE, NULL,
                           NULL) == 0,
            "open forced");
    unsigned char *data = pattern(300000);
    CHECK(tfmt_sink_write(s, data, 300000) == TFMT_OK, "write s");
    CHECK(tfmt_sink_write(t, data, 300000) == TFMT_OK, "write t");
    CHECK(list_dir(names, sizeof names) == (named ? 3 : 1), "temp files: '%s'",
          names);
    tfmt_sink_free(s);
    tfmt_sink_free(t);
    CHECK(list_dir(names, sizeof names) == 1 && strcmp(names, "kept.txt") == 0,
          "left: '%s'", names);
    size_t len;
    unsigned char *back = harness_slurp(kept, &len);
    CHECK(back && len == 4 && memcmp(back, "old\n", 4) == 0, "untouched");
    free(back);
    free(data);
    cleanup();
    unsetenv("TACHYON_NO_TMPFILE");
}

TEST(free_without_finish_anonymous)
{
    free_without_finish(false);
}

TEST(free_without_finish_named)
{
    free_without_finish(true);
}

/* Append `n` pattern bytes, patch three places, return the expectation. */
static unsigned char *patch_run(tfmt_sink *s, size_t n)
{
    unsigned char *data = pattern(n);
    if (!data || write_pieces(s, data, n) != TFMT_OK)
        return data;
    tfmt_sink_pwrite(s, "HEAD", 4, 0);
    memcpy(data, "HEAD", 4);
    tfmt_sink_pwrite(s, "MID!", 4, n / 2 - 2);
    memcpy(data + n / 2 - 2, "MID!", 4);
    tfmt_sink_pwrite(s, "END", 3, n - 3);
    memcpy(data + n - 3, "END", 3);
    return data;
}

static void check_patch(const char *name, size_t n, const char *comp)
{
    REQUIRE(scratch() == 0, "scratch dir");
    char path[512];
    in_dir(path, name);
    tfmt_sink *s;
    REQUIRE(tfmt_sink_open(&s, path, TFMT_SINK_SEEKABLE, NULL, NULL) == 0,
            "open %s", name);
    unsigned char *want = patch_run(s, n);
    CHECK(tfmt_sink_error(s)->code == 0, "%s: %s", name,
          tfmt_sink_error(s)->msg);
    CHECK(tfmt_sink_finish(s) == TFMT_OK, "%s: finish %s", name,
          tfmt_sink_error(s)->msg);
    tfmt_sink_free(s);
    size_t len = 0;
    const char *got_comp = "?";
    unsigned char *back = read_back(path, &len, &got_comp);
    CHECK(back && len == n && memcmp(back, want, n) == 0,
          "%s: %zu bytes back, patched %zu expected", name, len, n);
    CHECK(strcmp(got_comp, comp) == 0, "%s: %s", name, got_comp);
    free(back);
    free(want);
    cleanup();
}

TEST(pwrite_plain)
{
    check_patch("out.bin", 1000, "none");
}

TEST(pwrite_plain_large)
{
    check_patch("out.bin", 600 * 1024 + 5, "none");
}

TEST(pwrite_gzip_spool)
{
    check_patch("out.bin.gz", 100 * 1024, "gzip");
}

/* Larger than the source's 1 MiB spool chunk on the way back. */
TEST(pwrite_zstd_spool_large)
{
    check_patch("out.bin.zst", 3 * 1024 * 1024 + 11, "zstd");
}

/*
 * A stream may be sniffed and then read at random while no more than its
 * first 64 KiB were consumed; past that, seeking is refused, not wrong.
 */
TEST(source_sniff_limit)
{
    REQUIRE(scratch() == 0, "scratch dir");
    char path[512];
    in_dir(path, "big.zst");
    size_t n = 2 * 1024 * 1024 + 3;
    unsigned char *data = pattern(n);
    tfmt_sink *s;
    REQUIRE(tfmt_sink_open(&s, path, 0, NULL, NULL) == 0, "open");
    CHECK(tfmt_sink_write(s, data, n) == TFMT_OK, "write");
    CHECK(tfmt_sink_finish(s) == TFMT_OK, "finish");
    tfmt_sink_free(s);
    tfmt_source *a, *b;
    tfmt_error err = {0};
    REQUIRE(tfmt_source_open_path(&a, path, NULL, NULL) == 0, "open a");
    REQUIRE(tfmt_source_open_path(&b, path, NULL, NULL) == 0, "open b");
    unsigned char *buf = malloc(n);
    size_t got = 0, total = 0;
    CHECK(tfmt_source_read(a, buf, 16, &got, &err) == 0 && got == 16, "a");
    uint64_t size = 0;
    CHECK(tfmt__source_seekable(a, &size, &err) == TFMT_OK && size == n,
          "a: size %llu: %s", (unsigned long long)size, err.msg);
    CHECK(tfmt__source_pread(a, buf, n, 0, &err) == TFMT_OK &&
              memcmp(buf, data, n) == 0,
          "a: whole content");
    while (total <= 64 * 1024 &&
           tfmt_source_read(b, buf, 4096, &got, &err) == 0 && got)
        total += got;
    CHECK(tfmt__source_seekable(b, &size, &err) == TFMT_EINVAL,
          "b: read %zu bytes, seeking must be refused", total);
    free(buf);
    free(data);
    tfmt_source_free(a);
    tfmt_source_free(b);
    cleanup();
}

TEST(pwrite_refused)
{
    REQUIRE(scratch() == 0, "scratch dir");
    char path[512];
    in_dir(path, "out.bin");
    tfmt_sink *s, *t;
    REQUIRE(tfmt_sink_open(&s, path, 0, NULL, NULL) == 0, "open");
    CHECK(tfmt_sink_write(s, "abcdef", 6) == TFMT_OK, "write");
    CHECK(tfmt_sink_pwrite(s, "X", 1, 0) == TFMT_EINVAL,
          "pwrite without SEEKABLE");
    tfmt_sink_free(s);
    REQUIRE(tfmt_sink_open(&t, path, TFMT_SINK_SEEKABLE, NULL, NULL) == 0,
            "open seekable");
    CHECK(tfmt_sink_write(t, "abcdef", 6) == TFMT_OK, "write");
    CHECK(tfmt_sink_pwrite(t, "XY", 2, 5) == TFMT_EINVAL,
          "pwrite past the end");
    CHECK(tfmt_sink_finish(t) == TFMT_EINVAL, "failure is sticky");
    char names[256];
    CHECK(list_dir(names, sizeof names) == 0,
          "a failed finish removes the temporary file: '%s'", names);
    tfmt_sink_free(t);
    cleanup();
}

static void check_compressed(const char *name, const char *comp,
                             const unsigned char *magic, size_t mlen)
{
    REQUIRE(scratch() == 0, "scratch dir");
    char path[512];
    in_dir(path, name);
    size_t n = 500 * 1024;
    unsigned char *data = pattern(n);
    memset(data + 1000, 'a', 100000); /* something compressible */
    tfmt_sink *s;
    REQUIRE(tfmt_sink_open(&s, path, 0, NULL, NULL) == 0, "open");
    CHECK(write_pieces(s, data, n) == TFMT_OK, "write");
    CHECK(tfmt_sink_finish(s) == TFMT_OK, "finish: %s",
          tfmt_sink_error(s)->msg);
    tfmt_sink_free(s);
    size_t flen = 0;
    unsigned char *file = harness_slurp(path, &flen);
    CHECK(file && flen > mlen && flen < n && memcmp(file, magic, mlen) == 0,
          "%s: magic, %zu bytes", name, flen);
    free(file);
    size_t len = 0;
    const char *got_comp = "?";
    unsigned char *back = read_back(path, &len, &got_comp);
    CHECK(back && len == n && memcmp(back, data, n) == 0,
          "%s: round trip %zu bytes", name, len);
    CHECK(strcmp(got_comp, comp) == 0, "%s: %s", name, got_comp);
    free(back);
    free(data);
    cleanup();
}

TEST(compressed_gzip)
{
    check_compressed("o.gz", "gzip", (const unsigned char *)"\x1f\x8b", 2);
}

TEST(compressed_zstd)
{
    check_compressed("o.zst", "zstd", (const unsigned char *)"\x28\xb5\x2f\xfd",
                     4);
}

TEST(compressed_xz)
{
    check_compressed("o.xz", "xz",
                     (const unsigned char *)"\xfd\x37\x7a\x58\x5a\x00", 6);
}

TEST(compressed_bzip2)
{
    check_compressed("o.bz2", "bzip2", (const unsigned char *)"BZh", 3);
}

static unsigned char *gzip_run(const char *name, size_t *len)
{
    char path[512];
    in_dir(path, name);
    tfmt_sink *s;
    if (tfmt_sink_open(&s, path, 0, NULL, NULL) != TFMT_OK)
        return NULL;
    unsigned char *data = pattern(50000);
    write_pieces(s, data, 50000);
    free(data);
    int rc = tfmt_sink_finish(s);
    tfmt_sink_free(s);
    return rc == TFMT_OK ? harness_slurp(path, len) : NULL;
}

TEST(gzip_reproducible)
{
    REQUIRE(scratch() == 0, "scratch dir");
    size_t la = 0, lb = 0;
    unsigned char *a = gzip_run("a.gz", &la);
    sleep(1); /* a timestamp would now differ */
    unsigned char *b = gzip_run("b.gz", &lb);
    CHECK(a && b && la == lb && memcmp(a, b, la) == 0,
          "two runs differ (%zu vs %zu bytes)", la, lb);
    /* RFC 1952: MTIME is bytes 4..7, zero means no time stamp */
    CHECK(a && la > 10 && memcmp(a + 4, "\0\0\0\0", 4) == 0, "mtime set");
    free(a);
    free(b);
    cleanup();
}

/* A SEEKABLE sink on a pipe spools and copies at finish. */
TEST(stdout_pipe_seekable)
{
    int p[2];
    REQUIRE(pipe(p) == 0, "pipe");
    fflush(stdout);
    int saved = dup(1);
    dup2(p[1], 1);
    close(p[1]);
    tfmt_sink *s;
    int rc = tfmt_sink_open(&s, "-", TFMT_SINK_SEEKABLE, NULL, NULL);
    unsigned char *want = NULL;
    if (rc == TFMT_OK) {
        want = patch_run(s, 5000); /* fits the pipe buffer */
        rc = tfmt_sink_finish(s);
        CHECK(rc == TFMT_OK, "finish: %s", tfmt_sink_error(s)->msg);
        tfmt_sink_free(s);
    }
    CHECK(fcntl(1, F_GETFD) != -1, "stdout left open");
    dup2(saved, 1);
    close(saved);
    unsigned char buf[6000];
    size_t n = 0;
    ssize_t r;
    while ((r = read(p[0], buf + n, sizeof buf - n)) > 0)
        n += (size_t)r;
    close(p[0]);
    CHECK(want && n == 5000 && memcmp(buf, want, 5000) == 0,
          "pipe got %zu bytes", n);
    free(want);
}

TEST(write_error_enospc)
{
    tfmt_sink *s;
    tfmt_error err = {0};
    REQUIRE(tfmt_sink_open(&s, "/dev/full", 0, NULL, &err) == TFMT_OK,
            "an existing device is written in place: %s", err.msg);
    CHECK(tfmt_sink_write(s, "x", 1) == TFMT_OK, "buffered");
    CHECK(tfmt_sink_finish(s) == TFMT_EIO, "finish must report");
    const tfmt_error *e = tfmt_sink_error(s);
    CHECK(e->code == TFMT_EIO && e->sys_errno == ENOSPC, "errno %d",
          e->sys_errno);
    CHECK(strcmp(e->msg, strerror(ENOSPC)) == 0, "msg '%s'", e->msg);
    tfmt_sink_free(s);
}

TEST(missing_directory)
{
    tfmt_sink *s;
    tfmt_error err = {0};
    int rc =
        tfmt_sink_open(&s, "/nonexistent-dir-tachyon/x.txt", 0, NULL, &err);
    CHECK(rc == TFMT_EIO && err.sys_errno == ENOENT, "rc %d errno %d", rc,
          err.sys_errno);
    CHECK(strcmp(err.msg, strerror(ENOENT)) == 0, "msg '%s'", err.msg);
}

/* Failing the Nth allocation gives ENOMEM and leaves no file behind. */
TEST(failing_allocator)
{
    REQUIRE(scratch() == 0, "scratch dir");
    char path[512], names[256];
    in_dir(path, "out.gz");
    int n;
    for (n = 1; n < 20; n++) {
        test_failing f = {n, 0, false};
        tfmt_allocator a = test_failing_alloc(&f);
        tfmt_sink *s;
        tfmt_error err = {0};
        int rc = tfmt_sink_open(&s, path, TFMT_SINK_SEEKABLE, &a, &err);
        if (rc == TFMT_OK) {
            tfmt_sink_write(s, "hello", 5);
            rc = tfmt_sink_finish(s);
            tfmt_sink_free(s);
            break;
        }
        CHECK(rc == TFMT_ENOMEM, "n=%d: rc %d %s", n, rc, err.msg);
        CHECK(list_dir(names, sizeof names) == 0, "n=%d left '%s'", n, names);
    }
    CHECK(n > 2 && n < 20, "expected a few allocation sites, got %d", n);
    cleanup();
}

/* In place: the path exists at once, writes land in it directly, pwrite
 * may extend it, sync works, and a sink freed unfinished leaves it. */
TEST(in_place)
{
    REQUIRE(scratch() == 0, "scratch dir");
    char path[512], names[1024], gz[512];
    in_dir(path, "log.bin");
    in_dir(gz, "log.bin.gz");
    tfmt_sink *s;
    unsigned flags = TFMT_SINK_IN_PLACE | TFMT_SINK_SEEKABLE;
    REQUIRE(tfmt_sink_open(&s, path, flags, NULL, NULL) == 0, "open");
    CHECK(list_dir(names, sizeof names) == 1 && strcmp(names, "log.bin") == 0,
          "the path itself: '%s'", names);
    CHECK(tfmt_sink_write(s, "abcd", 4) == TFMT_OK, "append");
    CHECK(tfmt_sink_pwrite(s, "XYZ", 3, 2) == TFMT_OK, "past the end");
    CHECK(tfmt_sink_tell(s) == 5, "extended to 5, got %llu",
          (unsigned long long)tfmt_sink_tell(s));
    CHECK(tfmt_sink_write(s, "!", 1) == TFMT_OK, "append after it");
    CHECK(tfmt_sink_sync(s) == TFMT_OK, "sync");
    size_t len;
    unsigned char *back = harness_slurp(path, &len);
    CHECK(back && len == 6 && memcmp(back, "abXYZ!", 6) == 0,
          "on disk before finish");
    free(back);
    tfmt_sink_free(s);
    CHECK(list_dir(names, sizeof names) == 1, "kept after free: '%s'", names);
    CHECK(tfmt_sink_open(&s, path, flags, NULL, NULL) == TFMT_EINVAL,
          "existing file refused without FORCE");
    CHECK(tfmt_sink_open(&s, gz, flags | TFMT_SINK_FORCE, NULL, NULL) ==
              TFMT_EINVAL,
          "compressed output refused in place");
    cleanup();
}

/* Whether `path` is a regular file itself (not a link to one). */
static bool is_plain_file(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* In place never writes through a link: without FORCE a link, even a
 * dangling one, is "file exists"; with FORCE the link is replaced by the
 * new file at open and its target keeps its bytes. */
TEST(in_place_links)
{
    REQUIRE(scratch() == 0, "scratch dir");
    char victim[512], link_path[512], dangling[512], absent[512];
    in_dir(victim, "victim");
    in_dir(link_path, "log.bin");
    in_dir(dangling, "dangling.bin");
    in_dir(absent, "created-through-link");
    put_file(victim, "keep me");
    REQUIRE(symlink(victim, link_path) == 0, "symlink");
    REQUIRE(symlink(absent, dangling) == 0, "dangling symlink");
    unsigned flags = TFMT_SINK_IN_PLACE | TFMT_SINK_SEEKABLE;
    tfmt_sink *s;
    tfmt_error err = {0};
    CHECK(tfmt_sink_open(&s, link_path, flags, NULL, &err) == TFMT_EINVAL &&
              strcmp(err.msg, "file exists") == 0,
          "a link refused without FORCE: '%s'", err.msg);
    CHECK(tfmt_sink_open(&s, dangling, flags, NULL, &err) == TFMT_EINVAL,
          "a dangling link refused without FORCE");
    CHECK(access(absent, F_OK) != 0, "nothing created through the link");
    REQUIRE(tfmt_sink_open(&s, link_path, flags | TFMT_SINK_FORCE, NULL,
                           &err) == TFMT_OK,
            "FORCE: %s", err.msg);
    CHECK(is_plain_file(link_path), "the link was replaced at open");
    CHECK(tfmt_sink_write(s, "log bytes", 9) == TFMT_OK, "write");
    CHECK(tfmt_sink_sync(s) == TFMT_OK && tfmt_sink_finish(s) == TFMT_OK,
          "sync, finish");
    tfmt_sink_free(s);
    size_t len;
    unsigned char *back = harness_slurp(victim, &len);
    CHECK(back && len == 7 && memcmp(back, "keep me", 7) == 0,
          "the link's target kept its bytes");
    free(back);
    back = harness_slurp(link_path, &len);
    CHECK(back && len == 9 && memcmp(back, "log bytes", 9) == 0,
          "the log is at the path");
    free(back);
    char names[1024];
    CHECK(list_dir(names, sizeof names) == 3, "no temporary left: '%s'", names);
    cleanup();
}

/* FILE_ONLY: a FIFO or a link at the path is replaced at finish, never
 * opened; sync makes a temporary file durable before the rename. */
TEST(file_only_replaces)
{
    REQUIRE(scratch() == 0, "scratch dir");
    char fifo[512], victim[512], link_path[512];
    in_dir(fifo, "copy.fifo");
    in_dir(victim, "victim");
    in_dir(link_path, "copy.link");
    REQUIRE(mkfifo(fifo, 0600) == 0, "mkfifo");
    put_file(victim, "keep me");
    REQUIRE(symlink(victim, link_path) == 0, "symlink");
    const char *paths[] = {fifo, link_path};
    for (int i = 0; i < 2; i++) {
        tfmt_sink *s;
        tfmt_error err = {0};
        REQUIRE(tfmt_sink_open(&s, paths[i],
                               TFMT_SINK_FORCE | TFMT_SINK_FILE_ONLY, NULL,
                               &err) == TFMT_OK,
                "open %s: %s", paths[i], err.msg);
        CHECK(tfmt_sink_write(s, "copy", 4) == TFMT_OK, "write");
        CHECK(tfmt_sink_sync(s) == TFMT_OK, "sync of the temporary file");
        CHECK(tfmt_sink_finish(s) == TFMT_OK, "finish");
        tfmt_sink_free(s);
        CHECK(is_plain_file(paths[i]), "%s is now a regular file", paths[i]);
    }
    size_t len;
    unsigned char *back = harness_slurp(victim, &len);
    CHECK(back && len == 7 && memcmp(back, "keep me", 7) == 0,
          "the link's target kept its bytes");
    free(back);
    cleanup();
}

TESTS(TCASE(atomic_write_anonymous), TCASE(atomic_write_named),
      TCASE(refuse_existing), TCASE(force_replaces_at_finish),
      TCASE(free_without_finish_anonymous), TCASE(free_without_finish_named),
      TCASE(pwrite_plain), TCASE(pwrite_plain_large), TCASE(pwrite_gzip_spool),
      TCASE(pwrite_zstd_spool_large), TCASE(source_sniff_limit),
      TCASE(pwrite_refused), TCASE(compressed_gzip), TCASE(compressed_zstd),
      TCASE(compressed_xz), TCASE(compressed_bzip2), TCASE(gzip_reproducible),
      TCASE(stdout_pipe_seekable), TCASE(write_error_enospc),
      TCASE(missing_directory), TCASE(failing_allocator), TCASE(in_place),
      TCASE(in_place_links), TCASE(file_only_replaces))
