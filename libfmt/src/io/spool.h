/* SPDX-License-Identifier: MIT */
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
    tfmt_buf rd;    /* read-back buffer */
    size_t streams; /* streams that have had a record */
    size_t block;   /* a stream's block now (0: TFMT_SPOOL_BLOCK) */
} tfmt_spool;

/*
 * Append one record of `n` bytes (at most a few dozen) to `st`. Returns
 * TFMT_OK, TFMT_ENOMEM, or TFMT_EIO with errno set (the caller words it).
 */
int tfmt__spool_append(tfmt_spool *s, tfmt_sstream *st, const void *rec,
                       size_t n);
/*
 * A stream's block: what it keeps in memory before spooling it, 8 KiB
 * while the streams' blocks together stay under TFMT_SPOOL_TAILS; with
 * more streams (a timeline per thread, ten thousand threads) each gets
 * its share of that, never under TFMT_SPOOL_MIN.
 */
#define TFMT_SPOOL_BLOCK (8u * 1024u)
#define TFMT_SPOOL_TAILS (4u << 20)
#define TFMT_SPOOL_MIN 256u

/*
 * The inline path of tfmt__spool_append, for a record written in place:
 * where a record of at most `max` bytes can go in the stream's block, or
 * NULL (then build it elsewhere and append it); then commit the bytes
 * actually written there.
 */
static inline uint8_t *tfmt__spool_room(const tfmt_spool *s, tfmt_sstream *st,
                                        size_t max)
{
    size_t block = s->block ? s->block : TFMT_SPOOL_BLOCK;
    if (st->tail.len + max > st->tail.cap || st->tail.len + max > block)
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
/*
 * Read the whole stream into `out` (emptied first) when it holds at most
 * `max` bytes, for a writer that passes over it more than once: one read
 * a block, not one a block and pass. 1: read, 0: larger (`out` empty),
 * or an error as tfmt__spool_each's.
 */
int tfmt__spool_gather(tfmt_spool *s, const tfmt_sstream *st, size_t max,
                       tfmt_buf *out);
void tfmt__sstream_free(const tfmt_allocator *a, tfmt_sstream *st);
void tfmt__spool_free(tfmt_spool *s);

#endif
