/* SPDX-License-Identifier: MIT */
/*
 * bigmap.c - the big tables of libc's allocator as mappings of their own,
 * aligned to 2 MiB, that grow in place (bigmap.h).
 *
 * A table that grows by copy touches its new block twice over: the kernel
 * clears every fresh page, then the copy writes it, and the old block was
 * cleared once too. Reading a 200 MB export cleared 110 MB of pages that
 * way for 80 MB of tables. mremap moves or extends a mapping by its page
 * tables instead, so every page is cleared once and nothing is copied.
 *
 * The blocks are listed (address and size) so that free and realloc can
 * tell them from libc's blocks; a 2 MiB-aligned address is looked up
 * under a lock, any other is libc's at once. Tables are few and large
 * (alloc.c maps them from 256 KiB), so the list is short. Under
 * AddressSanitizer the list stays empty (its leak checker sees only libc's
 * blocks) and the caller uses libc, except in unit.alloc, which builds this
 * file in with TFMT_BIGMAP_ALWAYS.
 */
#if defined(__linux__)
#define _GNU_SOURCE /* mremap */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#endif
#include <stdbool.h>
#include <stddef.h>

#include "bigmap.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TFMT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TFMT_ASAN 1
#endif

/* TFMT_BIGMAP_ALWAYS: tests/unit/test_alloc.c, which checks these blocks
 * in the sanitizer builds too. */
#if defined(__linux__) && defined(MREMAP_MAYMOVE) && defined(MREMAP_FIXED) &&  \
    (!defined(TFMT_ASAN) || defined(TFMT_BIGMAP_ALWAYS))

#define ALIGN ((size_t)2 << 20)

typedef struct block {
    uintptr_t addr;
    size_t size; /* mapped bytes, a multiple of ALIGN */
} block;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static block *blocks;
static size_t nblocks, capblocks;

static size_t round_up(size_t n)
{
    return n > SIZE_MAX - ALIGN ? 0 : (n + ALIGN - 1) & ~(ALIGN - 1);
}

/* `size` bytes (a multiple of ALIGN) mapped at an address aligned to
 * ALIGN, advised for huge pages; NULL when the kernel refuses. */
static void *map_aligned(size_t size)
{
    if (size > SIZE_MAX - ALIGN)
        return NULL;
    char *raw = mmap(NULL, size + ALIGN, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *p = (char *)(((uintptr_t)raw + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1));
    if (p > raw)
        munmap(raw, (size_t)(p - raw));
    if (p + size < raw + size + ALIGN)
        munmap(p + size, (size_t)(raw + size + ALIGN - (p + size)));
#if defined(MADV_HUGEPAGE)
    (void)madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
}

/* The index of the block at addr, or nblocks; the lock is held. */
static size_t find(uintptr_t addr)
{
    size_t i = 0;
    while (i < nblocks && blocks[i].addr != addr)
        i++;
    return i;
}

static bool add(uintptr_t addr, size_t size)
{
    if (nblocks == capblocks) {
        size_t cap = capblocks ? capblocks * 2 : 16;
        block *b = realloc(blocks, cap * sizeof *b);
        if (!b)
            return false;
        blocks = b;
        capblocks = cap;
    }
    blocks[nblocks++] = (block){addr, size};
    return true;
}

void *tfmt__bigmap_alloc(size_t size)
{
    size_t n = round_up(size);
    void *p = n ? map_aligned(n) : NULL;
    if (!p)
        return NULL;
    pthread_mutex_lock(&lock);
    bool ok = add((uintptr_t)p, n);
    pthread_mutex_unlock(&lock);
    if (!ok) {
        munmap(p, n);
        return NULL;
    }
    return p;
}

size_t tfmt__bigmap_size(const void *p)
{
    if (!p || ((uintptr_t)p & (ALIGN - 1)))
        return 0;
    pthread_mutex_lock(&lock);
    size_t i = find((uintptr_t)p);
    size_t size = i < nblocks ? blocks[i].size : 0;
    pthread_mutex_unlock(&lock);
    return size;
}

/*
 * Block p of `old` mapped bytes, moved or extended to `size`: in place
 * when the addresses after it are free, else its pages are moved (not
 * copied) to a fresh aligned range, extended there in the same call. A
 * block stays one mapping (one VMA) that way, as mremap needs of the
 * block it grows next time: moving the pages into a bigger mapping made
 * beforehand would leave two, which mremap cannot extend, and which
 * older kernels cannot move either (EFAULT; 6.18 moves them).
 */
static void *remap(void *p, size_t old, size_t size)
{
    void *q = mremap(p, old, size, 0);
    if (q != MAP_FAILED)
        return q;
    char *to = map_aligned(size); /* the range, replaced by the move */
    if (!to)
        return NULL;
    q = mremap(p, old, size, MREMAP_MAYMOVE | MREMAP_FIXED, to);
    if (q == MAP_FAILED) {
        munmap(to, size);
        return NULL;
    }
    return q;
}

void *tfmt__bigmap_resize(void *p, size_t size)
{
    size_t n = round_up(size);
    if (!n)
        return NULL;
    pthread_mutex_lock(&lock);
    size_t i = find((uintptr_t)p);
    void *q = NULL;
    if (i < nblocks) {
        q = n == blocks[i].size ? p : remap(p, blocks[i].size, n);
        if (q) {
            blocks[i] = (block){(uintptr_t)q, n};
#if defined(MADV_HUGEPAGE)
            (void)madvise(q, n, MADV_HUGEPAGE);
#endif
        }
    }
    pthread_mutex_unlock(&lock);
    return q;
}

bool tfmt__bigmap_free(void *p)
{
    if (!p || ((uintptr_t)p & (ALIGN - 1)))
        return false;
    pthread_mutex_lock(&lock);
    size_t i = find((uintptr_t)p);
    bool mine = i < nblocks;
    if (mine) {
        munmap(p, blocks[i].size);
        blocks[i] = blocks[--nblocks];
    }
    pthread_mutex_unlock(&lock);
    return mine;
}

#else /* no mremap, or under AddressSanitizer: libc's blocks only */

void *tfmt__bigmap_alloc(size_t size)
{
    (void)size;
    return NULL;
}

size_t tfmt__bigmap_size(const void *p)
{
    (void)p;
    return 0;
}

void *tfmt__bigmap_resize(void *p, size_t size)
{
    (void)p;
    (void)size;
    return NULL;
}

bool tfmt__bigmap_free(void *p)
{
    (void)p;
    return false;
}

#endif
