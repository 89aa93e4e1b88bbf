/* SPDX-License-Identifier: MIT */
/*
 * runs.c - several runs a side, kept apart. Every file of a side still
 * adds into the side's one flat profile (one key table, one join), and
 * after each file the flat's running totals are copied; differences of
 * consecutive copies are each run's own counts. Rows only grow between
 * files (a file's unused keys are dropped before the next one starts),
 * so row i means the same key in every copy.
 *
 * The per-run figures give each key a test that sees how much it moves
 * from run to run (machine load, caches, run length), which one profile
 * a side cannot show: Student's t on the per-run percents, with the
 * variance pooled over both sides' runs (under "nothing changed" both
 * sides are runs of the same program: one spread, R_b + R_n - 2 degrees
 * of freedom, where Welch's would leave as few as R - 1). The pooled
 * variance is floored at a quarter of the sampling (binomial or Poisson)
 * variance, so a key that happens to move very little in a few runs is
 * not trusted beyond reason; a quarter, not all of it, because sampling
 * at a fixed interval is systematic: the real runs in testdata/gate move
 * less than binomial noise (0.6 to 0.9 of its variance for the largest
 * functions), and a full floor overstated their noise.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

int diff_runs_begin(diff_side *side)
{
    size_t n = side->files->count;
    side->runs = calloc(n + 1, sizeof *side->runs);
    if (!side->runs)
        return -1;
    side->n_runs = n;
    return 0;
}

int diff_runs_take(diff_side *side, size_t j)
{
    const tfmt_flat *f = side->flat;
    const tfmt_flat_info *in = tfmt_flat_get_info(f);
    diff_run *run = &side->runs[j];
    size_t rows = tfmt_flat_count(f);
    run->counts = malloc((rows + 1) * sizeof *run->counts);
    if (!run->counts)
        return -1;
    run->rows = rows;
    run->samples = in->samples;
    run->ticks = in->has_duration ? in->ticks : 0;
    for (size_t i = 0; i < rows; i++) {
        diff_counts *k = &run->counts[i];
        tfmt_flat_counts_at(f, i, &k->self, &k->cum, &k->cum_frames);
    }
    return 0;
}

void diff_runs_finish(diff_side *side)
{
    for (size_t j = side->n_runs; j-- > 1;) {
        diff_run *run = &side->runs[j];
        const diff_run *prev = &side->runs[j - 1];
        for (size_t i = 0; i < prev->rows; i++) {
            run->counts[i].self -= prev->counts[i].self;
            run->counts[i].cum -= prev->counts[i].cum;
            run->counts[i].cum_frames -= prev->counts[i].cum_frames;
        }
        run->samples -= prev->samples;
        run->ticks = run->ticks > 0 ? run->ticks - prev->ticks : 0;
    }
}

void diff_runs_free(diff_side *side)
{
    for (size_t j = 0; side->runs && j < side->n_runs; j++)
        free(side->runs[j].counts);
    free(side->runs);
    side->runs = NULL;
    side->n_runs = 0;
}

/*
 * The denominator of run `run`'s percents: its samples (share), its
 * ticks (time), or the base side's mean samples per run (none: raw
 * counts on a common scale).
 */
static double run_denom(const diff_ctx *c, const diff_run *run)
{
    if (c->set->norm == NORM_SHARE)
        return (double)run->samples;
    if (c->set->norm == NORM_TIME)
        return run->ticks;
    return (double)tfmt_flat_get_info(c->base.flat)->samples /
           (double)c->base.n_runs;
}

static uint64_t run_count(const diff_run *run, uint32_t i, int m,
                          bool per_frame)
{
    if (i == DIFF_NONE || i >= run->rows)
        return 0;
    const diff_counts *k = &run->counts[i];
    return m == M_SELF ? k->self : per_frame ? k->cum_frames : k->cum;
}

/*
 * Sampling variance (pp^2) of one run's percent, with one pseudo count
 * (as diff_se_sampling): binomial for share, Poisson otherwise.
 */
static double run_sampling_var(const diff_ctx *c, uint64_t cnt, double d)
{
    double k = (double)cnt + 1;
    if (c->set->norm == NORM_SHARE) {
        double p = k / (d + 2);
        return 1e4 * p * (1 - p) / (d + 2);
    }
    return 1e4 * k / (d * d);
}

/* One side of a row: its summed count, the mean of the percents, the
 * sum of squared deviations from it and the summed sampling variance. */
typedef struct side_est {
    uint64_t sum;
    double mean, m2, samp;
} side_est;

static void side_estimate(const diff_ctx *c, const diff_side *s, uint32_t i,
                          int m, side_est *out)
{
    double mean = 0, m2 = 0, samp = 0;
    out->sum = 0;
    for (size_t j = 0; j < s->n_runs; j++) {
        const diff_run *run = &s->runs[j];
        uint64_t cnt = run_count(run, i, m, c->cum_per_frame);
        double d = run_denom(c, run);
        double x = d > 0 ? 100.0 * (double)cnt / d : NAN;
        double dx = x - mean; /* Welford: no cancellation */
        mean += dx / (double)(j + 1);
        m2 += dx * (x - mean);
        samp += run_sampling_var(c, cnt, d);
        out->sum += cnt;
    }
    out->mean = mean;
    out->m2 = m2;
    out->samp = samp;
}

void diff_runs_estimate(const diff_ctx *c, const diff_row *r, int m,
                        diff_est *e)
{
    side_est b, n;
    side_estimate(c, &c->base, r->bi, m, &b);
    side_estimate(c, &c->new_, r->ni, m, &n);
    double rb = (double)c->base.n_runs, rn = (double)c->new_.n_runs;
    e->base = b.sum;
    e->new_ = n.sum;
    e->base_pct = b.mean;
    e->new_pct = n.mean;
    e->delta = n.mean - b.mean;
    e->base_sd = sqrt(b.m2 / (rb - 1));
    e->new_sd = sqrt(n.m2 / (rn - 1));
    e->ss = b.m2 + n.m2;
    /* the floor: a quarter of the mean per-run sampling variance */
    e->var_floor = DIFF_RUNS_FLOOR * (b.samp + n.samp) / (rb + rn);
    e->se = diff_pooled_se(b.m2, rb, n.m2, rn, e->var_floor, &e->df);
}
