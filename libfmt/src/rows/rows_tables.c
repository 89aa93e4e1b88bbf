/* SPDX-License-Identifier: MIT */
/*
 * rows_tables.c - what the rows reader keeps across rows: its string and
 * frame tables (rows repeat every string, so each is interned by content
 * once), the runs by run id, and the (run, row) pairs seen, which is how a
 * run loaded twice is caught. Each grows with unique content, the pairs
 * with the rows (8 bytes a slot at load <= 1/2).
 */
#include "rows_internal.h"

#define STRING_SEED 0x726f7773ULL
#define RUN_SEED 0x72756e73ULL

typedef struct strkey {
    const char *s;
    size_t len;
} strkey;

static bool string_eq(const void *ctx, uint32_t id, const void *key)
{
    const tfmt_rows_reader *r = ctx;
    const strkey *k = key;
    return r->strings[id].len == k->len &&
           memcmp(r->strtext.data + r->strings[id].off, k->s, k->len) == 0;
}

int tfmt__rows_intern_string(tfmt_rows_reader *r, const char *s, size_t len,
                             uint32_t *out)
{
    strkey k = {s, len};
    uint64_t h = tfmt__hash_text(s, len, STRING_SEED);
    uint32_t id = tfmt__idset_find(&r->string_set, h, &k, string_eq, r);
    if (id != UINT32_MAX) {
        *out = id;
        return TFMT_OK;
    }
    if (len > UINT32_MAX || r->nstrings >= UINT32_MAX - 1)
        return TFMT_ELIMIT;
    if (tfmt__grow(r->alloc, (void **)&r->strings, &r->capstrings,
                   r->nstrings + 1, sizeof *r->strings) != TFMT_OK)
        return TFMT_ENOMEM;
    id = (uint32_t)r->nstrings;
    uint64_t off = r->strtext.len;
    if (tfmt__buf_put(&r->strtext, s, len) != TFMT_OK ||
        tfmt__idset_insert(&r->string_set, h, id) != TFMT_OK)
        return TFMT_ENOMEM;
    r->strings[id].off = off;
    r->strings[id].len = (uint32_t)len;
    r->nstrings++;
    *out = id;
    return TFMT_OK;
}

static bool frame_eq(const void *ctx, uint32_t id, const void *key)
{
    return tfmt__frame_same(&((const tfmt_rows_reader *)ctx)->frames[id], key);
}

int tfmt__rows_intern_frame(tfmt_rows_reader *r, const tfmt_frame *f,
                            uint32_t *out)
{
    uint64_t h = tfmt__frame_hash(f);
    uint32_t id = tfmt__idset_find(&r->frame_set, h, f, frame_eq, r);
    if (id != UINT32_MAX) {
        *out = id;
        return TFMT_OK;
    }
    if (r->nframes >= UINT32_MAX - 1)
        return TFMT_ELIMIT;
    if (tfmt__grow(r->alloc, (void **)&r->frames, &r->capframes, r->nframes + 1,
                   sizeof *r->frames) != TFMT_OK)
        return TFMT_ENOMEM;
    id = (uint32_t)r->nframes;
    if (tfmt__idset_insert(&r->frame_set, h, id) != TFMT_OK)
        return TFMT_ENOMEM;
    r->frames[id] = *f;
    r->nframes++;
    *out = id;
    return TFMT_OK;
}

static bool run_eq(const void *ctx, uint32_t id, const void *key)
{
    const tfmt_rows_reader *r = ctx;
    return memcmp(r->runs[id].run_id, key, 32) == 0;
}

int tfmt__rows_run(tfmt_rows_reader *r, const char *run_id, uint64_t line,
                   uint32_t *out, bool *created)
{
    uint64_t h = tfmt__hash_text(run_id, 32, RUN_SEED);
    uint32_t id = tfmt__idset_find(&r->run_set, h, run_id, run_eq, r);
    *created = id == UINT32_MAX;
    if (!*created) {
        *out = id;
        return TFMT_OK;
    }
    if (r->nruns >= UINT32_MAX - 1)
        return TFMT_ELIMIT;
    if (tfmt__grow(r->alloc, (void **)&r->runs, &r->capruns, r->nruns + 1,
                   sizeof *r->runs) != TFMT_OK)
        return TFMT_ENOMEM;
    id = (uint32_t)r->nruns;
    if (tfmt__idset_insert(&r->run_set, h, id) != TFMT_OK)
        return TFMT_ENOMEM;
    tfmt_rows_run *run = &r->runs[id];
    memset(run, 0, sizeof *run);
    memcpy(run->run_id, run_id, 32);
    run->first_line = line;
    r->nruns++;
    *out = id;
    return TFMT_OK;
}

