/* SPDX-License-Identifier: MIT AND (Apache-2.0 OR BSL-1.0) */
/*
 * pyrepr.c - Python's float repr (see pyrepr.h).
 *
 * Derived from Ryu's reference d2s.c (https://github.com/ulfjack/ryu),
 * Copyright 2018 Ulf Adams, used under the Apache License 2.0 or, at your
 * option, the Boost Software License 1.0 (LICENSES/Apache-2.0.txt,
 * LICENSES/BSL-1.0.txt); the changes are MIT like the rest of tachyon.
 *
 * The digits come from Ryu (Ulf Adams, "Ryu: fast float-to-string
 * conversion", PLDI 2018), after its reference d2s.c: the double's
 * rounding interval is scaled to a power of ten with 64x128-bit products
 * by the tables of pyrepr_tables.h, then digits are dropped while the
 * interval still holds a shorter decimal. The result is the shortest
 * decimal that reads back as v, the nearest to v among those (ties to an
 * even digit), and the interval's ends count when v's mantissa is even,
 * because round-half-even reading maps them back to v. David Gay's dtoa
 * in mode 0, which CPython's repr uses, makes the same choices, so the
 * digits are equal; tests/unit/test_pyrepr_python.c checks it against
 * Python itself over tens of millions of values.
 *
 * The spelling is CPython's format_float_short() for repr (code 'r'):
 * positional when the decimal point position `decpt` (0.01 has decpt -1)
 * satisfies -4 < decpt <= 16, with ".0" added to integers; otherwise
 * "d.ddde+XX" with at least two exponent digits. Milliseconds from whole
 * microseconds, the bulk of a Gecko export, skip the digit search.
 */
#include <stdbool.h>
#include <string.h>

#include "pow10.h"
#include "pyrepr.h"
#include "pyrepr_tables.h"

#if defined(__SIZEOF_INT128__) && !defined(TFMT_PYREPR_PORTABLE)
#define PYREPR_INT128 1
typedef unsigned __int128 u128;
#endif

#define MANTISSA_BITS 52
#define EXPONENT_BIAS 1023

/* floor(log10(2^e)), 0 <= e <= 1650 */
static uint32_t log10_pow2(int32_t e)
{
    return (uint32_t)(((uint32_t)e * 78913) >> 18);
}

/* floor(log10(5^e)), 0 <= e <= 2620 */
static uint32_t log10_pow5(int32_t e)
{
    return (uint32_t)(((uint32_t)e * 732923) >> 20);
}

/* Bit length of 5^e (1 for e == 0), 0 <= e <= 3528. */
static int32_t pow5_bits(int32_t e)
{
    return (int32_t)((((uint32_t)e * 1217359) >> 19) + 1);
}

/* v > 0 */
static bool multiple_of_pow5(uint64_t v, uint32_t p)
{
    uint32_t count = 0;
    while (v % 5 == 0) {
        v /= 5;
        count++;
    }
    return count >= p;
}

/* p < 64 */
static bool multiple_of_pow2(uint64_t v, uint32_t p)
{
    return (v & ((UINT64_C(1) << p) - 1)) == 0;
}

#ifndef PYREPR_INT128
/* The 128-bit product a * b as two halves, from 32-bit pieces. */
static uint64_t umul128(uint64_t a, uint64_t b, uint64_t *hi)
{
    uint64_t a_lo = (uint32_t)a, a_hi = a >> 32;
    uint64_t b_lo = (uint32_t)b, b_hi = b >> 32;
    uint64_t b00 = a_lo * b_lo, b01 = a_lo * b_hi;
    uint64_t b10 = a_hi * b_lo, b11 = a_hi * b_hi;
    uint64_t mid1 = b10 + (b00 >> 32);
    uint64_t mid2 = b01 + (uint32_t)mid1;
    *hi = b11 + (mid1 >> 32) + (mid2 >> 32);
    return (mid2 << 32) | (uint32_t)b00;
}
#endif

/* (m * mul) >> j, mul a 128-bit table entry {low, high}; 64 < j < 128. */
static uint64_t mul_shift(uint64_t m, const uint64_t *mul, int32_t j)
{
#ifdef PYREPR_INT128
    u128 b0 = (u128)m * mul[0];
    u128 b2 = (u128)m * mul[1];
    return (uint64_t)(((b0 >> 64) + b2) >> (j - 64));
#else
    uint64_t hi1, hi0;
    uint64_t lo1 = umul128(m, mul[1], &hi1);
    (void)umul128(m, mul[0], &hi0);
    uint64_t sum = hi0 + lo1;
    hi1 += sum < hi0;
    int32_t dist = j - 64;
    return (hi1 << (64 - dist)) | (sum >> dist);
#endif
}

