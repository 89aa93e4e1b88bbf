/* idset.c - an open-addressing set of uint32 ids, linear probing. */
#include <stdlib.h>

#include "idset.h"

/* Fibonacci hashing: the top log2(cap) bits of id * 2^64/phi. */
static size_t slot_of(uint32_t id, size_t cap)
{
    uint64_t h = ((uint64_t)id + 1) * 0x9e3779b97f4a7c15ULL;
    return (size_t)(h >> (64 - __builtin_ctzll((unsigned long long)cap)));
}

void tv_idset_free(tv_idset *s)
{
    free(s->slots);
    s->slots = NULL;
    s->cap = s->count = 0;
}

bool tv_idset_has(const tv_idset *s, uint32_t id)
{
    if (!s->cap)
        return false;
    for (size_t i = slot_of(id, s->cap);; i = (i + 1) & (s->cap - 1)) {
        if (s->slots[i] == 0)
            return false;
        if (s->slots[i] == (uint64_t)id + 1)
            return true;
    }
}

static void place(uint64_t *slots, size_t cap, uint64_t v)
{
    size_t i = slot_of((uint32_t)(v - 1), cap);
    while (slots[i])
        i = (i + 1) & (cap - 1);
    slots[i] = v;
}

static int grow(tv_idset *s)
{
    size_t cap = s->cap ? s->cap * 2 : 64;
    uint64_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < s->cap; i++) {
        if (s->slots[i])
            place(slots, cap, s->slots[i]);
    }
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    return 0;
}

int tv_idset_add(tv_idset *s, uint32_t id)
{
    if (tv_idset_has(s, id))
        return 0;
    if ((s->count + 1) * 2 > s->cap && grow(s) < 0)
        return -1;
    place(s->slots, s->cap, (uint64_t)id + 1);
    s->count++;
    return 1;
}

void tv_idset_each(const tv_idset *s, void (*fn)(void *, uint32_t),
                   void *ctx)
{
    for (size_t i = 0; i < s->cap; i++) {
        if (s->slots[i])
            fn(ctx, (uint32_t)(s->slots[i] - 1));
    }
}
