/* SPDX-License-Identifier: MIT */
/*
 * checkpoint.c - the recovery side of checkpoints. At each checkpoint the
 * writer (tfmt_bin_writer_checkpoint) makes the log a complete, valid log
 * in place: samples, then tables, statistics, footer, and the header
 * pointing at them. The next checkpoint writes new samples over that
 * trailer before writing a longer one, so for a few milliseconds a second
 * the file on disk is not valid; a kill then would lose it all. So once
 * a checkpoint is synced, its header and trailer are copied to
 * FILE.recover (written to a temporary name, synced, renamed: the copy is
 * always one whole checkpoint). --recover puts them back: the file is cut
 * where that checkpoint's samples ended (nothing after it was committed)
 * and the trailer and header are written again. What comes out is an
 * ordinary log, read as any other by the toolkit and by CPython.
 *
 *   FILE.recover:  "TACHRCV1"  u64 samples_end  u64 trailer_len
 *                  header[64]  trailer[trailer_len]   (little endian)
 */
#define _GNU_SOURCE
#include "checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tachyon/fmt.h>

#include "cli.h"

#define MAGIC "TACHRCV1"
#define HEADER 64
#define TRAILER_MAX (1ull << 32)

static int read_all(int fd, void *buf, size_t len, uint64_t off)
{
    uint8_t *p = buf;
    while (len) {
        ssize_t n = pread(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return -1;
        }
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

static int write_all(int fd, const void *buf, size_t len, uint64_t off)
{
    const uint8_t *p = buf;
    while (len) {
        ssize_t n = pwrite(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

/* Sync the directory holding `path`, so a rename in it is durable. */
static void sync_dir(const char *path)
{
    char copy[4300];
    snprintf(copy, sizeof copy, "%s", path);
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* The log's header and trailer: where its samples end and what follows. */
static uint8_t *read_tail(int fd, uint8_t *head, uint64_t *samples_end,
                          uint64_t *len)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || read_all(fd, head, HEADER, 0) != 0)
        return NULL;
    *samples_end = le64(head + 40); /* the string table follows samples */
    if (*samples_end < HEADER || *samples_end > (uint64_t)st.st_size ||
        (uint64_t)st.st_size - *samples_end > TRAILER_MAX) {
        errno = EINVAL;
        return NULL;
    }
    *len = (uint64_t)st.st_size - *samples_end;
    uint8_t *t = malloc(*len ? *len : 1);
    if (t && read_all(fd, t, *len, *samples_end) != 0) {
        free(t);
        return NULL;
    }
    return t;
}

static int write_copy(const char *tmp, const uint8_t *head,
                      uint64_t samples_end, const uint8_t *t, uint64_t len)
{
    uint8_t pre[24];
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return -1;
    memcpy(pre, MAGIC, 8);
    put64(pre + 8, samples_end);
    put64(pre + 16, len);
    int rc = write_all(fd, pre, sizeof pre, 0) != 0 ||
                     write_all(fd, head, HEADER, sizeof pre) != 0 ||
                     write_all(fd, t, len, sizeof pre + HEADER) != 0 ||
                     fsync(fd) != 0
                 ? -1
                 : 0;
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

int checkpoint_save(const char *path)
{
    char copy[4200], tmp[4220];
    uint8_t head[HEADER];
    uint64_t end, len;
    snprintf(copy, sizeof copy, "%s.recover", path);
    snprintf(tmp, sizeof tmp, "%s.recover.tmp", path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    uint8_t *t = read_tail(fd, head, &end, &len);
    int e = errno;
    close(fd);
    if (!t) {
        errno = e;
        return -1;
    }
    int rc = write_copy(tmp, head, end, t, len);
    free(t);
    if (rc == 0)
        rc = rename(tmp, copy);
    if (rc == 0)
        sync_dir(copy);
    else
        unlink(tmp);
    return rc;
}

void checkpoint_discard(const char *path)
{
    char copy[4200];
    snprintf(copy, sizeof copy, "%s.recover", path);
    unlink(copy);
}

/* Whether the log at `path` reads to its end; *samples gets how many. */
static bool log_valid(const char *path, uint64_t *samples, tfmt_error *err)
{
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    const tfmt_sample *s;
    int rc = tfmt_source_open_path(&src, path, NULL, err);
    if (rc == TFMT_OK)
        rc = tfmt_bin_open(&r, src, NULL, err);
    while (rc == TFMT_OK)
        rc = tfmt_bin_next(r, &s);
    if (r && rc != TFMT_DONE && err)
        *err = *tfmt_bin_error(r);
    *samples = r ? tfmt_bin_samples_read(r) : 0;
    tfmt_bin_free(r);
    tfmt_source_free(src);
    return rc == TFMT_DONE;
}

/* The copy's header and trailer, checked; NULL with a message. */
static uint8_t *load_copy(const char *copy, uint8_t *head, uint64_t *end,
                          uint64_t *len)
{
    uint8_t pre[24];
    struct stat st;
    int fd = open(copy, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    uint8_t *t = NULL;
    if (fstat(fd, &st) == 0 && read_all(fd, pre, sizeof pre, 0) == 0 &&
        memcmp(pre, MAGIC, 8) == 0 && read_all(fd, head, HEADER, 24) == 0) {
        *end = le64(pre + 8);
        *len = le64(pre + 16);
        if (*len <= TRAILER_MAX &&
            (uint64_t)st.st_size == sizeof pre + HEADER + *len &&
            (t = malloc(*len ? *len : 1)) != NULL &&
            read_all(fd, t, *len, sizeof pre + HEADER) != 0) {
            free(t);
            t = NULL;
        }
    }
    if (!t && errno == 0)
        errno = EINVAL;
    close(fd);
    return t;
}

/* Cut the log where the checkpoint's samples end; put its end back. */
static int restore(const char *path, const uint8_t *head, uint64_t end,
                   const uint8_t *t, uint64_t len)
{
    struct stat st;
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < end) {
        close(fd);
        errno = EINVAL; /* the samples it needs are not there */
        return -1;
    }
    int rc = ftruncate(fd, (off_t)end) != 0 ||
                     write_all(fd, t, len, end) != 0 ||
                     write_all(fd, head, HEADER, 0) != 0 || fsync(fd) != 0
                 ? -1
                 : 0;
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

int checkpoint_recover(const char *path)
{
    char copy[4200];
    uint8_t head[HEADER];
    uint64_t end, len, samples;
    tfmt_error err = {0};
    snprintf(copy, sizeof copy, "%s.recover", path);
    if (log_valid(path, &samples, &err)) {
        checkpoint_discard(path);
        cli_file_info(path, "a complete log already (%llu samples)",
                      (unsigned long long)samples);
        return CLI_EXIT_OK;
    }
    errno = 0;
    uint8_t *t = load_copy(copy, head, &end, &len);
    if (!t)
        return cli_fail(CLI_EXIT_DATA,
                        "%s: not a valid log (%s) and no "
                        "usable %s: %s",
                        path, err.msg, copy, strerror(errno));
    int rc = restore(path, head, end, t, len);
    free(t);
    if (rc != 0)
        return cli_file_fail(CLI_EXIT_TROUBLE, path, "%s", strerror(errno));
    if (!log_valid(path, &samples, &err))
        return cli_report(path, &err);
    checkpoint_discard(path);
    cli_file_info(path,
                  "recovered %llu samples (up to the last "
                  "checkpoint)",
                  (unsigned long long)samples);
    return CLI_EXIT_OK;
}
