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

#include "bin_internal.h"

/* Largest record that is not a REPEAT: 13 + 3 varints + status + 256. */
#define MAX_RECORD (TFMT_BIN_RECORD_HEADER + 3 * 10 + 1 + TFMT_MAX_DEPTH * 10)
#define MAX_PAIR 11u
#define BATCH 4096u

typedef struct bin_thread {
    uint64_t tid;
    uint32_t interp;
    uint32_t index;
    uint64_t prev_ts;
    uint32_t depth;
    uint32_t stack[TFMT_MAX_DEPTH];
} bin_thread;

struct tfmt_bin_reader {
    const tfmt_allocator *alloc;
    tfmt_bin_options opts;
    tfmt_bin_fixed fx;
    tfmt_bin_tables tables;
    tfmt_bin_stream stream;
    bool swap;
    bin_thread **threads;
    size_t nthreads, capthreads;
    tfmt_idset thread_set;
    /* An open REPEAT record: its thread, pairs left, a read-ahead pair. */
    bin_thread *rep;
    uint32_t rep_left;
    bool have_pending;
    uint64_t pend_ts;
    uint8_t pend_status;
    uint64_t ts[BATCH];
    uint32_t fresh[TFMT_MAX_DEPTH];
    tfmt_sample sample;
    uint64_t samples_read;
    bool noted_pop;             /* TFMT_NOTE_POP_BEYOND given */
    bool noted_ts;              /* TFMT_NOTE_TIMESTAMP given */
    int state;                  /* TFMT_OK, TFMT_DONE or the error code */
    tfmt_error err;
};

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
    if (*done || !r->opts.on_note)
        return;
    *done = true;
    tfmt_error where;
    tfmt__error_at(&where, TFMT_EFORMAT, TFMT_BIN_HEADER_SIZE + region_off,
                   "%s%s", msg,
                   r->stream.zstd ? " (offset in the decompressed sample "
                                    "data)" : "");
    r->opts.on_note(r->opts.note_ctx, kind, &where);
}

/*
 * A timestamp past INT64_MAX: deltas that overflow a signed clock. CPython
 * reads timestamps as unsigned and so do we; validate warns.
 */
static void ts_check(tfmt_bin_reader *r, uint64_t region_off, uint64_t ts)
{
    char msg[128];
    if (ts <= INT64_MAX || r->noted_ts)
        return;
    snprintf(msg, sizeof msg, "timestamp %llu us is past 2^63-1: the "
             "deltas overflow a signed clock (read as unsigned, as CPython "
             "does)", (unsigned long long)ts);
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
    snprintf(msg, sizeof msg, "pop count %u exceeds current stack depth %u "
             "(read as popping all of it, as CPython does)", pop, depth);
    region_note(r, &r->noted_pop, TFMT_NOTE_POP_BEYOND, region_off, msg);
}

/* A varint result (0: ran out, -1: malformed) as an error. */
static int varint_fail(tfmt_bin_reader *r, int rc, uint64_t off,
                       const char *malformed, const char *ended)
{
    if (rc == 0)
        return rec_fail(r, TFMT_ETRUNC, TFMT_BCHK_RECORD, off, "%s", ended);
    return rec_fail(r, TFMT_EFORMAT, TFMT_BCHK_VARINT, off, "%s",
                    malformed);
}

static uint64_t here(const tfmt_bin_reader *r, const uint8_t *p)
{
    const tfmt_bin_stream *s = &r->stream;
    return tfmt__bin_stream_offset(s) + (uint64_t)(p - s->pos);
}

/* ---- threads ---- */

typedef struct thread_key {
    uint64_t tid;
    uint32_t interp;
} thread_key;

static bool thread_eq(const void *ctx, uint32_t id, const void *key)
{
    const tfmt_bin_reader *r = ctx;
    const thread_key *k = key;
    return r->threads[id]->tid == k->tid && r->threads[id]->interp == k->interp;
}

