/*
 * flat_jsonl.c - add a JSONL export to a flat profile. JSONL carries only
 * per-frame aggregates: self adds up exactly; cumulative is summed per key
 * and capped at the input's samples_total (see fmt_flat.h for why it can
 * double count recursion under a coarse key).
 */
#include "flat_internal.h"

#define UNRESOLVED (TFMT_FLAT_NONE - 1)

/*
 * An id -> slot index over JSONL ids (which are only trusted as numbers).
 * Exporters number ids densely from 0, so small ids index an array
 * directly (4 bytes an id, one memory access); the array only grows to
 * twice the entries stored (plus a little), so a huge id from a hostile
 * file cannot make it large: such ids go to the hash set instead. An id
 * lives in one of the two; lookups try both.
 */
typedef struct jtable {
    const tfmt_allocator *alloc;
    uint32_t *direct;       /* id -> slot, TFMT_FLAT_NONE: absent */
    size_t ndirect;
    tfmt_idset set;         /* other ids, by slot */
    uint32_t *ids;          /* slot -> id */
    size_t n, cap;
} jtable;

typedef struct jframe {
    uint32_t path, func;    /* JSONL string ids */
    int32_t line;
    uint32_t key;           /* flat key, TFMT_FLAT_NONE, or UNRESOLVED */
} jframe;

typedef struct jstate {
    tfmt_flat *f;
    jtable strs, frames;
    uint32_t *sid;          /* per string slot: rewritten flat string */
    jframe *fr;             /* per frame slot */
    size_t cap_sid, cap_fr;
    uint64_t samples_total, interval_us;
} jstate;

static bool jid_eq(const void *ctx, uint32_t slot, const void *key)
{
    const jtable *t = ctx;
    return t->ids[slot] == *(const uint32_t *)key;
}

static uint32_t jtable_find(const jtable *t, uint32_t id)
{
    if (id < t->ndirect && t->direct[id] != TFMT_FLAT_NONE)
        return t->direct[id];
    if (!t->set.count)
        return TFMT_FLAT_NONE;
    return tfmt__idset_find(&t->set, tfmt__hash_mix(id), &id, jid_eq, t);
}

/* Cover id in the direct array if that keeps it within its bound. */
static int direct_cover(jtable *t, uint32_t id, bool *covered)
{
    *covered = id < t->ndirect;
    if (*covered || id >= t->n * 2 + 4096)
        return TFMT_OK;
    size_t old = t->ndirect, need = (size_t)id + 1;
    if (tfmt__grow(t->alloc, (void **)&t->direct, &t->ndirect, need,
                   sizeof *t->direct) < 0)
        return TFMT_ENOMEM;
    memset(t->direct + old, 0xff, (t->ndirect - old) * sizeof *t->direct);
    *covered = true;
    return TFMT_OK;
}

/* Add `id`; *slot = its new slot, or TFMT_FLAT_NONE if already there. */
static int jtable_add(jtable *t, uint32_t id, uint32_t *slot)
{
    *slot = TFMT_FLAT_NONE;
    if (jtable_find(t, id) != TFMT_FLAT_NONE)
        return TFMT_OK;     /* duplicate ids: the first one wins */
    bool covered;
    if (t->n >= UINT32_MAX - 2 || direct_cover(t, id, &covered) < 0 ||
        tfmt__grow(t->alloc, (void **)&t->ids, &t->cap, t->n + 1,
                   sizeof *t->ids) < 0)
        return TFMT_ENOMEM;
    if (covered)
        t->direct[id] = (uint32_t)t->n;
    else if (tfmt__idset_insert(&t->set, tfmt__hash_mix(id),
                                (uint32_t)t->n) < 0)
        return TFMT_ENOMEM;
    t->ids[t->n] = id;
    *slot = (uint32_t)t->n++;
    return TFMT_OK;
}

static void jtable_free(jtable *t)
{
    tfmt__idset_free(&t->set);
    tfmt__free(t->alloc, t->direct);
    tfmt__free(t->alloc, t->ids);
}

/*
 * Strings are rewritten and interned as they come (not copied aside
 * first): a string record's ids then cost 4 bytes each here. A batch at a
 * time, with the probes prefetched (tfmt__ftab_prefetch) unless rewrite
 * rules change the bytes first.
 */
