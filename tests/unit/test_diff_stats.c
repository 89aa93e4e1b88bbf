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
    CHECK(fabs(got - want) <= 1e-9 * fmax(1e-300, want), "%s: %.17g, want "
          "%.17g", what, got, want);
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

TESTS(TCASE(two_proportions), TCASE(rates), TCASE(benjamini_hochberg))
