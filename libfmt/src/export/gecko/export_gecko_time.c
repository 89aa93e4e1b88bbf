/* SPDX-License-Identifier: MIT */
/*
 * export_gecko_time.c - CPython's GeckoCollector computes times as
 * (timestamp - first) / 1000 with Python ints, whose true division is
 * correctly rounded from the exact quotient. Below 2^53 microseconds
 * (285 years) a double division does the same (export_gecko.h); past it
 * the integer must not be rounded to a double first, so the quotient is
 * rounded here from 128-bit integers.
 */
#include <math.h>

#include "export_gecko.h"

double tfmt__gecko_div1000(uint64_t n, bool neg)
{
    if (n < (UINT64_C(1) << 53)) {
        double v = (double)n / 1000.0;
        return neg ? -v : v;
    }
    /* q / 2^64 is n / 1000 truncated; `rest`: was anything cut */
    unsigned __int128 big = (unsigned __int128)n << 64;
    unsigned __int128 q = big / 1000;
    bool rest = big % 1000 != 0;
    int bits = 0;
    for (unsigned __int128 x = q; x; x >>= 1)
        bits++;
    int drop = bits > 53 ? bits - 53 : 0; /* 54 or more: q >= 2^107 */
    unsigned __int128 half = (unsigned __int128)1 << (drop - 1);
    unsigned __int128 low = q & ((half << 1) - 1);
    uint64_t mant = (uint64_t)(q >> drop);
    if (low > half || (low == half && (rest || (mant & 1))))
        mant++; /* nearest, ties to even; 2^53 is still exact */
    double v = ldexp((double)mant, drop - 64);
    return neg ? -v : v;
}
