/* SPDX-License-Identifier: MIT */
/*
 * flat_internal.h - the layout of tfmt_flat, shared by flat.c (tables and
 * accessors), flat_profile.c (building from call trees) and flat_jsonl.c
 * (building from JSONL agg records).
 */
#ifndef TFMT_FLAT_INTERNAL_H
#define TFMT_FLAT_INTERNAL_H

#include <tachyon/fmt_flat.h>

#include "internal.h"

#define TFMT_FLAT_NONE UINT32_MAX

/* A byte string stored in one of the flat's text buffers. */
typedef struct tfmt_fspan {
    uint64_t off;
    uint32_t len;
} tfmt_fspan;

typedef struct tfmt_fkey {
    uint32_t file; /* flat string id (the empty string for func
                      keys) */
    uint32_t func;
    int32_t line; /* -1 unless the key has lines */
    uint64_t self;
    uint64_t cum;
    uint64_t cum_frames; /* JSONL's way: see fmt_flat.h */
} tfmt_fkey;

/*
 * An open-addressing table of ids: each slot packs the top 32 bits of the
 * key's hash above its id + 1 (zero: empty, so a new table is calloc's
 * untouched zero pages), so a probe touches one 8-byte slot and compares
 * the stored hash bits before the key itself. A key's home slot comes
 * from the top bits of its hash (so growing re-places slots without
 * rehashing keys). Load stays at or under 1/2.
 */
typedef struct tfmt_ftab {
    uint64_t *slots;
    size_t cap; /* power of two (at most 2^32), or 0 */
    size_t count;
    unsigned shift; /* 32 - log2(cap) */
} tfmt_ftab;

#define TFMT_FTAB_EMPTY 0

typedef bool (*tfmt_ftab_eq)(const tfmt_flat *f, uint32_t id, const void *key);

/* The id whose key equals `key` (eq decides), or TFMT_FLAT_NONE. */
static inline uint32_t tfmt__ftab_find(const tfmt_ftab *t, uint64_t h,
                                       const void *key, tfmt_ftab_eq eq,
                                       const tfmt_flat *f)
{
    if (!t->cap)
        return TFMT_FLAT_NONE;
    size_t mask = t->cap - 1;
    uint32_t tag = (uint32_t)(h >> 32);
    for (size_t i = (size_t)(tag >> t->shift);; i = (i + 1) & mask) {
        uint64_t s = t->slots[i];
        if (s == TFMT_FTAB_EMPTY)
            return TFMT_FLAT_NONE;
        if ((uint32_t)(s >> 32) == tag && eq(f, (uint32_t)s - 1, key))
            return (uint32_t)s - 1;
    }
}

typedef struct tfmt_fstack {
    tfmt_fspan text; /* in stack_text */
    uint64_t count;
} tfmt_fstack;

struct tfmt_flat {
    const tfmt_allocator *alloc;
    tfmt_flat_options opts;
    tfmt_error err;
    tfmt_flat_info info;

    tfmt_buf text;  /* string bytes */
    uint64_t *soff; /* string i is text[soff[i], soff[i + 1]):
                       nstrs + 1 entries */
    size_t nstrs, capsoff;
    tfmt_ftab str_set;
    uint32_t empty; /* id of "" */

    tfmt_fkey *keys;
    size_t nkeys, capkeys;
    tfmt_ftab key_set;

    tfmt_buf stack_text;
    tfmt_fstack *stacks;
    size_t nstacks, capstacks;
    tfmt_ftab stack_set;
};

static inline tfmt_str tfmt__flat_str(const tfmt_flat *f, uint32_t id)
{
    tfmt_str s = {f->text.data + f->soff[id],
                  (size_t)(f->soff[id + 1] - f->soff[id])};
    return s;
}

static inline uint64_t tfmt__flat_str_hash(const char *s, size_t n)
{
    return tfmt__hash_text(s, n, 0x5157);
}

static inline uint64_t tfmt__flat_key_hash(const tfmt_fkey *k)
{
    uint64_t h = tfmt__hash_key(((uint64_t)k->file << 32) | k->func);
    return tfmt__hash_mix(h ^ (uint32_t)k->line);
}

/* ftab equality of string `id` and a tfmt_str. */
static inline bool tfmt__flat_str_eq(const tfmt_flat *f, uint32_t id,
                                     const void *key)
{
    const tfmt_str *k = key;
    return f->soff[id + 1] - f->soff[id] == k->len &&
           memcmp(f->text.data + f->soff[id], k->ptr, k->len) == 0;
}

