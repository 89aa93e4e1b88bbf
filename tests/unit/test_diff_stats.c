/* SPDX-License-Identifier: MIT */
/*
 * test_diff_stats.c - tachyon-diff's significance tests (stats.c). Every
 * expected p-value was computed independently in Python with exact
 * rational arithmetic (fractions.Fraction, math.comb) or math.erfc, by the
 * definitions in stats.c: two-sided = the sum of every outcome at most as
 * likely as the observed one.
 */
#include <math.h>

#include "harness.h"
#include "diff.h"

static void near(double got, double want, const char *what)
{
    CHECK(fabs(got - want) <= 1e-9 * fmax(1e-300, want),
          "%s: %.17g, want "
          "%.17g",
          what, got, want);
}

TEST(two_proportions)
{
    diff_test t;
    /* The fixtures' query row: large counts, z test. */
    near(diff_p_two_prop(600, 2000, 800, 2200, &t), 1.2463716772329767e-05,
         "z 600/2000 vs 800/2200");
    CHECK(t == T_Z, "test %d", (int)t);
    near(diff_p_two_prop(1320, 2000, 1520, 2200, &t), 0.03251638753638849,
         "z cumulative");
    /* Expected cells under 5: Fisher's exact test. */
    near(diff_p_two_prop(2, 10, 7, 10, &t), 0.06977851869492736,
         "fisher 2/10 vs 7/10");
    CHECK(t == T_FISHER, "test %d", (int)t);
    near(diff_p_two_prop(0, 2000, 3, 2200, &t), 0.25152247133671285,
         "fisher 0 vs 3");
    near(diff_p_two_prop(1, 5, 5, 5, &t), 0.047619047619047616,
         "fisher 1/5 vs 5/5 (one cell at its bound)");
    /* Nothing to test. */
    CHECK(diff_p_two_prop(0, 10, 0, 10, &t) == 1.0 && t == T_NONE, "0 vs 0");
    CHECK(isnan(diff_p_two_prop(1, 0, 1, 10, &t)), "empty side");
}

TEST(rates)
{
    diff_test t;
    near(diff_p_rate(2, 1, 7, 1, &t), 0.1796875, "binomial 2 vs 7");
    CHECK(t == T_BINOM, "test %d", (int)t);
    near(diff_p_rate(0, 2000, 4, 2200, &t), 0.12670132300841727,
         "binomial, unequal exposures");
    near(diff_p_rate(600, 1, 800, 1, &t), 9.030488680364747e-08,
         "normal 600 vs 800");
    CHECK(t == T_NORMAL, "test %d", (int)t);
    near(diff_p_rate(8, 1, 3, 1, &t), 0.1316680160228143, "normal 8 vs 3");
    CHECK(diff_p_rate(0, 1, 0, 1, &t) == 1.0, "0 vs 0");
    CHECK(isnan(diff_p_rate(1, 0, 1, 1, &t)), "no exposure");
}

TEST(benjamini_hochberg)
{
    /* By hand: sorted p .01 .02 .03 .5 (m = 4): .04, .04, .04, .5. */
    const double p[] = {0.5, 0.03, 0.01, 0.02};
    double q[4];
    REQUIRE(diff_bh(p, q, 4) == 0, "bh");
    near(q[0], 0.5, "q of .5");
    near(q[1], 0.04, "q of .03");
    near(q[2], 0.04, "q of .01 (monotone)");
    near(q[3], 0.04, "q of .02");
    CHECK(diff_bh(p, q, 0) == 0, "empty");
}

/*
 * Where the running minimum decides, and ties. Expected q-values from
 * statsmodels.stats.multitest.multipletests(p, method="fdr_bh").
 */
TEST(benjamini_hochberg_running_min)
{
    /* sorted .001 .02 .021 .04 .3: p m / r = .005 .05 .035 .05 .3; the
     * .02 takes the .035 of the rank above it */
    const double p[] = {0.3, 0.021, 0.001, 0.04, 0.02};
    const double want[] = {0.3, 0.035, 0.005, 0.05, 0.035};
    double q[5];
    REQUIRE(diff_bh(p, q, 5) == 0, "bh");
    for (size_t i = 0; i < 5; i++)
        near(q[i], want[i], "running minimum");
    /* three tied .02 and a .01 below them: every one of them .03 */
    const double t[] = {0.02, 0.9, 0.02, 0.01, 0.5, 0.02};
    const double twant[] = {0.03, 0.9, 0.03, 0.03, 0.6, 0.03};
    double tq[6];
    REQUIRE(diff_bh(t, tq, 6) == 0, "bh ties");
    for (size_t i = 0; i < 6; i++)
        near(tq[i], twant[i], "ties");
    /* capped at 1 */
    const double big[] = {0.9, 0.95};
    double bq[2];
    REQUIRE(diff_bh(big, bq, 2) == 0, "bh big");
    near(bq[0], 0.95, "q of .9 (the .95 above it)");
    near(bq[1], 0.95, "q of .95");
}

