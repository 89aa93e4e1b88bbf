/* SPDX-License-Identifier: MIT */
/*
 * linetable.h - CPython 3.11+ location table (co_linetable) decoding.
 */
#ifndef TREC_LINETABLE_H
#define TREC_LINETABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct py_location {
    int32_t lineno; /* -1: no location */
    int32_t end_lineno;
    int32_t column; /* -1: not available */
    int32_t end_column;
} py_location;

/*
 * The location of the instruction at code-unit index `addrq` of a code
 * object whose first line is `firstlineno`. A negative addrq (3.11's
 * "before the first instruction") gives the first line without columns;
 * an index past the table, or a malformed table, gives no location.
 */
py_location linetable_lookup(const uint8_t *table, size_t len,
                             int32_t firstlineno, int64_t addrq);

#endif
