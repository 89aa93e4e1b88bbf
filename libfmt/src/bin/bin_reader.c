/* SPDX-License-Identifier: MIT */
/*
 * bin_reader.c - the public binary-log reader: opens a file (header, footer,
 * statistics, tables) and decodes sample records into tfmt_sample batches.
 *
 * Per-thread state is keyed by (thread id, interpreter id) and holds the
 * previous timestamp and stack, ROOT FIRST, so SUFFIX and POP_PUSH records
 * change only the end of the array. Decoding is strictly in file order and
 * linear in the region's size: every emitted timestamp consumes at least two
 * bytes, every record at least thirteen. Error texts follow CPython's.
 */
#include <stdio.h>

#include "bin_reader.h"

/* ---- errors located in the sample region ---- */

static int rec_fail(tfmt_bin_reader *r, int code, int check,
                    uint64_t region_off, const char *fmt, ...)
    TFMT_PRINTF(5, 6);

static int rec_fail(tfmt_bin_reader *r, int code, int check,
                    uint64_t region_off, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    uint64_t at = TFMT_BIN_HEADER_SIZE + region_off;
    if (r->stream.zstd)
        tfmt__error_at(&r->err, code, at,
                       "%s (offset in the decompressed sample data)", msg);
    else
        tfmt__error_at(&r->err, code, at, "%s", msg);
    r->err.check = check;
    r->state = code;
    return code;
}

/* A note located in the sample region, given once per kind (`*done`). */
static void region_note(tfmt_bin_reader *r, bool *done, tfmt_note kind,
                        uint64_t region_off, const char *msg)
{
    if (r->slice)
        r->odd = true;
    if (*done || !r->opts.on_note)
        return;
    *done = true;
    tfmt_error where;
    tfmt__error_at(&where, TFMT_EFORMAT, TFMT_BIN_HEADER_SIZE + region_off,
                   "%s%s", msg,
                   r->stream.zstd ? " (offset in the decompressed sample "
                                    "data)"
                                  : "");
    r->opts.on_note(r->opts.note_ctx, kind, &where);
}

/*
 * A timestamp past INT64_MAX: deltas that overflow a signed clock. CPython
 * reads timestamps as unsigned and so do we; validate warns.
 */
static void ts_check(tfmt_bin_reader *r, uint64_t region_off, uint64_t ts,
                     uint64_t delta)
{
    char msg[128];
    if ((ts | (delta & r->dmask)) <= INT64_MAX || r->noted_ts)
        return;
    if (r->slice) {
        r->odd = true;
        return;
    }
    snprintf(msg, sizeof msg,
             "timestamp %llu us is past 2^63-1: the "
             "deltas overflow a signed clock (read as unsigned, as CPython "
             "does)",
             (unsigned long long)ts);
    region_note(r, &r->noted_ts, TFMT_NOTE_TIMESTAMP, region_off, msg);
}

/* The first POP_PUSH that pops more than the stack holds (CPython reads
 * it as popping everything, so it is not an error). */
static void pop_beyond(tfmt_bin_reader *r, uint32_t pop, uint32_t depth,
                       uint64_t region_off)
{
    char msg[128];
    if (r->noted_pop)
        return;
    snprintf(msg, sizeof msg,
             "pop count %u exceeds current stack depth %u "
             "(read as popping all of it, as CPython does)",
             pop, depth);
    region_note(r, &r->noted_pop, TFMT_NOTE_POP_BEYOND, region_off, msg);
}

/* A varint result (0: ran out, -1: malformed) as an error. */
static int varint_fail(tfmt_bin_reader *r, int rc, uint64_t off,
                       const char *malformed, const char *ended)
{
    if (rc == 0)
        return rec_fail(r, TFMT_ETRUNC, TFMT_BCHK_RECORD, off, "%s", ended);
    return rec_fail(r, TFMT_EFORMAT, TFMT_BCHK_VARINT, off, "%s", malformed);
}

static uint64_t here(const tfmt_bin_reader *r, const uint8_t *p)
{
    const tfmt_bin_stream *s = &r->stream;
    return tfmt__bin_stream_offset(s) + (uint64_t)(p - s->pos);
}

