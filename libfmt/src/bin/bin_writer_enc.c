/* SPDX-License-Identifier: MIT */
/*
 * bin_writer_enc.c - the writer's per-thread sample encoding (REPEAT /
 * FULL / SUFFIX / POP_PUSH), following CPython's writer step for step so
 * an uncompressed log is byte-identical to its output.
 *
 * Each thread keeps its previous stack root first: CPython compares
 * stacks from the root, so the frames a caller knows to be unchanged (a
 * copy knows them from the reader) are a prefix the comparison can skip.
 * That is what keeps a copy's cost flat in the stack depth.
 */
#include "bin_writer.h"

/* ---- threads ---- */

/* A new thread starts at the header's start time with an empty stack. */
static int add_thread(tfmt_bin_writer *w, uint64_t tid, uint32_t iid,
                      uint32_t *out)
{
    if (w->thread_count >= w->max_threads)
        return tfmt__bw_limit(w, "too many threads for binary format");
    size_t need = (size_t)w->thread_count + 1;
    if (tfmt__grow(w->alloc, (void **)&w->threads, &w->thread_cap, need,
                   sizeof *w->threads) != TFMT_OK ||
        tfmt__tidmap_insert(&w->thread_map, tid, iid, w->thread_count) !=
            TFMT_OK)
        return tfmt__error(&w->err, TFMT_ENOMEM, "out of memory");
    tfmt_bw_thread *t = &w->threads[w->thread_count];
    memset(t, 0, sizeof *t);
    t->thread_id = tid;
    t->interpreter_id = iid;
    t->prev_ts = w->opts.start_time_us;
    *out = w->thread_count++;
    return TFMT_OK;
}

int tfmt__bw_thread(tfmt_bin_writer *w, uint64_t thread_id,
                    uint32_t interpreter_id, uint32_t *out)
{
    uint32_t id = tfmt__tidmap_find(&w->thread_map, thread_id, interpreter_id);
    if (id != UINT32_MAX) {
        *out = id;
        return TFMT_OK;
    }
    return add_thread(w, thread_id, interpreter_id, out);
}

/* Room for `depth` frames in t's stack, kept. */
static int reserve_stack(tfmt_bin_writer *w, tfmt_bw_thread *t, uint32_t depth)
{
    if (tfmt__reserve_stack(w->alloc, &t->stack, &t->cap, depth) != TFMT_OK)
        return tfmt__error(&w->err, TFMT_ENOMEM, "out of memory");
    return TFMT_OK;
}

/* ---- records ---- */

/* tfmt__bw_check_open's answer when it is TFMT_OK, without the call. */
static bool is_open(const tfmt_bin_writer *w)
{
    return !w->finished && !w->failed && !w->limit;
}

static size_t record_head(uint8_t *b, const tfmt_bw_thread *t, int enc)
{
    memcpy(b, &t->thread_id, 8);
    memcpy(b + 8, &t->interpreter_id, 4);
    b[12] = (uint8_t)enc;
    return TFMT_BW_RECORD_HEAD;
}

static int flush_pending(tfmt_bin_writer *w, tfmt_bw_thread *t)
{
    if (!t->pending_count)
        return TFMT_OK;
    uint8_t head[TFMT_BW_RECORD_HEAD + 5];
    size_t n = record_head(head, t, TFMT_ENC_REPEAT);
    n += tfmt__varint_encode(head + n, t->pending_count);
    int rc = tfmt__bw_put(w, head, n);
    if (rc == TFMT_OK)
        rc = tfmt__bw_put(w, t->pending, t->pending_bytes);
    w->counts.records[TFMT_ENC_REPEAT]++;
    w->counts.repeat_samples += t->pending_count;
    t->pending_bytes = 0;
    t->pending_count = 0;
    return rc;
}

int tfmt__bw_flush_index(tfmt_bin_writer *w, uint32_t ti)
{
    int rc = is_open(w) ? TFMT_OK : tfmt__bw_check_open(w);
    if (rc != TFMT_OK && rc != TFMT_ELIMIT)
        return rc;
    return ti < w->thread_count ? flush_pending(w, &w->threads[ti]) : TFMT_OK;
}

int tfmt__bin_writer_flush_thread(tfmt_bin_writer *w, uint64_t thread_id,
                                  uint32_t interpreter_id)
{
    uint32_t ti = tfmt__tidmap_find(&w->thread_map, thread_id, interpreter_id);
    return tfmt__bw_flush_index(w, ti);
}