/* Open addressing on the pair + 1 (0 marks an empty slot). */
static size_t seen_slot(const tfmt_rseen *t, size_t cap, uint64_t key)
{
    size_t i = (size_t)(tfmt__hash_key(key) & (cap - 1));
    while (t[i].key != 0 && t[i].key != key)
        i = (i + 1) & (cap - 1);
    return i;
}

static int seen_grow(tfmt_rows_reader *r)
{
    size_t ncap = r->seen_cap ? r->seen_cap * 2 : 1024;
    if (ncap > SIZE_MAX / sizeof(tfmt_rseen))
        return TFMT_ENOMEM;
    tfmt_rseen *t = tfmt__calloc(r->alloc, ncap, sizeof *t);
    if (!t)
        return TFMT_ENOMEM;
    for (size_t i = 0; i < r->seen_cap; i++)
        if (r->seen[i].key)
            t[seen_slot(t, ncap, r->seen[i].key)] = r->seen[i];
    tfmt__free(r->alloc, r->seen);
    r->seen = t;
    r->seen_cap = ncap;
    return TFMT_OK;
}

int tfmt__rows_seen(tfmt_rows_reader *r, uint32_t run, uint32_t row,
                    uint64_t content, tfmt_rcopy *out)
{
    uint64_t key = ((uint64_t)run << 32 | row) + 1;
    if ((r->seen_count + 1) * 2 > r->seen_cap && seen_grow(r) != TFMT_OK)
        return TFMT_ENOMEM;
    size_t i = seen_slot(r->seen, r->seen_cap, key);
    if (r->seen[i].key != key) {
        r->seen[i].key = key;
        r->seen[i].content = content;
        r->seen_count++;
        *out = TFMT_RCOPY_NEW;
    } else {
        *out =
            r->seen[i].content == content ? TFMT_RCOPY_SAME : TFMT_RCOPY_OTHER;
    }
    return TFMT_OK;
}

/* Runs that describe one recording: start time, interval and mode. */
static uint64_t recording_hash(const tfmt_rows_run *run)
{
    uint64_t k[3] = {run->start_time_us, run->interval_us,
                     (uint64_t)(int64_t)run->mode};
    return tfmt__hash_text(k, sizeof k, RUN_SEED + 1);
}

/*
 * Two runs that may be one recording under two run ids: the same start
 * time, interval and mode, and ids that the same log could have been
 * given twice. A derived id is the same for the same log, so two
 * different ids of one version come from two logs (or synthetic logs that
 * share a start time); ids of two versions (0.1 and 0.2), or two chosen
 * ones (--run-id random twice), can name one log.
 */
static bool recording_eq(const void *ctx, uint32_t id, const void *key)
{
    const tfmt_rows_run *a = key;
    const tfmt_rows_run *b = &((const tfmt_rows_reader *)ctx)->runs[id];
    return a->start_time_us == b->start_time_us &&
           a->interval_us == b->interval_us && a->mode == b->mode &&
           (a->run_id_version != b->run_id_version || a->run_id_version == 0);
}

int tfmt__rows_twin(tfmt_rows_reader *r, uint32_t run)
{
    tfmt_rows_run *x = &r->runs[run];
    if (x->start_time_us == 0) /* no start time: nothing to tell */
        return TFMT_OK;
    uint64_t h = recording_hash(x);
    uint32_t id = tfmt__idset_find(&r->recording_set, h, x, recording_eq, r);
    if (id != UINT32_MAX)
        x->twin = id + 1;
    return tfmt__idset_insert(&r->recording_set, h, run);
}

void tfmt__rows_tables_free(tfmt_rows_reader *r)
{
    tfmt__buf_free(&r->strtext);
    tfmt__free(r->alloc, r->strings);
    tfmt__idset_free(&r->string_set);
    tfmt__free(r->alloc, r->frames);
    tfmt__idset_free(&r->frame_set);
    tfmt__free(r->alloc, r->runs);
    tfmt__idset_free(&r->run_set);
    tfmt__idset_free(&r->recording_set);
    tfmt__free(r->alloc, r->seen);
}