/* ---- threads ---- */

static int new_thread(tfmt_bin_reader *r, uint64_t tid, uint32_t interp)
{
    if (tfmt__grow(r->alloc, (void **)&r->threads, &r->capthreads,
                   r->nthreads + 1, sizeof *r->threads) != TFMT_OK ||
        tfmt__tidmap_insert(&r->thread_map, tid, interp,
                            (uint32_t)r->nthreads) != TFMT_OK)
        return TFMT_ENOMEM;
    bin_thread *t = &r->threads[r->nthreads++];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    t->interp = interp;
    t->prev_ts = r->fx.info.start_time_us;
    return TFMT_OK;
}

/*
 * Find or create the record's thread; *out gets its index. New ones count
 * against the header's declared count, then against the reader's limit.
 */
static int get_thread(tfmt_bin_reader *r, const uint8_t *rec, uint32_t *out)
{
    uint64_t tid = tfmt__load64(rec, r->swap);
    uint32_t interp = tfmt__load32(rec + 8, r->swap);
    uint32_t id = tfmt__tidmap_find(&r->thread_map, tid, interp);
    if (id != UINT32_MAX) {
        *out = id;
        return TFMT_OK;
    }
    if (r->nthreads >= r->fx.info.thread_count)
        return rec_fail(r, TFMT_EFORMAT, TFMT_BCHK_THREAD_COUNT, here(r, rec),
                        "invalid thread count: sample data contains more "
                        "unique threads than declared in header (declared "
                        "%u, found at least %zu)",
                        r->fx.info.thread_count, r->nthreads + 1);
    if (r->nthreads >= r->max_threads) {
        rec_fail(r, TFMT_ELIMIT, TFMT_BCHK_THREAD_LIMIT, here(r, rec),
                 "thread limit exceeded: more than %u distinct threads",
                 r->max_threads);
        r->err.hint = TFMT_HINT_MAX_THREADS;
        return TFMT_ELIMIT;
    }
    if (new_thread(r, tid, interp) != TFMT_OK)
        return rec_fail(r, TFMT_ENOMEM, 0, here(r, rec), "out of memory");
    *out = (uint32_t)r->nthreads - 1;
    return TFMT_OK;
}

/* Room for `depth` frames in t's stack, kept (a call only to grow it). */
static int reserve_stack(tfmt_bin_reader *r, bin_thread *t, uint32_t depth)
{
    if (depth <= t->cap)
        return TFMT_OK;
    return tfmt__reserve_stack(r->alloc, &t->stack, &t->cap, depth);
}

/* ---- open / accessors ---- */

static int open_parts(tfmt_bin_reader *r, tfmt_source *src, tfmt_error *err)
{
    uint64_t size;
    int rc = tfmt__bin_precheck(src, err);
    if (rc == TFMT_OK)
        rc = tfmt__source_seekable(src, &size, err);
    if (rc != TFMT_OK && err && !err->check &&
        (rc == TFMT_EFORMAT || rc == TFMT_ETRUNC || rc == TFMT_ELIMIT))
        err->check = TFMT_BCHK_INPUT;
    if (rc == TFMT_OK)
        rc = tfmt__bin_read_fixed(&r->fx, src, size, r->opts.on_note,
                                  r->opts.note_ctx, err);
    if (rc == TFMT_OK)
        rc = tfmt__bin_load_tables(&r->tables, src, &r->fx, err);
    if (rc == TFMT_OK)
        rc = tfmt__bin_stream_open(&r->stream, src, &r->fx.info, r->alloc, err);
    return rc;
}