int tfmt__bw_flush_all(tfmt_bin_writer *w)
{
    int rc = TFMT_OK;
    for (uint32_t i = 0; i < w->thread_count && rc == TFMT_OK; i++)
        rc = flush_pending(w, &w->threads[i]);
    return rc;
}

/* Room for `want` more pair bytes (at most the group's limit). */
static int reserve_pairs(tfmt_bin_writer *w, tfmt_bw_thread *t, uint64_t want)
{
    uint64_t need = t->pending_bytes + want;
    if (need <= t->pending_cap)
        return TFMT_OK;
    uint32_t cap = t->pending_cap ? t->pending_cap : 64;
    while (cap < need && cap < TFMT_BW_RLE_SIZE)
        cap *= 2;
    cap = cap < TFMT_BW_RLE_SIZE ? cap : TFMT_BW_RLE_SIZE;
    uint8_t *p = tfmt__realloc(w->alloc, t->pending, cap);
    if (!p)
        return tfmt__error(&w->err, TFMT_ENOMEM, "out of memory");
    t->pending = p;
    t->pending_cap = cap;
    return TFMT_OK;
}

/* Buffer one REPEAT pair; flush the group first when it could overflow. */
static int add_repeat(tfmt_bin_writer *w, tfmt_bw_thread *t, uint64_t delta,
                      uint8_t status)
{
    if (t->pending_bytes + TFMT_BW_RLE_ENTRY > TFMT_BW_RLE_SIZE) {
        int rc = flush_pending(w, t);
        if (rc != TFMT_OK)
            return rc;
    }
    int rc = reserve_pairs(w, t, TFMT_BW_RLE_ENTRY);
    if (rc != TFMT_OK)
        return rc;
    t->pending_bytes +=
        (uint32_t)tfmt__varint_encode(t->pending + t->pending_bytes, delta);
    t->pending[t->pending_bytes++] = status;
    t->pending_count++;
    return TFMT_OK;
}

typedef struct stack_delta {
    int enc;
    uint32_t shared, pop, push;
} stack_delta;

/* CPython's choice of encoding, given the stacks' common root part. */
static stack_delta choose(uint32_t pdepth, uint32_t cdepth, uint32_t shared)
{
    stack_delta d = {TFMT_ENC_FULL, shared, pdepth - shared, cdepth - shared};
    if (d.pop == 0 && d.push == 0)
        d.enc = TFMT_ENC_REPEAT;
    else if (d.shared == 0)
        d.enc = TFMT_ENC_FULL;
    else if (d.pop == 0)
        d.enc = TFMT_ENC_SUFFIX;
    else if (d.shared < cdepth / 2)
        d.enc = TFMT_ENC_FULL;
    else
        d.enc = TFMT_ENC_POP_PUSH;
    return d;
}

/* The largest record: head, delta, status, two counts, 256 frames. */
#define MAX_RECORD_BYTES                                                       \
    (TFMT_BW_RECORD_HEAD + 10 + 1 + 2 * 5 + TFMT_MAX_DEPTH * 5)

/*
 * `cur` is the new stack, root first. A record that fits the output
 * buffer is encoded in place (the buffer is then handed on when exactly
 * full, as tfmt__bw_out_put does).
 */
static int put_record(tfmt_bin_writer *w, const tfmt_bw_thread *t,
                      uint64_t delta, uint8_t status, const uint32_t *cur,
                      uint32_t depth, const stack_delta *d)
{
    uint8_t tmp[MAX_RECORD_BYTES];
    bool direct = TFMT_BW_BUFFER_SIZE - w->buf_len >= MAX_RECORD_BYTES;
    uint8_t *b = direct ? w->buf + w->buf_len : tmp;
    size_t n = record_head(b, t, d->enc);
    n += tfmt__varint_encode(b + n, delta);
    b[n++] = status;
    uint32_t count = depth;
    if (d->enc == TFMT_ENC_FULL) {
        n += tfmt__varint_encode(b + n, depth);
    } else {
        uint32_t first = d->enc == TFMT_ENC_SUFFIX ? d->shared : d->pop;
        n += tfmt__varint_encode(b + n, first);
        n += tfmt__varint_encode(b + n, d->push);
        count = d->push;
    }
    /* Frames innermost first. */
    for (uint32_t i = 0; i < count; i++)
        n += tfmt__varint_encode(b + n, cur[depth - 1 - i]);
    w->counts.records[d->enc]++;
    if (!direct)
        return tfmt__bw_out_put(w, tmp, n);
    w->buf_len += n;
    return w->buf_len == TFMT_BW_BUFFER_SIZE ? tfmt__bw_out_flush(w) : TFMT_OK;
}

