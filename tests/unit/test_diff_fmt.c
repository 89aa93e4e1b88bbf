/* SPDX-License-Identifier: MIT */
/*
 * test_diff_fmt.c - tachyon-diff's exact number formatter (fmtnum.c)
 * against glibc's snprintf, which rounds the exact binary value of a
 * double half to even: random bit patterns, values spread over 24
 * decades, exact ties and their neighbours, zeros, subnormals and the
 * edges of the range the formatter takes, at every precision it takes.
 * A value it declines must be one it documents (|v| >= 2^53, a result
 * over 64 bits, %g's exponent style). A few expected strings are also
 * worked out by hand, so the test does not lean on snprintf alone.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "harness.h"
#include "diff.h"

/* Mismatches print up to this many lines; every one fails the test. */
#define SHOW_MAX 100

static long mismatches;

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

/* splitmix64: reproducible, good enough to spread bit patterns. */
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double from_bits(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

static void mismatch(const char *conv, double v, int prec, const char *got,
                     const char *want)
{
    if (++mismatches <= SHOW_MAX)
        fprintf(stderr, "mismatch %a %%.%d%s: got \"%s\", want \"%s\"\n", v,
                prec, conv, got, want);
}

/* diff_fmt_fixed(v, prec) is snprintf's "%.*f", or a documented decline. */
static void same_fixed(double v, int prec)
{
    char got[DIFF_FMT_CAP], want[512];
    size_t n = diff_fmt_fixed(got, v, prec);
    if (n == 0) {
        /* Declines only what it must: 10^prec * |v| near 2^64 or more. */
        bool big = fabs(v) >= 0x1p53 || fabs(v) * pow(10, prec) >= 0x1p63;
        if (!big || !isfinite(v))
            mismatch("f", v, prec, "(declined)", "a result");
        return;
    }
    snprintf(want, sizeof want, "%.*f", prec, v);
    if (n != strlen(want) || strcmp(got, want) != 0)
        mismatch("f", v, prec, got, want);
}

/* diff_fmt_general(v, sig) is snprintf's "%.*g", or a documented decline. */
static void same_general(double v, int sig)
{
    char got[DIFF_FMT_CAP], want[512];
    size_t n = diff_fmt_general(got, v, sig);
    snprintf(want, sizeof want, "%.*g", sig, v);
    if (n == 0) {
        /* Up to 15 digits every fixed-style value is taken. */
        if (!strchr(want, 'e') && sig <= 15)
            mismatch("g", v, sig, "(declined)", want);
        return;
    }
    if (n != strlen(want) || strcmp(got, want) != 0)
        mismatch("g", v, sig, got, want);
}

/* Both conversions at every precision the formatter takes. */
static void same_all(double v)
{
    for (int p = 0; p <= DIFF_FMT_MAX_PREC; p++) {
        same_fixed(v, p);
        same_general(v, p);
    }
}

static void expect_fixed(double v, int prec, const char *want)
{
    char got[DIFF_FMT_CAP] = "";
    size_t n = diff_fmt_fixed(got, v, prec);
    CHECK(n == strlen(want) && strcmp(got, want) == 0,
          "%a %%.%df: got \"%s\" (%zu), want \"%s\"", v, prec,
          n ? got : "(declined)", n, want);
}

/* want "": the value is left to snprintf (the exponent style). */
static void expect_general(double v, int sig, const char *want)
{
    char got[DIFF_FMT_CAP] = "";
    size_t n = diff_fmt_general(got, v, sig);
    CHECK(n == strlen(want) && strcmp(got, want) == 0,
          "%a %%.%dg: got \"%s\" (%zu), want \"%s\"", v, sig,
          n ? got : "(declined)", n, want);
}

/*
 * Worked out by hand: 2^-7 = 0.0078125 and 3 * 2^-7 = 0.0234375 are
 * exact, so their 7th decimal is an exact tie (to the even 2, up to the
 * even 8); 0.1 is 0.1000000000000000055511151231257827... in binary, so
 * at 17 decimals it rounds up; 2.5 and 3.5 both go to the even 2 and 4.
 * The exact binary values quoted below were checked with Python's
 * decimal module (Decimal(float) is exact), not with printf.
 */
TEST(hand_checked)
{
    expect_fixed(0.0078125, 6, "0.007812");
    expect_fixed(0.0234375, 6, "0.023438");
    expect_fixed(-0.0234375, 6, "-0.023438");
    expect_fixed(0.1, 17, "0.10000000000000001");
    expect_fixed(0.1, 6, "0.100000");
    expect_fixed(2.5, 0, "2");
    expect_fixed(3.5, 0, "4");
    expect_fixed(0.5, 0, "0");
    /* Near-ties: the exact binary value decides, not the decimal text. */
    expect_fixed(0.9999995, 6, "1.000000"); /* 0.99999950000000004 */
    expect_fixed(0.1234565, 6, "0.123456"); /* 0.12345649999999999 */
    expect_fixed(2.5e-6, 6, "0.000003");    /* 0.0000025000000000000002 */
    expect_fixed(9.9999996, 6, "10.000000");
    expect_fixed(-1e-9, 6, "-0.000000");
    expect_fixed(-0.0, 6, "-0.000000");
    expect_fixed(0.0, 0, "0");
    expect_fixed(123456789.0, 3, "123456789.000");
    expect_general(0.0009765625, 6, "0.000976562"); /* 2^-10, tie */
    expect_general(0.218683, 6, "0.218683");
    expect_general(300.0, 6, "300");
    expect_general(0.5, 6, "0.5");
    expect_general(-0.0, 6, "-0");
    expect_general(0.0, 6, "0");
    expect_general(99999.95, 6, "99999.9"); /* 99999.949999999997 */
    expect_general(1e-5, 6, "");            /* 1e-05: declined */
    expect_general(1234567.0, 6, "");       /* 1.23457e+06: declined */
}

/* Precisions the formatter does not take are declined, not guessed. */
TEST(declines)
{
    char buf[DIFF_FMT_CAP];
    CHECK(diff_fmt_fixed(buf, 1.0, -1) == 0, "prec -1");
    CHECK(diff_fmt_fixed(buf, 1.0, DIFF_FMT_MAX_PREC + 1) == 0, "prec max+1");
    CHECK(diff_fmt_fixed(buf, NAN, 6) == 0, "nan");
    CHECK(diff_fmt_fixed(buf, -INFINITY, 6) == 0, "-inf");
    CHECK(diff_fmt_fixed(buf, 0x1p53, 0) == 0, "2^53");
    CHECK(diff_fmt_general(buf, INFINITY, 6) == 0, "inf %%g");
    CHECK(diff_fmt_general(buf, 1.0, DIFF_FMT_MAX_PREC + 1) == 0, "sig");
}

/* Random bit patterns: every finite double is equally likely per bit. */
TEST(random_bits)
{
    mismatches = 0;
    for (long i = 0; i < 1000000; i++) {
        double v = from_bits(rnd());
        if (!isfinite(v))
            continue;
        same_fixed(v, (int)(rnd() % (DIFF_FMT_MAX_PREC + 1)));
        same_fixed(v, 6);
        same_general(v, 6);
    }
    CHECK(mismatches == 0, "%ld mismatches", mismatches);
}

/* |v| = 10^u, u uniform in [-12, 12], either sign: the values output has. */
TEST(decades)
{
    mismatches = 0;
    for (long i = 0; i < 2000000; i++) {
        double u = -12 + 24 * ((double)(rnd() >> 11) * 0x1p-53);
        double v = pow(10, u) * (rnd() & 1 ? -1 : 1);
        same_fixed(v, 6);
        same_general(v, 6);
        int p = (int)(rnd() % (DIFF_FMT_MAX_PREC + 1));
        same_fixed(v, p);
        same_general(v, p);
    }
    CHECK(mismatches == 0, "%ld mismatches", mismatches);
}

/*
 * (2j+1) / (2 * 10^p) is a double only when 5^p divides 2j+1, i.e. the
 * exact ties at p decimals are t * 2^-(p+1) with t odd. Each, and its
 * neighbours (which must round away from the tie), both signs.
 */
static void tie_and_neighbours(double v, int prec, bool general)
{
    double near[] = {v, nextafter(v, 0), nextafter(v, INFINITY)};
    for (int i = 0; i < 3; i++)
        for (int s = -1; s <= 1; s += 2) {
            if (general)
                same_general(s * near[i], prec);
            else
                same_fixed(s * near[i], prec);
        }
}

TEST(fixed_ties)
{
    mismatches = 0;
    for (int p = 0; p <= DIFF_FMT_MAX_PREC; p++)
        for (long i = 0; i < 50000; i++) {
            /* t odd, small or up to 2^53, so v spans the whole range. */
            int bits = 1 + (int)(rnd() % 53);
            uint64_t t = (rnd() >> (64 - bits)) | 1;
            tie_and_neighbours(ldexp((double)t, -(p + 1)), p, false);
        }
    CHECK(mismatches == 0, "%ld mismatches", mismatches);
}

/*
 * Ties at sig significant digits: v = t * 2^-(p+1), p = sig - 1 - X
 * decimals, with t * 5^p / 2 in [10^(sig-1), 10^sig) so that the tie
 * falls on the last significant digit.
 */
TEST(general_ties)
{
    mismatches = 0;
    for (int sig = 1; sig <= 15; sig++)
        for (int p = 0; p <= sig + 3; p++) {
            double lo = 2 * pow(10, sig - 1) / pow(5, p);
            double hi = 10 * lo;
            for (long i = 0; i < 4000; i++) {
                double t =
                    floor(lo + (hi - lo) * (double)(rnd() >> 11) * 0x1p-53);
                t = fmod(t, 2) == 1 ? t : t + 1;
                tie_and_neighbours(ldexp(t, -(p + 1)), sig, true);
            }
        }
    CHECK(mismatches == 0, "%ld mismatches", mismatches);
}

/* Zeros, subnormals, the smallest normals, 2^53, the 64-bit edge. */
TEST(edges)
{
    mismatches = 0;
    double fixed[] = {0.0,
                      -0.0,
                      DBL_TRUE_MIN,
                      DBL_MIN,
                      DBL_EPSILON,
                      0x1p53,
                      nextafter(0x1p53, 0),
                      0x1p52,
                      0.5,
                      1.0,
                      9.5,
                      99.5,
                      0.05,
                      0.005,
                      1e-10,
                      18446744073709551615.0,
                      1.8446744073709551e13,
                      1.8446744073709552e12,
                      9007199254740991.0,
                      4503599627370495.5};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        tie_and_neighbours(fixed[i], 6, false);
        same_all(fixed[i]);
        same_all(-fixed[i]);
    }
    for (long i = 0; i < 200000; i++) {
        /* Subnormal: a zero exponent field, a random mantissa. */
        double v = from_bits(rnd() & ((1ULL << 52) - 1));
        same_fixed(v, (int)(rnd() % (DIFF_FMT_MAX_PREC + 1)));
        same_general(-v, 6);
    }
    /* Around 10^k for k where %g switches style or gains a digit. */
    for (int k = -6; k <= 20; k++) {
        double v = pow(10, k);
        for (int j = 0; j < 3; j++) {
            same_all(v);
            same_all(-v);
            same_all(v * (1 - 5e-7));
            v = nextafter(v, 0);
        }
    }
    CHECK(mismatches == 0, "%ld mismatches", mismatches);
}

TESTS(TCASE(hand_checked), TCASE(declines), TCASE(random_bits), TCASE(decades),
      TCASE(fixed_ties), TCASE(general_ties), TCASE(edges))
