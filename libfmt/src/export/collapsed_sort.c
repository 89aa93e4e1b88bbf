/* SPDX-License-Identifier: MIT */
/*
 * collapsed_sort.c - the two sorts of the collapsed writers: a stable
 * merge sort of ids by any comparison (qsort has no context pointer, and
 * the library keeps no globals) and a stable radix sort by count.
 */
#include "collapsed.h"

void tfmt__collapsed_msort(uint32_t *v, uint32_t *tmp, size_t n,
                           tfmt_id_cmp cmp, void *ctx)
{
    uint32_t *src = v, *dst = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = n - lo > w ? lo + w : n;
            size_t hi = n - mid > w ? mid + w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = cmp(ctx, src[j], src[i]) < 0 ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
}

static uint64_t count_of(const void *base, size_t stride, uint32_t id)
{
    uint64_t c;
    memcpy(&c, (const char *)base + (size_t)id * stride, sizeof c);
    return c;
}

int tfmt__collapsed_by_count(const tfmt_allocator *a, uint32_t *v, size_t n,
                             const void *counts, size_t stride)
{
    uint32_t *tmp = tfmt__malloc(a, (n ? n : 1) * sizeof *tmp);
    if (!tmp)
        return TFMT_ENOMEM;
    uint32_t *src = v, *dst = tmp;
    /* 8 bits a pass, of the complement: the largest count first */
    for (unsigned shift = 0; n && shift < 64; shift += 8) {
        size_t cnt[257] = {0};
        for (size_t i = 0; i < n; i++)
            cnt[((~count_of(counts, stride, src[i]) >> shift) & 0xff) + 1]++;
        if (cnt[((~count_of(counts, stride, src[0]) >> shift) & 0xff) + 1] == n)
            continue; /* one digit value: nothing moves */
        for (int d = 0; d < 256; d++)
            cnt[d + 1] += cnt[d];
        for (size_t i = 0; i < n; i++)
            dst[cnt[(~count_of(counts, stride, src[i]) >> shift) & 0xff]++] =
                src[i];
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
    tfmt__free(a, tmp);
    return TFMT_OK;
}
