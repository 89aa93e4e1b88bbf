/* SPDX-License-Identifier: MIT */
/*
 * pow10.h - 10^0 to 10^19, every power of ten a uint64_t holds. Apart
 * from internal.h, as advise.h is, because tachyon-diff's exact number
 * formatter (tools/tachyon-diff/fmtnum.c) indexes it too: one table in the
 * project. A static table in a header, as pyrepr_tables.h: each file that
 * reads it has its own copy. Never installed.
 */
#ifndef TFMT_POW10_H
#define TFMT_POW10_H

#include <stdint.h>

#define TFMT__POW10_COUNT 20

static const uint64_t tfmt__pow10[TFMT__POW10_COUNT] = {
    1ULL,
    10ULL,
    100ULL,
    1000ULL,
    10000ULL,
    100000ULL,
    1000000ULL,
    10000000ULL,
    100000000ULL,
    1000000000ULL,
    10000000000ULL,
    100000000000ULL,
    1000000000000ULL,
    10000000000000ULL,
    100000000000000ULL,
    1000000000000000ULL,
    10000000000000000ULL,
    100000000000000000ULL,
    1000000000000000000ULL,
    10000000000000000000ULL,
};

#endif