/*
 * The rounding interval of m2 * 2^e2 (e2 already lowered by 2, so the
 * bounds 4*m2 +- 2 are integers) scaled by 10^-e10 and truncated: vm < vr
 * < vp, with flags telling whether vm and vr were exact (the dropped part
 * was zero), which only matters when the value has few significant bits.
 */
typedef struct interval {
    uint64_t vr, vp, vm;
    int32_t e10;
    bool vm_exact, vr_exact;
} interval;

static void scale_up(uint64_t m2, int32_t e2, uint32_t mm_shift, bool accept,
                     interval *iv)
{
    uint64_t mv = 4 * m2;
    uint32_t q = log10_pow2(e2) - (e2 > 3);
    int32_t k = PYREPR_POW5_INV_BITS + pow5_bits((int32_t)q) - 1;
    int32_t j = -e2 + (int32_t)q + k;
    const uint64_t *mul = pyrepr_pow5_inv[q];
    iv->e10 = (int32_t)q;
    iv->vr = mul_shift(mv, mul, j);
    iv->vp = mul_shift(mv + 2, mul, j);
    iv->vm = mul_shift(mv - 1 - mm_shift, mul, j);
    if (q > 21)
        return; /* 5^q cannot divide a 55-bit value */
    /* At most one of mv - 1 - mm_shift, mv, mv + 2 is a multiple of 5. */
    if (mv % 5 == 0)
        iv->vr_exact = multiple_of_pow5(mv, q);
    else if (accept)
        iv->vm_exact = multiple_of_pow5(mv - 1 - mm_shift, q);
    else
        iv->vp -= multiple_of_pow5(mv + 2, q); /* vp itself excluded */
}

static void scale_down(uint64_t m2, int32_t e2, uint32_t mm_shift, bool accept,
                       interval *iv)
{
    uint64_t mv = 4 * m2;
    uint32_t q = log10_pow5(-e2) - (-e2 > 1);
    int32_t i = -e2 - (int32_t)q;
    int32_t k = pow5_bits(i) - PYREPR_POW5_BITS;
    int32_t j = (int32_t)q - k;
    const uint64_t *mul = pyrepr_pow5[i];
    iv->e10 = (int32_t)q + e2;
    iv->vr = mul_shift(mv, mul, j);
    iv->vp = mul_shift(mv + 2, mul, j);
    iv->vm = mul_shift(mv - 1 - mm_shift, mul, j);
    if (q <= 1) {
        /* mv has two trailing zero bits, mv + 2 one, mv - 1 - mm_shift
           one exactly when mm_shift is 1. */
        iv->vr_exact = true;
        if (accept)
            iv->vm_exact = mm_shift == 1;
        else
            iv->vp--;
    } else if (q < 63) {
        iv->vr_exact = multiple_of_pow2(mv, q);
    }
}

/*
 * Drop digits while vp / 10 > vm / 10, tracking exactness: the rare path
 * for values whose interval ends may fall on a shorter decimal.
 */
static uint64_t drop_exact(interval *iv, bool accept, int32_t *removed)
{
    uint8_t last = 0;
    while (iv->vp / 10 > iv->vm / 10) {
        iv->vm_exact &= iv->vm % 10 == 0;
        iv->vr_exact &= last == 0;
        last = (uint8_t)(iv->vr % 10);
        iv->vr /= 10;
        iv->vp /= 10;
        iv->vm /= 10;
        ++*removed;
    }
    if (iv->vm_exact) {
        while (iv->vm % 10 == 0) {
            iv->vr_exact &= last == 0;
            last = (uint8_t)(iv->vr % 10);
            iv->vr /= 10;
            iv->vp /= 10;
            iv->vm /= 10;
            ++*removed;
        }
    }
    if (iv->vr_exact && last == 5 && iv->vr % 2 == 0)
        last = 4; /* exactly half way: round to even */
    bool vm_out = iv->vr == iv->vm && (!accept || !iv->vm_exact);
    return iv->vr + (vm_out || last >= 5);
}