static int count_samples(tfmt_bin_writer *w, uint64_t n)
{
    if (n > UINT64_MAX - w->samples)
        return tfmt__bw_limit(w, "too many samples for binary format");
    w->samples += n;
    return TFMT_OK;
}

/*
 * add_repeat for a run of samples: the pairs are encoded straight into
 * the group's buffer while it has room, and the group is written where
 * CPython's 16 KiB rule says (before a pair that might not fit).
 */
int tfmt__bw_repeat(tfmt_bin_writer *w, uint32_t ti, const uint64_t *ts,
                    const uint8_t *st, uint32_t n, uint8_t status)
{
    int rc = tfmt__bw_check_open(w);
    if (rc == TFMT_OK)
        rc = count_samples(w, n);
    tfmt_bw_thread *t = &w->threads[ti];
    uint64_t prev = t->prev_ts;
    for (uint32_t i = 0; i < n && rc == TFMT_OK;) {
        if (t->pending_bytes + TFMT_BW_RLE_ENTRY > TFMT_BW_RLE_SIZE)
            rc = flush_pending(w, t);
        if (rc == TFMT_OK)
            rc = reserve_pairs(w, t, (uint64_t)(n - i) * TFMT_BW_RLE_ENTRY);
        if (rc != TFMT_OK)
            break;
        uint8_t *p = t->pending + t->pending_bytes;
        const uint8_t *lim = t->pending + t->pending_cap - TFMT_BW_RLE_ENTRY;
        uint32_t from = i;
        for (; i < n && p <= lim; i++) {
            p += tfmt__varint_encode(p, ts[i] - prev);
            *p++ = st ? st[i] : status;
            prev = ts[i];
        }
        t->pending_bytes = (uint32_t)(p - t->pending);
        t->pending_count += i - from;
    }
    t->prev_ts = prev;
    return rc != TFMT_OK && w->failed ? w->failed : rc;
}

/* The bytes of the (delta, status) pair at p: a varint, then a byte. */
static uint32_t pair_len(const uint8_t *p)
{
    uint32_t n = 0;
    while (p[n] & 0x80)
        n++;
    return n + 2;
}

/*
 * How many of the n pairs at raw start at or before `room` bytes into
 * them, and their bytes in *bytes. Every pair is at least two bytes, so
 * when the last one must start in time all do, without walking them.
 */
static uint32_t pairs_in(const uint8_t *raw, size_t len, uint32_t n,
                         uint64_t room, uint32_t *bytes)
{
    if (len <= room + 2) {
        *bytes = (uint32_t)len;
        return n;
    }
    uint32_t j = 0, b = 0;
    while (j < n && b <= room) {
        b += pair_len(raw + b);
        j++;
    }
    *bytes = b;
    return j;
}

/*
 * The usual raw batch: the writer is open and the pairs go into the
 * thread's open group whole, every one starting before CPython's cut.
 */
static bool raw_fits(const tfmt_bin_writer *w, const tfmt_bw_thread *t,
                     size_t len, uint32_t n)
{
    uint64_t end = (uint64_t)t->pending_bytes + len;
    return is_open(w) && n <= UINT64_MAX - w->samples &&
           end <= t->pending_cap &&
           end <= TFMT_BW_RLE_SIZE - TFMT_BW_RLE_ENTRY + 2;
}

int tfmt__bw_repeat_raw(tfmt_bin_writer *w, uint32_t ti, const uint8_t *raw,
                        size_t len, uint32_t n, uint64_t last)
{
    tfmt_bw_thread *t = &w->threads[ti];
    if (raw_fits(w, t, len, n)) {
        memcpy(t->pending + t->pending_bytes, raw, len);
        t->pending_bytes += (uint32_t)len;
        t->pending_count += n;
        w->samples += n;
        t->prev_ts = last;
        return TFMT_OK;
    }
    int rc = tfmt__bw_check_open(w);
    if (rc == TFMT_OK)
        rc = count_samples(w, n);
    /* A pair may start at this offset at most (CPython's 16 KiB rule). */
    const uint32_t last_start = TFMT_BW_RLE_SIZE - TFMT_BW_RLE_ENTRY;
    for (uint32_t i = 0; i < n && rc == TFMT_OK;) {
        if (t->pending_bytes > last_start)
            rc = flush_pending(w, t);
        if (rc != TFMT_OK)
            break;
        /* The pairs that start at or before last_start go in as one span. */
        uint32_t bytes;
        uint32_t j = i + pairs_in(raw, len, n - i,
                                  last_start - t->pending_bytes, &bytes);
        rc = reserve_pairs(w, t, bytes);
        if (rc != TFMT_OK)
            break;
        memcpy(t->pending + t->pending_bytes, raw, bytes);
        raw += bytes;
        len -= bytes;
        t->pending_bytes += bytes;
        t->pending_count += j - i;
        i = j;
    }
    if (rc == TFMT_OK)
        t->prev_ts = last;
    return rc != TFMT_OK && w->failed ? w->failed : rc;
}

