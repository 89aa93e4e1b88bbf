/* SPDX-License-Identifier: MIT */
/* advise.c - huge-page advice for large tables (advise.h). */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE */
#include <sys/mman.h>
#endif
#include <stdint.h>

#include "advise.h"

/*
 * Over the 2 MB-aligned interior of a large block, before it is first
 * touched. The tables are probed at random, so with 4 KB pages nearly every
 * probe also misses the TLB, and every 4 KB first touched is a page fault
 * (costly on virtual machines): on a 1M-key diff this cut CPU time by about
 * a third. Advice only: failure is fine.
 */
void tfmt__advise_huge(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t from = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t to = ((uintptr_t)p + n) & ~(huge - 1);
    if (p && n >= huge && to > from)
        (void)madvise((void *)from, to - from, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}
