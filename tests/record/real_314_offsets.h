/* SPDX-License-Identifier: MIT */
/*
 * real_314_offsets.h - the _Py_DebugOffsets of real CPython 3.14.7
 * processes, for the recorder's unit tests that check what is read from
 * them (test_offsets_select.c, test_async.c). Included by one .c file
 * each: the tables are static.
 */
#ifndef TREC_TEST_REAL_314_OFFSETS_H
#define TREC_TEST_REAL_314_OFFSETS_H

#include <stdint.h>

#include "py_offsets_314.h"

/* _Py_DebugOffsets words 1-94 of real 3.14.7 processes (GIL and
 * free-threaded builds), read from their _PyRuntime with ctypes. */
static const uint64_t real_314[D314_WORDS] = {
    0,    51251184, 0,    316616, 784, 808,  225864, 7280, 7272, 7344, 7360,
    7408, 7688,     7672, 7680,   16,  7784, 0,      7800, 7792, 7992, 0,
    832,  0,        8,    16,     72,  152,  160,    232,  32,   88,   8,
    0,    56,       80,   74,     64,  0,    216,    112,  120,  128,  136,
    68,   52,       96,   104,    208, 0,    16,     8,    416,  24,   88,
    168,  40,       32,   16,     40,  24,   16,     200,  24,   40,   32,
    48,   32,       40,   24,     16,  32,   16,     24,   40,   16,   32,
    64,   32,       16,   40,     264, 192,  160,    24,   72,   67,   0,
    8,    24,       304,  8076,   0,   4,    512};
static const uint64_t real_314t[D314_WORDS] = {
    0,    51251184, 1,    362368, 784, 808,  246720, 7280, 7272, 7344, 7360,
    7408, 7712,     7696, 7704,   16,  7808, 0,      7832, 7824, 8024, 17628,
    832,  0,        8,    16,     72,  152,  160,    232,  32,   88,   8,
    0,    56,       80,   78,     64,  72,   240,    128,  136,  144,  152,
    84,   68,       112,  120,    232, 224,  32,     24,   432,  40,   104,
    184,  56,       48,   32,     56,  40,   32,     216,  40,   56,   48,
    64,   48,       56,   40,     32,  48,   32,     40,   56,   32,   48,
    80,   48,       32,   56,     288, 192,  176,    40,   88,   83,   0,
    8,    24,       304,  8108,   0,   4,    512};

#endif
