/* SPDX-License-Identifier: MIT */
/*
 * order.c - the output order of the rows: largest change first, ties in
 * join order (comparing key strings instead made sorting a million rows
 * with mostly equal changes cost seconds). A stable radix sort of 16-byte
 * (key, row) pairs, kept as an array of row numbers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

typedef struct okey {
    uint64_t key; /* ascending key = descending change */
    uint64_t row;
} okey;

/*
 * Changes are -1 (no figure: last) or in [0, inf]; the bits of a
 * non-negative double grow with its value, so inf - bits orders largest
 * first.
 */
static uint64_t change_key(double c)
{
    uint64_t bits;
    if (!(c >= 0))
        return UINT64_MAX;
    memcpy(&bits, &c, sizeof bits);
    return 0x7ff0000000000000ULL - bits;
}

/*
 * LSD radix sort by key, 8 bits a pass, between a and tmp; stable, so ties
 * keep row order. Returns the buffer that holds the result.
 */
static okey *radix(okey *a, okey *tmp, size_t n)
{
    size_t hist[8][256];
    memset(hist, 0, sizeof hist);
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < 8; d++)
            hist[d][(a[i].key >> (8 * d)) & 0xff]++;
    for (int d = 0; d < 8; d++) {
        size_t *h = hist[d], sum = 0;
        if (h[(a[0].key >> (8 * d)) & 0xff] == n)
            continue; /* every key has this digit */
        for (int b = 0; b < 256; b++) {
            size_t c = h[b];
            h[b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            tmp[h[(a[i].key >> (8 * d)) & 0xff]++] = a[i];
        okey *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

/*
 * The rows stay where they are and outputs follow the order: moving a
 * million 40-byte rows into place is a chain of cache misses that cost
 * more than the sort itself.
 */
int diff_sort_order(const diff_row *rows, size_t n, uint32_t **order)
{
    okey *p = malloc((n + 1) * sizeof *p), *tmp = malloc((n + 1) * sizeof *tmp);
    if (!p || !tmp) {
        free(p);
        free(tmp);
        return -1;
    }
    diff_advise_huge(p, n * sizeof *p);
    diff_advise_huge(tmp, n * sizeof *tmp);
    for (size_t i = 0; i < n; i++)
        p[i] = (okey){change_key(rows[i].change), i};
    okey *sorted = n ? radix(p, tmp, n) : p;
    free(sorted == p ? tmp : p);
    /* Compact the row numbers in place: entry k is read (at byte 16k)
     * before anything is written past byte 4k + 3. */
    uint32_t *out = (uint32_t *)(void *)sorted;
    for (size_t k = 0; k < n; k++)
        out[k] = (uint32_t)sorted[k].row;
    *order = out;
    return 0;
}