static int add_string_batch(jstate *s, const tfmt_jsonl_string *js,
                            size_t n)
{
    uint32_t slot[TFMT_FLAT_BATCH];
    uint64_t h[TFMT_FLAT_BATCH];
    bool plain = !tfmt__flat_rewrites(s->f);
    for (size_t j = 0; j < n; j++) {
        if (jtable_add(&s->strs, js[j].id, &slot[j]) < 0)
            return TFMT_ENOMEM;
        if (slot[j] == TFMT_FLAT_NONE)
            continue;
        if (tfmt__grow(s->f->alloc, (void **)&s->sid, &s->cap_sid,
                       (size_t)slot[j] + 1, sizeof *s->sid) < 0)
            return TFMT_ENOMEM;
        if (plain) {
            h[j] = tfmt__flat_str_hash(js[j].value.ptr, js[j].value.len);
            tfmt__ftab_prefetch(&s->f->str_set, h[j]);
        }
    }
    for (size_t j = 0; j < n; j++) {
        if (slot[j] == TFMT_FLAT_NONE)
            continue;
        const tfmt_str *v = &js[j].value;
        int rc = plain ? tfmt__flat_intern_hashed(s->f, v->ptr, v->len, h[j],
                                                  &s->sid[slot[j]])
                       : tfmt__flat_rewrite_intern(s->f, v->ptr, v->len,
                                                   &s->sid[slot[j]]);
        if (rc < 0)
            return rc;
    }
    return TFMT_OK;
}

static int add_strings(jstate *s, const tfmt_jsonl_record *rec)
{
    for (size_t i = 0; i < rec->n_strings; i += TFMT_FLAT_BATCH) {
        size_t n = rec->n_strings - i;
        int rc = add_string_batch(s, rec->strings + i,
                                  n < TFMT_FLAT_BATCH ? n : TFMT_FLAT_BATCH);
        if (rc < 0)
            return rc;
    }
    return TFMT_OK;
}

static int add_frames(jstate *s, const tfmt_jsonl_record *rec)
{
    for (size_t i = 0; i < rec->n_frames; i++) {
        const tfmt_jsonl_frame *jf = &rec->frames[i];
        uint32_t slot;
        if (jtable_add(&s->frames, jf->id, &slot) < 0)
            return TFMT_ENOMEM;
        if (slot == TFMT_FLAT_NONE)
            continue;
        if (tfmt__grow(s->f->alloc, (void **)&s->fr, &s->cap_fr,
                       (size_t)slot + 1, sizeof *s->fr) < 0)
            return TFMT_ENOMEM;
        s->fr[slot] = (jframe){jf->path_str_id, jf->func_str_id, jf->line,
                               UNRESOLVED};
    }
    return TFMT_OK;
}

/* The flat key of JSONL frame slot `slot`, computed once. */
static int frame_key(jstate *s, uint32_t slot, uint64_t line_no,
                     uint32_t *out)
{
    jframe *fr = &s->fr[slot];
    if (fr->key == UNRESOLVED) {
        uint32_t a = jtable_find(&s->strs, fr->path);
        uint32_t b = jtable_find(&s->strs, fr->func);
        if (a == TFMT_FLAT_NONE || b == TFMT_FLAT_NONE) {
            int rc = tfmt__error(&s->f->err, TFMT_EFORMAT,
                                 "frame refers to unknown str_id %u",
                                 a == TFMT_FLAT_NONE ? fr->path : fr->func);
            s->f->err.line = line_no;
            return rc;
        }
        int rc = tfmt__flat_key_ids(s->f, s->sid[a], s->sid[b], fr->line,
                                    &fr->key);
        if (rc < 0)
            return rc;
    }
    *out = fr->key;
    return TFMT_OK;
}

/*
 * Counts come from the file (each up to 2^64 - 2): a hostile file must not
 * wrap a sum into a small, plausible figure, so sums stop at UINT64_MAX.
 */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Prefetch the key slots that a batch of agg entries will create. */
static void prefetch_keys(const jstate *s, const tfmt_jsonl_agg *e, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        uint32_t slot = jtable_find(&s->frames, e[j].frame_id);
        if (slot == TFMT_FLAT_NONE || s->fr[slot].key != UNRESOLVED)
            continue;
        const jframe *fr = &s->fr[slot];
        uint32_t a = jtable_find(&s->strs, fr->path);
        uint32_t b = jtable_find(&s->strs, fr->func);
        if (a != TFMT_FLAT_NONE && b != TFMT_FLAT_NONE)
            tfmt__flat_key_prefetch(s->f, s->sid[a], s->sid[b], fr->line);
    }
}

