/* SPDX-License-Identifier: MIT */
/*
 * bin_copy_fast.c - the copy's fast path: records decoded straight from
 * the reader's window into the writer, without a tfmt_sample per batch
 * and the status and timestamp arrays behind it.
 *
 * A record is taken only when it is whole in the window and nothing in
 * it is remarkable: its thread and the writer's twin of it known, every
 * varint complete and in range, every frame valid, no count beyond what
 * the reader allows, no timestamp past 2^63-1, no pop beyond the stack.
 * Any other record, and so every error and every note with its message
 * and offset, is left to tfmt_bin_next. The two paths keep the same
 * state (the reader's threads, position and sample count; the copier's
 * pending group), so they take turns record by record.
 */
#include "bin_copy.h"
#include "bin_reader.h"

/* The writer thread of reader thread `ti`, or UINT32_MAX before its
 * first batch (which tfmt_bin_next and copy_batch handle). */
static uint32_t writer_twin(const copier *c, uint32_t ti)
{
    return ti < c->nwt ? c->wt[ti] : UINT32_MAX;
}

/*
 * One (delta, status) pair at p, complete before `end`, with the delta in
 * its shortest form (the copy hands the bytes on as they are); NULL when
 * not so.
 */
static const uint8_t *pair(const uint8_t *p, const uint8_t *end, uint64_t *d)
{
    size_t left = (size_t)(end - p);
    if (left >= 2 && p[0] < 0x80) {
        *d = p[0];
        return p + 2;
    }
    if (left >= 3 && p[1] < 0x80) {
        *d = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
        return p[1] ? p + 3 : NULL;
    }
    const uint8_t *q = p;
    if (tfmt__varint_u64(&q, end, d) <= 0 || q >= end || q[-1] == 0)
        return NULL;
    return q + 1;
}

/*
 * A REPEAT record of `count` pairs from p: its bytes end at the returned
 * pointer, the thread's clock at *last. NULL unless every pair is whole,
 * shortest-form and keeps the clock at most 2^63-1 (`seen` gathers the
 * clock's bits, so one test at the end tells).
 */
static const uint8_t *scan_pairs(const uint8_t *p, const uint8_t *end,
                                 uint32_t count, uint64_t prev, uint64_t *last)
{
    uint64_t seen = 0;
    uint32_t i = 0;
    /* With MAX_PAIR bytes at hand no pair can run out of bytes. */
    for (; i < count && (size_t)(end - p) >= MAX_PAIR; i++) {
        uint64_t d = p[0];
        if (d < 0x80) {
            p += 2;
        } else if (p[1] < 0x80) {
            if (!p[1])
                return NULL;
            d = (d & 0x7f) | (uint64_t)p[1] << 7;
            p += 3;
        } else {
            const uint8_t *q = p;
            if (tfmt__varint_u64(&q, end, &d) <= 0 || q[-1] == 0)
                return NULL;
            p = q + 1;
        }
        prev += d;
        seen |= prev;
    }
    for (; i < count && p; i++) {
        uint64_t d = 0;
        p = pair(p, end, &d);
        prev += d;
        seen |= prev;
    }
    *last = prev;
    return seen > INT64_MAX ? NULL : p;
}

/*
 * Does the writer's group for the REPEAT record at rec end with it? Yes
 * when the next record, at next, is in the window and is not a REPEAT of
 * the same thread (the same thread and interpreter bytes), which would
 * add its pairs to the group.
 */
static bool group_ends(const tfmt_bin_stream *s, const uint8_t *rec,
                       const uint8_t *next)
{
    if ((size_t)(s->end - next) < TFMT_BIN_RECORD_HEADER)
        return false;
    return next[12] != TFMT_ENC_REPEAT || memcmp(next, rec, 12) != 0;
}

/* A REPEAT record of thread ti at rec; *took when it was copied. */
static int fast_repeat(copier *c, uint32_t ti, uint32_t wti, const uint8_t *rec,
                       bool *took)
{
    tfmt_bin_reader *r = c->r;
    tfmt_bin_stream *s = &r->stream;
    const uint8_t *p = rec + TFMT_BIN_RECORD_HEADER;
    uint32_t count;
    if (tfmt__varint_u32(&p, s->end, &count) <= 0 || count == 0)
        return TFMT_OK;
    if (!s->zstd) {
        /* open_repeat's bound on the count */
        uint64_t at = tfmt__bin_stream_offset(s) + (uint64_t)(p - s->pos);
        if (count > (s->end_in - TFMT_BIN_HEADER_SIZE - at) / 2)
            return TFMT_OK;
    }
    bin_thread *t = &r->threads[ti];
    uint64_t last;
    const uint8_t *q = scan_pairs(p, s->end, count, t->prev_ts, &last);
    if (!q)
        return TFMT_OK;
    t->prev_ts = last;
    r->samples_read += count;
    s->pos = q;
    *took = true;
    int rc = tfmt__copy_place_repeats(c, true, wti);
    bool done = false;
    if (rc == TFMT_OK && group_ends(s, rec, q)) {
        rc = tfmt__bw_repeat_group(c->w, wti, p, (size_t)(q - p), count, last,
                                   &done);
        c->pending = !done;
    }
    if (rc == TFMT_OK && !done)
        rc = tfmt__bw_repeat_raw(c->w, wti, p, (size_t)(q - p), count, last);
    return rc;
}

