/*
 * flat_jsonl.c - add a JSONL export to a flat profile. JSONL carries only
 * per-frame aggregates: self adds up exactly; cumulative is summed per key
 * and capped at the input's samples_total (see fmt_flat.h for why it can
 * double count recursion under a coarse key).
 */
#include "flat_internal.h"

#define UNRESOLVED (TFMT_FLAT_NONE - 1)

/* An id -> slot index over JSONL ids (which are only trusted as numbers). */
typedef struct jtable {
    const tfmt_allocator *alloc;
    tfmt_idset set;
    uint32_t *ids;
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
    tfmt_buf text;
    tfmt_fspan *spans;      /* per string slot */
    jframe *fr;             /* per frame slot */
    size_t cap_spans, cap_fr;
    uint64_t samples_total, interval_us;
} jstate;

static bool jid_eq(const void *ctx, uint32_t slot, const void *key)
{
    const jtable *t = ctx;
    return t->ids[slot] == *(const uint32_t *)key;
}

static uint32_t jtable_find(const jtable *t, uint32_t id)
{
    return tfmt__idset_find(&t->set, tfmt__hash_mix(id), &id, jid_eq, t);
}

/* Add `id`; *slot = its new slot, or TFMT_FLAT_NONE if already there. */
static int jtable_add(jtable *t, uint32_t id, uint32_t *slot)
{
    *slot = TFMT_FLAT_NONE;
    if (jtable_find(t, id) != TFMT_FLAT_NONE)
        return TFMT_OK;     /* duplicate ids: the first one wins */
    if (tfmt__grow(t->alloc, (void **)&t->ids, &t->cap, t->n + 1,
                   sizeof *t->ids) < 0 ||
        tfmt__idset_insert(&t->set, tfmt__hash_mix(id), (uint32_t)t->n) < 0)
        return TFMT_ENOMEM;
    t->ids[t->n] = id;
    *slot = (uint32_t)t->n++;
    return TFMT_OK;
}

static void jtable_free(jtable *t)
{
    tfmt__idset_free(&t->set);
    tfmt__free(t->alloc, t->ids);
}

static int add_strings(jstate *s, const tfmt_jsonl_record *rec)
{
    for (size_t i = 0; i < rec->n_strings; i++) {
        const tfmt_jsonl_string *js = &rec->strings[i];
        uint32_t slot;
        if (jtable_add(&s->strs, js->id, &slot) < 0)
            return TFMT_ENOMEM;
        if (slot == TFMT_FLAT_NONE)
            continue;
        if (tfmt__grow(s->f->alloc, (void **)&s->spans, &s->cap_spans,
                       (size_t)slot + 1, sizeof *s->spans) < 0 ||
            js->value.len > UINT32_MAX)
            return TFMT_ENOMEM;
        s->spans[slot] = (tfmt_fspan){s->text.len, (uint32_t)js->value.len};
        if (tfmt__buf_put(&s->text, js->value.ptr, js->value.len) < 0)
            return TFMT_ENOMEM;
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
        const char *t = s->text.data;
        int rc = tfmt__flat_frame_key(s->f, t + s->spans[a].off,
                                      s->spans[a].len, t + s->spans[b].off,
                                      s->spans[b].len, fr->line, &fr->key);
        if (rc < 0)
            return rc;
    }
    *out = fr->key;
    return TFMT_OK;
}

static int add_agg(jstate *s, const tfmt_jsonl_record *rec)
{
    s->samples_total = rec->samples_total;
    for (size_t i = 0; i < rec->n_entries; i++) {
        const tfmt_jsonl_agg *e = &rec->entries[i];
        uint32_t slot = jtable_find(&s->frames, e->frame_id);
        uint32_t key = TFMT_FLAT_NONE;
        if (slot == TFMT_FLAT_NONE) {
            int rc = tfmt__error(&s->f->err, TFMT_EFORMAT,
                                 "agg entry refers to unknown frame_id %u",
                                 e->frame_id);
            s->f->err.line = rec->line;
            return rc;
        }
        int rc = frame_key(s, slot, rec->line, &key);
        if (rc < 0)
            return rc;
        if (key == TFMT_FLAT_NONE)
            continue;
        s->f->keys[key].self += e->self;
        s->f->keys[key].cum_frames += e->cumulative;
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
    tfmt__buf_init(&s.text, f->alloc);
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
    tfmt__buf_free(&s.text);
    tfmt__free(f->alloc, s.spans);
    tfmt__free(f->alloc, s.fr);
    return rc;
}
