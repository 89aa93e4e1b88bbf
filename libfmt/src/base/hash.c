/* hash.c - byte hashing and the id set behind every interning table. */
#include "internal.h"

#define EMPTY UINT32_MAX

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
    if (n)  /* memcpy from NULL is undefined even for 0 bytes */
        memcpy(&tail, s, n);
    return tfmt__hash_mix(h ^ tail ^ ((uint64_t)n << 56));
}

void tfmt__idset_init(tfmt_idset *s, const tfmt_allocator *a)
{
    memset(s, 0, sizeof *s);
    s->alloc = a;
}

void tfmt__idset_free(tfmt_idset *s)
{
    tfmt__free(s->alloc, s->hashes);
    tfmt__free(s->alloc, s->ids);
    s->hashes = NULL;
    s->ids = NULL;
    s->cap = s->count = 0;
}

uint32_t tfmt__idset_find(const tfmt_idset *s, uint64_t hash, const void *key,
                          tfmt_idset_eq eq, const void *ctx)
{
    if (!s->cap)
        return EMPTY;
    size_t mask = s->cap - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        uint32_t id = s->ids[i];
        if (id == EMPTY)
            return EMPTY;
        if (s->hashes[i] == hash && eq(ctx, id, key))
            return id;
    }
}

static void place(uint64_t *hashes, uint32_t *ids, size_t mask, uint64_t h,
                  uint32_t id)
{
    size_t i = h & mask;
    while (ids[i] != EMPTY)
        i = (i + 1) & mask;
    hashes[i] = h;
    ids[i] = id;
}

static int rehash(tfmt_idset *s, size_t ncap)
{
    uint64_t *nh = tfmt__malloc(s->alloc, ncap * sizeof *nh);
    uint32_t *ni = tfmt__malloc(s->alloc, ncap * sizeof *ni);
    if (!nh || !ni) {
        tfmt__free(s->alloc, nh);
        tfmt__free(s->alloc, ni);
        return TFMT_ENOMEM;
    }
    memset(ni, 0xff, ncap * sizeof *ni);
    for (size_t i = 0; i < s->cap; i++)
        if (s->ids[i] != EMPTY)
            place(nh, ni, ncap - 1, s->hashes[i], s->ids[i]);
    tfmt__free(s->alloc, s->hashes);
    tfmt__free(s->alloc, s->ids);
    s->hashes = nh;
    s->ids = ni;
    s->cap = ncap;
    return TFMT_OK;
}

int tfmt__idset_insert(tfmt_idset *s, uint64_t hash, uint32_t id)
{
    /* Keep the load under 1/2 so probes stay short. */
    if ((s->count + 1) * 2 > s->cap) {
        /* Small first: some sets are per thread (Gecko's tables). */
        size_t ncap = s->cap ? s->cap * 2 : 8;
        if (ncap > SIZE_MAX / sizeof(uint64_t) || rehash(s, ncap) != TFMT_OK)
            return TFMT_ENOMEM;
    }
    place(s->hashes, s->ids, s->cap - 1, hash, id);
    s->count++;
    return TFMT_OK;
}
