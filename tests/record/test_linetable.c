/* SPDX-License-Identifier: MIT */
/*
 * test_linetable - check tachyon-record's location-table decoder against
 * the interpreter itself: reads dump_linetables.py's output on stdin and
 * compares linetable_lookup() for every code unit of every code object
 * with co_positions(). Prints "N passed, N failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linetable.h"

static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = 0;
    if (strcmp(s, "-") == 0)
        return 0;
    for (; s[0] && s[1] && n < cap; s += 2) {
        unsigned v;
        sscanf(s, "%2x", &v);
        out[n++] = (uint8_t)v;
    }
    return n;
}

/* Check one code object; returns the number of mismatching units. */
static long check_code(FILE *in, int first, const uint8_t *lt, size_t len,
                       long n)
{
    long bad = 0;
    for (long i = 0; i < n; i++) {
        int l, el, c, ec;
        if (fscanf(in, " %d,%d,%d,%d", &l, &el, &c, &ec) != 4)
            return n;
        py_location got = linetable_lookup(lt, len, first, i);
        if (got.lineno != l || got.end_lineno != el || got.column != c ||
            got.end_column != ec) {
            if (bad++ < 3)
                fprintf(stderr,
                        "unit %ld: expected %d,%d,%d,%d got "
                        "%d,%d,%d,%d\n",
                        i, l, el, c, ec, got.lineno, got.end_lineno, got.column,
                        got.end_column);
        }
    }
    return bad;
}

int main(void)
{
    static char hex[1 << 21];
    static uint8_t lt[1 << 20];
    long codes = 0, failed = 0, units = 0, n;
    int first;
    while (scanf("%d %2097151s %ld", &first, hex, &n) == 3) {
        size_t len = unhex(hex, lt, sizeof lt);
        failed += check_code(stdin, first, lt, len, n) != 0;
        codes++;
        units += n;
    }
    /* Before the first instruction (3.11's prev_instr): the first line. */
    py_location pre = linetable_lookup(lt, 0, 7, -1);
    int pre_ok = pre.lineno == 7 && pre.column == -1;
    fprintf(stderr, "%ld code objects, %ld code units\n", codes, units);
    int ok = codes > 100 && pre_ok;
    printf("%ld passed, %ld failed\n", codes - failed + pre_ok,
           failed + !pre_ok + (codes <= 100));
    return ok && failed == 0 ? 0 : 1;
}
