/*
 * compare.c - join the two flat profiles key by key, compute every
 * figure, test each row and give it a verdict, then sort by the size of
 * the change. When a side has no stacks (JSONL), cumulative figures on
 * BOTH sides are JSONL's per-frame sums, so like is compared with like.
 *
 * Verdict of a figure (self or cumulative), in this order:
 *   inconclusive  when a side's denominator is zero (nothing to compare);
 *   unchanged     when delta is 0 or |delta| < --min-delta points;
 *   inconclusive  when base + new counts < --min-samples;
 *   regressed / improved  when the Benjamini-Hochberg q-value (over the
 *                 rows that passed both floors) is below --alpha;
 *   inconclusive  otherwise.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

static const char *const verdict_names[] = {"regressed", "improved",
                                            "unchanged", "inconclusive"};

const char *diff_verdict_name(diff_verdict v)
{
    return verdict_names[v];
}

const char *diff_test_name(diff_test t)
{
    static const char *const names[] = {"none", "z", "fisher", "binomial",
                                        "normal"};
    return names[t];
}

const char *diff_norm_name(diff_norm n)
{
    return n == NORM_SHARE ? "share" : n == NORM_TIME ? "time" : "none";
}

const char *diff_key_name(tfmt_flat_key k)
{
    return k == TFMT_FLAT_KEY_FUNC        ? "func"
           : k == TFMT_FLAT_KEY_FILE_FUNC ? "file:func"
                                          : "file:func:line";
}

void diff_row_key(const diff_ctx *c, const diff_row *r, tfmt_flat_row *out)
{
    if (r->bi != SIZE_MAX)
        tfmt_flat_row_at(c->base.flat, r->bi, out);
    else
        tfmt_flat_row_at(c->new_.flat, r->ni, out);
}

void diff_key_text(const diff_ctx *c, const diff_row *r, char *buf,
                   size_t cap)
{
    tfmt_flat_row k;
    diff_row_key(c, r, &k);
    if (c->set->key == TFMT_FLAT_KEY_FUNC)
        snprintf(buf, cap, "%.*s", (int)k.func.len, k.func.ptr);
    else if (c->set->key == TFMT_FLAT_KEY_FILE_FUNC)
        snprintf(buf, cap, "%.*s:%.*s", (int)k.file.len, k.file.ptr,
                 (int)k.func.len, k.func.ptr);
    else
        snprintf(buf, cap, "%.*s:%.*s:%d", (int)k.file.len, k.file.ptr,
                 (int)k.func.len, k.func.ptr, (int)k.line);
}

void diff_result_free(diff_result *r)
{
    free(r->rows);
    memset(r, 0, sizeof *r);
}

/* All base keys, then the new keys base does not have. */
static int join(diff_ctx *c)
{
    size_t nb = tfmt_flat_count(c->base.flat);
    size_t nn = tfmt_flat_count(c->new_.flat);
    diff_result *res = &c->res;
    unsigned char *seen = calloc(nn + 1, 1);
    res->rows = malloc((nb + nn + 1) * sizeof *res->rows);
    if (!seen || !res->rows) {
        free(seen);
        return -1;
    }
    for (size_t i = 0; i < nb; i++) {
        tfmt_flat_row k;
        tfmt_flat_row_at(c->base.flat, i, &k);
        size_t j = tfmt_flat_find(c->new_.flat, &k);
        if (j != SIZE_MAX)
            seen[j] = 1;
        res->rows[res->n++] = (diff_row){.bi = i, .ni = j};
    }
    for (size_t j = 0; j < nn; j++)
        if (!seen[j])
            res->rows[res->n++] = (diff_row){.bi = SIZE_MAX, .ni = j};
    free(seen);
    return 0;
}

static double pct(uint64_t count, double denom)
{
    return denom > 0 ? 100.0 * (double)count / denom : NAN;
}

/* Counts, percentages, delta and p-value of one figure. */
static void figure(const diff_ctx *c, diff_fig *f, uint64_t b, uint64_t n)
{
    const tfmt_flat_info *ib = tfmt_flat_get_info(c->base.flat);
    const tfmt_flat_info *in = tfmt_flat_get_info(c->new_.flat);
    f->base = b;
    f->new_ = n;
    f->base_pct = pct(b, c->base.denom);
    f->new_pct = pct(n, c->new_.denom);
    f->delta = f->new_pct - f->base_pct;
    f->q = NAN;
    if (c->set->norm == NORM_SHARE)
        f->p = diff_p_two_prop(b, (double)ib->samples, n, (double)in->samples,
                               &f->test);
    else if (c->set->norm == NORM_TIME)
        f->p = diff_p_rate(b, ib->ticks, n, in->ticks, &f->test);
    else
        f->p = diff_p_rate(b, 1.0, n, 1.0, &f->test);
}

