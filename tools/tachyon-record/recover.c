/* SPDX-License-Identifier: MIT */
/*
 * recover.c - --recover FILE. The checkpoint copy (FILE.recover,
 * recover_file.h) says where the last checkpoint's samples ended and
 * holds the header and trailer written then. The log is rebuilt from it
 * in a new file beside it: the log's bytes up to that point, the trailer
 * after them, the header at the front. That file must read to its end
 * with the library's reader before it is renamed over the log; any
 * failure before the rename leaves the log as it was, and says why.
 *
 * The new file is made here, not by the library's sink, because it must
 * be read back before it gets the log's name and a sink's file has no
 * name to read it by (O_TMPFILE) until its commit: a random name next to
 * the log, created with O_EXCL (mkostemp: never through a link), read
 * back through /proc/self/fd, so the file checked is the file renamed.
 */
#define _GNU_SOURCE
#include "recover.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tachyon/fmt.h>

#include "cli.h"
#include "file_at.h"
#include "recover_file.h"
#include "sync_dir.h"
#include "text_safe.h"

#define CHUNK ((size_t)256 * 1024)

/* What --recover works with, and the names for its messages. */
typedef struct job {
    const char *path;
    char name[600], copy_name[620]; /* escaped for messages */
    char *copy;                     /* PATH.recover */
    char *tmp;                      /* the new log's name while built */
    int log_fd, copy_fd, tmp_fd;
    struct stat log_st;
    rcv_info info;
} job;

/* Open an input: not a FIFO (O_NONBLOCK), a regular file. -1 w/ errno. */
static int open_regular(const char *path, int flags, struct stat *st)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags);
    if (fd < 0)
        return -1;
    if (fstat(fd, st) == 0 && S_ISREG(st->st_mode))
        return fd;
    close(fd);
    errno = EINVAL;
    return -1;
}

/* Whether the file open at `fd` reads as a log to its end; *samples gets
 * how many samples were read, *err the first error. */
static bool log_valid(int fd, uint64_t *samples, tfmt_error *err)
{
    char path[64];
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    const tfmt_sample *s;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int rc = tfmt_source_open_path(&src, path, NULL, err);
    if (rc == TFMT_OK)
        rc = tfmt_bin_open(&r, src, NULL, err);
    while (rc == TFMT_OK)
        rc = tfmt_bin_next(r, &s);
    if (r && rc != TFMT_DONE)
        *err = *tfmt_bin_error(r);
    *samples = r ? tfmt_bin_samples_read(r) : 0;
    tfmt_bin_free(r);
    tfmt_source_free(src);
    return rc == TFMT_DONE;
}

/* The copy, parsed and checked against the log; a message and 1 if it
 * cannot restore it. */
static int load_copy(job *j, const tfmt_error *bad)
{
    uint8_t head[RCV_HEAD], log_head[RCV_HEADER];
    struct stat st;
    char why[300];
    j->copy_fd = open_regular(j->copy, O_NOFOLLOW, &st);
    if (j->copy_fd < 0)
        return cli_fail(
            CLI_EXIT_DATA, "%s: not a valid log (%s) and no usable %s: %s",
            j->name, bad->msg, j->copy_name,
            errno == EINVAL ? "not a regular file" : strerror(errno));
    size_t got =
        (uint64_t)st.st_size < sizeof head ? (size_t)st.st_size : sizeof head;
    if (file_read_at(j->copy_fd, head, got, 0) != 0 ||
        rcv_parse(head, got, (uint64_t)st.st_size, &j->info, why, sizeof why) !=
            0 ||
        file_read_at(j->log_fd, log_head, RCV_HEADER, 0) != 0 ||
        rcv_check_log(&j->info, (uint64_t)j->log_st.st_size, log_head, why,
                      sizeof why) != 0)
        return cli_fail(CLI_EXIT_DATA,
                        "%s: not a valid log (%s), and %s cannot restore it: "
                        "%s; the log is left as it was",
                        j->name, bad->msg, j->copy_name, why);
    return CLI_EXIT_OK;
}

/* Copy `len` bytes from `in` at `from` to `out` at `to`. */
static int copy_range(int in, uint64_t from, int out, uint64_t to, uint64_t len,
                      uint8_t *buf)
{
    while (len) {
        size_t n = len < CHUNK ? (size_t)len : CHUNK;
        if (file_read_at(in, buf, n, from) != 0 ||
            file_write_at(out, buf, n, to) != 0)
            return -1;
        from += n;
        to += n;
        len -= n;
    }
    return 0;
}

