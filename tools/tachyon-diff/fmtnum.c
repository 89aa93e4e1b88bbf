/* SPDX-License-Identifier: MIT */
/*
 * fmtnum.c - "%.*f" and the fixed-style half of "%.*g" without printf,
 * byte for byte what glibc prints. glibc rounds the exact binary value of
 * the double, ties to even; so does this: v = m * 2^e exactly (m < 2^53),
 * m * 10^prec is exact in 128 bits, and the shift by -e keeps the exact
 * remainder to round on. Anything outside that (|v| >= 2^53, a result
 * over 64 bits, the exponent style of %g) is left to snprintf.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "diff.h"
#include "pow10.h"

#if !defined(__SIZEOF_INT128__)
/* No 128-bit integers (32-bit targets): every value goes to snprintf. */
size_t diff_fmt_fixed(char *buf, double v, int prec)
{
    (void)buf, (void)v, (void)prec;
    return 0;
}

size_t diff_fmt_general(char *buf, double v, int sig)
{
    (void)buf, (void)v, (void)sig;
    return 0;
}
#else

typedef unsigned __int128 u128;

/* tfmt__pow10 (the library's pow10.h) holds 10^prec for every precision. */
_Static_assert(DIFF_FMT_MAX_PREC < TFMT__POW10_COUNT, "10^prec in a uint64_t");

/*
 * |v| as m * 2^e with m an integer; false for infinities and NaNs.
 * Subnormals have no implicit bit and the smallest exponent.
 */
static bool decompose(double v, uint64_t *m, int *e)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int biased = (int)(bits >> 52 & 0x7ff);
    uint64_t frac = bits & ((1ULL << 52) - 1);
    if (biased == 0x7ff)
        return false;
    *m = biased ? frac | 1ULL << 52 : frac;
    *e = (biased ? biased : 1) - 1075;
    return true;
}

/* n / 2^s (s < 128), rounded half to even or truncated. */
static u128 shift(u128 n, int s, bool round)
{
    if (s == 0)
        return n;
    u128 q = n >> s;
    u128 rem = n & (((u128)1 << s) - 1);
    u128 half = (u128)1 << (s - 1);
    if (round && (rem > half || (rem == half && (q & 1))))
        q++;
    return q;
}

/*
 * *q = |v| * 10^prec exactly, rounded half to even (or truncated). False
 * when v is not finite, |v| >= 2^53 (e > 0) or *q needs over 64 bits.
 */
static bool scaled(double v, int prec, bool round, uint64_t *q)
{
    uint64_t m;
    int e;
    if (!decompose(v, &m, &e) || e > 0)
        return false;
    /* m * 10^prec < 2^53 * 2^64: no overflow. */
    u128 n = (u128)m * tfmt__pow10[prec];
    /* n < 2^117 <= 2^(s-1) when s >= 128: below one half, so 0. */
    u128 r = -e >= 128 ? 0 : shift(n, -e, round);
    if (r > UINT64_MAX)
        return false;
    *q = (uint64_t)r;
    return true;
}

/* "00" "01" ... "99": two digits per division (the hot loop). */
static const char pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";

/* The last n digits of *q, right to left before end; *q keeps the rest. */
static char *put_digits(char *end, uint64_t *q, int n)
{
    for (; n >= 2; n -= 2) {
        end -= 2;
        memcpy(end, pairs + 2 * (*q % 100), 2);
        *q /= 100;
    }
    if (n) {
        *--end = (char)('0' + *q % 10);
        *q /= 10;
    }
    return end;
}

/* q in decimal, right to left before end. */
static char *put_uint(char *end, uint64_t q)
{
    while (q >= 100)
        end = put_digits(end, &q, 2);
    if (q >= 10)
        return put_digits(end, &q, 2);
    *--end = (char)('0' + q);
    return end;
}

/* q / 10^prec in decimal: at least one integer digit, prec decimals. */
static size_t put_fixed(char *buf, bool neg, uint64_t q, int prec)
{
    char tmp[DIFF_FMT_CAP];
    char *end = tmp + sizeof tmp;
    char *p = put_digits(end, &q, prec);
    if (prec > 0)
        *--p = '.';
    p = put_uint(p, q);
    if (neg)
        *--p = '-';
    size_t len = (size_t)(end - p);
    memcpy(buf, p, len);
    buf[len] = '\0';
    return len;
}

size_t diff_fmt_fixed(char *buf, double v, int prec)
{
    uint64_t q;
    if (prec < 0 || prec > DIFF_FMT_MAX_PREC || !scaled(v, prec, true, &q))
        return 0;
    return put_fixed(buf, signbit(v) != 0, q, prec);
}

/*
 * *x = floor(log10 |v|), exactly. The guess from the binary exponent k
 * (2^k <= |v| < 2^(k+1)) is floor(k log10 2), right or one too low; it
 * is corrected until |v| * 10^(sig-1-x), truncated, has sig digits.
 * False when that needs a scale out of range.
 */
static bool decimal_exponent(double v, int sig, int *x)
{
    int guess = (int)floor(ilogb(v) * 0.30102999566398120);
    for (int tries = 0; tries < 4; tries++) {
        int prec = sig - 1 - guess;
        uint64_t t;
        if (prec < 0 || prec > DIFF_FMT_MAX_PREC || !scaled(v, prec, false, &t))
            return false;
        if (t >= tfmt__pow10[sig])
            guess++;
        else if (t < tfmt__pow10[sig - 1])
            guess--;
        else {
            *x = guess;
            return true;
        }
    }
    return false;
}

/*
 * The exponent X "%.*e" shows with sig - 1 decimals, which is after the
 * rounding (9.9999996 to 6 digits is 1.00000e+01), and *q = |v| rounded
 * to sig digits, scaled by 10^(sig-1-X). False as decimal_exponent.
 */
static bool exponent(double v, int sig, int *x, uint64_t *q)
{
    if (!decimal_exponent(v, sig, x) || !scaled(v, sig - 1 - *x, true, q))
        return false;
    if (*q < tfmt__pow10[sig])
        return true;
    /* Rounded up to 10^sig: one more digit, scale again from v. */
    ++*x;
    return sig - 1 - *x >= 0 && scaled(v, sig - 1 - *x, true, q);
}

/* Drop trailing zeros of the fraction, then a bare '.' ("%g" does). */
static size_t trim_fraction(char *buf, size_t len)
{
    if (!memchr(buf, '.', len))
        return len;
    while (buf[len - 1] == '0')
        len--;
    if (buf[len - 1] == '.')
        len--;
    buf[len] = '\0';
    return len;
}

size_t diff_fmt_general(char *buf, double v, int sig)
{
    if (sig == 0)
        sig = 1;
    if (sig < 0 || sig > DIFF_FMT_MAX_PREC || !isfinite(v))
        return 0;
    if (v == 0)
        return put_fixed(buf, signbit(v) != 0, 0, 0);
    int x;
    uint64_t q;
    /* X < -4 or X >= sig: the exponent style, left to snprintf. */
    if (!exponent(v, sig, &x, &q) || x < -4 || x >= sig)
        return 0;
    size_t len = put_fixed(buf, signbit(v) != 0, q, sig - 1 - x);
    return trim_fraction(buf, len);
}

#endif /* __SIZEOF_INT128__ */