int tfmt_bin_open(tfmt_bin_reader **out, tfmt_source *src,
                  const tfmt_bin_options *opts, tfmt_error *err)
{
    const tfmt_allocator *a = opts ? opts->alloc : NULL;
    *out = NULL;
    tfmt__error_clear(err);
    if (!src)
        return tfmt__error(err, TFMT_EINVAL, "no source");
    tfmt_bin_reader *r = tfmt__calloc(a, 1, sizeof *r);
    if (!r)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    r->alloc = a;
    if (opts) {
        /* Field by field: an older caller's struct ends earlier. */
        r->opts.version = opts->version;
        r->opts.alloc = opts->alloc;
        r->opts.on_note = opts->on_note;
        r->opts.note_ctx = opts->note_ctx;
        if (opts->version >= 2)
            r->opts.max_threads = opts->max_threads;
    }
    r->max_threads =
        r->opts.max_threads ? r->opts.max_threads : TFMT_BIN_MAX_THREADS;
    r->tables.alloc = a;
    tfmt__tidmap_init(&r->thread_map, a);
    int rc = open_parts(r, src, err);
    if (rc != TFMT_OK) {
        tfmt__bin_hint(err, src);
        tfmt_bin_free(r);
        return rc;
    }
    r->swap = tfmt__load32(r->fx.header, false) == TFMT_BIN_MAGIC_SWAPPED;
    *out = r;
    return TFMT_OK;
}

const tfmt_info *tfmt_bin_info(const tfmt_bin_reader *r)
{
    return &r->fx.info;
}

int tfmt_bin_string(const tfmt_bin_reader *r, uint32_t index, tfmt_str *out)
{
    if (index >= r->tables.nstrings)
        return TFMT_EINVAL;
    out->ptr = (const char *)r->tables.strbytes + r->tables.stroff[index];
    out->len = r->tables.strlen_[index];
    return TFMT_OK;
}

const tfmt_frame *tfmt_bin_frame(const tfmt_bin_reader *r, uint32_t index)
{
    return index < r->tables.nframes ? &r->tables.frames[index] : NULL;
}

uint64_t tfmt_bin_samples_read(const tfmt_bin_reader *r)
{
    return r->samples_read;
}

uint64_t tfmt_bin_bytes_read(const tfmt_bin_reader *r)
{
    return tfmt__bin_stream_offset(&r->stream);
}

const tfmt_error *tfmt_bin_error(const tfmt_bin_reader *r)
{
    return &r->err;
}

void tfmt_bin_fingerprint(const tfmt_bin_reader *r, char out[33])
{
    const tfmt_bin_fixed *fx = &r->fx;
    uint64_t h[2];
    for (int i = 0; i < 2; i++) {
        uint64_t x = tfmt__hash_bytes(fx->header, sizeof fx->header, 11 + i);
        x ^= tfmt__hash_bytes(fx->footer, sizeof fx->footer, x);
        x ^= tfmt__hash_mix(fx->info.file_size + (uint64_t)i);
        h[i] =
            tfmt__hash_mix(x ^ r->tables.hash[i] ^ r->tables.hash[1 - i] * 31);
    }
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h[0],
             (unsigned long long)h[1]);
}

/* Feed [0, size) of `src` to `d`, a chunk at a time. */
static int digest_source(tfmt_source *src, uint64_t size, tfmt_digest *d,
                         const tfmt_allocator *a, tfmt_error *err)
{
    const uint8_t *mem = tfmt__source_memory(src, 0, (size_t)size);
    if (mem) {
        tfmt__digest_update(d, mem, (size_t)size);
        return TFMT_OK;
    }
    enum { CHUNK = 1 << 20 };
    uint8_t *buf = tfmt__malloc(a, CHUNK);
    if (!buf)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    int rc = TFMT_OK;
    for (uint64_t off = 0; off < size && rc == TFMT_OK; off += CHUNK) {
        size_t n = size - off < CHUNK ? (size_t)(size - off) : CHUNK;
        rc = tfmt__source_pread(src, buf, n, off, err);
        if (rc == TFMT_OK)
            tfmt__digest_update(d, buf, n);
    }
    tfmt__free(a, buf);
    return rc;
}

int tfmt_bin_run_id(tfmt_bin_reader *r, char out[33])
{
    tfmt_digest d;
    uint64_t h[2];
    out[0] = '\0';
    tfmt__digest_init(&d, TFMT_RUN_ID_VERSION);
    int rc = digest_source(r->stream.src, r->fx.info.file_size, &d, r->alloc,
                           &r->err);
    if (rc != TFMT_OK)
        return rc;
    tfmt__digest_final(&d, h);
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h[0],
             (unsigned long long)h[1]);
    return TFMT_OK;
}