/* The new file beside the log: random name, O_EXCL, mode 0600 for now. */
static int make_tmp(job *j)
{
    size_t n = strlen(j->path);
    j->tmp = malloc(n + sizeof ".rebuild.XXXXXX");
    if (!j->tmp)
        return -1;
    memcpy(j->tmp, j->path, n);
    memcpy(j->tmp + n, ".rebuild.XXXXXX", sizeof ".rebuild.XXXXXX");
    j->tmp_fd = mkostemp(j->tmp, O_CLOEXEC);
    if (j->tmp_fd < 0) {
        free(j->tmp);
        j->tmp = NULL;
    }
    return j->tmp_fd < 0 ? -1 : 0;
}

/* Log bytes up to the checkpoint, its trailer, its header; synced. */
static int build(job *j)
{
    uint8_t *buf = malloc(CHUNK);
    const rcv_info *in = &j->info;
    int rc = buf && make_tmp(j) == 0 &&
                     copy_range(j->log_fd, 0, j->tmp_fd, 0, in->samples_end,
                                buf) == 0 &&
                     copy_range(j->copy_fd, RCV_HEAD, j->tmp_fd,
                                in->samples_end, in->trailer_len, buf) == 0 &&
                     file_write_at(j->tmp_fd, in->header, RCV_HEADER, 0) == 0 &&
                     fsync(j->tmp_fd) == 0
                 ? 0
                 : -1;
    int e = buf ? errno : ENOMEM;
    free(buf);
    errno = e;
    return rc;
}

/* The rebuilt file takes the log's place, with the log's mode (and its
 * owner, when the recorder may give it). */
static int commit(job *j)
{
    if (fchmod(j->tmp_fd, j->log_st.st_mode & 07777) != 0)
        return -1;
    if (fchown(j->tmp_fd, j->log_st.st_uid, j->log_st.st_gid) != 0 &&
        errno != EPERM)
        return -1;
    if (rename(j->tmp, j->path) != 0)
        return -1;
    free(j->tmp);
    j->tmp = NULL;
    sync_dir(j->path);
    return 0;
}

/* Rebuild, check, rename; an exit code. */
static int rebuild(job *j)
{
    uint64_t samples;
    tfmt_error err = {0};
    if (build(j) != 0)
        return cli_fail(CLI_EXIT_TROUBLE,
                        "%s: cannot write the rebuilt log beside it: %s; the "
                        "log is left as it was",
                        j->name, strerror(errno));
    if (!log_valid(j->tmp_fd, &samples, &err))
        return cli_fail(CLI_EXIT_DATA,
                        "%s: the log rebuilt from %s does not read (%s); the "
                        "log is left as it was",
                        j->name, j->copy_name, err.msg);
    if (commit(j) != 0)
        return cli_fail(CLI_EXIT_TROUBLE,
                        "%s: cannot put the rebuilt log in its place: %s; the "
                        "log is left as it was",
                        j->name, strerror(errno));
    unlink(j->copy);
    cli_file_info(j->name, "recovered %llu samples (up to the last checkpoint)",
                  (unsigned long long)samples);
    return CLI_EXIT_OK;
}

static int recover(job *j)
{
    uint64_t samples;
    tfmt_error bad = {0};
    j->log_fd = open_regular(j->path, 0, &j->log_st);
    if (j->log_fd < 0)
        return cli_file_fail(CLI_EXIT_TROUBLE, j->name, "%s",
                             errno == EINVAL ? "not a regular file"
                                             : strerror(errno));
    if (log_valid(j->log_fd, &samples, &bad)) {
        unlink(j->copy);
        cli_file_info(j->name, "a complete log already (%llu samples)",
                      (unsigned long long)samples);
        return CLI_EXIT_OK;
    }
    int rc = load_copy(j, &bad);
    return rc != CLI_EXIT_OK ? rc : rebuild(j);
}

int checkpoint_recover(const char *path)
{
    job j;
    memset(&j, 0, sizeof j);
    j.path = path;
    j.log_fd = j.copy_fd = j.tmp_fd = -1;
    size_t n = strlen(path);
    j.copy = malloc(n + sizeof ".recover");
    if (!j.copy)
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    memcpy(j.copy, path, n);
    memcpy(j.copy + n, ".recover", sizeof ".recover");
    cli_escape(j.name, sizeof j.name, path);
    cli_escape(j.copy_name, sizeof j.copy_name, j.copy);
    int rc = recover(&j);
    if (j.tmp) {
        unlink(j.tmp);
        free(j.tmp);
    }
    if (j.tmp_fd >= 0)
        close(j.tmp_fd);
    if (j.copy_fd >= 0)
        close(j.copy_fd);
    if (j.log_fd >= 0)
        close(j.log_fd);
    free(j.copy);
    return rc;
}
