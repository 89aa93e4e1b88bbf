/* SPDX-License-Identifier: MIT */
/*
 * test_pyrepr.c - Python's float repr (pyrepr.c) without Python: reprs
 * printed by CPython 3.11 for chosen values (notation switches, integer
 * limits, subnormals, powers of two whose lower gap is half the upper),
 * Ryu's tables re-derived with exact big-integer arithmetic, and two
 * properties over half a million values: strtod reads every repr back to
 * the same double, and no decimal with one digit fewer does.
 * test_pyrepr_python.c compares with Python's own repr at scale.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>

#include "harness.h"
#include "pyrepr.h"
#include "pyrepr_tables.h"
#include "pyrepr_values.h"

#define SHOW_MAX 20

/* repr() as printed by CPython 3.11.2 (x.hex() and repr(x)). */
static const struct known {
    double v;
    const char *repr;
} known[] = {
    {0x0.0p+0, "0.0"},
    {-0x0.0p+0, "-0.0"},
    {0x1.0000000000000p+0, "1.0"},
    {-0x1.8000000000000p+0, "-1.5"},
    {0x1.999999999999ap-4, "0.1"},
    {0x1.3333333333334p-2, "0.30000000000000004"},
    {0x1.5555555555555p-2, "0.3333333333333333"},
    {0x1.9000000000000p+6, "100.0"},
    {0x1.1c37937e08000p+53, "1e+16"},
    {0x1.1c37937e07fffp+53, "9999999999999998.0"},
    {0x1.a36e2eb1c432dp-14, "0.0001"},
    {0x1.4f8b588e368f1p-17, "1e-05"},
    {0x1.02e4b6ce5dc68p-13, "0.00012345"},
    {0x1.b69b4ba630f35p+56, "1.2345678901234568e+17"},
    {0x1.0f0cf064dd592p+73, "1e+22"},
    {0x1.52d02c7e14af6p+76, "1e+23"},
    {0x0.0000000000001p-1022, "5e-324"},
    {0x0.0000000000003p-1022, "1.5e-323"},
    {0x1.0000000000000p-1022, "2.2250738585072014e-308"},
    {0x0.fffffffffffffp-1022, "2.225073858507201e-308"},
    {0x1.fffffffffffffp+1023, "1.7976931348623157e+308"},
    {0x1.0000000000000p+53, "9007199254740992.0"},
    {0x1.0000000000001p+53, "9007199254740994.0"},
    {0x1.0000000000000p+63, "9.223372036854776e+18"},
    {0x1.0000000000000p-44, "5.684341886080802e-14"},
    {0x1.34a456d5cfaadp+10, "1234.5678"},
    {0x1.249ad2594c37dp+332, "1e+100"},
    {0x1.1eb2d66005835p+997, "1.5e+300"},
    {-0x1.0c6f7a0b5ed8dp-22, "-2.5e-07"},
    {0x1.3333333333333p-2, "0.3"},
    {0x1.0000000000000p+1023, "8.98846567431158e+307"},
    {0x1.c6bf526340000p+49, "1000000000000000.0"},
    {0x1.d6f3454000000p+26, "123456789.0"},
    {0x1.3a92a30553261p-10, "0.0012"},
    {0x1.8000000000000p+3, "12.0"},
    {0x1.0624dd2f1a9fcp-10, "0.001"},
    {0x1.1666666666666p+2, "4.35"},
    {0x1.b1ae4d6e2ef50p+69, "1e+21"},
    {0x0.05c0ab9347ed7p-1022, "5e-310"},
    {0x0.8000000000000p-1022, "1.1125369292536007e-308"},
    {0x1.80d43de9cc603p-31, "7e-10"},
    {INFINITY, "inf"},
    {-INFINITY, "-inf"},
    {NAN, "nan"},
    {-NAN, "nan"},
};

TEST(known_reprs)
{
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        char out[TFMT_PYREPR_MAX];
        size_t n = tfmt__pyrepr(known[i].v, out);
        CHECK(strcmp(out, known[i].repr) == 0 && n == strlen(out),
              "%a: got \"%s\" (%zu), want \"%s\"", known[i].v, out, n,
              known[i].repr);
    }
}

/* ---- the tables, from exact integers ---- */

#define LIMBS 40 /* 32-bit limbs: 5^341 * 2^128 needs 29 */

typedef struct big {
    uint32_t l[LIMBS];
} big;

