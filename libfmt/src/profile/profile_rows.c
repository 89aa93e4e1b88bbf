/* SPDX-License-Identifier: MIT */
/*
 * profile_rows.c - ClickHouse query results (fmt_rows.h) into a profile:
 * each row is `count` samples of one thread, status and stack. The
 * reader's string and frame tables grow as rows come, so its indices are
 * mapped to profile ids through maps grown alongside, the first time a
 * counted row shows them: unmapped frames innermost first, each file name
 * before its function name, the order profile_bin.c and CPython's
 * collectors give ids in. Rows ordered by (run_id, row) replay each run
 * in the order its stacks first got a sample, so the profile numbers
 * strings, frames and call paths as one built from the logs would.
 */
#include "profile_filter.h"

#define UNSET UINT32_MAX
#define PROGRESS_ROWS 4096

typedef struct rowsctx {
    tfmt_profile *p;
    tfmt_rows_reader *r;
    tfmt_pfilter *filter;  /* NULL: no name or stack filters */
    uint32_t *smap, *fmap; /* reader string / frame -> profile id */
    size_t nsmap, capsmap, nfmap, capfmap;
    uint32_t path[TFMT_MAX_DEPTH];
    uint64_t samples; /* counts read, for progress */
} rowsctx;

static int nomem(tfmt_profile *p)
{
    return tfmt__error(&p->err, TFMT_ENOMEM, "out of memory");
}

/* Extend a map to `need` entries, the new ones UNSET. */
static int grow_map(tfmt_profile *p, uint32_t **map, size_t *n, size_t *cap,
                    size_t need)
{
    if (need <= *n)
        return TFMT_OK;
    if (tfmt__grow(p->alloc, (void **)map, cap, need, sizeof **map) != TFMT_OK)
        return nomem(p);
    for (size_t i = *n; i < need; i++)
        (*map)[i] = UNSET;
    *n = need;
    return TFMT_OK;
}

static int map_string(rowsctx *c, uint32_t index, uint32_t *out)
{
    if (c->smap[index] == UNSET) {
        tfmt_str s = tfmt_rows_string(c->r, index);
        int rc =
            tfmt__profile_intern_string(c->p, s.ptr, s.len, &c->smap[index]);
        if (rc != TFMT_OK)
            return rc;
    }
    *out = c->smap[index];
    return TFMT_OK;
}

/* Reader frame `index` as a profile frame, names filtered. */
static int map_frame(rowsctx *c, uint32_t index)
{
    if (c->fmap[index] != UNSET)
        return TFMT_OK;
    tfmt_frame pf = *tfmt_rows_frame(c->r, index);
    int rc = map_string(c, pf.filename, &pf.filename);
    if (rc == TFMT_OK)
        rc = map_string(c, pf.funcname, &pf.funcname);
    if (rc == TFMT_OK)
        rc = tfmt__pfilter_names(c->filter, &pf);
    if (rc == TFMT_OK)
        rc = tfmt__profile_intern_frame(c->p, &pf, &c->fmap[index]);
    return rc;
}

/* The first row sets what no earlier input set. */
static void take_info(tfmt_profile *p, const tfmt_rows_run *run)
{
    if (p->have_input)
        return;
    p->have_input = true;
    p->interval_us = run->interval_us;
    p->mode = run->mode;
    p->start_time_us = run->start_time_us;
}

static int add_row(rowsctx *c, const tfmt_row *row)
{
    tfmt_profile *p = c->p;
    take_info(p, tfmt_rows_run_at(c->r, row->run));
    tfmt__pfilter_saw(p, row->thread_id, row->status, row->depth, row->count);
    if (!tfmt__pfilter_sample(&p->opts, row->thread_id, row->status))
        return TFMT_OK;
    if (row->depth)
        tfmt__pfilter_passed(p, row->count);
    int rc = grow_map(p, &c->smap, &c->nsmap, &c->capsmap,
                      tfmt_rows_string_count(c->r));
    if (rc == TFMT_OK)
        rc = grow_map(p, &c->fmap, &c->nfmap, &c->capfmap,
                      tfmt_rows_frame_count(c->r));
    for (uint32_t i = row->depth; i-- > 0 && rc == TFMT_OK;)
        rc = map_frame(c, row->stack[i]);
    if (rc != TFMT_OK)
        return rc;
    uint32_t depth = row->depth;
    for (uint32_t i = 0; i < depth; i++)
        c->path[i] = c->fmap[row->stack[i]];
    /* Rows can say anything: the counted total bounds every sum. */
    if (p->samples_total > UINT64_MAX - row->count) {
        tfmt__error(&p->err, TFMT_ELIMIT, "sample counts overflow 64 bits");
        p->err.line = row->line;
        return TFMT_ELIMIT;
    }
    if (tfmt__pfilter_stacks(c->filter)) {
        bool keep;
        rc = tfmt__pfilter_stack(c->filter, c->path, &depth, &keep);
        if (rc != TFMT_OK || !keep)
            return rc;
    }
    return tfmt__profile_add_status(p, row->thread_id, row->interpreter_id,
                                    row->status, c->path, depth, row->count);
}

static void progress(rowsctx *c, const tfmt_row *row, uint64_t n)
{
    c->samples += row->count;
    if (c->p->opts.progress && n % PROGRESS_ROWS == 0)
        c->p->opts.progress(c->p->opts.progress_ctx, c->samples);
}

int tfmt_profile_add_rows(tfmt_profile *p, tfmt_rows_reader *r)
{
    if (!p || !r)
        return p ? tfmt__error(&p->err, TFMT_EINVAL, "invalid arguments")
                 : TFMT_EINVAL;
    rowsctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.r = r;
    /* Rows have no time order: the profile keeps no timeline (speedscope
       then writes its aggregated samples, whatever the input order). */
    p->opts.timeline = false;
    int rc = tfmt__pfilter_new(p, &c.filter);
    const tfmt_row *row;
    for (uint64_t n = 1; rc == TFMT_OK; n++) {
        rc = tfmt_rows_next(r, &row);
        if (rc == TFMT_DONE) {
            rc = TFMT_OK;
            break;
        }
        if (rc < 0)
            rc = tfmt__error_take(&p->err, tfmt_rows_error(r), rc);
        else
            rc = add_row(&c, row);
        if (rc == TFMT_OK)
            progress(&c, row, n);
    }
    tfmt__pfilter_free(c.filter);
    tfmt__free(p->alloc, c.smap);
    tfmt__free(p->alloc, c.fmap);
    return rc;
}
