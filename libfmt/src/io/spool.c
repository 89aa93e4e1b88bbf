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

/* The spool: an unlinked temporary file (tmpfile.c) as a stdio stream. */
static FILE *spool_open(void)
{
    int fd;
    if (tfmt__tmpfile(&fd, NULL, NULL) != TFMT_OK)
        return NULL;
    FILE *f = fdopen(fd, "w+b");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

static int spool_block(tfmt_spool *s, tfmt_sstream *st)
{
    if (!s->file && !(s->file = spool_open()))
        return TFMT_EIO;
    if (tfmt__grow(s->alloc, (void **)&st->blocks, &st->capblocks,
                   st->nblocks + 1, sizeof *st->blocks) != TFMT_OK)
        return TFMT_ENOMEM;
    if (fseeko(s->file, (off_t)s->size, SEEK_SET) != 0 ||
        fwrite(st->tail.data, 1, st->tail.len, s->file) != st->tail.len)
        return TFMT_EIO;
    st->blocks[st->nblocks].off = s->size;
    st->blocks[st->nblocks].len = (uint32_t)st->tail.len;
    st->nblocks++;
    s->size += st->tail.len;
    st->tail.len = 0;
    return TFMT_OK;
}

int tfmt__spool_append(tfmt_spool *s, tfmt_sstream *st, const void *rec,
                       size_t n)
{
    if (!st->tail.data)
        tfmt__buf_init(&st->tail, s->alloc);
    if (st->tail.len + n > TFMT_SPOOL_BLOCK) {
        int rc = spool_block(s, st);
        if (rc != TFMT_OK)
            return rc;
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
        if (fseeko(s->file, (off_t)b.off, SEEK_SET) != 0 ||
            fread(s->rd.data, 1, b.len, s->file) != b.len)
            return TFMT_EIO;
        int rc = fn(ctx, (const uint8_t *)s->rd.data, b.len);
        if (rc != TFMT_OK)
            return rc;
    }
    if (st->tail.len == 0)
        return TFMT_OK; /* no tail buffer at all when nothing was added */
    return fn(ctx, (const uint8_t *)st->tail.data, st->tail.len);
}

void tfmt__sstream_free(const tfmt_allocator *a, tfmt_sstream *st)
{
    tfmt__buf_free(&st->tail);
    tfmt__free(a, st->blocks);
    memset(st, 0, sizeof *st);
}

void tfmt__spool_free(tfmt_spool *s)
{
    if (s->file)
        fclose(s->file);
    s->file = NULL;
    tfmt__buf_free(&s->rd);
}