static uint64_t thread_hash(const thread_key *k)
{
    return tfmt__hash_mix(k->tid ^ tfmt__hash_mix(k->interp + 1));
}

static int new_thread(tfmt_bin_reader *r, const thread_key *k, uint64_t h,
                      bin_thread **out)
{
    if (tfmt__grow(r->alloc, (void **)&r->threads, &r->capthreads,
                   r->nthreads + 1, sizeof *r->threads) != TFMT_OK)
        return TFMT_ENOMEM;
    bin_thread *t = tfmt__calloc(r->alloc, 1, sizeof *t);
    if (!t)
        return TFMT_ENOMEM;
    t->tid = k->tid;
    t->interp = k->interp;
    t->index = (uint32_t)r->nthreads;
    t->prev_ts = r->fx.info.start_time_us;
    r->threads[r->nthreads++] = t;
    if (tfmt__idset_insert(&r->thread_set, h, t->index) != TFMT_OK)
        return TFMT_ENOMEM;
    *out = t;
    return TFMT_OK;
}

/* Find or create the record's thread; new ones count against the header. */
static int get_thread(tfmt_bin_reader *r, const uint8_t *rec,
                      bin_thread **out)
{
    thread_key k = {tfmt__load64(rec, r->swap), tfmt__load32(rec + 8, r->swap)};
    uint64_t h = thread_hash(&k);
    uint32_t id = tfmt__idset_find(&r->thread_set, h, &k, thread_eq, r);
    if (id != UINT32_MAX) {
        *out = r->threads[id];
        return TFMT_OK;
    }
    if (r->nthreads >= r->fx.info.thread_count)
        return rec_fail(r, TFMT_EFORMAT, TFMT_BCHK_THREAD_COUNT,
                        here(r, rec),
                        "invalid thread count: sample data contains more "
                        "unique threads than declared in header (declared "
                        "%u, found at least %zu)", r->fx.info.thread_count,
                        r->nthreads + 1);
    if (new_thread(r, &k, h, out) != TFMT_OK)
        return rec_fail(r, TFMT_ENOMEM, 0, here(r, rec), "out of memory");
    return TFMT_OK;
}

/* ---- open / accessors ---- */

static int open_parts(tfmt_bin_reader *r, tfmt_source *src, tfmt_error *err)
{
    uint64_t size;
    int rc = tfmt__bin_precheck(src, err);
    if (rc == TFMT_OK)
        rc = tfmt__source_seekable(src, &size, err);
    if (rc != TFMT_OK && err && !err->check && (rc == TFMT_EFORMAT ||
        rc == TFMT_ETRUNC || rc == TFMT_ELIMIT))
        err->check = TFMT_BCHK_INPUT;
    if (rc == TFMT_OK)
        rc = tfmt__bin_read_fixed(&r->fx, src, size, r->opts.on_note,
                                  r->opts.note_ctx, err);
    if (rc == TFMT_OK)
        rc = tfmt__bin_load_tables(&r->tables, src, &r->fx, err);
    if (rc == TFMT_OK)
        rc = tfmt__bin_stream_open(&r->stream, src, &r->fx.info, r->alloc,
                                   err);
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
    if (opts)
        r->opts = *opts;
    r->tables.alloc = a;
    tfmt__idset_init(&r->thread_set, a);
    int rc = open_parts(r, src, err);
    if (rc != TFMT_OK) {
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
        h[i] = tfmt__hash_mix(x ^ r->tables.hash[i] ^ r->tables.hash[1 - i]
                                                         * 31);
    }
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h[0],
             (unsigned long long)h[1]);
}

void tfmt_bin_free(tfmt_bin_reader *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nthreads; i++)
        tfmt__free(r->alloc, r->threads[i]);
    tfmt__free(r->alloc, r->threads);
    tfmt__idset_free(&r->thread_set);
    tfmt__bin_stream_close(&r->stream);
    tfmt__bin_free_tables(&r->tables);
    tfmt__free(r->alloc, r);
}

