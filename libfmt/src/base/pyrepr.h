/* SPDX-License-Identifier: MIT */
/*
 * pyrepr.h - Python's float repr, byte for byte, without a trial loop:
 * the shortest decimal that reads back as the same double (Ryu), spelled
 * as CPython's float_repr_style "short" with format code 'r'.
 */
#ifndef TFMT_PYREPR_H
#define TFMT_PYREPR_H

#include <stddef.h>
#include <stdint.h>

/* Room for any repr plus a NUL ("-2.2250738585072014e-308" is 24). */
#define TFMT_PYREPR_MAX 32

/*
 * The shortest decimal digits * 10^exp10 that rounds back to v (finite,
 * v > 0), the one nearest v when several have as few digits (ties to an
 * even last digit): what David Gay's dtoa gives in mode 0, which CPython
 * uses. `digits` has no trailing zeros and at most 17 digits.
 */
typedef struct tfmt_decimal {
    uint64_t digits;
    int32_t exp10;
} tfmt_decimal;

tfmt_decimal tfmt__shortest(double v);

/*
 * Write repr(v) to `out` (TFMT_PYREPR_MAX bytes), NUL-terminated; returns
 * its length. As Python: "0.1", "100.0", "1e+16", "1e-05", "-0.0",
 * "5e-324", "nan", "inf", "-inf".
 */
size_t tfmt__pyrepr(double v, char *out);

/*
 * repr(us / 1000) for a whole number of microseconds |us| < 10^15 (as
 * Python divides: the double nearest us / 1000), from integers alone:
 * below 10^12 a double's spacing is under 0.000125, so that double's
 * shortest repr is the decimal us / 1000 itself, "-12.3" or "7.0". Writes
 * TFMT_PYREPR_MAX bytes at most, NUL-terminated; returns the length.
 */
#define TFMT_PYREPR_MILLIS_MAX INT64_C(1000000000000000)
size_t tfmt__pyrepr_millis(int64_t us, char *out);

/* The decimal digits of v at p (20 at most, no NUL); returns the end. */
char *tfmt__put_uint(char *p, uint64_t v);

#endif
