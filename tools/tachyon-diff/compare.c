/* SPDX-License-Identifier: MIT */
/*
 * compare.c - join the two flat profiles key by key, compute every
 * figure, test each row and give it a verdict, apply the gate, then sort
 * by the size of the change. When a side has no stacks (JSONL),
 * cumulative figures on BOTH sides are JSONL's per-frame sums, so like is
 * compared with like. In runs mode (several runs on both sides) figures
 * are the means of the per-run percents and the test is Student's t
 * (runs.c); otherwise the sides are summed and the tests see sampling
 * noise only (stats.c).
 *
 * Verdict of a figure (self or cumulative), in this order:
 *   inconclusive  when a side's denominator is zero (nothing to compare);
 *   unchanged     when delta is 0 or |delta| < --min-delta points;
 *   inconclusive  when base + new counts < --min-samples;
 *   regressed / improved  when the Benjamini-Hochberg q-value (over the
 *                 rows that passed both floors) is below --alpha;
 *   inconclusive  otherwise.
 *
 * The gate (--fail-on-regression PP) trips on a row of the chosen metric
 * that is regressed and whose one-sided test of "delta <= PP" is
 * significant at --alpha for the gate's family. The error to bound is
 * family-wise: the gate fails although no row changed by more than PP.
 * Bonferroni or Benjamini-Hochberg over every tested row lets rows that
 * could never exceed PP outvote one real regression, so the family is
 * narrowed in two ways that keep the level (docs/diff-statistics.md):
 *
 *   selection  only rows whose one-sided p-value is at most tau
 *              (DIFF_GATE_SELECT) take part, and they are tested on
 *              p / tau: a null row's p-value is uniform or larger, and
 *              stays so given p <= tau (conditional p-values, Zhao,
 *              Small and Su 2019);
 *   weights    the selected rows share alpha in proportion to a weight
 *              w (diff_gate_weight), computed from numbers that are
 *              independent of p for a row whose change is exactly PP
 *              (weighted Bonferroni), so a noisy row that could only
 *              ever catch a large change costs the others little.
 *
 * A selected row trips when p <= tau * alpha * w / W, W the sum of the
 * selected rows' weights; gate_q = p W / (tau w) is its adjusted
 * p-value. With independent rows the family-wise error is at most alpha.
 */
#include <math.h>
#include <pthread.h>
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
    static const char *const names[] = {"none",     "z",      "fisher",
                                        "binomial", "normal", "student"};
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
    if (r->bi != DIFF_NONE)
        tfmt_flat_row_at(c->base.flat, r->bi, out);
    else
        tfmt_flat_row_at(c->new_.flat, r->ni, out);
}

/* Copy what fits of s[0..n) to buf + at (buf holds cap); the new end. */
static size_t put_part(char *buf, size_t cap, size_t at, const char *s,
                       size_t n)
{
    if (at < cap)
        memcpy(buf + at, s, n < cap - at ? n : cap - at);
    return at + n;
}

size_t diff_key_text(const diff_ctx *c, const diff_row *r, char *buf,
                     size_t cap)
{
    tfmt_flat_row k;
    diff_row_key(c, r, &k);
    size_t at = 0;
    if (c->set->key != TFMT_FLAT_KEY_FUNC) {
        at = put_part(buf, cap, at, k.file.ptr, k.file.len);
        at = put_part(buf, cap, at, ":", 1);
    }
    at = put_part(buf, cap, at, k.func.ptr, k.func.len);
    if (c->set->key == TFMT_FLAT_KEY_FILE_FUNC_LINE) {
        char line[16];
        int n = snprintf(line, sizeof line, ":%d", (int)k.line);
        at = put_part(buf, cap, at, line, (size_t)n);
    }
    if (cap)
        buf[at < cap ? at : cap - 1] = '\0';
    return at;
}

char *diff_key_full(const diff_ctx *c, const diff_row *r, char *small,
                    size_t cap, size_t *len)
{
    *len = diff_key_text(c, r, small, cap);
    if (*len < cap)
        return small;
    char *key = malloc(*len + 1);
    if (key) {
        diff_key_text(c, r, key, *len + 1);
        return key;
    }
    *len = cap - 1; /* out of memory: the truncated text */
    return small;
}

void diff_result_free(diff_result *r)
{
    free(r->gate_q);
    free(r->rows);
    free(r->order);
    memset(r, 0, sizeof *r);
}

/* Base rows [from, to) looked up in the new flat: match[i] = new row. */
typedef struct lookup {
    const diff_ctx *c;
    uint32_t *match;
    size_t from, to;
} lookup;

