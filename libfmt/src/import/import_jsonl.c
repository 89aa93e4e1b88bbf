/* SPDX-License-Identifier: MIT */
/*
 * import_jsonl.c - a JSONL export into a model. String and frame records
 * define ids, each mapped to the model once: strings as they are defined
 * (4 bytes an id here), frames as they are defined (eager) or when an agg
 * entry first uses one (lazy: a model that keeps only what the aggregates
 * use). Agg entries are handed on with their model frames, a batch at a
 * time. The reader has checked the records against each other already
 * (ids defined once, before use); the maps still keep the first
 * definition of an id and refuse an unknown one, for a caller whose
 * reader reports findings and goes on.
 */
#include "import.h"

/*
 * An id -> value map over JSONL ids (which are only trusted as numbers).
 * Exporters number ids densely from 0, so small ids index an array
 * directly (4 bytes an id, one memory access); the array only grows to
 * twice the ids stored (plus a little), so a huge id from a hostile file
 * cannot make it large: such ids go to the hash set instead, whose slots
 * name their value in a side array. An id lives in one of the two.
 * TFMT_IMPORT_UNSET, which no model gives as an id, marks a free entry.
 * While the ids 0, 1, 2, ... map to the same numbers (a first export
 * appended to an empty profile), neither is needed: `ident` counts them.
 */
#define ABSENT TFMT_IMPORT_UNSET
#define DIRECT_SLACK 4096

static bool spilled_eq(const void *ctx, uint32_t k, const void *key)
{
    const tfmt_jmap *m = ctx;
    return m->spill_ids[k] == *(const uint32_t *)key;
}

static uint32_t jmap_spilled(const tfmt_jmap *m, uint32_t id)
{
    uint32_t k =
        tfmt__idset_find(&m->spill, tfmt__hash_key(id), &id, spilled_eq, m);
    return k == UINT32_MAX ? ABSENT : m->spill_vals[k];
}

/* The value of id, or ABSENT. */
static inline uint32_t jmap_get(const tfmt_jmap *m, uint32_t id)
{
    if (id < m->ident)
        return id;
    if (id < m->ndirect)
        return m->direct[id];
    return m->spill.count ? jmap_spilled(m, id) : ABSENT;
}

/*
 * The first value that is not its id: the ids mapped so far go into the
 * direct array (the identity was kept without one until then).
 */
static int jmap_leave_identity(tfmt_jmap *m)
{
    size_t ident = m->ident;
    if (!ident)
        return TFMT_OK;
    m->ident = 0;
    if (tfmt__grow(m->alloc, (void **)&m->direct, &m->direct_cap, ident,
                   sizeof *m->direct) < 0)
        return TFMT_ENOMEM;
    for (size_t i = 0; i < ident; i++)
        m->direct[i] = (uint32_t)i;
    m->ndirect = ident;
    return TFMT_OK;
}

/*
 * Cover ids below `end` in the direct array, within its bound. Only the
 * entries covered are written (the array's spare capacity stays
 * untouched memory).
 */
static int jmap_cover(tfmt_jmap *m, size_t end)
{
    size_t bound = m->n * 2 + DIRECT_SLACK;
    if (end > bound)
        end = bound;
    if (end <= m->ndirect)
        return TFMT_OK;
    if (tfmt__grow(m->alloc, (void **)&m->direct, &m->direct_cap, end,
                   sizeof *m->direct) < 0)
        return TFMT_ENOMEM;
    for (size_t i = m->ndirect; i < end; i++)
        m->direct[i] = ABSENT;
    m->ndirect = end;
    return TFMT_OK;
}

static int jmap_spill(tfmt_jmap *m, uint32_t id, uint32_t value)
{
    size_t k = m->spill.count;
    if (tfmt__grow(m->alloc, (void **)&m->spill_ids, &m->spill_cap, k + 1,
                   sizeof *m->spill_ids) < 0 ||
        tfmt__grow(m->alloc, (void **)&m->spill_vals, &m->spill_vcap, k + 1,
                   sizeof *m->spill_vals) < 0 ||
        tfmt__idset_insert(&m->spill, tfmt__hash_key(id), (uint32_t)k) < 0)
        return TFMT_ENOMEM;
    m->spill_ids[k] = id;
    m->spill_vals[k] = value;
    return TFMT_OK;
}

/* Give id (absent so far) its value. */
static int jmap_put_slow(tfmt_jmap *m, uint32_t id, uint32_t value)
{
    if (m->n >= UINT32_MAX - 2)
        return TFMT_ENOMEM;
    if (m->ident && jmap_leave_identity(m) < 0)
        return TFMT_ENOMEM;
    if (id >= m->ndirect && jmap_cover(m, (size_t)id + 1) < 0)
        return TFMT_ENOMEM;
    if (id < m->ndirect)
        m->direct[id] = value;
    else if (jmap_spill(m, id, value) < 0)
        return TFMT_ENOMEM;
    m->n++;
    return TFMT_OK;
}