void tfmt_bin_free(tfmt_bin_reader *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nthreads; i++)
        tfmt__free(r->alloc, r->threads[i].stack);
    tfmt__free(r->alloc, r->threads);
    tfmt__tidmap_free(&r->thread_map);
    tfmt__bin_stream_close(&r->stream);
    if (!r->slice)
        tfmt__bin_free_tables(&r->tables);
    tfmt__free(r->alloc, r);
}

/* ---- decoding ---- */

static void emit(tfmt_bin_reader *r, uint32_t ti, uint8_t status, uint8_t enc,
                 uint32_t weight, uint32_t unchanged)
{
    const bin_thread *t = &r->threads[ti];
    tfmt_sample *s = &r->sample;
    s->thread_id = t->tid;
    s->interpreter_id = t->interp;
    s->thread_index = ti;
    s->status = status;
    s->encoding = enc;
    s->continued = 0;
    s->weight = weight;
    s->timestamps = r->ts;
    s->stack = t->stack ? t->stack : r->empty; /* never NULL */
    s->depth = t->depth;
    s->unchanged = unchanged;
    r->samples_read += weight;
}

/*
 * Read `n` frame indices, innermost first, into dst[n - 1] .. dst[0] (root
 * first). Every varint is read before an index is judged, so a malformed
 * varint is reported before a bad index earlier in the record.
 */
static int read_stack(tfmt_bin_reader *r, const uint8_t **pp,
                      const uint8_t *end, uint32_t *dst, uint32_t n,
                      uint64_t at)
{
    uint32_t nframes = r->tables.nframes, bad = n;
    const uint8_t *ok = r->tables.frame_ok;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t f;
        int rc = tfmt__varint_u32(pp, end, &f);
        if (rc <= 0)
            return rec_fail(r, rc == 0 ? TFMT_ETRUNC : TFMT_EFORMAT,
                            rc == 0 ? TFMT_BCHK_RECORD : TFMT_BCHK_VARINT,
                            here(r, *pp),
                            "invalid or incomplete varint in binary data");
        dst[n - 1 - i] = f;
        if (bad == n && (f >= nframes || !ok[f]))
            bad = i;
    }
    if (bad == n)
        return TFMT_OK;
    uint32_t f = dst[n - 1 - bad];
    if (f >= nframes)
        return rec_fail(r, TFMT_EFORMAT, TFMT_BCHK_FRAME_INDEX, at,
                        "invalid frame index: %u", f);
    return rec_fail(r, TFMT_EFORMAT, TFMT_BCHK_STRING_INDEX, at,
                    "invalid string index in frame");
}

/* The fields every non-REPEAT record starts with, then two counts. */
typedef struct rec_head {
    uint64_t delta;
    uint8_t status;
    uint32_t a, b; /* depth | shared,new | pop,push */
} rec_head;

static int read_head(tfmt_bin_reader *r, const uint8_t **pp, const uint8_t *end,
                     rec_head *h, int counts)
{
    static const char MAL[] = "malformed varint in sample data";
    static const char END[] = "unexpected end of sample data";
    int rc = tfmt__varint_u64(pp, end, &h->delta);
    if (rc <= 0)
        return varint_fail(r, rc, here(r, *pp), MAL, END);
    if (*pp >= end)
        return varint_fail(r, 0, here(r, *pp), MAL, END);
    h->status = *(*pp)++;
    uint32_t *dst[2] = {&h->a, &h->b};
    for (int i = 0; i < counts; i++) {
        rc = tfmt__varint_u32(pp, end, dst[i]);
        if (rc <= 0)
            return varint_fail(r, rc, here(r, *pp), MAL, END);
    }
    return TFMT_OK;
}