/* ---- decoding ---- */

static void emit(tfmt_bin_reader *r, bin_thread *t, uint8_t status,
                 uint8_t enc, uint32_t weight, uint32_t unchanged)
{
    tfmt_sample *s = &r->sample;
    s->thread_id = t->tid;
    s->interpreter_id = t->interp;
    s->thread_index = t->index;
    s->status = status;
    s->encoding = enc;
    s->weight = weight;
    s->timestamps = r->ts;
    s->stack = t->stack;
    s->depth = t->depth;
    s->unchanged = unchanged;
    r->samples_read += weight;
}

/* Check frame indices that enter a stack (kept ones were checked before). */
static int check_fresh(tfmt_bin_reader *r, uint32_t n, uint64_t off)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t f = r->fresh[i];
        if (f >= r->tables.nframes)
            return rec_fail(r, TFMT_EFORMAT, TFMT_BCHK_FRAME_INDEX, off,
                            "invalid frame index: %u", f);
        if (!r->tables.frame_ok[f])
            return rec_fail(r, TFMT_EFORMAT, TFMT_BCHK_STRING_INDEX, off,
                            "invalid string index in frame");
    }
    return TFMT_OK;
}

/* Read `n` frame indices (innermost first) into r->fresh. */
static int read_indices(tfmt_bin_reader *r, const uint8_t **pp,
                        const uint8_t *end, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        int rc = tfmt__varint_u32(pp, end, &r->fresh[i]);
        if (rc <= 0)
            return rec_fail(r, rc == 0 ? TFMT_ETRUNC : TFMT_EFORMAT,
                            rc == 0 ? TFMT_BCHK_RECORD : TFMT_BCHK_VARINT,
                            here(r, *pp),
                            "invalid or incomplete varint in binary data");
    }
    return TFMT_OK;
}

/* The fields every non-REPEAT record starts with, then two counts. */
typedef struct rec_head {
    uint64_t delta;
    uint8_t status;
    uint32_t a, b;              /* depth | shared,new | pop,push */
} rec_head;

static int read_head(tfmt_bin_reader *r, const uint8_t **pp,
                     const uint8_t *end, rec_head *h, int counts)
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

/*
 * Replace the innermost part of t's stack: keep `keep` outermost frames,
 * then the `n` fresh indices (stored innermost first) in root-first order.
 */
static void apply_stack(tfmt_bin_reader *r, bin_thread *t, uint32_t keep,
                        uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        t->stack[keep + n - 1 - i] = r->fresh[i];
    t->depth = keep + n;
}

static int decode_delta_record(tfmt_bin_reader *r, bin_thread *t,
                               uint8_t enc, const uint8_t *p,
                               const uint8_t *end)
{
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
    rc = read_indices(r, &p, end, n);
    if (rc == TFMT_OK)
        rc = check_fresh(r, n, at);
    if (rc != TFMT_OK)
        return rc;
    apply_stack(r, t, keep, n);
    t->prev_ts += h.delta;
    ts_check(r, at, t->prev_ts);
    r->ts[0] = t->prev_ts;
    r->stream.pos = p;
    emit(r, t, h.status, enc, 1, keep);
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
    r->rep->prev_ts += delta;
    ts_check(r, here(r, s->pos), r->rep->prev_ts);
    s->pos = p;
    *ts = r->rep->prev_ts;
    r->rep_left--;
    return TFMT_OK;
}

/* Emit the next run of equal status from the open REPEAT record. */
static int repeat_batch(tfmt_bin_reader *r)
{
    uint32_t n = 0;
    uint8_t status = 0;
    if (r->have_pending) {
        r->ts[n++] = r->pend_ts;
        status = r->pend_status;
        r->have_pending = false;
    }
    while (r->rep_left > 0 && n < BATCH) {
        uint64_t ts = 0;
        uint8_t st = 0;
        int rc = read_pair(r, &ts, &st);
        if (rc != TFMT_OK)
            return rc;
        if (n > 0 && st != status) {
            r->have_pending = true;
            r->pend_ts = ts;
            r->pend_status = st;
            break;
        }
        status = st;
        r->ts[n++] = ts;
    }
    bin_thread *t = r->rep;
    emit(r, t, status, TFMT_ENC_REPEAT, n, t->depth);
    return TFMT_OK;
}

