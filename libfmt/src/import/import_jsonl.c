/* SPDX-License-Identifier: MIT */
/*
 * import_jsonl.c - a JSONL export into a model. String and frame records
 * define ids, each mapped to the model once: strings as they are defined
 * (a string record's ids then cost 4 bytes each here), frames when an agg
 * entry first uses one (a frame may name strings defined after it). Agg
 * entries are handed on with their model frames, a batch at a time.
 */
#include "import.h"

/*
 * An id -> slot index over JSONL ids (which are only trusted as numbers).
 * Exporters number ids densely from 0, so small ids index an array
 * directly (4 bytes an id, one memory access); the array only grows to
 * twice the entries stored (plus a little), so a huge id from a hostile
 * file cannot make it large: such ids go to the hash set instead. An id
 * lives in one of the two; lookups try both.
 */
#define ABSENT UINT32_MAX

static bool jid_eq(const void *ctx, uint32_t slot, const void *key)
{
    const tfmt_jtable *t = ctx;
    return t->ids[slot] == *(const uint32_t *)key;
}

static uint32_t jtable_find(const tfmt_jtable *t, uint32_t id)
{
    if (id < t->ndirect && t->direct[id] != ABSENT)
        return t->direct[id];
    if (!t->set.count)
        return ABSENT;
    return tfmt__idset_find(&t->set, tfmt__hash_mix(id), &id, jid_eq, t);
}

/* Cover id in the direct array if that keeps it within its bound. */
static int direct_cover(tfmt_jtable *t, uint32_t id, bool *covered)
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

/* Add `id`; *slot = its new slot, or ABSENT if already there. */
static int jtable_add(tfmt_jtable *t, uint32_t id, uint32_t *slot)
{
    *slot = ABSENT;
    if (jtable_find(t, id) != ABSENT)
        return TFMT_OK; /* duplicate ids: the first one wins */
    bool covered;
    if (t->n >= UINT32_MAX - 2 || direct_cover(t, id, &covered) < 0 ||
        tfmt__grow(t->alloc, (void **)&t->ids, &t->cap, t->n + 1,
                   sizeof *t->ids) < 0)
        return TFMT_ENOMEM;
    if (covered)
        t->direct[id] = (uint32_t)t->n;
    else if (tfmt__idset_insert(&t->set, tfmt__hash_mix(id), (uint32_t)t->n) <
             0)
        return TFMT_ENOMEM;
    t->ids[t->n] = id;
    *slot = (uint32_t)t->n++;
    return TFMT_OK;
}

static void jtable_init(tfmt_jtable *t, const tfmt_allocator *a)
{
    memset(t, 0, sizeof *t);
    t->alloc = a;
    tfmt__idset_init(&t->set, a);
}

static void jtable_free(tfmt_jtable *t)
{
    tfmt__idset_free(&t->set);
    tfmt__free(t->alloc, t->direct);
    tfmt__free(t->alloc, t->ids);
}

void tfmt__jimport_init(tfmt_jimport *im, tfmt_jsonl_reader *r,
                        const tfmt_jimport_ops *ops, void *ctx,
                        const tfmt_allocator *a, tfmt_error *err)
{
    memset(im, 0, sizeof *im);
    im->r = r;
    im->ops = ops;
    im->ctx = ctx;
    im->err = err;
    jtable_init(&im->strs, a);
    jtable_init(&im->frames, a);
}

void tfmt__jimport_free(tfmt_jimport *im)
{
    const tfmt_allocator *a = im->strs.alloc;
    jtable_free(&im->strs);
    jtable_free(&im->frames);
    tfmt__free(a, im->sid);
    tfmt__free(a, im->fr);
    tfmt__free(a, im->fmodel);
}

/* ---- definitions ---- */

/* One batch of string definitions: the new ids go to the model. */
static int string_batch(tfmt_jimport *im, const tfmt_jsonl_string *js, size_t n)
{
    tfmt_jsonl_string fresh[TFMT_JIMPORT_BATCH];
    uint32_t slot[TFMT_JIMPORT_BATCH];
    size_t m = 0;
    for (size_t j = 0; j < n; j++) {
        uint32_t s;
        if (jtable_add(&im->strs, js[j].id, &s) < 0)
            return TFMT_ENOMEM;
        if (s == ABSENT)
            continue;
        if (tfmt__grow(im->strs.alloc, (void **)&im->sid, &im->cap_sid,
                       (size_t)s + 1, sizeof *im->sid) < 0)
            return TFMT_ENOMEM;
        fresh[m] = js[j];
        slot[m++] = s;
    }
    uint32_t id[TFMT_JIMPORT_BATCH];
    int rc = m ? im->ops->strings(im->ctx, fresh, m, id) : TFMT_OK;
    for (size_t j = 0; rc == TFMT_OK && j < m; j++)
        im->sid[slot[j]] = id[j];
    return rc;
}