static int add_entry(jstate *s, const tfmt_jsonl_agg *e, uint64_t line)
{
    uint32_t slot = jtable_find(&s->frames, e->frame_id);
    uint32_t key = TFMT_FLAT_NONE;
    if (slot == TFMT_FLAT_NONE) {
        int rc = tfmt__error(&s->f->err, TFMT_EFORMAT,
                             "agg entry refers to unknown frame_id %u",
                             e->frame_id);
        s->f->err.line = line;
        return rc;
    }
    int rc = frame_key(s, slot, line, &key);
    if (rc < 0 || key == TFMT_FLAT_NONE)
        return rc;
    s->f->keys[key].self = sat_add(s->f->keys[key].self, e->self);
    s->f->keys[key].cum_frames =
        sat_add(s->f->keys[key].cum_frames, e->cumulative);
    return TFMT_OK;
}

static int add_agg(jstate *s, const tfmt_jsonl_record *rec)
{
    s->samples_total = rec->samples_total;
    for (size_t i = 0; i < rec->n_entries; i += TFMT_FLAT_BATCH) {
        size_t n = rec->n_entries - i;
        if (n > TFMT_FLAT_BATCH)
            n = TFMT_FLAT_BATCH;
        prefetch_keys(s, rec->entries + i, n);
        for (size_t j = 0; j < n; j++) {
            int rc = add_entry(s, &rec->entries[i + j], rec->line);
            if (rc < 0)
                return rc;
        }
    }
    return TFMT_OK;
}

static int add_record(jstate *s, const tfmt_jsonl_record *rec)
{
    switch (rec->type) {
    case TFMT_JREC_META:
        s->interval_us = rec->sample_interval_usec;
        return TFMT_OK;
    case TFMT_JREC_STRINGS:
        return add_strings(s, rec);
    case TFMT_JREC_FRAMES:
        return add_frames(s, rec);
    case TFMT_JREC_AGG:
        return add_agg(s, rec);
    case TFMT_JREC_END:
        s->samples_total = rec->samples_total;
        return TFMT_OK;
    default:
        return TFMT_OK;
    }
}

static int read_all(jstate *s, tfmt_jsonl_reader *r)
{
    const tfmt_jsonl_record *rec;
    int rc;
    while ((rc = tfmt_jsonl_next(r, &rec)) == TFMT_OK) {
        int arc = add_record(s, rec);
        if (arc == TFMT_ENOMEM)
            return tfmt__error(&s->f->err, TFMT_ENOMEM, "out of memory");
        if (arc < 0)
            return arc;
    }
    if (rc == TFMT_DONE)
        return TFMT_OK;
    s->f->err = *tfmt_jsonl_error(r);
    return rc;
}

/* JSONL's cumulative is the per-frame one: copy it over once capped. */
static void sync_cumulative(tfmt_flat *f, const uint64_t *before, size_t n)
{
    for (size_t i = 0; i < f->nkeys; i++)
        f->keys[i].cum += f->keys[i].cum_frames - (i < n ? before[i] : 0);
}

int tfmt_flat_add_jsonl(tfmt_flat *f, tfmt_jsonl_reader *r)
{
    jstate s = {.f = f};
    s.strs.alloc = s.frames.alloc = f->alloc;
    tfmt__idset_init(&s.strs.set, f->alloc);
    tfmt__idset_init(&s.frames.set, f->alloc);
    tfmt__error_clear(&f->err);
    uint64_t *snap = NULL, *before = NULL;
    size_t n = 0;
    int rc = tfmt__flat_cap_begin(f, &snap, &n);
    if (rc == TFMT_OK) {
        before = tfmt__malloc(f->alloc, (n + 1) * sizeof *before);
        rc = before ? TFMT_OK
                    : tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
    }
    if (rc == TFMT_OK) {
        memcpy(before, snap, n * sizeof *before);
        rc = read_all(&s, r);
    }
    if (snap)
        tfmt__flat_cap_end(f, snap, n, rc == TFMT_OK ? s.samples_total
                                                     : UINT64_MAX);
    if (rc == TFMT_OK) {
        sync_cumulative(f, before, n);
        tfmt__flat_add_input(f, s.samples_total, s.interval_us, -1.0, false,
                             false);
    }
    tfmt__free(f->alloc, before);
    jtable_free(&s.strs);
    jtable_free(&s.frames);
    tfmt__free(f->alloc, s.sid);
    tfmt__free(f->alloc, s.fr);
    return rc;
}
