/* SPDX-License-Identifier: MIT */
/* alloc.c - every allocation of the library goes through the handle's
 * allocator, so tests can fail the Nth one. */
#include <stdlib.h>
#include <string.h>

#include "advise.h"
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

/* Tables grown past this size get huge pages (advise.h). */
#define BIG_TABLE ((size_t)2 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

/*
 * A block for a big table. libc's own blocks start 16 bytes into a page,
 * so only the whole 2 MiB pages inside one could be huge, and its first
 * and last megabytes took 4 KiB faults: libc's allocator hands out
 * blocks aligned to 2 MiB and whole pages instead (freed by free() like
 * any other). A caller's allocator gets the size asked for.
 */
static void *big_malloc(const tfmt_allocator *a, size_t size)
{
    if ((!a || !a->malloc_fn) && size <= SIZE_MAX - HUGE_PAGE)
        return aligned_alloc(HUGE_PAGE,
                             (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
    return tfmt__malloc(a, size);
}

void *tfmt__malloc_table(const tfmt_allocator *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    size_t total = n * size;
    if (total < BIG_TABLE)
        return tfmt__malloc(a, total);
    void *p = big_malloc(a, total);
    tfmt__advise_huge(p, total);
    return p;
}

/*
 * realloc for a table that may be large. libc's realloc copies a block
 * that is not a mapping of its own into a new one (glibc's mmap threshold
 * rises to 32 MiB as blocks are freed), and every 4 KiB the copy first
 * touches is a page fault. A big table is moved by hand instead, into a
 * block advised for 2 MiB pages before the copy touches it. Reading a
 * 200 MB export took 32,400 page faults with libc's realloc, 7,500 this
 * way (9% less CPU time, where the kernel grants transparent huge pages
 * on advice), and 2,000 once the blocks were aligned and grew fourfold.
 */
static void *big_realloc(const tfmt_allocator *a, void *old, size_t old_size,
                         size_t size)
{
    if ((a && a->realloc_fn) || size < BIG_TABLE)
        return tfmt__realloc(a, old, size);
    void *p = big_malloc(a, size);
    if (!p)
        return NULL;
    tfmt__advise_huge(p, size);
    if (old) {
        memcpy(p, old, old_size);
        tfmt__free(a, old);
    }
    return p;
}

/*
 * Capacity doubles, and grows fourfold once a table is big and libc's
 * allocator holds it: each move copies the table into fresh pages, which
 * the kernel must clear first, and there a big table's spare room costs
 * address space only until it is used: reading a 200 MB export took
 * 0.040 s of system time instead of 0.064 (quartiles of 11 runs). A
 * caller's allocator may count or hold every byte it gives, so its
 * tables only double.
 */
static size_t growth(const tfmt_allocator *a, size_t cap, size_t elem)
{
    bool libc = !a || !a->malloc_fn;
    return libc && cap >= BIG_TABLE / elem ? 4 : 2;
}

static int grow_from(const tfmt_allocator *a, void **ptr, size_t *cap,
                     size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return TFMT_OK;
    size_t ncap = *cap ? *cap : first;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 4)
            return TFMT_ENOMEM;
        ncap *= growth(a, ncap, elem);
    }
    if (ncap > SIZE_MAX / elem)
        return TFMT_ENOMEM;
    void *p = big_realloc(a, *ptr, *cap * elem, ncap * elem);
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