static int add_strings(tfmt_jimport *im, const tfmt_jsonl_record *rec)
{
    for (size_t i = 0; i < rec->n_strings; i += TFMT_JIMPORT_BATCH) {
        size_t n = rec->n_strings - i;
        int rc = string_batch(im, rec->strings + i,
                              n < TFMT_JIMPORT_BATCH ? n : TFMT_JIMPORT_BATCH);
        if (rc < 0)
            return rc;
    }
    return TFMT_OK;
}

static int unknown(tfmt_jimport *im, const char *what, uint32_t id,
                   uint64_t line)
{
    int rc = tfmt__error(im->err, TFMT_EFORMAT, "%s %u", what, id);
    im->err->line = line;
    return rc;
}

/* Keep frame records until an agg entry uses them (lazy). */
static int keep_frames(tfmt_jimport *im, const tfmt_jsonl_record *rec)
{
    for (size_t i = 0; i < rec->n_frames; i++) {
        const tfmt_jsonl_frame *jf = &rec->frames[i];
        uint32_t slot;
        if (jtable_add(&im->frames, jf->id, &slot) < 0)
            return TFMT_ENOMEM;
        if (slot == ABSENT)
            continue;
        if (tfmt__grow(im->frames.alloc, (void **)&im->fr, &im->cap_fr,
                       (size_t)slot + 1, sizeof *im->fr) < 0)
            return TFMT_ENOMEM;
        im->fr[slot] = (tfmt_jimport_frame){
            jf->path_str_id, jf->func_str_id, jf->line,      jf->end_line,
            jf->col,         jf->end_col,     jf->synthetic, TFMT_IMPORT_UNSET};
    }
    return TFMT_OK;
}

/* A frame record with its names as model string ids, into *out. */
static int model_names(tfmt_jimport *im, const tfmt_jsonl_frame *jf,
                       uint64_t line, tfmt_jimport_frame *out)
{
    uint32_t a = jtable_find(&im->strs, jf->path_str_id);
    uint32_t b = jtable_find(&im->strs, jf->func_str_id);
    if (a == ABSENT || b == ABSENT)
        return unknown(im, "frame refers to unknown str_id",
                       a == ABSENT ? jf->path_str_id : jf->func_str_id, line);
    *out = (tfmt_jimport_frame){im->sid[a],    im->sid[b],       jf->line,
                                jf->end_line,  jf->col,          jf->end_col,
                                jf->synthetic, TFMT_IMPORT_UNSET};
    return TFMT_OK;
}

/* One batch of frame definitions straight to the model (eager). */
static int frame_batch(tfmt_jimport *im, const tfmt_jsonl_frame *jf, size_t n,
                       uint64_t line)
{
    tfmt_jimport_frame pend[TFMT_JIMPORT_BATCH];
    uint32_t slot[TFMT_JIMPORT_BATCH], model[TFMT_JIMPORT_BATCH];
    size_t m = 0;
    for (size_t j = 0; j < n; j++) {
        uint32_t s;
        if (jtable_add(&im->frames, jf[j].id, &s) < 0)
            return TFMT_ENOMEM;
        if (s == ABSENT)
            continue;
        if (tfmt__grow(im->frames.alloc, (void **)&im->fmodel, &im->cap_fmodel,
                       (size_t)s + 1, sizeof *im->fmodel) < 0)
            return TFMT_ENOMEM;
        int rc = model_names(im, &jf[j], line, &pend[m]);
        if (rc < 0)
            return rc;
        slot[m++] = s;
    }
    int rc = m ? im->ops->frames(im->ctx, pend, m, model) : TFMT_OK;
    for (size_t k = 0; rc == TFMT_OK && k < m; k++)
        im->fmodel[slot[k]] = model[k];
    return rc;
}

static int add_frames(tfmt_jimport *im, const tfmt_jsonl_record *rec)
{
    if (!im->eager)
        return keep_frames(im, rec);
    for (size_t i = 0; i < rec->n_frames; i += TFMT_JIMPORT_BATCH) {
        size_t n = rec->n_frames - i;
        int rc = frame_batch(im, rec->frames + i,
                             n < TFMT_JIMPORT_BATCH ? n : TFMT_JIMPORT_BATCH,
                             rec->line);
        if (rc < 0)
            return rc;
    }
    return TFMT_OK;
}

