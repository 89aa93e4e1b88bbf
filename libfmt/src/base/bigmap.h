/* SPDX-License-Identifier: MIT */
/*
 * bigmap.h - big tables of libc's allocator as mappings of their own that
 * grow in place (bigmap.c), for alloc.c. Linux only; elsewhere, and under
 * AddressSanitizer (unless TFMT_BIGMAP_ALWAYS, as in unit.alloc),
 * tfmt__bigmap_alloc always fails and the caller uses libc. Never
 * installed.
 */
#ifndef TFMT_BIGMAP_H
#define TFMT_BIGMAP_H

#include <stdbool.h>
#include <stddef.h>

/* A block of at least `size` bytes (rounded up to 2 MiB), aligned to
 * 2 MiB and advised for huge pages; NULL when none can be had. */
void *tfmt__bigmap_alloc(size_t size);
/* The mapped size of p if it is such a block, else 0 (any pointer). */
size_t tfmt__bigmap_size(const void *p);
/* Block p resized, contents kept, moved by page tables (never copied);
 * NULL leaves p as it was. p must be such a block. */
void *tfmt__bigmap_resize(void *p, size_t size);
/* Unmap p if it is such a block (true); false: it is libc's. */
bool tfmt__bigmap_free(void *p);

#endif
