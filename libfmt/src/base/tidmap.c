/* SPDX-License-Identifier: MIT */
/*
 * tidmap.c - the table from (thread id, interpreter id) to a dense thread
 * index that the binary reader, the writer and the profile each keep.
 *
 * A slot holds the whole key and the index, so a lookup reads one 16-byte
 * slot per probe and calls nothing: the reader and the writer look a
 * thread up for every record. The load stays at or under 1/2, and the
 * table only grows with the threads a file actually shows.
 */
#include "internal.h"

void tfmt__tidmap_init(tfmt_tidmap *m, const tfmt_allocator *a)
{
    memset(m, 0, sizeof *m);
    m->alloc = a;
}

void tfmt__tidmap_free(tfmt_tidmap *m)
{
    tfmt__free(m->alloc, m->slots);
    m->slots = NULL;
    m->cap = m->count = 0;
}

static void place(tfmt_tidslot *slots, size_t mask, unsigned shift,
                  const tfmt_tidslot *s)
{
    size_t i = tfmt__tidmap_home(s->tid, s->interp, shift);
    while (slots[i].index1 != 0)
        i = (i + 1) & mask;
    slots[i] = *s;
}

static int grow(tfmt_tidmap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 16;
    if (ncap > SIZE_MAX / sizeof(tfmt_tidslot))
        return TFMT_ENOMEM;
    tfmt_tidslot *ns = tfmt__calloc(m->alloc, ncap, sizeof *ns);
    if (!ns)
        return TFMT_ENOMEM;
    unsigned shift = 64 - (unsigned)__builtin_ctzll((unsigned long long)ncap);
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].index1 != 0)
            place(ns, ncap - 1, shift, &m->slots[i]);
    tfmt__free(m->alloc, m->slots);
    m->slots = ns;
    m->cap = ncap;
    m->shift = shift;
    return TFMT_OK;
}

int tfmt__tidmap_insert(tfmt_tidmap *m, uint64_t tid, uint32_t interp,
                        uint32_t index)
{
    if (index == UINT32_MAX)
        return TFMT_ENOMEM;
    if ((m->count + 1) * 2 > m->cap && grow(m) != TFMT_OK)
        return TFMT_ENOMEM;
    tfmt_tidslot s = {tid, interp, index + 1};
    place(m->slots, m->cap - 1, m->shift, &s);
    m->count++;
    return TFMT_OK;
}