static void *lookup_run(void *arg)
{
    const lookup *l = arg;
    /* UINT32_MAX (not found) is DIFF_NONE */
    tfmt_flat_find_rows(l->c->new_.flat, l->c->base.flat, l->from, l->to,
                        l->match + l->from);
    return NULL;
}

/*
 * Look every base key up in the new flat, on two threads for large
 * profiles (the flats are read-only here, and lookups miss the cache).
 */
static void lookup_all(const diff_ctx *c, uint32_t *match, size_t nb)
{
    lookup lo = {c, match, 0, nb / 2}, hi = {c, match, nb / 2, nb};
    pthread_t th;
    if (nb < 65536 || pthread_create(&th, NULL, lookup_run, &hi) != 0) {
        lo.to = nb;
        lookup_run(&lo);
        return;
    }
    lookup_run(&lo);
    pthread_join(th, NULL);
}

/* With a gate: one q-value per row, NaN until tested. */
static int gate_table(diff_result *res, const diff_settings *s)
{
    if (s->fail_on < 0)
        return 0;
    res->gate_q = malloc((res->n + 1) * sizeof *res->gate_q);
    if (!res->gate_q)
        return -1;
    for (size_t i = 0; i < res->n; i++)
        res->gate_q[i] = NAN;
    return 0;
}

/* All base keys, then the new keys base does not have. */
static int join(diff_ctx *c)
{
    size_t nb = tfmt_flat_count(c->base.flat);
    size_t nn = tfmt_flat_count(c->new_.flat);
    diff_result *res = &c->res;
    unsigned char *seen = calloc(nn + 1, 1);
    uint32_t *match = malloc((nb + 1) * sizeof *match);
    res->rows = malloc((nb + nn + 1) * sizeof *res->rows);
    if (!seen || !match || !res->rows || nb >= DIFF_NONE || nn >= DIFF_NONE) {
        free(seen);
        free(match);
        return -1;
    }
    diff_advise_huge(res->rows, (nb + nn + 1) * sizeof *res->rows);
    lookup_all(c, match, nb);
    for (size_t i = 0; i < nb; i++) {
        if (match[i] != DIFF_NONE)
            seen[match[i]] = 1;
        res->rows[res->n++] =
            (diff_row){(uint32_t)i, match[i], 0, {NAN, NAN}, {0, 0}};
    }
    for (size_t j = 0; j < nn; j++)
        if (!seen[j])
            res->rows[res->n++] =
                (diff_row){DIFF_NONE, (uint32_t)j, 0, {NAN, NAN}, {0, 0}};
    free(seen);
    free(match);
    return 0;
}

/* A figure waiting for the Benjamini-Hochberg step, or a row selected
 * by the gate (p: its one-sided p-value, w: its weight). */
typedef struct cand {
    size_t row;
    double p, w;
} cand;

typedef struct cands {
    cand *v;
    size_t n, cap;
} cands;

static int push(cands *cs, cand x)
{
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? cs->cap * 2 : 64;
        cand *v = realloc(cs->v, cap * sizeof *v);
        if (!v)
            return -1;
        cs->v = v;
        cs->cap = cap;
    }
    cs->v[cs->n++] = x;
    return 0;
}

/*
 * The gate's view of a row: not selected (gate_q 1) when its one-sided
 * p-value is above DIFF_GATE_SELECT, else a candidate. A t statistic
 * below -1 has p above 0.78 with 2 or more degrees of freedom, so its
 * p-value is not computed (most rows of a large profile).
 */
static int gate_select(diff_ctx *c, size_t i, diff_est *e, cands *gs)
{
    double se = diff_std_error(c, e);
    if (isnan(e->delta) || !(se > 0))
        return 0;
    c->res.gate_q[i] = 1;
    if ((e->delta - c->set->fail_on) / se < -1)
        return 0;
    double p = diff_gate_p(c, e);
    if (!(p <= DIFF_GATE_SELECT))
        return 0;
    double w = diff_gate_weight(c, e);
    return push(gs, (cand){i, p, isnan(w) ? 1 : w});
}

/*
 * The floors decide every verdict that needs no test; the rest become
 * candidates (their p-values are computed only for them). Every row of
 * the gated metric goes through the gate's selection.
 */
