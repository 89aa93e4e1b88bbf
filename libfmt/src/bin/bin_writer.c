/*
 * bin_writer.c - the binary log writer's life cycle and per-thread sample
 * encoding (REPEAT / FULL / SUFFIX / POP_PUSH), following CPython's writer
 * step for step so an uncompressed log is byte-identical to its output.
 */
#include "bin_writer.h"

#define SEED_THREAD 0x54485244ULL

int tfmt__bw_check_open(tfmt_bin_writer *w)
{
    if (w->finished)
        return tfmt__error(&w->err, TFMT_EINVAL, "writer already finished");
    if (w->failed)
        return w->failed;
    if (w->limit)
        return tfmt__error(&w->err, TFMT_ELIMIT,
                           "binary format limit reached earlier");
    return TFMT_OK;
}

int tfmt__bw_limit(tfmt_bin_writer *w, const char *what)
{
    w->limit = true;
    return tfmt__error(&w->err, TFMT_ELIMIT, "%s", what);
}

static int check_options(const tfmt_bin_writer_options *o, tfmt_error *err)
{
    if (o->version != TFMT_BIN_WRITER_OPTIONS_VERSION)
        return tfmt__error(err, TFMT_EINVAL,
                           "unknown writer options version %u", o->version);
    if (o->compression > TFMT_COMPRESSION_ZSTD)
        return tfmt__error(err, TFMT_EINVAL, "unknown compression %u",
                           o->compression);
    return TFMT_OK;
}

/* The 64 header bytes are written as zeros now and patched at finish. */
static int start(tfmt_bin_writer *w)
{
    int rc = tfmt__bw_out_init(w);
    if (rc != TFMT_OK)
        return rc == TFMT_ENOMEM ? tfmt__error(&w->err, rc, "out of memory")
                                 : rc;
    tfmt__bw_intern_init(w);
    tfmt__idset_init(&w->thread_set, w->alloc);
    uint8_t zero[TFMT_BW_HEADER_SIZE] = {0};
    rc = w->write(w->out_ctx, zero, sizeof zero, &w->err);
    w->pos = sizeof zero;
    return rc;
}

int tfmt__bin_writer_open_cb(tfmt_bin_writer **out, tfmt_bw_write_fn write,
                             tfmt_bw_pwrite_fn pwrite, void *ctx,
                             const tfmt_bin_writer_options *opts,
                             tfmt_error *err)
{
    tfmt_bin_writer_options dflt = TFMT_BIN_WRITER_OPTIONS_INIT;
    const tfmt_bin_writer_options *o = opts ? opts : &dflt;
    *out = NULL;
    int rc = check_options(o, err);
    if (rc != TFMT_OK)
        return rc;
    tfmt_bin_writer *w = tfmt__calloc(o->alloc, 1, sizeof *w);
    if (!w)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    w->alloc = o->alloc;
    w->opts = *o;
    w->write = write;
    w->pwrite = pwrite;
    w->out_ctx = ctx;
    w->max_strings = w->max_frames = w->max_threads = UINT32_MAX;
    rc = start(w);
    if (rc != TFMT_OK) {
        if (err)
            *err = w->err;
        tfmt_bin_writer_free(w);
        return rc;
    }
    *out = w;
    return TFMT_OK;
}

static int sink_write(void *ctx, const void *buf, size_t len,
                      tfmt_error *err)
{
    int rc = tfmt_sink_write(ctx, buf, len);
    if (rc != TFMT_OK)
        rc = tfmt__error_take(err, tfmt_sink_error(ctx), rc);
    return rc;
}

static int sink_pwrite(void *ctx, const void *buf, size_t len,
                       uint64_t offset, tfmt_error *err)
{
    int rc = tfmt_sink_pwrite(ctx, buf, len, offset);
    if (rc != TFMT_OK)
        rc = tfmt__error_take(err, tfmt_sink_error(ctx), rc);
    return rc;
}

int tfmt_bin_writer_open(tfmt_bin_writer **out, tfmt_sink *sink,
                         const tfmt_bin_writer_options *opts,
                         tfmt_error *err)
{
    *out = NULL;
    if (!sink)
        return tfmt__error(err, TFMT_EINVAL, "no sink");
    if (tfmt_sink_tell(sink) != 0)
        return tfmt__error(err, TFMT_EINVAL,
                           "a binary log must start at offset 0 of its sink");
    return tfmt__bin_writer_open_cb(out, sink_write, sink_pwrite, sink, opts,
                                    err);
}

