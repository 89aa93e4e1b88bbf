/* SPDX-License-Identifier: MIT */
/*
 * idbits.c - a set of uint32 ids, for checks such as "defined once" and
 * "defined before use" over ids an input chooses (JSONL's str_id and
 * frame_id). Writers number ids densely from 0, so small ids live in a
 * bitmap (one bit each, one memory access per test). The bitmap grows
 * only to cover ids below 64 times the ids stored plus 2^16, so a huge id
 * from a hostile file cannot make it large: such ids go to an
 * open-addressing table instead. Memory stays proportional to the ids
 * stored, whatever their values.
 */
#include "internal.h"

#define SLACK_BITS ((size_t)1 << 16)

void tfmt__idbits_init(tfmt_idbits *s, const tfmt_allocator *a)
{
    memset(s, 0, sizeof *s);
    s->alloc = a;
}

void tfmt__idbits_free(tfmt_idbits *s)
{
    tfmt__free(s->alloc, s->bits);
    tfmt__free(s->alloc, s->slots);
    tfmt__idbits_init(s, s->alloc);
}

/* Multiply-shift: the top log2(cap) bits of id times an odd secret (a
 * fixed multiplier let a file choose ids that all meet in one chain). */
static size_t slot_of(uint32_t id, size_t cap)
{
    uint64_t h = ((uint64_t)id + 1) * tfmt__hash_odd;
    return (size_t)(h >> (64 - __builtin_ctzll((unsigned long long)cap)));
}

bool tfmt__idbits_spilled(const tfmt_idbits *s, uint32_t id)
{
    if (!s->nspilled)
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

static int spill(tfmt_idbits *s, uint32_t id)
{
    if ((s->nspilled + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        uint64_t *slots = tfmt__calloc(s->alloc, cap, sizeof *slots);
        if (!slots)
            return TFMT_ENOMEM;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slots[i])
                place(slots, cap, s->slots[i]);
        tfmt__free(s->alloc, s->slots);
        s->slots = slots;
        s->cap = cap;
    }
    place(s->slots, s->cap, (uint64_t)id + 1);
    s->nspilled++;
    return TFMT_OK;
}

/* Cover `id` with the bitmap if that keeps it within its bound. */
static int cover(tfmt_idbits *s, uint32_t id, bool *covered)
{
    size_t word = id >> 6;
    *covered = word < s->nwords;
    if (*covered || (size_t)id >= 64 * (s->count + 1) + SLACK_BITS)
        return TFMT_OK;
    size_t old = s->nwords;
    if (tfmt__grow(s->alloc, (void **)&s->bits, &s->nwords, word + 1,
                   sizeof *s->bits) != TFMT_OK)
        return TFMT_ENOMEM;
    memset(s->bits + old, 0, (s->nwords - old) * sizeof *s->bits);
    *covered = true;
    return TFMT_OK;
}

int tfmt__idbits_add(tfmt_idbits *s, uint32_t id)
{
    if (tfmt__idbits_has(s, id))
        return 0;
    bool covered;
    if (cover(s, id, &covered) != TFMT_OK)
        return TFMT_ENOMEM;
    if (covered)
        s->bits[id >> 6] |= (uint64_t)1 << (id & 63);
    else if (spill(s, id) != TFMT_OK)
        return TFMT_ENOMEM;
    s->count++;
    return 1;
}

void tfmt__idbits_each(const tfmt_idbits *s, void (*fn)(void *, uint32_t),
                       void *ctx)
{
    for (size_t w = 0; w < s->nwords; w++) {
        for (uint64_t b = s->bits[w]; b; b &= b - 1)
            fn(ctx, (uint32_t)(w * 64 + (size_t)__builtin_ctzll(b)));
    }
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i])
            fn(ctx, (uint32_t)(s->slots[i] - 1));
}