static void big_set(big *b, uint64_t lo, uint64_t hi)
{
    memset(b, 0, sizeof *b);
    b->l[0] = (uint32_t)lo;
    b->l[1] = (uint32_t)(lo >> 32);
    b->l[2] = (uint32_t)hi;
    b->l[3] = (uint32_t)(hi >> 32);
}

/* b *= m (small m); false on overflow. */
static bool big_mul(big *b, uint32_t m)
{
    uint64_t carry = 0;
    for (int i = 0; i < LIMBS; i++) {
        uint64_t t = (uint64_t)b->l[i] * m + carry;
        b->l[i] = (uint32_t)t;
        carry = t >> 32;
    }
    return carry == 0;
}

static int big_bitlen(const big *b)
{
    for (int i = LIMBS - 1; i >= 0; i--)
        for (int bit = 31; bit >= 0; bit--)
            if (b->l[i] >> bit & 1)
                return i * 32 + bit + 1;
    return 0;
}

/* a * 5^q, a = {lo, hi} */
static big times_pow5(uint64_t lo, uint64_t hi, unsigned q)
{
    big b;
    big_set(&b, lo, hi);
    for (unsigned i = 0; i < q; i++)
        CHECK(big_mul(&b, 5), "overflow at 5^%u", q);
    return b;
}

/* Is b >= 2^n? And is b > 2^n? */
static int big_cmp_pow2(const big *b, int n)
{
    int len = big_bitlen(b);
    if (len != n + 1)
        return len > n + 1 ? 1 : -1;
    for (int i = 0; i < n; i++)
        if (b->l[i / 32] >> (i % 32) & 1)
            return 1;
    return 0;
}

/* Bit length of 5^q. */
static int pow5_len(unsigned q)
{
    big b = times_pow5(1, 0, q);
    return big_bitlen(&b);
}

/*
 * pow5_inv[q] = floor(2^N / 5^q) + 1 with N = bitlen(5^q) - 1 + 125:
 * exactly the integer x with (x - 1) * 5^q <= 2^N < x * 5^q.
 */
TEST(table_pow5_inv)
{
    for (unsigned q = 0; q < PYREPR_POW5_INV_SIZE; q++) {
        const uint64_t *e = pyrepr_pow5_inv[q];
        int n = pow5_len(q) - 1 + PYREPR_POW5_INV_BITS;
        big above = times_pow5(e[0], e[1], q);
        uint64_t lo = e[0] - 1, hi = e[1] - (e[0] == 0);
        big below = times_pow5(lo, hi, q);
        CHECK(big_cmp_pow2(&above, n) > 0 && big_cmp_pow2(&below, n) <= 0,
              "pow5_inv[%u] is not floor(2^%d / 5^%u) + 1", q, n, q);
    }
}

/*
 * pow5[i] = 5^i scaled to 125 bits, truncated: 125 bits long, and
 * 5^i * 2^s lies in [x, x + 1) * 2^(s + shift) for the shift that keeps
 * 125 bits; checked as x * 2^k <= 5^i < (x + 1) * 2^k, or x == 5^i * 2^-k.
 */
TEST(table_pow5)
{
    for (unsigned i = 0; i < PYREPR_POW5_SIZE; i++) {
        const uint64_t *e = pyrepr_pow5[i];
        big x;
        big_set(&x, e[0], e[1]);
        CHECK(big_bitlen(&x) == PYREPR_POW5_BITS, "pow5[%u] length", i);
        int k = pow5_len(i) - PYREPR_POW5_BITS;
        big p = times_pow5(1, 0, i);
        if (k <= 0) {
            /* exact: x == 5^i << -k */
            big s = p;
            for (int b = 0; b < -k; b++)
                big_mul(&s, 2);
            CHECK(memcmp(&s, &x, sizeof s) == 0, "pow5[%u] != 5^%u", i, i);
            continue;
        }
        /* truncated: x == 5^i >> k, i.e. the top 125 bits of 5^i */
        int ok = 1;
        for (int b = 0; b < PYREPR_POW5_BITS; b++) {
            int pb = p.l[(b + k) / 32] >> ((b + k) % 32) & 1;
            int xb = x.l[b / 32] >> (b % 32) & 1;
            ok &= pb == xb;
        }
        CHECK(ok, "pow5[%u] is not the top 125 bits of 5^%u", i, i);
    }
}

/* ---- properties: round trip and shortness ---- */

