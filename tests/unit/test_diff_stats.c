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
      TCASE(student_t), TCASE(sampling_se))
