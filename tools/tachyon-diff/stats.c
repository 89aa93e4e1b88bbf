/* SPDX-License-Identifier: MIT */
/*
 * stats.c - the significance tests behind tachyon-diff's verdicts.
 *
 * share: each side is n samples, c of which have the key (self: as the
 * leaf; cumulative: anywhere on the stack). The pooled two-proportion z
 * test compares c1/n1 with c2/n2; when any expected cell of the 2x2 table
 * is below 5 the normal approximation is poor, so Fisher's exact test
 * (hypergeometric, two-sided by summing every table at most as likely as
 * the observed one) is used instead.
 *
 * time / none: the counts are treated as Poisson with exposures e1, e2
 * (sampling ticks, or equal exposures). Given m = c1 + c2, c1 is
 * Binomial(m, e1 / (e1 + e2)) under "no change": an exact binomial test,
 * or its normal approximation when both expected counts are at least 5.
 *
 * Exact tests sum the probability mass outward from the mode with a ratio
 * recurrence, relative to the mode and normalized by the total (no
 * factorials, no lgamma, no underflow), stopping once terms are
 * negligible.
 *
 * Several runs a side (runs.c) are compared with Student's t, whose
 * tails come from the regularized incomplete beta function (a continued
 * fraction). The gate's one-sided tests use the same tails; with one run
 * a side their standard error is the sampling noise alone
 * (diff_se_sampling).
 */
#include <math.h>
#include <stdlib.h>

#include "diff.h"

#define EXACT_BELOW 5.0 /* expected count that triggers exact tests */
#define REL_TOL (1.0 + 1e-7)

/* A unimodal discrete law on [lo, hi]: ratio(k) = P(k + 1) / P(k). */
typedef struct law {
    double lo, hi, mode, obs;
    double (*ratio)(const struct law *l, double k);
    double a, b, c; /* parameters for ratio */
} law;

/* P(obs) / P(mode), by the ratio recurrence from the mode. */
static double rel_obs(const law *l)
{
    double r = 1;
    for (double k = l->mode; k < l->obs; k += 1)
        r *= l->ratio(l, k);
    for (double k = l->mode; k > l->obs; k -= 1)
        r /= l->ratio(l, k - 1);
    return r;
}

/*
 * Walk from the mode by `dir`, adding every relative term to *all and the
 * terms at most r_obs to *tail; stop once terms are negligible.
 */
static void walk(const law *l, double r_obs, int dir, double *all, double *tail)
{
    double r = 1, k = l->mode;
    for (;;) {
        if (dir > 0) {
            if (k >= l->hi)
                break;
            r *= l->ratio(l, k);
            k += 1;
        } else {
            if (k <= l->lo)
                break;
            r /= l->ratio(l, k - 1);
            k -= 1;
        }
        *all += r;
        if (r <= r_obs * REL_TOL)
            *tail += r;
        if (r < 1e-300 || (r < r_obs && r < 1e-17 * *all))
            break;
    }
}

/*
 * Two-sided p: the probability of every outcome at most as likely as the
 * observed one. Terms are relative to P(mode) and normalized by their own
 * sum, so no factorial or lgamma is needed.
 */
static double exact_two_sided(const law *l)
{
    double r_obs = rel_obs(l);
    double all = 1, tail = r_obs * REL_TOL >= 1 ? 1 : 0;
    walk(l, r_obs, +1, &all, &tail);
    walk(l, r_obs, -1, &all, &tail);
    double p = tail / all;
    return p > 1.0 ? 1.0 : p;
}

/* Hypergeometric: a = K successes, b = n draws, c = N population. */
static double hyper_ratio(const law *l, double k)
{
    return (l->a - k) * (l->b - k) / ((k + 1) * (l->c - l->a - l->b + k + 1));
}

static double fisher(uint64_t c1, double n1, uint64_t c2, double n2)
{
    law l = {0};
    l.a = (double)c1 + (double)c2;
    l.b = n1;
    l.c = n1 + n2;
    l.lo = fmax(0, l.b - (l.c - l.a));
    l.hi = fmin(l.a, l.b);
    l.mode = floor((l.b + 1) * (l.a + 1) / (l.c + 2));
    l.mode = fmin(fmax(l.mode, l.lo), l.hi);
    l.obs = (double)c1;
    l.ratio = hyper_ratio;
    return exact_two_sided(&l);
}

double diff_p_two_prop(uint64_t c1, double n1, uint64_t c2, double n2,
                       diff_test *test)
{
    double k = (double)c1 + (double)c2, n = n1 + n2;
    *test = T_NONE;
    if (n1 <= 0 || n2 <= 0 || (double)c1 > n1 || (double)c2 > n2)
        return NAN;
    if (k == 0 || k == n)
        return 1.0;
    double e = fmin(fmin(n1 * k / n, n1 * (n - k) / n),
                    fmin(n2 * k / n, n2 * (n - k) / n));
    if (e < EXACT_BELOW) {
        *test = T_FISHER;
        return fisher(c1, n1, c2, n2);
    }
    double pbar = k / n;
    double se = sqrt(pbar * (1 - pbar) * (1 / n1 + 1 / n2));
    double z = ((double)c1 / n1 - (double)c2 / n2) / se;
    *test = T_Z;
    return erfc(fabs(z) / sqrt(2.0));
}