static int decode_delta_record(tfmt_bin_reader *r, uint32_t ti, uint8_t enc,
                               const uint8_t *p, const uint8_t *end)
{
    bin_thread *t = &r->threads[ti];
    rec_head h;
    uint64_t at = here(r, r->stream.pos);
    int rc = read_head(r, &p, end, &h, enc == TFMT_ENC_FULL ? 1 : 2);
    if (rc != TFMT_OK)
        return rc;
    uint32_t keep, n;
    if (enc == TFMT_ENC_FULL) {
        if (h.a > TFMT_MAX_DEPTH)
            return rec_fail(r, TFMT_EFORMAT, TFMT_BCHK_DEPTH, at,
                            "stack depth %u exceeds capacity 256", h.a);
        keep = 0;
        n = h.a;
    } else if (enc == TFMT_ENC_SUFFIX) {
        if (h.a > t->depth)
            return rec_fail(r, TFMT_EFORMAT, TFMT_BCHK_DEPTH, at,
                            "shared count %u exceeds current stack depth %u",
                            h.a, t->depth);
        keep = h.a;
        n = h.b;
    } else {
        if (h.a > t->depth)
            pop_beyond(r, h.a, t->depth, at);
        keep = h.a >= t->depth ? 0 : t->depth - h.a;
        n = h.b;
    }
    if ((uint64_t)keep + n > TFMT_MAX_DEPTH)
        return rec_fail(r, TFMT_EFORMAT, TFMT_BCHK_DEPTH, at,
                        "final stack depth %llu exceeds capacity 256",
                        (unsigned long long)keep + n);
    /* The new frames go straight to their places: a failed record ends
     * the reader, so a half-written stack is never used. */
    if (reserve_stack(r, t, keep + n) != TFMT_OK)
        return rec_fail(r, TFMT_ENOMEM, 0, at, "out of memory");
    rc = n ? read_stack(r, &p, end, t->stack + keep, n, at) : TFMT_OK;
    if (rc != TFMT_OK)
        return rc;
    t->depth = keep + n;
    t->prev_ts += h.delta;
    ts_check(r, at, t->prev_ts, h.delta);
    r->ts[0] = t->prev_ts;
    r->stream.pos = p;
    emit(r, ti, h.status, enc, 1, keep);
    return TFMT_OK;
}

/* Read one (delta, status) pair of the open REPEAT record. */
static int read_pair(tfmt_bin_reader *r, uint64_t *ts, uint8_t *status)
{
    tfmt_bin_stream *s = &r->stream;
    int rc = tfmt__bin_stream_fill(s, MAX_PAIR, &r->err);
    if (rc != TFMT_OK)
        return r->state = rc;
    const uint8_t *p = s->pos;
    uint64_t delta;
    rc = tfmt__varint_u64(&p, s->end, &delta);
    if (rc > 0 && p >= s->end)
        rc = 0;
    if (rc <= 0)
        return varint_fail(r, rc, here(r, p),
                           "malformed varint in RLE sample data",
                           "unexpected end of sample data in RLE");
    *status = *p++;
    bin_thread *t = &r->threads[r->rep];
    t->prev_ts += delta;
    ts_check(r, here(r, s->pos), t->prev_ts, delta);
    s->pos = p;
    *ts = t->prev_ts;
    r->rep_left--;
    return TFMT_OK;
}

/*
 * Read pairs of the open REPEAT record into r->ts from *n on while at
 * least MAX_PAIR bytes are at hand, so no pair can run out of bytes: the
 * loop every REPEAT sample goes through. Stops at a status change (the
 * pair is kept pending) or at anything odd, which read_pair then reports.
 */