void tfmt__bin_writer_set_limits(tfmt_bin_writer *w, uint32_t strings,
                                 uint32_t frames, uint32_t threads)
{
    w->max_strings = strings;
    w->max_frames = frames;
    w->max_threads = threads;
}

void tfmt_bin_writer_free(tfmt_bin_writer *w)
{
    if (!w)
        return;
    for (uint32_t i = 0; i < w->thread_count; i++) {
        tfmt__free(w->alloc, w->threads[i].stack);
        tfmt__free(w->alloc, w->threads[i].pending);
    }
    tfmt__free(w->alloc, w->threads);
    tfmt__idset_free(&w->thread_set);
    tfmt__bw_intern_free(w);
    tfmt__bw_out_free(w);
    tfmt__free(w->alloc, w);
}

uint64_t tfmt_bin_writer_samples(const tfmt_bin_writer *w)
{
    return w->samples;
}

const tfmt_error *tfmt_bin_writer_error(const tfmt_bin_writer *w)
{
    return &w->err;
}

const tfmt_bw_counts *tfmt__bin_writer_counts(const tfmt_bin_writer *w)
{
    return &w->counts;
}

/* ---- threads ---- */

typedef struct thread_key {
    uint64_t tid;
    uint32_t iid;
} thread_key;

static uint64_t thread_hash(uint64_t tid, uint32_t iid)
{
    return tfmt__hash_mix(tid ^ tfmt__hash_mix(iid + SEED_THREAD));
}

static bool thread_eq(const void *ctx, uint32_t id, const void *key)
{
    const tfmt_bw_thread *t = &((const tfmt_bin_writer *)ctx)->threads[id];
    const thread_key *k = key;
    return t->thread_id == k->tid && t->interpreter_id == k->iid;
}

static tfmt_bw_thread *find_thread(tfmt_bin_writer *w, uint64_t tid,
                                   uint32_t iid)
{
    thread_key k = {tid, iid};
    uint32_t id = tfmt__idset_find(&w->thread_set, thread_hash(tid, iid), &k,
                                   thread_eq, w);
    return id == UINT32_MAX ? NULL : &w->threads[id];
}

/* A new thread starts at the header's start time with an empty stack. */
static int add_thread(tfmt_bin_writer *w, uint64_t tid, uint32_t iid,
                      tfmt_bw_thread **out)
{
    if (w->thread_count >= w->max_threads)
        return tfmt__bw_limit(w, "too many threads for binary format");
    size_t need = (size_t)w->thread_count + 1;
    if (tfmt__grow(w->alloc, (void **)&w->threads, &w->thread_cap, need,
                   sizeof *w->threads) != TFMT_OK)
        return tfmt__error(&w->err, TFMT_ENOMEM, "out of memory");
    tfmt_bw_thread *t = &w->threads[w->thread_count];
    memset(t, 0, sizeof *t);
    t->thread_id = tid;
    t->interpreter_id = iid;
    t->prev_ts = w->opts.start_time_us;
    t->stack = tfmt__malloc(w->alloc, TFMT_MAX_DEPTH * sizeof *t->stack);
    if (!t->stack ||
        tfmt__idset_insert(&w->thread_set, thread_hash(tid, iid),
                           w->thread_count) != TFMT_OK) {
        tfmt__free(w->alloc, t->stack);
        return tfmt__error(&w->err, TFMT_ENOMEM, "out of memory");
    }
    w->thread_count++;
    *out = t;
    return TFMT_OK;
}

/* ---- records ---- */

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
    int rc = tfmt__bw_out_put(w, head, n);
    if (rc == TFMT_OK)
        rc = tfmt__bw_out_put(w, t->pending, t->pending_bytes);
    w->counts.records[TFMT_ENC_REPEAT]++;
    w->counts.repeat_samples += t->pending_count;
    t->pending_bytes = 0;
    t->pending_count = 0;
    return rc;
}

int tfmt__bin_writer_flush_thread(tfmt_bin_writer *w, uint64_t thread_id,
                                  uint32_t interpreter_id)
{
    int rc = tfmt__bw_check_open(w);
    if (rc != TFMT_OK && rc != TFMT_ELIMIT)
        return rc;
    tfmt_bw_thread *t = find_thread(w, thread_id, interpreter_id);
    return t ? flush_pending(w, t) : TFMT_OK;
}