static double binom_ratio(const law *l, double k)
{
    return (l->a - k) / (k + 1) * l->b / (1 - l->b);
}

double diff_p_rate(uint64_t c1, double e1, uint64_t c2, double e2,
                   diff_test *test)
{
    double m = (double)c1 + (double)c2;
    *test = T_NONE;
    if (e1 <= 0 || e2 <= 0)
        return NAN;
    if (m == 0)
        return 1.0;
    double pi = e1 / (e1 + e2);
    if (fmin(m * pi, m * (1 - pi)) >= EXACT_BELOW) {
        double z = ((double)c1 - m * pi) / sqrt(m * pi * (1 - pi));
        *test = T_NORMAL;
        return erfc(fabs(z) / sqrt(2.0));
    }
    law l = {0};
    l.a = m;
    l.b = pi;
    l.lo = 0;
    l.hi = m;
    l.mode = fmin(floor((m + 1) * pi), m);
    l.obs = (double)c1;
    l.ratio = binom_ratio;
    *test = T_BINOM;
    return exact_two_sided(&l);
}

typedef struct pidx {
    double p;
    size_t i;
} pidx;

static int by_p(const void *a, const void *b)
{
    const pidx *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? -1 : 1;
    return x->i < y->i ? -1 : (x->i > y->i);
}

int diff_bh(const double *p, double *q, size_t n)
{
    if (n == 0)
        return 0;
    pidx *s = malloc(n * sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < n; i++)
        s[i] = (pidx){p[i], i};
    qsort(s, n, sizeof *s, by_p);
    double run = 1.0;
    for (size_t r = n; r-- > 0;) {
        double v = s[r].p * (double)n / (double)(r + 1);
        if (v < run)
            run = v;
        q[s[r].i] = run;
    }
    free(s);
    return 0;
}

/*
 * Continued fraction of the regularized incomplete beta function
 * (modified Lentz), converging fast for x < (a + 1) / (a + b + 2).
 */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    d = 1 / (fabs(d) < tiny ? tiny : d);
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m;
        double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        for (int pass = 0; pass < 2; pass++) {
            d = 1 + num * d;
            c = 1 + num / c;
            d = 1 / (fabs(d) < tiny ? tiny : d);
            c = fabs(c) < tiny ? tiny : c;
            h *= d * c;
            num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        }
        if (fabs(d * c - 1) < 1e-15)
            break;
    }
    return h;
}

/* I_x(a, b), the regularized incomplete beta function, for x in [0, 1]. */
static double beta_reg(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double ln =
        lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1) / (a + b + 2))
        return exp(ln) * beta_cf(a, b, x) / a;
    return 1 - exp(ln) * beta_cf(b, a, 1 - x) / b;
}

double diff_t_upper(double t, double df)
{
    if (isnan(t) || isnan(df) || df <= 0)
        return NAN;
    if (isinf(df))
        return 0.5 * erfc(t / sqrt(2.0));
    if (isinf(t))
        return t > 0 ? 0 : 1;
    /* P(|T| > |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2) */
    double tail = 0.5 * beta_reg(df / 2, 0.5, df / (df + t * t));
    return t > 0 ? tail : 1 - tail;
}

double diff_t_two_sided(double t, double df)
{
    if (isnan(t) || isnan(df) || df <= 0)
        return NAN;
    if (isinf(df))
        return erfc(fabs(t) / sqrt(2.0));
    if (isinf(t))
        return 0;
    return beta_reg(df / 2, 0.5, df / (df + t * t));
}

double diff_se_sampling(uint64_t c1, double n1, double d1, uint64_t c2,
                        double n2, double d2, bool binom)
{
    double k1 = (double)c1 + 1, k2 = (double)c2 + 1;
    if (!(d1 > 0 && d2 > 0))
        return NAN;
    if (!binom)
        return 100 * sqrt(k1 / (d1 * d1) + k2 / (d2 * d2));
    double p1 = k1 / (n1 + 2), p2 = k2 / (n2 + 2);
    return 100 * sqrt(p1 * (1 - p1) / (n1 + 2) + p2 * (1 - p2) / (n2 + 2));
}

double diff_pooled_se(double m2_b, double runs_b, double m2_n, double runs_n,
                      double var_floor, double *df)
{
    *df = runs_b + runs_n - 2;
    if (!(runs_b >= 2 && runs_n >= 2))
        return NAN;
    double var = (m2_b + m2_n) / *df;
    if (!(var >= var_floor)) /* also when the runs are identical: 0 */
        var = var_floor;
    return sqrt(var * (1 / runs_b + 1 / runs_n));
}

void diff_gate_adjust(const double *p, const double *w, size_t n, double tau,
                      double *q)
{
    double total = 0;
    for (size_t k = 0; k < n; k++)
        total += w[k];
    for (size_t k = 0; k < n; k++) {
        double v = p[k] * total / (tau * w[k]);
        q[k] = v < 1 ? v : 1;
    }
}