static int floors(diff_ctx *c, size_t i, int m, cands *cs, cands *gs)
{
    const diff_settings *s = c->set;
    diff_row *r = &c->res.rows[i];
    diff_est e;
    diff_estimate(c, r, m, &e);
    double delta = e.delta;
    if (m == (int)s->metric)
        r->change = isnan(delta) ? -1 : fabs(delta);
    if (diff_gated(c, m) && gate_select(c, i, &e, gs) < 0)
        return -1;
    if (isnan(delta))
        r->verdict[m] = V_INCONCLUSIVE;
    else if (delta == 0 || fabs(delta) < s->min_delta)
        r->verdict[m] = V_UNCHANGED;
    else if (e.base + e.new_ < s->min_samples)
        r->verdict[m] = V_INCONCLUSIVE;
    else {
        diff_test t;
        double p = diff_p_value(c, &e, &t);
        r->verdict[m] = delta > 0 ? V_REGRESSED : V_IMPROVED;
        if (isnan(p)) {
            r->verdict[m] = V_INCONCLUSIVE;
            return 0;
        }
        return push(cs, (cand){i, p, 1});
    }
    return 0;
}

/* Verdicts of figure `m` from its candidates' Benjamini-Hochberg q-values. */
static int judge(diff_ctx *c, int m, const cands *cs)
{
    double *p = malloc((cs->n + 1) * sizeof *p);
    double *q = malloc((cs->n + 1) * sizeof *q);
    int rc = p && q ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < cs->n; k++)
        p[k] = cs->v[k].p;
    if (rc == 0)
        rc = diff_bh(p, q, cs->n);
    for (size_t k = 0; rc == 0 && k < cs->n; k++) {
        diff_row *r = &c->res.rows[cs->v[k].row];
        r->q[m] = q[k];
        if (q[k] >= c->set->alpha)
            r->verdict[m] = V_INCONCLUSIVE;
        /* else: the sign set by floors() stands */
    }
    free(p);
    free(q);
    return rc;
}

/* The gate's adjusted p-values of the selected rows (diff_gate_adjust). */
static int gate_adjust(diff_ctx *c, const cands *gs)
{
    double *p = malloc((gs->n + 1) * sizeof *p);
    double *w = malloc((gs->n + 1) * sizeof *w);
    double *q = malloc((gs->n + 1) * sizeof *q);
    int rc = p && w && q ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < gs->n; k++) {
        p[k] = gs->v[k].p;
        w[k] = gs->v[k].w;
    }
    if (rc == 0)
        diff_gate_adjust(p, w, gs->n, DIFF_GATE_SELECT, q);
    for (size_t k = 0; rc == 0 && k < gs->n; k++)
        c->res.gate_q[gs->v[k].row] = q[k];
    free(p);
    free(w);
    free(q);
    return rc;
}

static void summarize(diff_ctx *c)
{
    diff_result *res = &c->res;
    int m = c->set->metric;
    for (size_t i = 0; i < res->n; i++) {
        const diff_row *r = &res->rows[i];
        res->counts[r->verdict[m]]++;
        res->n_new += r->bi == DIFF_NONE;
        res->n_vanished += r->ni == DIFF_NONE;
        /* the gate: significantly above the threshold, for the family */
        if (res->gate_q && r->verdict[m] == V_REGRESSED &&
            res->gate_q[i] < c->set->alpha)
            res->tripped = true;
    }
}

int diff_compare(diff_ctx *c)
{
    c->cum_per_frame = !tfmt_flat_get_info(c->base.flat)->exact_cumulative ||
                       !tfmt_flat_get_info(c->new_.flat)->exact_cumulative;
    if (join(c) < 0 || gate_table(&c->res, c->set) < 0)
        return -1;
    /* Both figures of a row in one pass: the new side's counts are a
     * cache miss per row, paid once. */
    int rc = 0;
    cands cs[2] = {{NULL, 0, 0}, {NULL, 0, 0}}, gs = {NULL, 0, 0};
    for (size_t i = 0; rc == 0 && i < c->res.n; i++) {
        rc = floors(c, i, M_SELF, &cs[M_SELF], &gs);
        if (rc == 0)
            rc = floors(c, i, M_CUM, &cs[M_CUM], &gs);
    }
    for (int m = 0; rc == 0 && m < 2; m++)
        rc = judge(c, m, &cs[m]);
    if (rc == 0 && c->res.gate_q)
        rc = gate_adjust(c, &gs);
    free(cs[0].v);
    free(cs[1].v);
    free(gs.v);
    if (rc < 0)
        return -1;
    summarize(c);
    return diff_sort_order(c->res.rows, c->res.n, &c->res.order);
}
