/* SPDX-License-Identifier: MIT */
/* alloc.c - every allocation of the library goes through the handle's
 * allocator, so tests can fail the Nth one. */
#include <stdlib.h>

#include "internal.h"

void *tfmt__malloc(const tfmt_allocator *a, size_t size)
{
    if (size == 0)
        size = 1;
    if (a && a->malloc_fn)
        return a->malloc_fn(size, a->ctx);
    return malloc(size);
}

void *tfmt__calloc(const tfmt_allocator *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    size_t total = n * size;
    /* libc's calloc skips the memset for fresh (already zero) pages. */
    if (!a || !a->malloc_fn)
        return calloc(n ? n : 1, size ? size : 1);
    void *p = tfmt__malloc(a, total);
    if (p && total > 0)
        memset(p, 0, total);
    return p;
}

void *tfmt__realloc(const tfmt_allocator *a, void *ptr, size_t size)
{
    if (size == 0)
        size = 1;
    if (a && a->realloc_fn)
        return a->realloc_fn(ptr, size, a->ctx);
    return realloc(ptr, size);
}

void tfmt__free(const tfmt_allocator *a, void *ptr)
{
    if (!ptr)
        return;
    if (a && a->free_fn)
        a->free_fn(ptr, a->ctx);
    else
        free(ptr);
}

static int grow_from(const tfmt_allocator *a, void **ptr, size_t *cap,
                     size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return TFMT_OK;
    size_t ncap = *cap ? *cap : first;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return TFMT_ENOMEM;
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / elem)
        return TFMT_ENOMEM;
    void *p = tfmt__realloc(a, *ptr, ncap * elem);
    if (!p)
        return TFMT_ENOMEM;
    *ptr = p;
    *cap = ncap;
    return TFMT_OK;
}

int tfmt__grow(const tfmt_allocator *a, void **ptr, size_t *cap, size_t need,
               size_t elem)
{
    return grow_from(a, ptr, cap, need, elem, 16);
}

int tfmt__grow_small(const tfmt_allocator *a, void **ptr, size_t *cap,
                     size_t need, size_t elem)
{
    return grow_from(a, ptr, cap, need, elem, 4);
}

int tfmt__reserve_stack(const tfmt_allocator *a, uint32_t **stack,
                        uint32_t *cap, uint32_t depth)
{
    if (depth <= *cap)
        return TFMT_OK;
    uint32_t n = *cap ? *cap : 8;
    while (n < depth)
        n *= 2;
    n = n < TFMT_MAX_DEPTH ? n : TFMT_MAX_DEPTH;
    uint32_t *s = tfmt__realloc(a, *stack, n * sizeof *s);
    if (!s)
        return TFMT_ENOMEM;
    *stack = s;
    *cap = n;
    return TFMT_OK;
}