/* ---- aggregates ---- */

/*
 * The frame slot of entry `e`; a frame not mapped yet is queued in
 * `pend` (its names as model strings) unless already queued.
 */
static int entry_frame(tfmt_jimport *im, const tfmt_jsonl_agg *e, uint64_t line,
                       uint32_t *slot, tfmt_jimport_frame *pend,
                       uint32_t *pslot, size_t *np)
{
    *slot = jtable_find(&im->frames, e->frame_id);
    if (*slot == ABSENT)
        return unknown(im, "agg entry refers to unknown frame_id", e->frame_id,
                       line);
    if (im->eager)
        return TFMT_OK;
    tfmt_jimport_frame *fr = &im->fr[*slot];
    if (fr->model != TFMT_IMPORT_UNSET)
        return TFMT_OK;
    for (size_t k = 0; k < *np; k++)
        if (pslot[k] == *slot)
            return TFMT_OK;
    uint32_t a = jtable_find(&im->strs, fr->file);
    uint32_t b = jtable_find(&im->strs, fr->func);
    if (a == ABSENT || b == ABSENT)
        return unknown(im, "frame refers to unknown str_id",
                       a == ABSENT ? fr->file : fr->func, line);
    pend[*np] = *fr;
    pend[*np].file = im->sid[a];
    pend[*np].func = im->sid[b];
    pslot[(*np)++] = *slot;
    return TFMT_OK;
}

/* One batch of agg entries: new frames to the model, then the entries. */
static int agg_batch(tfmt_jimport *im, const tfmt_jsonl_agg *e, size_t n,
                     uint64_t line)
{
    tfmt_jimport_frame pend[TFMT_JIMPORT_BATCH];
    uint32_t pslot[TFMT_JIMPORT_BATCH], slot[TFMT_JIMPORT_BATCH];
    uint32_t model[TFMT_JIMPORT_BATCH];
    size_t np = 0;
    for (size_t j = 0; j < n; j++) {
        int rc = entry_frame(im, &e[j], line, &slot[j], pend, pslot, &np);
        if (rc < 0)
            return rc;
    }
    int rc = np ? im->ops->frames(im->ctx, pend, np, model) : TFMT_OK;
    if (rc < 0)
        return rc;
    for (size_t k = 0; k < np; k++)
        im->fr[pslot[k]].model = model[k];
    for (size_t j = 0; j < n; j++)
        model[j] = im->eager ? im->fmodel[slot[j]] : im->fr[slot[j]].model;
    return im->ops->aggs(im->ctx, e, model, n);
}

static int add_agg(tfmt_jimport *im, const tfmt_jsonl_record *rec)
{
    im->samples_total = rec->samples_total;
    for (size_t i = 0; i < rec->n_entries; i += TFMT_JIMPORT_BATCH) {
        size_t n = rec->n_entries - i;
        int rc = agg_batch(im, rec->entries + i,
                           n < TFMT_JIMPORT_BATCH ? n : TFMT_JIMPORT_BATCH,
                           rec->line);
        if (rc < 0)
            return rc;
    }
    return TFMT_OK;
}

static int add_record(tfmt_jimport *im, const tfmt_jsonl_record *rec)
{
    switch (rec->type) {
    case TFMT_JREC_META:
        im->interval_us = rec->sample_interval_usec;
        return TFMT_OK;
    case TFMT_JREC_STRINGS: return add_strings(im, rec);
    case TFMT_JREC_FRAMES: return add_frames(im, rec);
    case TFMT_JREC_AGG: return add_agg(im, rec);
    case TFMT_JREC_END: im->samples_total = rec->samples_total; return TFMT_OK;
    default: return TFMT_OK;
    }
}

int tfmt__jimport_run(tfmt_jimport *im)
{
    const tfmt_jsonl_record *rec;
    int rc;
    for (;;) {
        rc = tfmt_jsonl_next(im->r, &rec);
        if (rc != TFMT_OK)
            break;
        int arc = add_record(im, rec);
        if (arc == TFMT_ENOMEM)
            return tfmt__error(im->err, TFMT_ENOMEM, "out of memory");
        if (arc < 0)
            return arc;
    }
    if (rc == TFMT_DONE)
        return TFMT_OK;
    return tfmt__error_take(im->err, tfmt_jsonl_error(im->r), rc);
}