/* Start a REPEAT record: on TFMT_OK, r->rep and r->rep_left are set. */
static int open_repeat(tfmt_bin_reader *r, bin_thread *t, const uint8_t *p,
                       const uint8_t *end)
{
    uint32_t count;
    int rc = tfmt__varint_u32(&p, end, &count);
    if (rc <= 0)
        return varint_fail(r, rc, here(r, p),
                           "malformed varint for RLE count",
                           "unexpected end of sample data");
    tfmt_bin_stream *s = &r->stream;
    if (!s->zstd) {
        uint64_t left = s->end_in - TFMT_BIN_HEADER_SIZE - here(r, p);
        if (count > left / 2)
            return rec_fail(r, TFMT_EFORMAT, TFMT_BCHK_RLE, here(r, p),
                            "invalid RLE count %u exceeds maximum possible "
                            "%llu for remaining data", count,
                            (unsigned long long)(left / 2));
    }
    s->pos = p;
    r->rep = t;
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
    /* Located at the header's count field: one of the two is wrong. */
    if (r->samples_read != info->sample_count)
        return count_fail(r,
                        "sample count mismatch: header declares %llu "
                        "samples but replay decoded %llu",
                        (unsigned long long)info->sample_count,
                        (unsigned long long)r->samples_read);
    if (r->nthreads < info->thread_count && r->opts.on_note) {
        tfmt_error where;
        tfmt__error_at(&where, TFMT_EFORMAT, r->fx.info.layout ==
                       TFMT_LAYOUT_U64_COUNT ? 36 : 32,
                       "header declares %u threads but the samples have "
                       "%zu", info->thread_count, r->nthreads);
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
        int rc = tfmt__bin_stream_fill(s, MAX_RECORD, &r->err);
        if (rc != TFMT_OK)
            return r->state = rc;
        size_t avail = (size_t)(s->end - s->pos);
        if (avail == 0)
            return finish(r);
        if (avail < TFMT_BIN_RECORD_HEADER)
            return rec_fail(r, TFMT_ETRUNC, TFMT_BCHK_RECORD, here(r, s->pos),
                            "truncated sample data: %zu trailing bytes",
                            avail);
        const uint8_t *rec = s->pos;
        bin_thread *t = NULL;
        rc = get_thread(r, rec, &t);
        if (rc != TFMT_OK)
            return rc;
        uint8_t enc = rec[12];
        const uint8_t *p = rec + TFMT_BIN_RECORD_HEADER;
        if (enc == TFMT_ENC_REPEAT) {
            rc = open_repeat(r, t, p, s->end);
            if (rc != TFMT_OK || r->rep_left > 0)
                return rc == TFMT_OK ? repeat_batch(r) : rc;
            continue;   /* a REPEAT of 0 samples emits nothing */
        }
        if (enc > TFMT_ENC_POP_PUSH)
            return rec_fail(r, TFMT_EFORMAT, TFMT_BCHK_ENCODING, here(r, rec),
                            "unknown stack encoding: %u", enc);
        return decode_delta_record(r, t, enc, p, s->end);
    }
}

int tfmt_bin_next(tfmt_bin_reader *r, const tfmt_sample **out)
{
    *out = NULL;
    if (r->state != TFMT_OK)
        return r->state;
    int rc = (r->rep_left > 0 || r->have_pending) ? repeat_batch(r)
                                                   : next_record(r);
    if (rc == TFMT_OK)
        *out = &r->sample;
    return rc;
}