static void fast_pairs(tfmt_bin_reader *r, uint32_t *n, uint8_t *status)
{
    tfmt_bin_stream *s = &r->stream;
    bin_thread *t = &r->threads[r->rep];
    const uint8_t *p = s->pos, *end = s->end;
    uint64_t prev = t->prev_ts;
    uint32_t left = r->rep_left, k = *n;
    uint8_t cur = *status;
    uint64_t dmask = r->dmask;
    bool hit = false; /* a timestamp for ts_check: the first past 2^63-1 */
    uint64_t over = 0, over_d = 0;
    bool canon = true; /* every varint in its shortest form */
    while (left > 0 && k < BATCH && (size_t)(end - p) >= MAX_PAIR) {
        uint64_t d = p[0];
        if (d < 0x80) {
            p += 1;
        } else if (p[1] < 0x80) {
            d = (d & 0x7f) | (uint64_t)p[1] << 7;
            canon &= p[1] != 0;
            p += 2;
        } else {
            const uint8_t *q = p;
            if (tfmt__varint_u64(&q, end, &d) <= 0)
                break;
            canon &= q[-1] != 0;
            p = q;
        }
        uint8_t st = *p++;
        prev += d;
        if ((prev | (d & dmask)) > INT64_MAX && !hit) {
            hit = true;
            over = prev;
            over_d = d;
        }
        left--;
        r->st[k] = st;
        if (k > 0 && st != cur && !r->mixed) {
            r->have_pending = true;
            r->pend_ts = prev;
            r->pend_status = st;
            break;
        }
        cur = st;
        r->ts[k++] = prev;
    }
    if (hit)
        ts_check(r, here(r, s->pos), over, over_d);
    s->pos = p;
    t->prev_ts = prev;
    r->rep_left = left;
    *n = k;
    *status = cur;
    if (!canon)
        r->raw = NULL;
}

/* Emit the next run of equal status from the open REPEAT record. */
static int repeat_batch(tfmt_bin_reader *r)
{
    uint32_t n = 0;
    uint8_t status = 0;
    if (r->have_pending) {
        r->st[n] = r->pend_status;
        r->ts[n++] = r->pend_ts;
        status = r->pend_status;
        r->have_pending = false;
    }
    /* Only a mixed batch read whole by fast_pairs keeps its raw bytes. */
    r->raw = r->mixed && n == 0 ? r->stream.pos : NULL;
    while (r->rep_left > 0 && n < BATCH && !r->have_pending) {
        fast_pairs(r, &n, &status);
        if (r->rep_left == 0 || n == BATCH || r->have_pending)
            break;
        r->raw = NULL; /* read_pair may move the window */
        uint64_t ts = 0;
        uint8_t st = 0;
        int rc = read_pair(r, &ts, &st);
        if (rc != TFMT_OK)
            return rc;
        if (n > 0 && st != status && !r->mixed) {
            r->have_pending = true;
            r->pend_ts = ts;
            r->pend_status = st;
            break;
        }
        r->st[n] = st;
        status = st;
        r->ts[n++] = ts;
    }
    if (r->mixed)
        status = r->st[0];
    r->raw_len = r->raw ? (size_t)(r->stream.pos - r->raw) : 0;
    /* A run cut at BATCH goes on if the next pair keeps its status. */
    bool continued = r->rep_cut && status == r->cut_status;
    r->rep_cut = n == BATCH && r->rep_left > 0 && !r->have_pending;
    r->cut_status = r->mixed && n > 0 ? r->st[n - 1] : status;
    emit(r, r->rep, status, TFMT_ENC_REPEAT, n, r->threads[r->rep].depth);
    r->sample.continued = continued;
    return TFMT_OK;
}

/* Start a REPEAT record: on TFMT_OK, r->rep and r->rep_left are set. */
static int open_repeat(tfmt_bin_reader *r, uint32_t ti, const uint8_t *p,
                       const uint8_t *end)
{
    uint32_t count;
    int rc = tfmt__varint_u32(&p, end, &count);
    if (rc <= 0)
        return varint_fail(r, rc, here(r, p), "malformed varint for RLE count",
                           "unexpected end of sample data");
    tfmt_bin_stream *s = &r->stream;
    if (!s->zstd) {
        uint64_t left = s->end_in - TFMT_BIN_HEADER_SIZE - here(r, p);
        if (count > left / 2)
            return rec_fail(r, TFMT_EFORMAT, TFMT_BCHK_RLE, here(r, p),
                            "invalid RLE count %u exceeds maximum possible "
                            "%llu for remaining data",
                            count, (unsigned long long)(left / 2));
    }
    s->pos = p;
    r->rep = ti;
    r->rep_left = count;
    return TFMT_OK;
}

static int count_fail(tfmt_bin_reader *r, const char *fmt, ...)
    TFMT_PRINTF(2, 3);

