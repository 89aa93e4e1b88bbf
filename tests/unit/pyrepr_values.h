/* SPDX-License-Identifier: MIT */
/*
 * pyrepr_values.h - a reproducible stream of doubles for the float repr
 * tests (test_pyrepr.c, test_pyrepr_python.c). It mixes what the Gecko
 * export writes (milliseconds from whole microseconds, durations as the
 * difference of two such times, epoch start times) with what stresses a
 * shortest-digits algorithm: random bit patterns, integers, short
 * decimals, powers of 2 and 10 and their neighbours, subnormals, and the
 * values around repr's switches to exponent notation (1e16, 1e-4).
 */
#ifndef TFMT_PYREPR_VALUES_H
#define TFMT_PYREPR_VALUES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pv_gen {
    uint64_t state;
    uint64_t n; /* values produced */
} pv_gen;

/* splitmix64 */
static inline uint64_t pv_rand(pv_gen *g)
{
    uint64_t z = (g->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline double pv_from_bits(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* A uniform integer below 2^bits (bits in 0..64). */
static inline uint64_t pv_bits(pv_gen *g, unsigned bits)
{
    uint64_t r = pv_rand(g);
    return bits >= 64 ? r : r & ((UINT64_C(1) << bits) - 1);
}

/* v moved by k ulps (k may be negative), staying finite. */
static inline double pv_step(double v, int k)
{
    for (; k > 0; k--)
        v = nextafter(v, INFINITY);
    for (; k < 0; k++)
        v = nextafter(v, -INFINITY);
    return isfinite(v) ? v : 0.0;
}

/* n microseconds as milliseconds, as the Gecko export divides them. */
static inline double pv_ms(uint64_t us)
{
    return (double)us / 1000.0;
}

/* A decimal with 1..17 random digits and exponent in -330..310. */
static inline double pv_short_decimal(pv_gen *g)
{
    char s[64];
    int digits = 1 + (int)(pv_rand(g) % 17);
    uint64_t m = 0;
    for (int i = 0; i < digits; i++)
        m = m * 10 + pv_rand(g) % 10;
    int e = (int)(pv_rand(g) % 641) - 330;
    snprintf(s, sizeof s, "%llue%d", (unsigned long long)m, e);
    return strtod(s, NULL);
}

/* A power of ten or two, or a neighbour within three ulps. */
static inline double pv_power(pv_gen *g)
{
    int k = (int)(pv_rand(g) % 7) - 3;
    double p;
    if (pv_rand(g) & 1) {
        char s[16];
        snprintf(s, sizeof s, "1e%d", (int)(pv_rand(g) % 633) - 323);
        p = strtod(s, NULL);
    } else {
        p = ldexp(1.0, (int)(pv_rand(g) % 2098) - 1074);
    }
    return pv_step(p, k);
}

/* Values around the notation switches and the integer limits. */
static inline double pv_edge(pv_gen *g)
{
    static const char edges[] =
        "1e16 1e-4 1e-5 1e15 1e17 0.001 9999999999999998.0 0x1p53 0x1p54 "
        "0x1p63 0x1p64 1e22 1e23 0.1 0.5 1.0 2.2250738585072014e-308 "
        "1.7976931348623157e308 5e-324 123456789012345678.0 1e-323 "
        "4.9406564584124654e-324";
    size_t k = pv_rand(g) % 22;
    const char *p = edges;
    while (k-- > 0)
        p = strchr(p, ' ') + 1;
    double v = strtod(p, NULL);
    return pv_step(v, (int)(pv_rand(g) % 9) - 4);
}

/* Gecko-like times: ms since a base, durations, epoch start times. */
static inline double pv_gecko(pv_gen *g)
{
    uint64_t r = pv_rand(g);
    uint64_t base = pv_bits(g, 1 + (unsigned)(r % 40));
    switch ((r >> 8) % 4) {
    case 0: return pv_ms(base);
    case 1: return pv_ms(base + pv_bits(g, 20)) - pv_ms(base);
    case 2: return pv_ms(1700000000000000ULL + pv_bits(g, 40));
    default: return pv_ms(base) + (double)(r >> 40) * 0.1;
    }
}

static inline double pv_next(pv_gen *g)
{
    uint64_t sel = g->n++ % 16;
    double v;
    switch (sel) {
    case 0:
    case 1:
    case 2:
    case 3: v = pv_from_bits(pv_rand(g)); break;
    case 4:
    case 5:
    case 6:
    case 7: v = pv_gecko(g); break;
    case 8: v = (double)pv_bits(g, (unsigned)(pv_rand(g) % 65)); break;
    case 9: v = pv_short_decimal(g); break;
    case 10: v = pv_power(g); break;
    case 11:
        v = pv_from_bits(pv_bits(g, 1 + (unsigned)(pv_rand(g) % 52)));
        break;
    case 12: v = pv_edge(g); break;
    case 13: v = (double)(pv_rand(g) >> 11) * 0x1p-53; break;
    case 14: v = pv_short_decimal(g) * 1e-3; break;
    default: v = pv_from_bits(pv_rand(g) & ~(UINT64_C(1) << 62)); break;
    }
    return (pv_rand(g) & 1) && sel >= 8 ? -v : v;
}

#endif