/* The common path: no exactness to track, two digits at a time first. */
static uint64_t drop_inexact(interval *iv, int32_t *removed)
{
    bool round_up = false;
    if (iv->vp / 100 > iv->vm / 100) {
        round_up = iv->vr % 100 >= 50;
        iv->vr /= 100;
        iv->vp /= 100;
        iv->vm /= 100;
        *removed += 2;
    }
    while (iv->vp / 10 > iv->vm / 10) {
        round_up = iv->vr % 10 >= 5;
        iv->vr /= 10;
        iv->vp /= 10;
        iv->vm /= 10;
        ++*removed;
    }
    return iv->vr + (iv->vr == iv->vm || round_up);
}

/* Shortest digits of a finite, nonzero double from its IEEE fields. */
static tfmt_decimal shortest_fields(uint64_t mant, uint32_t bexp)
{
    int32_t e2;
    uint64_t m2;
    if (bexp == 0) {
        e2 = 1 - EXPONENT_BIAS - MANTISSA_BITS - 2;
        m2 = mant;
    } else {
        e2 = (int32_t)bexp - EXPONENT_BIAS - MANTISSA_BITS - 2;
        m2 = (UINT64_C(1) << MANTISSA_BITS) | mant;
    }
    bool accept = (m2 & 1) == 0;
    /* The lower gap is half the upper one at a power of two (but not
       below the smallest normal exponent). */
    uint32_t mm_shift = mant != 0 || bexp <= 1;
    interval iv = {0, 0, 0, 0, false, false};
    if (e2 >= 0)
        scale_up(m2, e2, mm_shift, accept, &iv);
    else
        scale_down(m2, e2, mm_shift, accept, &iv);
    int32_t removed = 0;
    tfmt_decimal d;
    if (iv.vm_exact || iv.vr_exact)
        d.digits = drop_exact(&iv, accept, &removed);
    else
        d.digits = drop_inexact(&iv, &removed);
    d.exp10 = iv.e10 + removed;
    while (d.digits % 10 == 0) { /* shortest never ends in 0; be sure */
        d.digits /= 10;
        d.exp10++;
    }
    return d;
}

tfmt_decimal tfmt__shortest(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return shortest_fields(bits & ((UINT64_C(1) << MANTISSA_BITS) - 1),
                           (uint32_t)(bits >> MANTISSA_BITS) & 0x7ff);
}

/* ---- spelling ---- */

static const char pairs[200] = "00010203040506070809"
                               "10111213141516171819"
                               "20212223242526272829"
                               "30313233343536373839"
                               "40414243444546474849"
                               "50515253545556575859"
                               "60616263646566676869"
                               "70717273747576777879"
                               "80818283848586878889"
                               "90919293949596979899";

/* Exactly eight digits of v < 10^8 ending at `end` (two short chains). */
static void put8(uint32_t v, char *end)
{
    uint32_t hi = v / 10000, lo = v % 10000;
    memcpy(end - 8, pairs + 2 * (hi / 100), 2);
    memcpy(end - 6, pairs + 2 * (hi % 100), 2);
    memcpy(end - 4, pairs + 2 * (lo / 100), 2);
    memcpy(end - 2, pairs + 2 * (lo % 100), 2);
}

/* The decimal digits of v ending at `end`; returns their count. */
static size_t put_digits(uint64_t v, char *end)
{
    char *p = end;
    while (v >= 100000000) {
        uint64_t q = v / 100000000;
        put8((uint32_t)(v - q * 100000000), p);
        v = q;
        p -= 8;
    }
    uint32_t w = (uint32_t)v;
    if (w >= 10000) {
        uint32_t lo = w % 10000;
        w /= 10000;
        memcpy(p - 4, pairs + 2 * (lo / 100), 2);
        memcpy(p - 2, pairs + 2 * (lo % 100), 2);
        p -= 4;
    }
    if (w >= 100) {
        p -= 2;
        memcpy(p, pairs + 2 * (w % 100), 2);
        w /= 100;
    }
    if (w >= 10) {
        p -= 2;
        memcpy(p, pairs + 2 * w, 2);
    } else {
        *--p = (char)('0' + w);
    }
    return (size_t)(end - p);
}

/* "d.ddde+XX": digits d[0..n), decimal exponent decpt - 1. */
static char *put_exponent(char *p, const char *d, size_t n, int32_t decpt)
{
    *p++ = d[0];
    if (n > 1) {
        *p++ = '.';
        memcpy(p, d + 1, n - 1);
        p += n - 1;
    }
    int32_t e = decpt - 1;
    *p++ = 'e';
    *p++ = e < 0 ? '-' : '+';
    uint32_t a = (uint32_t)(e < 0 ? -e : e);
    if (a >= 100) {
        *p++ = (char)('0' + a / 100);
        a %= 100;
    }
    memcpy(p, pairs + 2 * a, 2);
    return p + 2;
}

