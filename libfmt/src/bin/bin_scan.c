/* SPDX-License-Identifier: MIT */
/*
 * bin_scan.c - the first pass of a parallel decode (see bin_slice.h): walk
 * a part of the sample region record by record, skipping frame indices
 * and timestamps, to learn how it changes each thread's stack depth and
 * where the next part starts. Nothing here reports an error: a failed
 * scan only means the region is read whole.
 *
 * A scan need not judge what it skips: the decode of each part checks
 * every record, its end, and the depths the scans gave, so a wrong guess
 * here costs the parallel read, never a wrong profile. That is why frame
 * indices and (delta, status) pairs are skipped by counting the bytes
 * that end a varint (high bit clear), eight bytes at a time: a pair is
 * two such bytes as long as its status byte is below 0x80, as every
 * status byte a writer makes is.
 */
#include "bin_reader.h"
#include "bin_slice.h"

#define MAX_RECORD (TFMT_BIN_RECORD_HEADER + 3 * 10 + 1 + TFMT_MAX_DEPTH * 10)
#define DEPTH_CAP (1u << 20)
#define PAIR_READ (64u << 10) /* more bytes asked for inside a REPEAT */

/* One record's effect on its thread's depth. */
typedef struct rec_info {
    uint64_t tid;
    uint32_t interp;
    uint8_t enc;
    uint32_t a, b; /* FULL: depth | SUFFIX: shared, new | POP_PUSH:
                      pop, push */
} rec_info;

/*
 * The byte after the k-th (k > 0) byte below 0x80 from p, or NULL when
 * fewer than k are in [p, end).
 */
static const uint8_t *skip_clear(const uint8_t *p, const uint8_t *end,
                                 uint64_t k)
{
    while ((size_t)(end - p) >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t m = ~w & 0x8080808080808080ULL; /* little-endian order */
        /* the set bits counted by one multiply (x86-64's baseline has no
           popcnt instruction: the builtin would be a libgcc call) */
        unsigned n = (unsigned)(((m >> 7) * 0x0101010101010101ULL) >> 56);
        if (n < k) {
            k -= n;
            p += 8;
            continue;
        }
        while (--k > 0)
            m &= m - 1;
        return p + __builtin_ctzll(m) / 8 + 1;
    }
    for (; p < end; p++)
        if (*p < 0x80 && --k == 0)
            return p + 1;
    return NULL;
}

/* Skip `n` varints: 1 done, 0 the bytes end first. */
static int skip_varints(const uint8_t **pp, const uint8_t *end, uint32_t n)
{
    if (n == 0)
        return 1;
    const uint8_t *p = skip_clear(*pp, end, n);
    if (!p)
        return 0;
    *pp = p;
    return 1;
}

/*
 * Parse the non-REPEAT record body at *pp (after the 13-byte header) into
 * ri, skipping its frames. 1: parsed; 0: the bytes end first; -1: bad.
 */
static int parse_delta(const uint8_t **pp, const uint8_t *end, rec_info *ri)
{
    const uint8_t *p = *pp;
    uint64_t delta;
    int counts = ri->enc == TFMT_ENC_FULL ? 1 : 2;
    int rc = tfmt__varint_u64(&p, end, &delta);
    if (rc <= 0 || p >= end)
        return rc < 0 ? -1 : 0;
    p++; /* status */
    uint32_t *dst[2] = {&ri->a, &ri->b};
    for (int i = 0; i < counts; i++) {
        rc = tfmt__varint_u32(&p, end, dst[i]);
        if (rc <= 0)
            return rc;
        if (*dst[i] > TFMT_MAX_DEPTH &&
            !(ri->enc == TFMT_ENC_POP_PUSH && i == 0))
            return -1;
    }
    uint32_t n = ri->enc == TFMT_ENC_FULL ? ri->a : ri->b;
    rc = skip_varints(&p, end, n);
    if (rc == 1)
        *pp = p;
    return rc;
}

/*
 * Skip the *left pairs of a REPEAT record from *pp if [*pp, end) holds
 * them all (true); else skip as many whole pairs as it holds, leaving
 * the rest in *left (false).
 */
static bool skip_pairs(const uint8_t **pp, const uint8_t *end, uint32_t *left)
{
    if (*left == 0)
        return true;
    const uint8_t *q = skip_clear(*pp, end, (uint64_t)*left * 2);
    if (q) {
        *pp = q;
        *left = 0;
        return true;
    }
    /* not all here: the whole pairs at hand (two clear bytes each) */
    uint64_t clear = 0;
    for (const uint8_t *r = *pp; r < end; r++)
        clear += *r < 0x80;
    uint32_t n = (uint32_t)(clear / 2);
    if (n > 0)
        *pp = skip_clear(*pp, end, (uint64_t)n * 2);
    *left -= n;
    return false;
}