int tfmt__bw_flush_all(tfmt_bin_writer *w)
{
    int rc = TFMT_OK;
    for (uint32_t i = 0; i < w->thread_count && rc == TFMT_OK; i++)
        rc = flush_pending(w, &w->threads[i]);
    return rc;
}

/* Buffer one REPEAT pair; flush the group first when it could overflow. */
static int add_repeat(tfmt_bin_writer *w, tfmt_bw_thread *t, uint64_t delta,
                      uint8_t status)
{
    if (!t->pending) {
        t->pending = tfmt__malloc(w->alloc, TFMT_BW_RLE_SIZE);
        if (!t->pending)
            return tfmt__error(&w->err, TFMT_ENOMEM, "out of memory");
    }
    if (t->pending_bytes + TFMT_BW_RLE_ENTRY > TFMT_BW_RLE_SIZE) {
        int rc = flush_pending(w, t);
        if (rc != TFMT_OK)
            return rc;
    }
    t->pending_bytes += tfmt__varint_encode(t->pending + t->pending_bytes,
                                            delta);
    t->pending[t->pending_bytes++] = status;
    t->pending_count++;
    return TFMT_OK;
}

typedef struct stack_delta {
    int enc;
    uint32_t shared, pop, push;
} stack_delta;

/* CPython's compare_stacks(); both stacks innermost first. */
static stack_delta compare_stacks(const uint32_t *prev, uint32_t pdepth,
                                  const uint32_t *cur, uint32_t cdepth)
{
    stack_delta d = {TFMT_ENC_FULL, 0, pdepth, cdepth};
    uint32_t min = pdepth < cdepth ? pdepth : cdepth;
    while (d.shared < min &&
           prev[pdepth - 1 - d.shared] == cur[cdepth - 1 - d.shared])
        d.shared++;
    d.pop = pdepth - d.shared;
    d.push = cdepth - d.shared;
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

static int put_record(tfmt_bin_writer *w, const tfmt_bw_thread *t,
                      uint64_t delta, uint8_t status, const uint32_t *cur,
                      uint32_t depth, const stack_delta *d)
{
    uint8_t b[TFMT_BW_RECORD_HEAD + 11 + 10 + TFMT_MAX_DEPTH * 5];
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
    for (uint32_t i = 0; i < count; i++)
        n += tfmt__varint_encode(b + n, cur[i]);
    w->counts.records[d->enc]++;
    return tfmt__bw_out_put(w, b, n);
}

static int encode(tfmt_bin_writer *w, tfmt_bw_thread *t, uint64_t ts,
                  uint8_t status, const uint32_t *cur, uint32_t depth)
{
    uint64_t delta = ts - t->prev_ts;
    stack_delta d = compare_stacks(t->stack, t->depth, cur, depth);
    int rc;
    if (d.enc == TFMT_ENC_REPEAT) {
        rc = add_repeat(w, t, delta, status);
    } else {
        rc = flush_pending(w, t);
        if (rc == TFMT_OK)
            rc = put_record(w, t, delta, status, cur, depth, &d);
        memcpy(t->stack, cur, depth * sizeof *cur);
        t->depth = depth;
    }
    if (rc == TFMT_OK)
        t->prev_ts = ts;
    return rc;
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
    /* Keep the innermost frames, stored innermost first. */
    uint32_t keep = depth < TFMT_MAX_DEPTH ? depth : TFMT_MAX_DEPTH;
    uint32_t cur[TFMT_MAX_DEPTH];
    for (uint32_t i = 0; i < keep; i++) {
        cur[i] = stack[depth - 1 - i];
        if (cur[i] >= w->frame_count)
            return tfmt__error(&w->err, TFMT_EINVAL,
                               "stack names unknown frame %u", cur[i]);
    }
    if (w->samples == UINT64_MAX)
        return tfmt__bw_limit(w, "too many samples for binary format");
    tfmt_bw_thread *t = find_thread(w, thread_id, interpreter_id);
    if (!t) {
        rc = add_thread(w, thread_id, interpreter_id, &t);
        if (rc != TFMT_OK)
            return rc;
    }
    rc = encode(w, t, timestamp_us, status, cur, keep);
    if (rc != TFMT_OK)
        return w->failed ? w->failed : rc;
    w->samples++;
    return TFMT_OK;
}