/* ftab equality of key `id` and a tfmt_fkey (names and line). */
static inline bool tfmt__flat_key_eq(const tfmt_flat *f, uint32_t id,
                                     const void *key)
{
    const tfmt_fkey *a = &f->keys[id], *b = key;
    return a->file == b->file && a->func == b->func && a->line == b->line;
}

/* Intern bytes as a flat string. */
int tfmt__flat_intern(tfmt_flat *f, const char *s, size_t n, uint32_t *out);

/* As tfmt__flat_intern, with the bytes' tfmt__flat_str_hash given. */
int tfmt__flat_intern_hashed(tfmt_flat *f, const char *s, size_t n, uint64_t h,
                             uint32_t *out);

/*
 * Start loading the home slot of hash `h` in table `t`. The tables are far
 * larger than the cache, so a probe is a memory wait: callers with many
 * keys at hand prefetch a batch of them first, then probe, so that the
 * waits overlap (the probe itself then hits the cache).
 */
static inline void tfmt__ftab_prefetch(const tfmt_ftab *t, uint64_t h)
{
    if (t->cap)
        __builtin_prefetch(
            &t->slots[(size_t)((uint32_t)(h >> 32) >> t->shift)]);
}

/* Keys and strings prefetched and probed per batch (see above). */
#define TFMT_FLAT_BATCH 16

/*
 * The key of a frame named (file, func) at `line`: rewrites both names,
 * applies the filters and interns the key; *out = TFMT_FLAT_NONE when the
 * filters drop the frame. Errors are stored in f->err.
 */
int tfmt__flat_frame_key(tfmt_flat *f, const char *file, size_t flen,
                         const char *func, size_t fnlen, int32_t line,
                         uint32_t *out);

/*
 * Make room for `nstrs` more strings of about `bytes` bytes in all and
 * `nkeys` more keys (an input's table sizes), so a large input does not
 * pay for repeated doubling (and its copies and overshoot).
 */
int tfmt__flat_reserve(tfmt_flat *f, size_t nstrs, size_t nkeys, size_t bytes);

/* Whether rewrite rules apply (names are then not interned as read). */
static inline bool tfmt__flat_rewrites(const tfmt_flat *f)
{
    return f->opts.match &&
           tfmt_match_count(f->opts.match, TFMT_MATCH_REWRITE) > 0;
}

/* Rewrite a name with the flat's rules and intern the result. */
int tfmt__flat_rewrite_intern(tfmt_flat *f, const char *s, size_t n,
                              uint32_t *out);

/* As tfmt__flat_frame_key, for names already rewritten and interned. */
int tfmt__flat_key_ids(tfmt_flat *f, uint32_t file_id, uint32_t func_id,
                       int32_t line, uint32_t *out);

/* Prefetch the slot tfmt__flat_key_ids will probe for these names. */
void tfmt__flat_key_prefetch(const tfmt_flat *f, uint32_t file_id,
                             uint32_t func_id, int32_t line);

/* Append the display text of key `id` ("file:func" ...) to `b`. */
int tfmt__flat_key_text(const tfmt_flat *f, uint32_t id, tfmt_buf *b);

/* Add `count` to the folded stack s[0..n). */
int tfmt__flat_add_stack(tfmt_flat *f, const char *s, size_t n, uint64_t count);

/*
 * Remove the keys from id `from` on that have no counts (keys made for
 * frames no sample reached), keeping the others in order.
 */
void tfmt__flat_drop_empty(tfmt_flat *f, size_t from);

/*
 * Snapshot every key's cum_frames before an input is added, and afterwards
 * cap each key's gain from that input at the input's sample total.
 */
int tfmt__flat_cap_begin(tfmt_flat *f, uint64_t **snap, size_t *n);
void tfmt__flat_cap_end(tfmt_flat *f, uint64_t *snap, size_t n, uint64_t total);

/*
 * Account one input's totals. duration_s < 0: none measured. `exact`: the
 * input had stacks, so cumulative is per stack; `stacks`: folded stacks
 * were collected from it.
 */
void tfmt__flat_add_input(tfmt_flat *f, uint64_t samples, uint64_t interval_us,
                          double duration_s, bool exact, bool stacks);

#endif
