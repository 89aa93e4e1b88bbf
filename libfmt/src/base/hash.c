/* SPDX-License-Identifier: MIT */
/* hash.c - byte hashing and the id set behind every interning table. */
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define EMPTY UINT32_MAX

/* Until the constructor runs (nothing hashes before it), fixed values. */
uint64_t tfmt__hash_secret = 0x7461636879306e21ULL;
uint64_t tfmt__hash_odd = 0x9e3779b97f4a7c15ULL;

/*
 * The secrets, drawn when the library is loaded, before any thread can
 * hash. Without getrandom (an old kernel, a sandbox refusing it), the
 * clock, the process id and where the stack and this library were mapped
 * (ASLR) still vary from run to run.
 */
__attribute__((constructor)) static void draw_secrets(void)
{
    uint64_t r[2];
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        r[0] = tfmt__hash_mix((uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 32 ^
                              (uint64_t)(uintptr_t)&ts);
        r[1] = tfmt__hash_mix(r[0] ^ (uint64_t)(uintptr_t)draw_secrets ^
                              (uint64_t)ts.tv_sec);
    }
    tfmt__hash_secret = r[0];
    tfmt__hash_odd = r[1] | 1;
}

uint64_t tfmt__hash_bytes(const void *p, size_t n, uint64_t seed)
{
    /* 8 bytes at a time, mixed; good enough for interning, not for crypto. */
    const uint8_t *s = p;
    uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ULL);
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, s, 8);
        h = tfmt__hash_mix(h ^ v) + 0x9e3779b97f4a7c15ULL;
        s += 8;
        n -= 8;
    }
    uint64_t tail = 0;
    if (n) /* memcpy from NULL is undefined even for 0 bytes */
        memcpy(&tail, s, n);
    return tfmt__hash_mix(h ^ tail ^ ((uint64_t)n << 56));
}

/*
 * Slots hold the id + 1, so an empty slot is all zero and a new table is
 * calloc's fresh zero pages, written only where probes go.
 */
void tfmt__idset_init(tfmt_idset *s, const tfmt_allocator *a)
{
    memset(s, 0, sizeof *s);
    s->alloc = a;
}

void tfmt__idset_free(tfmt_idset *s)
{
    tfmt__free(s->alloc, s->slots);
    s->slots = NULL;
    s->cap = s->count = 0;
}

uint32_t tfmt__idset_find(const tfmt_idset *s, uint64_t hash, const void *key,
                          tfmt_idset_eq eq, const void *ctx)
{
    if (!s->cap)
        return EMPTY;
    size_t mask = s->cap - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        const tfmt_idslot *x = &s->slots[i];
        if (x->id1 == 0)
            return EMPTY;
        if (x->hash == hash && eq(ctx, x->id1 - 1, key))
            return x->id1 - 1;
    }
}

static void place(tfmt_idslot *slots, size_t mask, uint64_t h, uint32_t id1)
{
    size_t i = h & mask;
    while (slots[i].id1 != 0)
        i = (i + 1) & mask;
    slots[i].hash = h;
    slots[i].id1 = id1;
}

static int rehash(tfmt_idset *s, size_t ncap)
{
    tfmt_idslot *ns = tfmt__calloc(s->alloc, ncap, sizeof *ns);
    if (!ns)
        return TFMT_ENOMEM;
    /* Big tables are probed at random: fewer TLB misses on huge pages. */
    tfmt__advise_huge(ns, ncap * sizeof *ns);
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i].id1 != 0)
            place(ns, ncap - 1, s->slots[i].hash, s->slots[i].id1);
    tfmt__free(s->alloc, s->slots);
    s->slots = ns;
    s->cap = ncap;
    return TFMT_OK;
}

int tfmt__idset_reserve(tfmt_idset *s, size_t n)
{
    size_t ncap = s->cap ? s->cap : 64;
    while (ncap / 2 < n) {
        if (ncap > SIZE_MAX / 2 / sizeof(tfmt_idslot))
            return TFMT_ENOMEM;
        ncap *= 2;
    }
    return ncap > s->cap ? rehash(s, ncap) : TFMT_OK;
}

int tfmt__idset_insert(tfmt_idset *s, uint64_t hash, uint32_t id)
{
    /* Keep the load under 1/2 so probes stay short. */
    if ((s->count + 1) * 2 > s->cap) {
        /* Small first: some sets are per thread (Gecko's tables). */
        size_t ncap = s->cap ? s->cap * 2 : 8;
        if (ncap > SIZE_MAX / sizeof(tfmt_idslot) || rehash(s, ncap) != TFMT_OK)
            return TFMT_ENOMEM;
    }
    place(s->slots, s->cap - 1, hash, id + 1);
    s->count++;
    return TFMT_OK;
}
