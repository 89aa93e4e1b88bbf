/*
 * spool.h - streams of small records spooled to one unlinked temporary
 * file (spool.c), for timelines whose size grows with the samples: the
 * Gecko export and speedscope's per-thread samples. Never installed.
 */
#ifndef TFMT_SPOOL_H
#define TFMT_SPOOL_H

#include "internal.h"

typedef struct tfmt_sblock {
    uint64_t off;
    uint32_t len;
} tfmt_sblock;

/* One stream: its spooled blocks and the records not spooled yet. */
typedef struct tfmt_sstream {
    tfmt_buf tail; /* records not yet spooled */
    tfmt_sblock *blocks;
    size_t nblocks, capblocks;
    uint64_t count; /* records in the stream */
    uint64_t prev;  /* free for the record codec (delta base) */
} tfmt_sstream;

/* The shared file of any number of streams; zero-initialize, set alloc. */
typedef struct tfmt_spool {
    const tfmt_allocator *alloc;
    int fd; /* the unlinked file, once `open` (the first block spooled) */
    bool open;
    uint64_t size;
    tfmt_buf rd; /* read-back buffer */
} tfmt_spool;

/*
 * Append one record of `n` bytes (at most a few dozen) to `st`. Returns
 * TFMT_OK, TFMT_ENOMEM, or TFMT_EIO with errno set (the caller words it).
 */
int tfmt__spool_append(tfmt_spool *s, tfmt_sstream *st, const void *rec,
                       size_t n);
/* A stream's block: what it keeps in memory before spooling it. */
#define TFMT_SPOOL_BLOCK (8u * 1024u)

/*
 * The inline path of tfmt__spool_append, for a record written in place:
 * where a record of at most `max` bytes can go in the stream's block, or
 * NULL (then build it elsewhere and append it); then commit the bytes
 * actually written there.
 */
static inline uint8_t *tfmt__spool_room(tfmt_sstream *st, size_t max)
{
    if (st->tail.len + max > st->tail.cap ||
        st->tail.len + max > TFMT_SPOOL_BLOCK)
        return NULL;
    return (uint8_t *)st->tail.data + st->tail.len;
}

static inline void tfmt__spool_commit(tfmt_sstream *st, size_t n)
{
    st->tail.len += n;
    st->count++;
}

/* Call fn(ctx, bytes, len) for each run of whole records, in order. */
int tfmt__spool_each(tfmt_spool *s, tfmt_sstream *st,
                     int (*fn)(void *ctx, const uint8_t *d, size_t len),
                     void *ctx);
void tfmt__sstream_free(const tfmt_allocator *a, tfmt_sstream *st);
void tfmt__spool_free(tfmt_spool *s);

#endif