static long failures;

/* Reads back as v; a decimal with one digit fewer, either way, does not. */
static void check_shortest(double v)
{
    char out[TFMT_PYREPR_MAX];
    tfmt__pyrepr(v, out);
    double back = strtod(out, NULL);
    if (memcmp(&back, &v, sizeof v) != 0) {
        if (++failures <= SHOW_MAX)
            fprintf(stderr, "%a: repr %s reads back as %a\n", v, out, back);
        return;
    }
    tfmt_decimal d = tfmt__shortest(fabs(v));
    if (d.digits < 10)
        return;
    for (int up = 0; up < 2; up++) {
        char s[48];
        snprintf(s, sizeof s, "%llue%d",
                 (unsigned long long)(d.digits / 10 + (uint64_t)up),
                 d.exp10 + 1);
        if (strtod(s, NULL) == fabs(v) && ++failures <= SHOW_MAX)
            fprintf(stderr, "%a: %s is shorter than %s\n", v, s, out);
    }
}

TEST(round_trip_and_shortest)
{
    pv_gen g = {0x243f6a8885a308d3ULL, 0};
    failures = 0;
    for (long i = 0; i < 500000; i++) {
        double v = pv_next(&g);
        if (isfinite(v) && v != 0)
            check_shortest(v);
    }
    CHECK(failures == 0, "%ld values failed", failures);
}

/* Every double whose repr ends a notation: both sides of each switch. */
TEST(notation_switches)
{
    static const struct {
        double v;
        char first;
        const char *has;
    } sw[] = {
        {1e16, '1', "e+16"},   {0x1.1c37937e07fffp+53, '9', ".0"},
        {1e-4, '0', "0.0001"}, {0x1.a36e2eb1c432cp-14, '9', "e-05"},
        {1e-5, '1', "e-05"},   {1e15, '1', "0.0"},
        {1e308, '1', "e+308"}, {1e-300, '1', "e-300"},
    };
    for (size_t i = 0; i < sizeof sw / sizeof sw[0]; i++) {
        char out[TFMT_PYREPR_MAX];
        tfmt__pyrepr(sw[i].v, out);
        CHECK(out[0] == sw[i].first && strstr(out, sw[i].has),
              "%a: \"%s\" should start with %c and contain %s", sw[i].v, out,
              sw[i].first, sw[i].has);
    }
}

/* repr(us / 1000) as printed by CPython 3.11.2. */
TEST(millis)
{
    static const struct {
        int64_t us;
        const char *repr;
    } ms[] = {
        {0, "0.0"},
        {1, "0.001"},
        {10, "0.01"},
        {20, "0.02"},
        {100, "0.1"},
        {1000, "1.0"},
        {1015, "1.015"},
        {1500, "1.5"},
        {-1500, "-1.5"},
        {-1, "-0.001"},
        {123456789, "123456.789"},
        {999999999999999, "999999999999.999"},
        {-999999999999999, "-999999999999.999"},
    };
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        char out[TFMT_PYREPR_MAX];
        size_t n = tfmt__pyrepr_millis(ms[i].us, out);
        CHECK(strcmp(out, ms[i].repr) == 0 && n == strlen(out),
              "%lld us: got \"%s\", want \"%s\"", (long long)ms[i].us, out,
              ms[i].repr);
    }
}

/* tfmt__put_uint is printf's %llu at every length. */
TEST(put_uint)
{
    pv_gen g = {0x452821e638d01377ULL, 0};
    for (int i = 0; i < 200000; i++) {
        uint64_t v = pv_bits(&g, (unsigned)(i % 65));
        if (i % 7 == 0) /* powers of ten and their neighbours */
            v = (uint64_t)pow(10, i % 20) - 1 + (uint64_t)(i % 3);
        char got[32], want[32];
        *tfmt__put_uint(got, v) = '\0';
        snprintf(want, sizeof want, "%llu", (unsigned long long)v);
        REQUIRE(strcmp(got, want) == 0, "%s: got %s", want, got);
    }
    char max[32];
    *tfmt__put_uint(max, UINT64_MAX) = '\0';
    CHECK(strcmp(max, "18446744073709551615") == 0, "got %s", max);
}

TESTS(TCASE(known_reprs), TCASE(millis), TCASE(put_uint), TCASE(table_pow5_inv),
      TCASE(table_pow5), TCASE(round_trip_and_shortest),
      TCASE(notation_switches))
