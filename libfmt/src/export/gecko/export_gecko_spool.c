/*
 * export_gecko_spool.c - streams of small records whose bulk
 * lives in one unlinked temporary file: each stream keeps at most one
 * block in memory, so a Gecko export holds O(threads) buffers however many
 * samples and markers it collects. Streams are read back in order as many
 * times as the writer needs (once per JSON column). The file is the
 * library's unlinked temporary file, so nothing is left behind.
 */
#include <errno.h>
#include <unistd.h>

#include "export_gecko.h"
#include "io_internal.h"

#define BLOCK (8u * 1024u)

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

static int spool_block(gspool *s, gstream *st)
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

int tfmt__gspool_append(gspool *s, gstream *st, const void *rec, size_t n)
{
    if (!st->tail.data)
        tfmt__buf_init(&st->tail, s->alloc);
    if (st->tail.len + n > BLOCK) {
        int rc = spool_block(s, st);
        if (rc != TFMT_OK)
            return rc;
    }
    if (tfmt__buf_put(&st->tail, rec, n) != TFMT_OK)
        return TFMT_ENOMEM;
    st->count++;
    return TFMT_OK;
}

int tfmt__gspool_each(gspool *s, gstream *st,
                      int (*fn)(void *ctx, const uint8_t *d, size_t len),
                      void *ctx)
{
    for (size_t i = 0; i < st->nblocks; i++) {
        gblock b = st->blocks[i];
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

void tfmt__gstream_free(const tfmt_allocator *a, gstream *st)
{
    tfmt__buf_free(&st->tail);
    tfmt__free(a, st->blocks);
    memset(st, 0, sizeof *st);
}

void tfmt__gspool_free(gspool *s)
{
    if (s->file)
        fclose(s->file);
    s->file = NULL;
    tfmt__buf_free(&s->rd);
}