static inline int jmap_put(tfmt_jmap *m, uint32_t id, uint32_t value)
{
    /* Ids 0, 1, 2, ... given values 0, 1, 2, ...: nothing to keep (ident
     * equals n only while nothing else was stored). */
    if (id == m->ident && value == id && m->ident == m->n &&
        m->n < UINT32_MAX - 2) {
        m->ident++;
        m->n++;
        return TFMT_OK;
    }
    if (id < m->ndirect && m->n < UINT32_MAX - 2) {
        m->direct[id] = value;
        m->n++;
        return TFMT_OK;
    }
    return jmap_put_slow(m, id, value);
}

/*
 * A run of ids first, first + 1, ... that a map mapping ids to
 * themselves has not seen: the next ids, as exporters number them. Such
 * a batch needs no lookups, and keeps the identity when its values are
 * its ids (jmap_put_run).
 */
static bool jmap_fresh(const tfmt_jmap *m, uint32_t first)
{
    return m->ident == m->n && m->ndirect == 0 && m->spill.count == 0 &&
           first == m->ident;
}

static int jmap_put_run(tfmt_jmap *m, uint32_t first, const uint32_t *value,
                        size_t n)
{
    size_t j = 0;
    while (j < n && value[j] == (uint64_t)first + j)
        j++;
    if (j == n && jmap_fresh(m, first) && m->n + n < UINT32_MAX - 2) {
        m->ident += n;
        m->n += n;
        return TFMT_OK;
    }
    for (j = 0; j < n; j++)
        if (jmap_put(m, (uint32_t)(first + j), value[j]) < 0)
            return TFMT_ENOMEM;
    return TFMT_OK;
}

static void jmap_init(tfmt_jmap *m, const tfmt_allocator *a)
{
    memset(m, 0, sizeof *m);
    m->alloc = a;
    tfmt__idset_init(&m->spill, a);
}

static void jmap_free(tfmt_jmap *m)
{
    tfmt__idset_free(&m->spill);
    tfmt__free(m->alloc, m->direct);
    tfmt__free(m->alloc, m->spill_ids);
    tfmt__free(m->alloc, m->spill_vals);
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
    jmap_init(&im->strs, a);
    jmap_init(&im->frames, a);
}

void tfmt__jimport_free(tfmt_jimport *im)
{
    const tfmt_allocator *a = im->strs.alloc;
    jmap_free(&im->strs);
    jmap_free(&im->frames);
    tfmt__free(a, im->fr);
}

/* ---- definitions ---- */

/* The batch's ids run first, first + 1, ... */
static bool strings_follow(const tfmt_jsonl_string *js, size_t n)
{
    for (size_t j = 1; j < n; j++)
        if (js[j].id != (uint64_t)js[0].id + j)
            return false;
    return true;
}

/*
 * One batch of string definitions: ids not defined before go to the
 * model (the first definition of an id wins), and map to its ids.
 */
static int string_batch(tfmt_jimport *im, const tfmt_jsonl_string *js, size_t n)
{
    tfmt_jsonl_string fresh[TFMT_JIMPORT_BATCH];
    uint32_t id[TFMT_JIMPORT_BATCH];
    size_t m = 0;
    if (n && jmap_fresh(&im->strs, js[0].id) && strings_follow(js, n)) {
        int rc = im->ops->strings(im->ctx, js, n, id);
        return rc == TFMT_OK ? jmap_put_run(&im->strs, js[0].id, id, n) : rc;
    }
    uint32_t top = 0; /* the batch's largest id so far */
    for (size_t j = 0; j < n; j++) {
        uint32_t sid = js[j].id;
        bool seen = jmap_get(&im->strs, sid) != ABSENT;
        /* Exporters number ids upwards: only a smaller one may repeat. */
        for (size_t k = 0; m && sid <= top && k < m && !seen; k++)
            seen = fresh[k].id == sid;
        if (seen)
            continue;
        top = m == 0 || sid > top ? sid : top;
        fresh[m++] = js[j];
    }
    int rc = m ? im->ops->strings(im->ctx, fresh, m, id) : TFMT_OK;
    for (size_t j = 0; rc == TFMT_OK && j < m; j++)
        rc = jmap_put(&im->strs, fresh[j].id, id[j]);
    return rc;
}

/*
 * Ids below this many cover the direct array ahead of a record's puts
 * (not while ids map to themselves: the array is not needed then).
 */
static void cover_ahead(tfmt_jmap *m, size_t n)
{
    if (m->ident != m->n || m->ndirect)
        (void)jmap_cover(m, m->n + n); /* a failure is met again by put */
}