/* The fields of a FULL, SUFFIX or POP_PUSH record before its frames. */
typedef struct head {
    uint64_t delta;
    uint8_t status;
    uint32_t keep, n; /* frames kept from the previous stack, new ones */
} head;

/*
 * Read the head of a record of encoding `enc` for thread t: false when
 * a varint is incomplete or out of range, or the counts are ones the
 * reader reports or notes (decode_delta_record's rules).
 */
static bool read_head(const bin_thread *t, uint8_t enc, const uint8_t **pp,
                      const uint8_t *end, head *h)
{
    uint32_t a, b = 0;
    if (tfmt__varint_u64(pp, end, &h->delta) <= 0 || *pp >= end)
        return false;
    h->status = *(*pp)++;
    if (tfmt__varint_u32(pp, end, &a) <= 0)
        return false;
    if (enc != TFMT_ENC_FULL && tfmt__varint_u32(pp, end, &b) <= 0)
        return false;
    if (enc == TFMT_ENC_FULL) {
        h->keep = 0;
        h->n = a;
    } else {
        if (a > t->depth)
            return false;
        h->keep = enc == TFMT_ENC_SUFFIX ? a : t->depth - a;
        h->n = b;
    }
    return (uint64_t)h->keep + h->n <= TFMT_MAX_DEPTH;
}

/*
 * Read h->n frame indices, innermost first, into dst[n - 1] .. dst[0]:
 * false unless every one is a complete varint naming a valid frame.
 */
static bool read_frames(const tfmt_bin_reader *r, const uint8_t **pp,
                        const uint8_t *end, uint32_t *dst, uint32_t n)
{
    uint32_t nframes = r->tables.nframes;
    const uint8_t *ok = r->tables.frame_ok;
    for (uint32_t i = n; i-- > 0;) {
        uint32_t f;
        if (tfmt__varint_u32(pp, end, &f) <= 0 || f >= nframes || !ok[f])
            return false;
        dst[i] = f;
    }
    return true;
}

/*
 * A FULL, SUFFIX or POP_PUSH record of thread ti. The new frames go to
 * the thread's stack before the record is judged: if it is declined,
 * tfmt_bin_next decodes the same record over them, from the same depth.
 */
static int fast_delta(copier *c, uint32_t ti, uint32_t wti, uint8_t enc,
                      const uint8_t *rec, bool *took)
{
    tfmt_bin_reader *r = c->r;
    tfmt_bin_stream *s = &r->stream;
    bin_thread *t = &r->threads[ti];
    const uint8_t *p = rec + TFMT_BIN_RECORD_HEADER;
    head h;
    if (!read_head(t, enc, &p, s->end, &h))
        return TFMT_OK;
    uint32_t depth = h.keep + h.n;
    if (depth > t->cap &&
        tfmt__reserve_stack(r->alloc, &t->stack, &t->cap, depth) != TFMT_OK)
        return TFMT_OK;
    if (!read_frames(r, &p, s->end, t->stack + h.keep, h.n) ||
        t->prev_ts + h.delta > INT64_MAX || t->prev_ts + h.delta < t->prev_ts)
        return TFMT_OK;
    t->depth = depth;
    t->prev_ts += h.delta;
    r->samples_read++;
    s->pos = p;
    *took = true;
    int rc = tfmt__copy_place_repeats(c, false, wti);
    if (rc == TFMT_OK)
        rc = tfmt__copy_map_tail(c, t->stack, depth, h.keep);
    if (rc == TFMT_OK)
        rc = tfmt__bw_sample_tail(c->w, wti, t->prev_ts, h.status, h.keep,
                                  c->fresh, depth);
    return rc;
}

/* Copy the record at the reader's position if it can be taken whole. */
static int fast_record(copier *c, bool *took)
{
    tfmt_bin_reader *r = c->r;
    tfmt_bin_stream *s = &r->stream;
    *took = false;
    /* A window about to run dry is refilled by tfmt_bin_next. */
    if ((size_t)(s->end - s->pos) < MAX_RECORD && !s->eof)
        return TFMT_OK;
    if ((size_t)(s->end - s->pos) < TFMT_BIN_RECORD_HEADER)
        return TFMT_OK;
    const uint8_t *rec = s->pos;
    uint32_t ti = tfmt__tidmap_find(&r->thread_map, tfmt__load64(rec, r->swap),
                                    tfmt__load32(rec + 8, r->swap));
    uint32_t wti = ti == UINT32_MAX ? UINT32_MAX : writer_twin(c, ti);
    uint8_t enc = rec[12];
    if (wti == UINT32_MAX || enc > TFMT_ENC_POP_PUSH)
        return TFMT_OK;
    if (enc == TFMT_ENC_REPEAT)
        return fast_repeat(c, ti, wti, rec, took);
    return fast_delta(c, ti, wti, enc, rec, took);
}

int tfmt__copy_fast(copier *c)
{
    tfmt_bin_reader *r = c->r;
    /* Only between records: an open REPEAT is the reader's to finish. */
    if (r->state != TFMT_OK || !r->mixed || r->rep_left > 0 || r->have_pending)
        return TFMT_OK;
    for (;;) {
        bool took;
        int rc = fast_record(c, &took);
        if (rc != TFMT_OK || !took)
            return rc;
    }
}
