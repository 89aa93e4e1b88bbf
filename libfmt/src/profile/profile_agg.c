/* SPDX-License-Identifier: MIT */
/*
 * profile_agg.c - JSONL exports into a profile. An export has per-frame
 * totals and no stacks, so its counts are kept per profile frame beside
 * the call tree (tfmt_pagg): strings and frames are interned like a
 * binary log's (names rewritten by the profile's rules), and each agg
 * entry adds its self and cumulative counts to its frame. The writers of
 * per-frame and per-function figures add these totals to what they count
 * on the tree; the writers that need stacks refuse them.
 */
#include "profile_filter.h"

typedef struct agg_import {
    tfmt_profile *p;
    tfmt_pfilter *filter;
    tfmt_jimport im;
    bool append; /* tables appended, not interned */
} agg_import;

/*
 * Append a first export's tables to an empty profile, without looking
 * anything up: schema v0 keys a frame on its fields, so CPython writes
 * each string and frame once, and the index is built only when another
 * input needs it. Not for the pre-release dialect (its `synthetic` flag
 * was part of the key: two frames can be one in v0) nor with rewrites
 * (they intern names).
 */
static bool may_append(const agg_import *ai)
{
    const tfmt_profile *p = ai->p;
    return !ai->filter && p->nstrings == 0 && p->nframes == 0 &&
           tfmt_jsonl_get_info(ai->im.r)->v == 0;
}

bool tfmt_profile_has_jsonl(const tfmt_profile *p)
{
    return p->agg_inputs > 0;
}

/* Import callback: strings as they are defined. */
static int add_strings(void *ctx, const tfmt_jsonl_string *js, size_t n,
                       uint32_t *out)
{
    agg_import *ai = ctx;
    tfmt_str v[TFMT_JIMPORT_BATCH];
    for (size_t j = 0; j < n; j++)
        v[j] = js[j].value;
    /* The first definitions come after meta (the reader's rules). */
    if (ai->p->nstrings == 0 && ai->p->nframes == 0)
        ai->append = may_append(ai);
    if (ai->append)
        return tfmt__profile_append_strings(ai->p, v, n, ai->im.utf8_checked,
                                            out);
    return tfmt__profile_intern_strings(ai->p, v, n, out);
}

/*
 * A frame record as a profile frame: a frame without a location (the v1
 * dialect's `synthetic`, or v0's bare `"line": 0`) gets none, as a
 * binary log's synthetic frames; absent fields stay "not available".
 */
static tfmt_frame profile_frame(const tfmt_jimport_frame *j)
{
    bool none =
        j->synthetic ||
        (j->line == 0 && j->end_line == TFMT_JSONL_ABSENT &&
         j->col == TFMT_JSONL_ABSENT && j->end_col == TFMT_JSONL_ABSENT);
    tfmt_frame f = {j->file, j->func,    j->line,       j->end_line,
                    j->col,  j->end_col, TFMT_NO_OPCODE};
    if (none)
        f.lineno = f.end_lineno = f.column = f.end_column = TFMT_NO_LOCATION;
    return f;
}

/* Import callback: frames, their names rewritten by the profile's rules. */
static int add_frames(void *ctx, const tfmt_jimport_frame *fr, size_t n,
                      uint32_t *out)
{
    agg_import *ai = ctx;
    tfmt_frame f[TFMT_JIMPORT_BATCH];
    for (size_t j = 0; j < n; j++) {
        f[j] = profile_frame(&fr[j]);
        int rc = ai->filter ? tfmt__pfilter_names(ai->filter, &f[j]) : TFMT_OK;
        if (rc < 0)
            return rc;
    }
    if (ai->append)
        return tfmt__profile_append_frames(ai->p, f, n, out);
    return tfmt__profile_intern_frames(ai->p, f, n, out);
}

/*
 * Cover the frames below `need` with totals (zeroed). Only the entries
 * covered are written: the arrays' spare capacity stays untouched memory
 * (clearing all of it cost 17 MB of fresh pages on a 200 MB export).
 */