/* The floors: verdicts that need no test; marks the candidates. */
static void floors(const diff_settings *s, diff_fig *f)
{
    f->candidate = false;
    if (isnan(f->p) || isnan(f->delta))
        f->verdict = V_INCONCLUSIVE;
    else if (f->delta == 0 || fabs(f->delta) < s->min_delta)
        f->verdict = V_UNCHANGED;
    else if (f->base + f->new_ < s->min_samples)
        f->verdict = V_INCONCLUSIVE;
    else
        f->candidate = true;
}

/* Benjamini-Hochberg over the candidates of figure `m`, then verdicts. */
static int judge(diff_ctx *c, int m)
{
    diff_result *res = &c->res;
    size_t nc = 0;
    for (size_t i = 0; i < res->n; i++)
        nc += res->rows[i].fig[m].candidate;
    double *p = malloc((nc + 1) * sizeof *p), *q = malloc((nc + 1) * sizeof *q);
    if (!p || !q) {
        free(p);
        free(q);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < res->n; i++)
        if (res->rows[i].fig[m].candidate)
            p[k++] = res->rows[i].fig[m].p;
    int rc = diff_bh(p, q, nc);
    k = 0;
    for (size_t i = 0; rc == 0 && i < res->n; i++) {
        diff_fig *f = &res->rows[i].fig[m];
        if (!f->candidate)
            continue;
        f->q = q[k++];
        f->verdict = f->q >= c->set->alpha ? V_INCONCLUSIVE
                     : f->delta > 0        ? V_REGRESSED
                                           : V_IMPROVED;
    }
    free(p);
    free(q);
    return rc;
}

/*
 * Largest change first. Ties keep the join order, which is deterministic
 * and cheap: comparing key strings here made sorting a million rows with
 * mostly equal changes cost seconds.
 */
static int by_change(const void *x, const void *y)
{
    const diff_row *a = x, *b = y;
    if (a->change != b->change)
        return a->change > b->change ? -1 : 1;
    if (a->bi != b->bi)
        return a->bi < b->bi ? -1 : 1;
    return (a->ni > b->ni) - (a->ni < b->ni);
}

static void summarize(diff_ctx *c)
{
    diff_result *res = &c->res;
    int m = c->set->metric;
    for (size_t i = 0; i < res->n; i++) {
        const diff_row *r = &res->rows[i];
        res->counts[r->fig[m].verdict]++;
        res->n_new += r->bi == SIZE_MAX;
        res->n_vanished += r->ni == SIZE_MAX;
        if (c->set->fail_on >= 0 && r->fig[m].verdict == V_REGRESSED &&
            r->fig[m].delta > c->set->fail_on)
            res->tripped = true;
    }
}

int diff_compare(diff_ctx *c)
{
    c->cum_per_frame = !tfmt_flat_get_info(c->base.flat)->exact_cumulative ||
                       !tfmt_flat_get_info(c->new_.flat)->exact_cumulative;
    if (join(c) < 0)
        return -1;
    for (size_t i = 0; i < c->res.n; i++) {
        diff_row *r = &c->res.rows[i];
        tfmt_flat_row b = {0}, n = {0};
        if (r->bi != SIZE_MAX)
            tfmt_flat_row_at(c->base.flat, r->bi, &b);
        if (r->ni != SIZE_MAX)
            tfmt_flat_row_at(c->new_.flat, r->ni, &n);
        figure(c, &r->fig[M_SELF], b.self, n.self);
        if (c->cum_per_frame)
            figure(c, &r->fig[M_CUM], b.cumulative_frames,
                   n.cumulative_frames);
        else
            figure(c, &r->fig[M_CUM], b.cumulative, n.cumulative);
        floors(c->set, &r->fig[M_SELF]);
        floors(c->set, &r->fig[M_CUM]);
    }
    if (judge(c, M_SELF) < 0 || judge(c, M_CUM) < 0)
        return -1;
    for (size_t i = 0; i < c->res.n; i++) {
        double d = fabs(c->res.rows[i].fig[c->set->metric].delta);
        c->res.rows[i].change = isnan(d) ? -1 : d;
    }
    summarize(c);
    qsort(c->res.rows, c->res.n, sizeof *c->res.rows, by_change);
    return 0;
}
