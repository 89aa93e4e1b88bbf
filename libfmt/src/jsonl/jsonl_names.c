/* SPDX-License-Identifier: MIT */
/*
 * jsonl_names.c - the unknown member names of one object, so that each
 * is noted once, as json-c noted the keys of its table (a name given
 * twice kept one entry). A name is kept as its offset in the object and
 * 8 bits of its hash, and compared by decoding it again when those match:
 * 5 bytes a slot, 4/3 slots a member of the object (sized once, when its
 * first unknown name comes), where each member takes at least 6 bytes of
 * the line (`"a":0,`): at most 1.2 times the object. A table of another
 * size left by an earlier object is given back.
 */
#include "jsonl_text.h"

#define FIRST_CAP 16

static uint64_t name_hash(tfmt_str k)
{
    return tfmt__hash_text(k.ptr, k.len, 0x6a736f6eu);
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

/* A table of `cap` empty slots (offsets, then tags, in one block). */
static uint8_t *tags(uint32_t *t, size_t cap)
{
    return (uint8_t *)(t + cap);
}

/* The slot a hash probes first, for any number of slots. */
static size_t home(uint64_t h, size_t cap)
{
    return (size_t)(((h & 0xffffffffu) * (uint64_t)cap) >> 32);
}

/*
 * An empty table for the object: 4/3 slots a member (every member could
 * be an unknown name), so no table grows while an object is read.
 */
static int table_for(tfmt_jnames *s)
{
    tfmt_jsonl_reader *r = s->r;
    tfmt_jiter it;
    const char *name, *value;
    size_t members = 0;
    tfmt__jv_iter(&it, s->base, s->end);
    while (tfmt__jv_next_member(&it, &name, &value))
        members++;
    size_t cap = members + members / 3 + 2;
    if (cap < FIRST_CAP)
        cap = FIRST_CAP;
    if (cap != r->names_cap) {
        tfmt__free(r->alloc, r->names_set);
        r->names_cap = 0;
        r->names_set = tfmt__malloc(r->alloc, cap * (sizeof(uint32_t) + 1));
        if (!r->names_set)
            return TFMT_ENOMEM;
        r->names_cap = cap;
    }
    memset(r->names_set, 0, cap * (sizeof(uint32_t) + 1));
    return TFMT_OK;
}

int tfmt__jnames_add(tfmt_jnames *s, const char *name, tfmt_str k)
{
    tfmt_jsonl_reader *r = s->r;
    if (s->n == 0 && table_for(s) < 0)
        return TFMT_ENOMEM;
    uint64_t h = name_hash(k);
    size_t cap = r->names_cap;
    uint8_t tag = (uint8_t)(h >> 56), *tag_of = tags(r->names_set, cap);
    size_t i = home(h, cap);
    for (; r->names_set[i]; i = i + 1 == cap ? 0 : i + 1) {
        tfmt_str o;
        if (tag_of[i] != tag)
            continue;
        if (stored(s, r->names_set[i], &o) < 0)
            return TFMT_ENOMEM;
        if (o.len == k.len && memcmp(o.ptr, k.ptr, k.len) == 0)
            return 0;
    }
    r->names_set[i] = (uint32_t)(name - s->base) + 1;
    tag_of[i] = tag;
    s->n++;
    return 1;
}