/* The header of the record at p (13 bytes at hand); false: bad encoding. */
static bool parse_header(const uint8_t *p, bool swap, rec_info *ri)
{
    ri->tid = tfmt__load64(p, swap);
    ri->interp = tfmt__load32(p + 8, swap);
    ri->enc = p[12];
    ri->a = ri->b = 0;
    return ri->enc <= TFMT_ENC_POP_PUSH;
}

/* ---- a part's effect on its threads ---- */

static tfmt_bin_xfer *scan_thread(tfmt_bin_scan *s, const rec_info *ri,
                                  uint32_t max_threads)
{
    uint32_t i = tfmt__tidmap_find(&s->map, ri->tid, ri->interp);
    if (i != UINT32_MAX)
        return &s->threads[i];
    if (s->nthreads >= max_threads ||
        tfmt__grow(s->alloc, (void **)&s->threads, &s->cap, s->nthreads + 1,
                   sizeof *s->threads) != TFMT_OK ||
        tfmt__tidmap_insert(&s->map, ri->tid, ri->interp,
                            (uint32_t)s->nthreads) != TFMT_OK)
        return NULL;
    tfmt_bin_xfer *x = &s->threads[s->nthreads++];
    *x = (tfmt_bin_xfer){ri->tid, ri->interp, false, 0, 0};
    return x;
}

static uint32_t cap(uint64_t v)
{
    return v > DEPTH_CAP ? DEPTH_CAP : (uint32_t)v;
}

/* Compose the record's change of depth into x (see tfmt_bin_xfer). */
static void apply(tfmt_bin_xfer *x, const rec_info *ri)
{
    if (ri->enc == TFMT_ENC_FULL) {
        x->konst = true;
        x->b = ri->a;
    } else if (ri->enc == TFMT_ENC_SUFFIX) {
        x->konst = true;
        x->b = cap((uint64_t)ri->a + ri->b);
    } else if (ri->enc == TFMT_ENC_POP_PUSH) {
        uint32_t pop = ri->a, push = ri->b;
        if (x->b >= pop) {
            x->b = cap((uint64_t)x->b - pop + push);
        } else {
            if (!x->konst)
                x->a = cap((uint64_t)x->a + (pop - x->b));
            x->b = push;
        }
    }
}

/* Skip the pairs of a REPEAT record through the stream's window. */
static bool scan_pairs(tfmt_bin_stream *st, const uint8_t *p, uint32_t count)
{
    for (;;) {
        bool all = skip_pairs(&p, st->end, &count);
        st->pos = p;
        if (all)
            return true;
        if (st->eof) /* the region ends inside the record */
            return false;
        size_t have = (size_t)(st->end - st->pos);
        if (tfmt__bin_stream_fill(st, have + PAIR_READ, NULL) != TFMT_OK)
            return false;
        p = st->pos;
    }
}

/* Scan records while they start before `until`; out->end: where the
 * first one at or after it starts (or the region's end). */
static int scan_records(tfmt_bin_reader *r, tfmt_bin_stream *st, uint64_t until,
                        tfmt_bin_scan *out)
{
    for (;;) {
        if ((size_t)(st->end - st->pos) < MAX_RECORD && !st->eof &&
            tfmt__bin_stream_fill(st, MAX_RECORD, NULL) != TFMT_OK)
            return TFMT_EFORMAT;
        out->end = tfmt__bin_stream_offset(st);
        size_t avail = (size_t)(st->end - st->pos);
        if (avail == 0 || out->end >= until)
            return TFMT_OK;
        rec_info ri;
        const uint8_t *p = st->pos;
        if (avail < TFMT_BIN_RECORD_HEADER || !parse_header(p, r->swap, &ri))
            return TFMT_EFORMAT;
        tfmt_bin_xfer *x = scan_thread(out, &ri, r->max_threads);
        if (!x)
            return TFMT_EFORMAT;
        p += TFMT_BIN_RECORD_HEADER;
        if (ri.enc == TFMT_ENC_REPEAT) {
            uint32_t count;
            if (tfmt__varint_u32(&p, st->end, &count) <= 0 ||
                !scan_pairs(st, p, count))
                return TFMT_EFORMAT;
            continue;
        }
        if (parse_delta(&p, st->end, &ri) != 1)
            return TFMT_EFORMAT;
        apply(x, &ri);
        st->pos = p;
    }
}

int tfmt__bin_scan(tfmt_bin_reader *r, uint64_t from, uint64_t until,
                   tfmt_bin_scan *out)
{
    memset(out, 0, sizeof *out);
    out->alloc = r->alloc;
    tfmt__tidmap_init(&out->map, r->alloc);
    tfmt_bin_stream st;
    int rc = tfmt__bin_stream_open_range(&st, r->stream.src, from,
                                         tfmt__bin_region_size(r), false,
                                         r->alloc, NULL);
    if (rc == TFMT_OK)
        rc = scan_records(r, &st, until, out);
    tfmt__bin_stream_close(&st);
    return rc;
}

void tfmt__bin_scan_free(tfmt_bin_scan *s)
{
    tfmt__free(s->alloc, s->threads);
    tfmt__tidmap_free(&s->map);
    memset(s, 0, sizeof *s);
}