static int count_fail(tfmt_bin_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tfmt__error_clear(&r->err);
    vsnprintf(r->err.msg, sizeof r->err.msg, fmt, ap);
    va_end(ap);
    r->err.code = TFMT_EFORMAT;
    r->err.has_offset = true;
    r->err.offset = 28;
    r->err.check = TFMT_BCHK_SAMPLE_COUNT;
    return r->state = TFMT_EFORMAT;
}

static int finish(tfmt_bin_reader *r)
{
    const tfmt_info *info = &r->fx.info;
    if (r->slice) { /* the caller adds the slices' counts */
        r->state = TFMT_DONE;
        return TFMT_DONE;
    }
    /* Located at the header's count field: one of the two is wrong. */
    if (r->samples_read != info->sample_count)
        return count_fail(r,
                          "sample count mismatch: header declares %llu "
                          "samples but replay decoded %llu",
                          (unsigned long long)info->sample_count,
                          (unsigned long long)r->samples_read);
    if (r->nthreads < info->thread_count && r->opts.on_note) {
        tfmt_error where;
        tfmt__error_at(&where, TFMT_EFORMAT,
                       r->fx.info.layout == TFMT_LAYOUT_U64_COUNT ? 36 : 32,
                       "header declares %u threads but the samples have "
                       "%zu",
                       info->thread_count, r->nthreads);
        r->opts.on_note(r->opts.note_ctx, TFMT_NOTE_THREAD_COUNT, &where);
    }
    r->state = TFMT_DONE;
    return TFMT_DONE;
}

/* Decode records until one emits samples or the region ends. */
static int next_record(tfmt_bin_reader *r)
{
    tfmt_bin_stream *s = &r->stream;
    for (;;) {
        if ((size_t)(s->end - s->pos) < MAX_RECORD && !s->eof) {
            int rc = tfmt__bin_stream_fill(s, MAX_RECORD, &r->err);
            if (rc != TFMT_OK)
                return r->state = rc;
        }
        int rc;
        size_t avail = (size_t)(s->end - s->pos);
        if (avail == 0)
            return finish(r);
        if (avail < TFMT_BIN_RECORD_HEADER)
            return rec_fail(r, TFMT_ETRUNC, TFMT_BCHK_RECORD, here(r, s->pos),
                            "truncated sample data: %zu trailing bytes", avail);
        const uint8_t *rec = s->pos;
        uint32_t t = 0;
        rc = get_thread(r, rec, &t);
        if (rc != TFMT_OK)
            return rc;
        uint8_t enc = rec[12];
        const uint8_t *p = rec + TFMT_BIN_RECORD_HEADER;
        if (enc == TFMT_ENC_REPEAT) {
            rc = open_repeat(r, t, p, s->end);
            if (rc != TFMT_OK || r->rep_left > 0)
                return rc == TFMT_OK ? repeat_batch(r) : rc;
            continue; /* a REPEAT of 0 samples emits nothing */
        }
        if (enc > TFMT_ENC_POP_PUSH)
            return rec_fail(r, TFMT_EFORMAT, TFMT_BCHK_ENCODING, here(r, rec),
                            "unknown stack encoding: %u", enc);
        return decode_delta_record(r, t, enc, p, s->end);
    }
}

void tfmt__bin_mixed_repeats(tfmt_bin_reader *r)
{
    r->mixed = true;
}

const uint8_t *tfmt__bin_statuses(const tfmt_bin_reader *r)
{
    return r->mixed && r->sample.encoding == TFMT_ENC_REPEAT ? r->st : NULL;
}

const uint8_t *tfmt__bin_raw_pairs(const tfmt_bin_reader *r, size_t *len)
{
    bool ok = r->mixed && r->sample.encoding == TFMT_ENC_REPEAT && r->raw;
    *len = ok ? r->raw_len : 0;
    return ok ? r->raw : NULL;
}

int tfmt_bin_next(tfmt_bin_reader *r, const tfmt_sample **out)
{
    *out = NULL;
    if (r->state != TFMT_OK)
        return r->state;
    int rc =
        (r->rep_left > 0 || r->have_pending) ? repeat_batch(r) : next_record(r);
    if (rc == TFMT_OK)
        *out = &r->sample;
    else if (rc < 0)
        tfmt__bin_hint(&r->err, NULL);
    return rc;
}