static int agg_cover(tfmt_profile *p, size_t need)
{
    if (tfmt__grow(p->alloc, (void **)&p->aggs, &p->capaggs, need,
                   sizeof *p->aggs) != TFMT_OK ||
        tfmt__grow(p->alloc, (void **)&p->agg_listed, &p->caplisted, need, 1) !=
            TFMT_OK)
        return TFMT_ENOMEM;
    memset(p->aggs + p->naggs, 0, (need - p->naggs) * sizeof *p->aggs);
    memset(p->agg_listed + p->naggs, 0, need - p->naggs);
    p->naggs = need;
    return TFMT_OK;
}

/* The totals of frame `f`, the arrays grown to cover it. */
static tfmt_pagg *agg_of(tfmt_profile *p, uint32_t f)
{
    size_t need = p->nframes > f ? p->nframes : (size_t)f + 1;
    if (f >= p->naggs && agg_cover(p, need) != TFMT_OK)
        return NULL;
    p->agg_listed[f] = 1;
    return &p->aggs[f];
}

/* Import callback: each entry's counts to its frame. */
static int add_aggs(void *ctx, const tfmt_jsonl_agg *e, const uint32_t *frame,
                    size_t n)
{
    agg_import *ai = ctx;
    for (size_t j = 0; j < n; j++) {
        if (frame[j] == TFMT_IMPORT_DROP)
            continue;
        tfmt_pagg *a = agg_of(ai->p, frame[j]);
        if (!a)
            return TFMT_ENOMEM;
        a->self = tfmt__sat_add(a->self, e[j].self);
        a->cum = tfmt__sat_add(a->cum, e[j].cumulative);
    }
    return TFMT_OK;
}

static const tfmt_jimport_ops agg_ops = {add_strings, add_frames, add_aggs};

/* The options an export cannot honour: they all need samples. */
static int check_options(tfmt_profile *p)
{
    const tfmt_profile_options *o = &p->opts;
    if (o->nthread_ids || o->status_all || o->status_none || o->skip_idle ||
        o->collapse_recursion || o->drop_frames ||
        (o->focus && tfmt_match_count(o->focus, TFMT_MATCH_INCLUDE)) ||
        (o->rules && tfmt_match_count(o->rules, TFMT_MATCH_EXCLUDE)))
        return tfmt__error(&p->err, TFMT_EINVAL,
                           "the export has no samples, only per-frame "
                           "totals: of the filters, only rewrites apply");
    return TFMT_OK;
}

/* The export's totals and, from the first input, interval and mode. */
static void finish(tfmt_profile *p, const agg_import *ai,
                   const tfmt_jsonl_info *info)
{
    p->samples_total = tfmt__sat_add(p->samples_total, ai->im.samples_total);
    p->agg_samples = tfmt__sat_add(p->agg_samples, ai->im.samples_total);
    if (!p->have_input) {
        p->interval_us = info->sample_interval_usec;
        p->mode = info->mode;
        p->have_input = true;
    }
}

int tfmt_profile_add_jsonl(tfmt_profile *p, tfmt_jsonl_reader *r)
{
    if (!p || !r)
        return TFMT_EINVAL;
    tfmt__error_clear(&p->err);
    if (check_options(p) != TFMT_OK)
        return TFMT_EINVAL;
    if (p->agg_inputs == UINT32_MAX)
        return tfmt__error(&p->err, TFMT_ELIMIT, "too many JSONL exports");
    agg_import ai;
    memset(&ai, 0, sizeof ai);
    ai.p = p;
    p->agg_inputs++;
    int rc = tfmt__pfilter_new(p, &ai.filter);
    if (rc != TFMT_OK)
        return rc;
    tfmt__jimport_init(&ai.im, r, &agg_ops, &ai, p->alloc, &p->err);
    ai.im.eager = true;
    rc = tfmt__jimport_run(&ai.im);
    if (rc == TFMT_OK)
        finish(p, &ai, tfmt_jsonl_get_info(r));
    tfmt__jimport_free(&ai.im);
    tfmt__pfilter_free(ai.filter);
    return rc;
}
