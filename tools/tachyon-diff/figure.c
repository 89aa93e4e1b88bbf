/* SPDX-License-Identifier: MIT */
/*
 * figure.c - one figure (self or cumulative) of one row: its percents and
 * change, the standard error, the two-sided test behind the verdict and
 * the gate's one-sided test. With one run on a side the sides are summed
 * and the tests see sampling noise only (stats.c); in runs mode the
 * figures come from the per-run percents (runs.c).
 */
#include <math.h>

#include "diff.h"

static double pct(uint64_t count, double denom)
{
    return denom > 0 ? 100.0 * (double)count / denom : NAN;
}

/* The counts of figure `m` on one side (0 when the key is absent). */
static uint64_t side_count(const tfmt_flat *f, uint32_t i, int m,
                           bool per_frame)
{
    uint64_t self = 0, cum = 0, cum_frames = 0;
    if (i != DIFF_NONE)
        tfmt_flat_counts_at(f, i, &self, &cum, &cum_frames);
    return m == M_SELF ? self : per_frame ? cum_frames : cum;
}

/*
 * Figure `m` of row `r`: summed counts and percents with one run a side
 * (se left NaN: sampling_se computes it when it is needed), the per-run
 * means and spread in runs mode.
 */
void diff_estimate(const diff_ctx *c, const diff_row *r, int m, diff_est *e)
{
    if (c->runs_mode) {
        diff_runs_estimate(c, r, m, e);
        return;
    }
    e->base = side_count(c->base.flat, r->bi, m, c->cum_per_frame);
    e->new_ = side_count(c->new_.flat, r->ni, m, c->cum_per_frame);
    e->base_pct = pct(e->base, c->base.denom);
    e->new_pct = pct(e->new_, c->new_.denom);
    e->delta = e->new_pct - e->base_pct;
    e->base_sd = e->new_sd = NAN;
    e->se = NAN;
    e->df = INFINITY;
    e->ss = e->var_floor = NAN;
}

/* One run a side: the standard error of delta from sampling noise. */
static double sampling_se(const diff_ctx *c, const diff_est *e)
{
    double nb = (double)tfmt_flat_get_info(c->base.flat)->samples;
    double nn = (double)tfmt_flat_get_info(c->new_.flat)->samples;
    return diff_se_sampling(e->base, nb, c->base.denom, e->new_, nn,
                            c->new_.denom, c->set->norm == NORM_SHARE);
}

double diff_std_error(const diff_ctx *c, diff_est *e)
{
    if (isnan(e->se) && !c->runs_mode)
        e->se = sampling_se(c, e);
    return e->se;
}

/* The two-sided p-value of a figure under the normalization in use. */
double diff_p_value(const diff_ctx *c, const diff_est *e, diff_test *test)
{
    const tfmt_flat_info *ib = tfmt_flat_get_info(c->base.flat);
    const tfmt_flat_info *in = tfmt_flat_get_info(c->new_.flat);
    if (c->runs_mode) {
        *test = T_NONE;
        if (e->delta == 0)
            return isnan(e->se) ? NAN : 1.0;
        *test = T_STUDENT;
        return diff_t_two_sided(e->delta / e->se, e->df);
    }
    if (c->set->norm == NORM_SHARE)
        return diff_p_two_prop(e->base, (double)ib->samples, e->new_,
                               (double)in->samples, test);
    if (c->set->norm == NORM_TIME)
        return diff_p_rate(e->base, ib->ticks, e->new_, in->ticks, test);
    return diff_p_rate(e->base, 1.0, e->new_, 1.0, test);
}

/*
 * The gate's one-sided p-value: how likely a change at least this far
 * above the threshold is when the true change is the threshold itself
 * (Student's t in runs mode, the normal law with sampling noise only
 * otherwise).
 */
double diff_gate_p(const diff_ctx *c, diff_est *e)
{
    double se = diff_std_error(c, e);
    if (!(se > 0))
        return NAN;
    return diff_t_upper((e->delta - c->set->fail_on) / se, e->df);
}

/*
 * All runs of both sides, the new ones moved down by PP, as one sample:
 * its sum of squares is the within-side sum plus the between-side term
 * of (delta - PP). For normal runs with one spread, when the change is
 * exactly PP, this spread is independent of the t statistic (which does
 * not change when the runs are shifted or scaled), so weighting by it
 * keeps the gate's level (compare.c).
 */
double diff_gate_weight(const diff_ctx *c, const diff_est *e)
{
    if (!c->runs_mode)
        return 1;
    double rb = (double)c->base.n_runs, rn = (double)c->new_.n_runs;
    double shift = e->delta - c->set->fail_on;
    double ss = e->ss + rb * rn / (rb + rn) * shift * shift;
    double var = fmax(ss / (rb + rn - 1), e->var_floor);
    double w = 1 / (var * (1 / rb + 1 / rn));
    return w > 0 && isfinite(w) ? w : NAN;
}

bool diff_gated(const diff_ctx *c, int m)
{
    return c->set->fail_on >= 0 && m == (int)c->set->metric;
}

void diff_figure(const diff_ctx *c, const diff_row *r, int m, diff_fig *f)
{
    diff_est e;
    diff_estimate(c, r, m, &e);
    f->base = e.base;
    f->new_ = e.new_;
    f->base_pct = e.base_pct;
    f->new_pct = e.new_pct;
    f->delta = e.delta;
    f->base_runs = c->base.files->count;
    f->new_runs = c->new_.files->count;
    f->base_sd = e.base_sd;
    f->new_sd = e.new_sd;
    f->se = diff_std_error(c, &e);
    f->df = isnan(f->se) ? NAN : e.df;
    f->p = diff_p_value(c, &e, &f->test);
    f->q = r->q[m];
    f->gate_q = diff_gated(c, m) ? c->res.gate_q[r - c->res.rows] : NAN;
    f->gate_p = isnan(f->gate_q) ? NAN : diff_gate_p(c, &e);
    f->verdict = (diff_verdict)r->verdict[m];
}