/* Positional, -4 < decpt <= 16: "0.000ddd", "dd.ddd" or "ddd00.0". */
static char *put_positional(char *p, const char *d, size_t n, int32_t decpt)
{
    if (decpt <= 0) {
        memcpy(p, "0.000", (size_t)(2 - decpt));
        p += 2 - decpt;
        memcpy(p, d, n);
        return p + n;
    }
    size_t whole = (size_t)decpt;
    if (whole < n) {
        memcpy(p, d, whole);
        p[whole] = '.';
        memcpy(p + whole + 1, d + whole, n - whole);
        return p + n + 1;
    }
    memcpy(p, d, n);
    memset(p + n, '0', whole - n);
    p += whole;
    memcpy(p, ".0", 2);
    return p + 2;
}

static size_t put_special(const char *s, char *out)
{
    size_t n = strlen(s);
    memcpy(out, s, n + 1);
    return n;
}

size_t tfmt__pyrepr(double v, char *out)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t mant = bits & ((UINT64_C(1) << MANTISSA_BITS) - 1);
    uint32_t bexp = (uint32_t)(bits >> MANTISSA_BITS) & 0x7ff;
    bool neg = bits >> 63;
    if (bexp == 0x7ff) /* Python never signs a nan */
        return put_special(mant ? "nan" : neg ? "-inf" : "inf", out);
    if (bexp == 0 && mant == 0)
        return put_special(neg ? "-0.0" : "0.0", out);
    tfmt_decimal dec = shortest_fields(mant, bexp);
    char buf[24];
    size_t n = put_digits(dec.digits, buf + sizeof buf);
    const char *d = buf + sizeof buf - n;
    int32_t decpt = dec.exp10 + (int32_t)n;
    char *p = out;
    if (neg)
        *p++ = '-';
    if (decpt > -4 && decpt <= 16)
        p = put_positional(p, d, n, decpt);
    else
        p = put_exponent(p, d, n, decpt);
    *p = '\0';
    return (size_t)(p - out);
}

/* ---- integers ---- */

static unsigned count_digits(uint64_t v)
{
    v |= 1; /* no change to the count; 0 counts as one digit */
#if defined(__GNUC__)
    unsigned bits = 64 - (unsigned)__builtin_clzll(v);
#else
    unsigned bits = 0;
    for (uint64_t w = v; w; w >>= 1)
        bits++;
#endif
    /* t = bits * log10(2) rounded down; the count is t or t + 1 */
    unsigned t = (bits * 1233) >> 12;
    return t + 1 - (v < tfmt__pow10[t]);
}

/* v < 10^4, no leading zeros. */
static char *put_upto4(char *p, uint32_t v)
{
    if (v < 100) {
        if (v < 10) {
            *p = (char)('0' + v);
            return p + 1;
        }
        memcpy(p, pairs + 2 * v, 2);
        return p + 2;
    }
    uint32_t hi = v / 100, lo = v % 100;
    if (hi < 10) {
        *p++ = (char)('0' + hi);
    } else {
        memcpy(p, pairs + 2 * hi, 2);
        p += 2;
    }
    memcpy(p, pairs + 2 * lo, 2);
    return p + 2;
}

char *tfmt__put_uint(char *p, uint64_t v)
{
    if (v < 10000) /* ids and counts, mostly: no digit count needed */
        return put_upto4(p, (uint32_t)v);
    if (v < 100000000) {
        uint32_t w = (uint32_t)v;
        p = put_upto4(p, w / 10000);
        uint32_t lo = w % 10000;
        memcpy(p, pairs + 2 * (lo / 100), 2);
        memcpy(p + 2, pairs + 2 * (lo % 100), 2);
        return p + 4;
    }
    char *end = p + count_digits(v);
    put_digits(v, end);
    return end;
}

size_t tfmt__pyrepr_millis(int64_t us, char *out)
{
    char *p = out;
    uint64_t a = (uint64_t)us;
    if (us < 0) {
        *p++ = '-';
        a = 0 - a;
    }
    p = tfmt__put_uint(p, a / 1000);
    uint32_t frac = (uint32_t)(a % 1000);
    *p++ = '.';
    if (frac == 0) {
        *p++ = '0';
    } else {
        p[0] = (char)('0' + frac / 100);
        memcpy(p + 1, pairs + 2 * (frac % 100), 2);
        p += frac % 10 ? 3 : frac % 100 ? 2 : 1;
    }
    *p = '\0';
    return (size_t)(p - out);
}
