/* SPDX-License-Identifier: MIT */
/* alloc.c - every allocation of the library goes through the handle's
 * allocator, so tests can fail the Nth one. */
#include <stdlib.h>
#include <string.h>

#include "advise.h"
#include "bigmap.h"
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
    if (tfmt__bigmap_size(ptr))
        return tfmt__bigmap_resize(ptr, size);
    return realloc(ptr, size);
}

void tfmt__free(const tfmt_allocator *a, void *ptr)
{
    if (!ptr)
        return;
    if (a && a->free_fn)
        a->free_fn(ptr, a->ctx);
    else if (!tfmt__bigmap_free(ptr))
        free(ptr);
}

/*
 * Tables from BIG_TABLE up are big: in libc's allocator, mappings of their
 * own on huge pages that grow in place (bigmap.c). With 2 MiB, the growth
 * of each table to 2 MiB went through libc's realloc, copies into fresh
 * small pages: about 1,200 of the 1,700 page faults of reading a 200 MB
 * export (530 now). A table of 256 KiB may hold a huge page (2 MiB), which
 * costs less to clear than 512 small pages cost to fault: mapping small
 * tables with small pages made the same run take 2,250 faults and 1% more
 * time.
 */
#define BIG_TABLE ((size_t)256 << 10)
#define HUGE_PAGE ((size_t)2 << 20)

/*
 * A block for a big table. In libc's allocator it is a mapping of its own
 * (bigmap.c: aligned to 2 MiB for huge pages, grown in place), or, where
 * there are none, from HUGE_PAGE up a block of libc's aligned to 2 MiB and
 * rounded up to whole huge pages (libc's own blocks start 16 bytes into a page,
 * so their first and last megabytes took 4 KiB faults). A caller's allocator
 * gets the size asked for.
 */
static void *big_malloc(const tfmt_allocator *a, size_t size)
{
    bool libc = !a || !a->malloc_fn;
    void *p = libc ? tfmt__bigmap_alloc(size) : NULL;
    if (p)
        return p;
    if (!libc || size < HUGE_PAGE)
        p = tfmt__malloc(a, size);
    else if (size <= SIZE_MAX - HUGE_PAGE)
        p = aligned_alloc(HUGE_PAGE, (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
    tfmt__advise_huge(p, size);
    return p;
}

void *tfmt__malloc_table(const tfmt_allocator *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    size_t total = n * size;
    if (total < BIG_TABLE)
        return tfmt__malloc(a, total);
    return big_malloc(a, total);
}

void *tfmt__calloc_table(const tfmt_allocator *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    bool libc = !a || !a->malloc_fn;
    void *p =
        libc && n * size >= BIG_TABLE ? tfmt__bigmap_alloc(n * size) : NULL;
    return p ? p : tfmt__calloc(a, n, size);
}

/*
 * realloc for a table that may be large. A big table of libc's allocator
 * grows in place (its mapping extended or moved by the kernel, never
 * copied: each of its pages is cleared once). A table that turns big is
 * copied once, into a mapping. libc's realloc would copy it at every
 * growth (glibc's mmap threshold rises to 32 MiB as blocks are freed),
 * into fresh pages that the kernel clears first. Reading a 200 MB export
 * took 32,400 page faults with it; copies into blocks advised for huge
 * pages took 2,000 and cleared 55 huge pages (110 MB) for about 80 MB of
 * tables; grown in place, 1,500 and 40.
 */
static void *big_realloc(const tfmt_allocator *a, void *old, size_t old_size,
                         size_t size)
{
    /* tfmt__realloc also grows a mapping (bigmap.c) in place */
    if ((a && a->realloc_fn) || size < BIG_TABLE || tfmt__bigmap_size(old))
        return tfmt__realloc(a, old, size);
    void *p = big_malloc(a, size);
    if (!p)
        return NULL;
    if (old) {
        memcpy(p, old, old_size);
        tfmt__free(a, old);
    }
    return p;
}

/*
 * Capacity doubles, and grows fourfold once a table is big and libc's
 * allocator holds it: its spare room is address space only until used,
 * so a bigger step costs nothing but saves remaps (and, where there are
 * no mappings of our own, copies into fresh pages, which the kernel must
 * clear first: reading a 200 MB export took 0.040 s of system time
 * instead of 0.064, quartiles of 11 runs). A caller's allocator may count
 * or hold every byte it gives, so its tables only double.
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