int tfmt__bw_repeat_group(tfmt_bin_writer *w, uint32_t ti, const uint8_t *raw,
                          size_t len, uint32_t n, uint64_t last, bool *done)
{
    tfmt_bw_thread *t = &w->threads[ti];
    *done = false;
    /* An open group, or pairs past CPython's cut: tfmt__bw_repeat_raw. */
    if (!is_open(w) || t->pending_count || n > UINT64_MAX - w->samples ||
        len > TFMT_BW_RLE_SIZE - TFMT_BW_RLE_ENTRY + 2)
        return TFMT_OK;
    uint8_t head[TFMT_BW_RECORD_HEAD + 5];
    size_t h = record_head(head, t, TFMT_ENC_REPEAT);
    h += tfmt__varint_encode(head + h, n);
    int rc = tfmt__bw_put(w, head, h);
    if (rc == TFMT_OK)
        rc = tfmt__bw_put(w, raw, len);
    w->counts.records[TFMT_ENC_REPEAT]++;
    w->counts.repeat_samples += n;
    w->samples += n;
    t->prev_ts = last;
    *done = true;
    return rc;
}

/* The first frame at or after `from` where the stacks differ. */
static uint32_t common_root(const tfmt_bw_thread *t, uint32_t from,
                            const uint32_t *fresh, uint32_t depth)
{
    uint32_t min = t->depth < depth ? t->depth : depth;
    uint32_t i = from;
    while (i < min && t->stack[i] == fresh[i - from])
        i++;
    return i;
}

int tfmt__bw_sample_tail(tfmt_bin_writer *w, uint32_t ti, uint64_t ts,
                         uint8_t status, uint32_t keep, const uint32_t *fresh,
                         uint32_t depth)
{
    int rc = is_open(w) ? TFMT_OK : tfmt__bw_check_open(w);
    if (rc == TFMT_OK)
        rc = count_samples(w, 1);
    if (rc != TFMT_OK)
        return rc;
    tfmt_bw_thread *t = &w->threads[ti];
    uint64_t delta = ts - t->prev_ts;
    stack_delta d = choose(t->depth, depth, common_root(t, keep, fresh, depth));
    if (d.enc == TFMT_ENC_REPEAT) {
        rc = add_repeat(w, t, delta, status);
    } else {
        rc = depth <= t->cap ? TFMT_OK : reserve_stack(w, t, depth);
        if (rc == TFMT_OK)
            rc = flush_pending(w, t);
        if (rc == TFMT_OK) {
            /* A few frames as a rule: no memcpy call. */
            for (uint32_t i = keep; i < depth; i++)
                t->stack[i] = fresh[i - keep];
            t->depth = depth;
            rc = put_record(w, t, delta, status, t->stack, depth, &d);
        }
    }
    if (rc == TFMT_OK)
        t->prev_ts = ts;
    return rc != TFMT_OK && w->failed ? w->failed : rc;
}

int tfmt_bin_writer_sample(tfmt_bin_writer *w, uint64_t thread_id,
                           uint32_t interpreter_id, uint64_t timestamp_us,
                           uint8_t status, const uint32_t *stack,
                           uint32_t depth)
{
    int rc = tfmt__bw_check_open(w);
    if (rc != TFMT_OK)
        return rc;
    if (depth && !stack)
        return tfmt__error(&w->err, TFMT_EINVAL, "null stack");
    /* Keep the innermost frames. */
    uint32_t keep = depth < TFMT_MAX_DEPTH ? depth : TFMT_MAX_DEPTH;
    const uint32_t *cur = depth ? stack + (depth - keep) : stack;
    for (uint32_t i = keep; i-- > 0;)
        if (cur[i] >= w->frame_count)
            return tfmt__error(&w->err, TFMT_EINVAL,
                               "stack names unknown frame %u", cur[i]);
    if (w->samples == UINT64_MAX)
        return tfmt__bw_limit(w, "too many samples for binary format");
    uint32_t ti;
    rc = tfmt__bw_thread(w, thread_id, interpreter_id, &ti);
    if (rc == TFMT_OK)
        rc = tfmt__bw_sample_tail(w, ti, timestamp_us, status, 0, cur, keep);
    return rc;
}
