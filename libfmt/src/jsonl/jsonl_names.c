/* SPDX-License-Identifier: MIT */
/*
 * jsonl_names.c - the unknown member names of one object, so that each
 * is noted once, as json-c noted the keys of its table (a name given
 * twice kept one entry). A name is kept as its offset in the object and
 * compared by decoding it again: 4 bytes a slot, the table at most 3/4
 * full, where each name takes at least 6 bytes of the line (`"a":0,`).
 * Each object starts with a small table of its own (a large one left by
 * an earlier object is given back), so no object pays for another's.
 */
#include "jsonl_text.h"

#define FIRST_CAP 64

static uint64_t name_hash(tfmt_str k)
{
    return tfmt__hash_bytes(k.ptr, k.len, 0x6a736f6eu);
}

/* The name stored as off1 (its offset in the object + 1), decoded. */
static int stored(tfmt_jnames *s, uint32_t off1, tfmt_str *out)
{
    return tfmt__jv_name(s->base + off1 - 1, s->end, &s->r->name_text2, out);
}

int tfmt__jnames_begin(tfmt_jnames *s, tfmt_jsonl_reader *r, const char *obj,
                       const char *end)
{
    s->r = r;
    s->base = obj;
    s->end = end;
    s->n = 0;
    return TFMT_OK;
}

/* An empty table of FIRST_CAP slots for a new object. */
static int fresh(tfmt_jsonl_reader *r)
{
    if (r->names_cap == FIRST_CAP) {
        memset(r->names_set, 0, FIRST_CAP * sizeof *r->names_set);
        return TFMT_OK;
    }
    tfmt__free(r->alloc, r->names_set);
    r->names_cap = 0;
    r->names_set = tfmt__calloc(r->alloc, FIRST_CAP, sizeof *r->names_set);
    if (!r->names_set)
        return TFMT_ENOMEM;
    r->names_cap = FIRST_CAP;
    return TFMT_OK;
}

static void place(uint32_t *t, size_t cap, uint64_t h, uint32_t off1)
{
    size_t i = (size_t)h & (cap - 1);
    while (t[i])
        i = (i + 1) & (cap - 1);
    t[i] = off1;
}

/* A table of twice the slots, the names placed again. */
static int grow(tfmt_jnames *s)
{
    tfmt_jsonl_reader *r = s->r;
    size_t cap = r->names_cap * 2;
    uint32_t *t = tfmt__calloc(r->alloc, cap, sizeof *t);
    if (!t)
        return TFMT_ENOMEM;
    for (size_t i = 0; i < r->names_cap; i++) {
        tfmt_str o;
        if (!r->names_set[i])
            continue;
        if (stored(s, r->names_set[i], &o) < 0) {
            tfmt__free(r->alloc, t);
            return TFMT_ENOMEM;
        }
        place(t, cap, name_hash(o), r->names_set[i]);
    }
    tfmt__free(r->alloc, r->names_set);
    r->names_set = t;
    r->names_cap = cap;
    return TFMT_OK;
}

int tfmt__jnames_add(tfmt_jnames *s, const char *name, tfmt_str k)
{
    tfmt_jsonl_reader *r = s->r;
    if (s->n == 0 && fresh(r) < 0)
        return TFMT_ENOMEM;
    if ((s->n + 1) * 4 > r->names_cap * 3 && grow(s) < 0)
        return TFMT_ENOMEM;
    size_t mask = r->names_cap - 1;
    size_t i = (size_t)name_hash(k) & mask;
    for (; r->names_set[i]; i = (i + 1) & mask) {
        tfmt_str o;
        if (stored(s, r->names_set[i], &o) < 0)
            return TFMT_ENOMEM;
        if (o.len == k.len && memcmp(o.ptr, k.ptr, k.len) == 0)
            return 0;
    }
    r->names_set[i] = (uint32_t)(name - s->base) + 1;
    s->n++;
    return 1;
}