static int add_strings(tfmt_jimport *im, const tfmt_jsonl_record *rec)
{
    im->utf8_checked = im->r->utf8_checked;
    cover_ahead(&im->strs, rec->n_strings);
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
        if (jmap_get(&im->frames, jf->id) != ABSENT)
            continue;
        uint32_t slot = (uint32_t)im->nfr;
        if (im->nfr >= im->cap_fr &&
            tfmt__grow(im->frames.alloc, (void **)&im->fr, &im->cap_fr,
                       im->nfr + 1, sizeof *im->fr) < 0)
            return TFMT_ENOMEM;
        if (jmap_put(&im->frames, jf->id, slot) < 0)
            return TFMT_ENOMEM;
        im->fr[im->nfr++] = (tfmt_jimport_frame){
            jf->path_str_id, jf->func_str_id, jf->line,      jf->end_line,
            jf->col,         jf->end_col,     jf->synthetic, TFMT_IMPORT_UNSET};
    }
    return TFMT_OK;
}

/* A frame's names as model string ids, into *out. */
static inline int model_names(tfmt_jimport *im, tfmt_jimport_frame *f,
                              uint64_t line)
{
    uint32_t a = jmap_get(&im->strs, f->file);
    uint32_t b = jmap_get(&im->strs, f->func);
    if (a == ABSENT || b == ABSENT)
        return unknown(im, "frame refers to unknown str_id",
                       a == ABSENT ? f->file : f->func, line);
    f->file = a;
    f->func = b;
    return TFMT_OK;
}

/* The batch's ids run first, first + 1, ... */
static bool frames_follow(const tfmt_jsonl_frame *jf, size_t n)
{
    for (size_t j = 1; j < n; j++)
        if (jf[j].id != (uint64_t)jf[0].id + j)
            return false;
    return true;
}

/* One batch of frame definitions straight to the model (eager). */
static int frame_batch(tfmt_jimport *im, const tfmt_jsonl_frame *jf, size_t n,
                       uint64_t line)
{
    tfmt_jimport_frame pend[TFMT_JIMPORT_BATCH];
    uint32_t ids[TFMT_JIMPORT_BATCH], model[TFMT_JIMPORT_BATCH];
    size_t m = 0;
    uint32_t top = 0; /* the batch's largest id so far */
    bool run = n && jmap_fresh(&im->frames, jf[0].id) && frames_follow(jf, n);
    for (size_t j = 0; j < n; j++) {
        uint32_t fid = jf[j].id;
        bool seen = !run && jmap_get(&im->frames, fid) != ABSENT;
        for (size_t k = 0; !run && fid <= top && k < m && !seen; k++)
            seen = ids[k] == fid;
        if (seen)
            continue;
        top = m == 0 || fid > top ? fid : top;
        pend[m] = (tfmt_jimport_frame){jf[j].path_str_id, jf[j].func_str_id,
                                       jf[j].line,        jf[j].end_line,
                                       jf[j].col,         jf[j].end_col,
                                       jf[j].synthetic,   TFMT_IMPORT_UNSET};
        int rc = model_names(im, &pend[m], line);
        if (rc < 0)
            return rc;
        ids[m++] = fid;
    }
    int rc = m ? im->ops->frames(im->ctx, pend, m, model) : TFMT_OK;
    if (rc == TFMT_OK && run)
        return jmap_put_run(&im->frames, jf[0].id, model, m);
    for (size_t k = 0; rc == TFMT_OK && k < m; k++)
        rc = jmap_put(&im->frames, ids[k], model[k]);
    return rc;
}

static int add_frames(tfmt_jimport *im, const tfmt_jsonl_record *rec)
{
    cover_ahead(&im->frames, rec->n_frames);
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
 * The model frame of entry `e` (eager), or, lazily, its slot in fr[]: a
 * frame not mapped yet is queued in `pend` (its names as model strings)
 * unless already queued.
 */
static int entry_frame(tfmt_jimport *im, const tfmt_jsonl_agg *e, uint64_t line,
                       uint32_t *slot, tfmt_jimport_frame *pend,
                       uint32_t *pslot, size_t *np)
{
    *slot = jmap_get(&im->frames, e->frame_id);
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
    pend[*np] = *fr;
    int rc = model_names(im, &pend[*np], line);
    if (rc < 0)
        return rc;
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
    if (im->eager)
        return im->ops->aggs(im->ctx, e, slot, n);
    int rc = np ? im->ops->frames(im->ctx, pend, np, model) : TFMT_OK;
    if (rc < 0)
        return rc;
    for (size_t k = 0; k < np; k++)
        im->fr[pslot[k]].model = model[k];
    for (size_t j = 0; j < n; j++)
        model[j] = im->fr[slot[j]].model;
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
