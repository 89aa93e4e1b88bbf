/* SPDX-License-Identifier: MIT */
/*
 * checkpoint.c - the saving side of checkpoints. At each checkpoint the
 * writer (tfmt_bin_writer_checkpoint) makes the log a complete, valid log
 * in place: samples, then tables, statistics, footer, and the header
 * pointing at them. The next checkpoint writes new samples over that
 * trailer before writing a longer one, so for a few milliseconds a second
 * the file on disk is not valid; a kill then would lose it all. So once
 * a checkpoint is synced, its header and trailer are copied to
 * FILE.recover (recover_file.h) through the library's sink: a new file
 * with a name of its own (O_TMPFILE, or a random name made with O_EXCL),
 * synced, renamed over the previous copy. --recover (recover.c) puts them
 * back.
 */
#define _GNU_SOURCE
#include "checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tachyon/fmt.h>

#include "file_at.h"
#include "recover_file.h"
#include "sync_dir.h"

#define COPY_CHUNK ((size_t)64 * 1024)

int checkpoint_open(checkpoint *c, const char *path)
{
    struct stat st;
    size_t n = strlen(path);
    c->fd = -1;
    c->copy = malloc(n + sizeof ".recover");
    if (!c->copy)
        return -1;
    memcpy(c->copy, path, n);
    memcpy(c->copy + n, ".recover", sizeof ".recover");
    c->fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (c->fd >= 0 && fstat(c->fd, &st) == 0 && S_ISREG(st.st_mode))
        return 0;
    int e = c->fd >= 0 ? EINVAL : errno;
    checkpoint_close(c);
    errno = e;
    return -1;
}

void checkpoint_close(checkpoint *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->copy);
    c->copy = NULL;
}

/* The log's header and where its trailer lies, from the file itself. */
static int describe_log(int fd, rcv_info *in)
{
    struct stat st;
    uint64_t end;
    if (fstat(fd, &st) != 0 || file_read_at(fd, in->header, RCV_HEADER, 0) != 0)
        return -1;
    end = 0;
    for (int i = 7; i >= 0; i--)
        end = end << 8 | in->header[40 + i]; /* the string table offset */
    if (end < RCV_HEADER || end >= (uint64_t)st.st_size ||
        (uint64_t)st.st_size - end > RCV_TRAILER_MAX) {
        errno = EINVAL;
        return -1;
    }
    in->samples_end = end;
    in->trailer_len = (uint64_t)st.st_size - end;
    return 0;
}

/* A read of the log failed (errno set): write_copy's third outcome. */
#define READ_FAILED 1

/* The copy's bytes into `sink`: head, then the trailer in chunks.
 * TFMT_OK, a sink status, or READ_FAILED. */
static int write_copy(int fd, const rcv_info *in, tfmt_sink *sink)
{
    uint8_t head[RCV_HEAD], *buf = malloc(COPY_CHUNK);
    if (!buf)
        return TFMT_ENOMEM;
    rcv_encode(in, head);
    int rc = tfmt_sink_write(sink, head, sizeof head);
    for (uint64_t off = 0; rc == TFMT_OK && off < in->trailer_len;) {
        uint64_t left = in->trailer_len - off;
        size_t n = left < COPY_CHUNK ? (size_t)left : COPY_CHUNK;
        if (file_read_at(fd, buf, n, in->samples_end + off) != 0)
            rc = READ_FAILED;
        else
            rc = tfmt_sink_write(sink, buf, n);
        off += n;
    }
    free(buf);
    return rc;
}

int checkpoint_save(checkpoint *c, char *why, size_t why_len)
{
    rcv_info in;
    tfmt_sink *sink = NULL;
    tfmt_error err;
    if (describe_log(c->fd, &in) != 0) {
        snprintf(why, why_len, "reading the log back: %s", strerror(errno));
        return -1;
    }
    int rc = tfmt_sink_open(&sink, c->copy,
                            TFMT_SINK_FORCE | TFMT_SINK_FILE_ONLY, NULL, &err);
    if (rc != TFMT_OK) {
        snprintf(why, why_len, "%s", err.msg);
        return -1;
    }
    rc = write_copy(c->fd, &in, sink);
    if (rc == TFMT_OK)
        rc = tfmt_sink_sync(sink);
    if (rc == TFMT_OK)
        rc = tfmt_sink_finish(sink);
    if (rc == READ_FAILED)
        snprintf(why, why_len, "reading the log back: %s", strerror(errno));
    else if (rc == TFMT_ENOMEM)
        snprintf(why, why_len, "out of memory");
    else if (rc != TFMT_OK)
        snprintf(why, why_len, "%s", tfmt_sink_error(sink)->msg);
    tfmt_sink_free(sink);
    if (rc == TFMT_OK)
        sync_dir(c->copy);
    return rc == TFMT_OK ? 0 : -1;
}

void checkpoint_discard(const checkpoint *c)
{
    if (c->copy)
        unlink(c->copy);
}