/*
 * Student's t with the pooled variance. Runs 10 12 14 against 20 21 22
 * 23: scipy.stats.ttest_ind(new, base, equal_var=True) gives t =
 * 7.713980457940926, so se = 9.5 / t = 1.2315302134607444 with 5 df.
 */
TEST(pooled_se)
{
    double df = 0;
    near(diff_pooled_se(8, 3, 5, 4, 0, &df), 1.2315302134607444, "pooled");
    CHECK(df == 5, "df %g", df);
    /* the floor, when the runs spread less */
    near(diff_pooled_se(8, 3, 5, 4, 4, &df), sqrt(4 * (1.0 / 3 + 1.0 / 4)),
         "floored");
    /* zero variance: identical runs on both sides (Welch's degrees of
     * freedom would be 0/0); the floor alone, df still runs - 2 */
    near(diff_pooled_se(0, 5, 0, 5, 0.09, &df), sqrt(0.09 * 0.4), "no spread");
    CHECK(df == 8, "identical runs: df %g", df);
    CHECK(diff_pooled_se(0, 5, 0, 5, 0, &df) == 0 && df == 8,
          "identical runs, no floor: se 0");
    /* zero variance on one side only: pooled with the other's */
    near(diff_pooled_se(0, 3, 6, 3, 0, &df), sqrt(6.0 / 4 * (2.0 / 3)),
         "one side still");
    /* one run a side is not runs mode */
    CHECK(isnan(diff_pooled_se(0, 1, 0, 1, 0.1, &df)), "one run a side");
    CHECK(isnan(diff_pooled_se(0, 1, 2, 4, 0.1, &df)), "one base run");
}

/* The gate's adjustment: q = p W / (tau w), by hand. */
TEST(gate_adjust)
{
    const double p[] = {0.01, 0.2, 0.7}, w[] = {4, 1, 5};
    double q[3];
    diff_gate_adjust(p, w, 3, 0.75, q);
    near(q[0], 0.01 * 10 / (0.75 * 4), "weighted");
    CHECK(q[1] == 1 && q[2] == 1, "capped: %g %g", q[1], q[2]);
    /* one selected row: p / tau, whatever its weight */
    const double p1[] = {0.03}, w1[] = {123};
    diff_gate_adjust(p1, w1, 1, 0.75, q);
    near(q[0], 0.04, "alone");
}

/*
 * Student's t tails: expected values by numerical integration of the t
 * density (mpmath.quad at 40 digits), independent of the incomplete beta
 * function stats.c uses.
 */
TEST(student_t)
{
    static const struct {
        double t, df, upper, two;
    } cases[] = {
        {2.0, 1, 0.14758361765043327, 0.29516723530086655},
        {1.5, 2.5, 0.12391822654314813, 0.24783645308629626},
        {3.9, 8, 0.0022723266020573554, 0.0045446532041147107},
        {-0.7, 4.2, 0.73961643537971318, 0.52076712924057365},
        {10, 3, 0.001064199529207075, 0.0021283990584141501},
        {2.3, 30, 0.014290693643570873, 0.028581387287141745},
        {0.0, 7, 0.5, 1.0},
        {25, 9.5, 2.7288554264716559e-10, 5.4577108529433118e-10},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(fabs(diff_t_upper(cases[i].t, cases[i].df) - cases[i].upper) <=
                  1e-12 * cases[i].upper + 1e-15,
              "upper t=%g df=%g: %.17g", cases[i].t, cases[i].df,
              diff_t_upper(cases[i].t, cases[i].df));
        CHECK(fabs(diff_t_two_sided(cases[i].t, cases[i].df) - cases[i].two) <=
                  1e-12 * cases[i].two,
              "two-sided t=%g df=%g", cases[i].t, cases[i].df);
    }
    /* df = infinity: the normal law */
    near(diff_t_upper(1.959963984540054, INFINITY), 0.025, "normal 97.5%");
    near(diff_t_two_sided(-1.959963984540054, INFINITY), 0.05, "normal");
    CHECK(isnan(diff_t_upper(NAN, 3)) && isnan(diff_t_upper(1, 0)), "NaN");
}

/* Sampling-noise standard errors, by hand from the formulas. */
TEST(sampling_se)
{
    /* share: p1 = 601/2002, p2 = 801/2202 */
    double p1 = 601.0 / 2002, p2 = 801.0 / 2202;
    near(diff_se_sampling(600, 2000, 2000, 800, 2200, 2200, true),
         100 * sqrt(p1 * (1 - p1) / 2002 + p2 * (1 - p2) / 2202), "binom");
    /* rates: 100 sqrt(c1+1)/d1^2 + (c2+1)/d2^2) */
    near(diff_se_sampling(0, 0, 1000, 9, 0, 1000, false),
         100 * sqrt(1.0 / 1e6 + 10.0 / 1e6), "poisson");
    CHECK(isnan(diff_se_sampling(1, 10, 0, 1, 10, 10, true)), "no denom");
}

TESTS(TCASE(two_proportions), TCASE(rates), TCASE(benjamini_hochberg),
      TCASE(benjamini_hochberg_running_min), TCASE(pooled_se),
      TCASE(gate_adjust), TCASE(student_t), TCASE(sampling_se))
