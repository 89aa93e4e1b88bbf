/* SPDX-License-Identifier: MIT */
/*
 * spool.c - streams of small records whose bulk lives in one unlinked
 * temporary file: each stream keeps at most one block in memory, so a
 * timeline (the Gecko export, speedscope's per-thread samples) holds
 * O(threads) buffers however many samples it collects. Streams are read
 * back in order as many times as a writer needs (the Gecko writer: once
 * per JSON column). The file is the library's unlinked temporary file
 * (tmpfile.c), so nothing is left behind.
 */
#include <errno.h>
#include <unistd.h>

#include "spool.h"
#include "io_internal.h"

/*
 * Blocks go to and come from their offsets with pwrite and pread: one
 * system call a block, where a stdio stream took four (seek, and reads
 * split at its buffer's size); on the bench log's Gecko export that is
 * 12k system calls instead of 46k and a third less system time.
 * TFMT_EIO with errno set on failure.
 */
static int write_at(int fd, const char *p, size_t n, uint64_t off)
{
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            return TFMT_EIO;
        }
        p += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return TFMT_OK;
}

static int read_at(int fd, char *p, size_t n, uint64_t off)
{
    while (n > 0) {
        ssize_t r = pread(fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = EIO; /* the file is shorter than what we wrote */
            return TFMT_EIO;
        }
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return TFMT_OK;
}

static int spool_block(tfmt_spool *s, tfmt_sstream *st)
{
    if (!s->open) {
        if (tfmt__tmpfile(&s->fd, NULL, NULL) != TFMT_OK)
            return TFMT_EIO;
        s->open = true;
    }
    if (tfmt__grow(s->alloc, (void **)&st->blocks, &st->capblocks,
                   st->nblocks + 1, sizeof *st->blocks) != TFMT_OK)
        return TFMT_ENOMEM;
    if (write_at(s->fd, st->tail.data, st->tail.len, s->size) != TFMT_OK)
        return TFMT_EIO;
    st->blocks[st->nblocks].off = s->size;
    st->blocks[st->nblocks].len = (uint32_t)st->tail.len;
    st->nblocks++;
    s->size += st->tail.len;
    st->tail.len = 0;
    return TFMT_OK;
}

/* A new stream: the blocks of all of them share TFMT_SPOOL_TAILS. */
static void add_stream(tfmt_spool *s)
{
    size_t block = TFMT_SPOOL_TAILS / ++s->streams;
    block = block < TFMT_SPOOL_BLOCK ? block : TFMT_SPOOL_BLOCK;
    s->block = block > TFMT_SPOOL_MIN ? block : TFMT_SPOOL_MIN;
}

int tfmt__spool_append(tfmt_spool *s, tfmt_sstream *st, const void *rec,
                       size_t n)
{
    if (st->count == 0 && st->nblocks == 0 && st->tail.len == 0)
        add_stream(s);
    if (!st->tail.data)
        tfmt__buf_init(&st->tail, s->alloc);
    size_t block = s->block ? s->block : TFMT_SPOOL_BLOCK;
    if (st->tail.len + n > block) {
        int rc = spool_block(s, st);
        if (rc != TFMT_OK)
            return rc;
        /* a block of when there were fewer streams: give the room back */
        if (st->tail.cap > 2 * block)
            tfmt__buf_free(&st->tail);
    }
    if (tfmt__buf_put(&st->tail, rec, n) != TFMT_OK)
        return TFMT_ENOMEM;
    st->count++;
    return TFMT_OK;
}

int tfmt__spool_each(tfmt_spool *s, tfmt_sstream *st,
                     int (*fn)(void *ctx, const uint8_t *d, size_t len),
                     void *ctx)
{
    for (size_t i = 0; i < st->nblocks; i++) {
        tfmt_sblock b = st->blocks[i];
        s->rd.len = 0;
        if (tfmt__buf_reserve(&s->rd, b.len) != TFMT_OK)
            return TFMT_ENOMEM;
        if (read_at(s->fd, s->rd.data, b.len, b.off) != TFMT_OK)
            return TFMT_EIO;
        int rc = fn(ctx, (const uint8_t *)s->rd.data, b.len);
        if (rc != TFMT_OK)
            return rc;
    }
    if (st->tail.len == 0)
        return TFMT_OK; /* no tail buffer at all when nothing was added */
    return fn(ctx, (const uint8_t *)st->tail.data, st->tail.len);
}

int tfmt__spool_gather(tfmt_spool *s, const tfmt_sstream *st, size_t max,
                       tfmt_buf *out)
{
    size_t n = st->tail.len;
    out->len = 0;
    for (size_t i = 0; i < st->nblocks && n <= max; i++)
        n += st->blocks[i].len;
    if (n > max)
        return 0;
    if (tfmt__buf_reserve(out, n) != TFMT_OK)
        return TFMT_ENOMEM;
    for (size_t i = 0; i < st->nblocks; i++) {
        tfmt_sblock b = st->blocks[i];
        if (read_at(s->fd, out->data + out->len, b.len, b.off) != TFMT_OK)
            return TFMT_EIO;
        out->len += b.len;
    }
    if (st->tail.len)
        memcpy(out->data + out->len, st->tail.data, st->tail.len);
    out->len += st->tail.len;
    return 1;
}

void tfmt__sstream_free(const tfmt_allocator *a, tfmt_sstream *st)
{
    tfmt__buf_free(&st->tail);
    tfmt__free(a, st->blocks);
    memset(st, 0, sizeof *st);
}

void tfmt__spool_free(tfmt_spool *s)
{
    if (s->open)
        close(s->fd);
    s->open = false;
    tfmt__buf_free(&s->rd);
}
