/* SPDX-License-Identifier: MIT */
/*
 * export_top_direct.c - the "top" table of a profile without a call tree
 * (JSONL exports only), without sorting every frame by content.
 *
 * export_top.c numbers functions by walking all frames in content order
 * and sorts every row; a tree-less profile has nothing to walk, so here a
 * function is its (file, name) pair of string ids, its counts are its
 * frames' export totals, and the table's rows are picked by selection
 * (a heap of `limit` rows) in the same order: self, then cumulative,
 * descending, then file and name by content. That is the same table as
 * long as no two functions of used frames have names of equal content
 * under different string ids (an export may define a string twice); the
 * content walk would interleave those, so such a profile is left to it.
 */
#include <stdlib.h>

#include "export_internal.h"

typedef struct dtop {
    tfmt_profile *p;
    uint32_t *ffn;      /* frame -> function */
    uint32_t *fn_frame; /* function -> its first frame (for names) */
    uint32_t nfn;
    uint64_t *self, *cum;
    uint32_t *heap; /* functions kept, the worst at the root */
    uint32_t nheap;
} dtop;

static uint32_t new_function(dtop *t, size_t frame)
{
    t->fn_frame[t->nfn] = (uint32_t)frame;
    return t->nfn++;
}

/*
 * Functions are (filename, funcname) id pairs, numbered as first seen. A
 * name's first function is found through an array over string ids (most
 * names have one file, and an export's ids come in order: no random
 * probes); the pairs of a name with other files go to a hash set.
 */
static int number_functions(dtop *t)
{
    const tfmt_profile *p = t->p;
    uint32_t *by_name = tfmt__malloc_table(p->alloc, p->nstrings + 1, 4);
    if (!by_name)
        return TFMT_ENOMEM;
    memset(by_name, 0xff, (p->nstrings + 1) * 4);
    tfmt_idset others;
    tfmt__idset_init(&others, p->alloc);
    int rc = TFMT_OK;
    for (size_t f = 0; f < p->nframes && rc == TFMT_OK; f++) {
        const tfmt_frame *fr = &p->frames[f];
        uint32_t fn = by_name[fr->funcname];
        if (fn == UINT32_MAX) {
            fn = by_name[fr->funcname] = new_function(t, f);
        } else if (p->frames[t->fn_frame[fn]].filename != fr->filename) {
            uint64_t h =
                tfmt__hash_mix((uint64_t)fr->filename << 32 | fr->funcname);
            fn = tfmt__idset_find_key(&others, h);
            if (fn == UINT32_MAX) {
                fn = new_function(t, f);
                rc = tfmt__idset_insert(&others, h, fn);
            }
        }
        t->ffn[f] = fn;
    }
    tfmt__idset_free(&others);
    tfmt__free(p->alloc, by_name);
    return rc;
}

/* Which functions have a frame an export listed (the frames in use). */
static uint8_t *used_functions(const dtop *t)
{
    const tfmt_profile *p = t->p;
    uint8_t *used = tfmt__calloc_table(p->alloc, t->nfn + 1, 1);
    for (size_t f = 0; used && f < p->naggs && f < p->nframes; f++)
        if (p->agg_listed[f])
            used[t->ffn[f]] = 1;
    return used;
}

/*
 * A name's hash, for the name set only (nothing else sees it, so it need
 * not be tfmt__hash_bytes, which run ids depend on): most names are
 * short, and up to 16 bytes two overlapping loads take them whole, with
 * one mix where the general hash mixes every 8 bytes.
 */
static uint64_t text_hash(const char *s, size_t n, uint64_t seed)
{
    if (n > 16)
        return tfmt__hash_bytes(s, n, seed);
    uint64_t a = 0, b = 0;
    if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        a = x;
        b = y;
    } else if (n > 0) { /* the first, middle and last bytes: all of them */
        a = (uint64_t)(uint8_t)s[0] | (uint64_t)(uint8_t)s[n / 2] << 8 |
            (uint64_t)(uint8_t)s[n - 1] << 16;
    }
    return tfmt__hash_mix(((a ^ seed) * 0x9e3779b97f4a7c15ULL) ^
                          ((b + n) * 0xc2b2ae3d27d4eb4fULL));
}

/*
 * The hashes of recent file names by string id, direct-mapped: a profile
 * has far fewer files than functions, so most functions find theirs here
 * and only their function name is hashed.
 */
#define FILE_HASHES 4096 /* 48 KB */
typedef struct file_hashes {
    uint32_t id1[FILE_HASHES]; /* string id + 1; 0: empty */
    uint64_t hash[FILE_HASHES];
} file_hashes;

static uint64_t names_hash(const dtop *t, file_hashes *fh, uint32_t fn)
{
    const tfmt_frame *fr = &t->p->frames[t->fn_frame[fn]];
    uint32_t k = (uint32_t)(fr->filename * 2654435761u) >> 20; /* 12 bits */
    if (fh->id1[k] != fr->filename + 1) {
        tfmt_str a = tfmt__profile_str(t->p, fr->filename);
        fh->hash[k] = text_hash(a.ptr, a.len, 0);
        fh->id1[k] = fr->filename + 1;
    }
    tfmt_str b = tfmt__profile_str(t->p, fr->funcname);
    return text_hash(b.ptr, b.len, fh->hash[k]);
}

static bool same_content(const dtop *t, uint32_t f, uint32_t g)
{
    const tfmt_frame *x = &t->p->frames[t->fn_frame[f]];
    const tfmt_frame *y = &t->p->frames[t->fn_frame[g]];
    return !tfmt__pstr_cmp(t->p, x->filename, y->filename) &&
           !tfmt__pstr_cmp(t->p, x->funcname, y->funcname);
}

/*
 * A set of functions by name content: a slot holds fn + 1 and 32 bits of
 * its hash (one memory access a probe), at most half the slots used;
 * names are compared only when those bits match.
 */
typedef struct nameslot {
    uint32_t fn1, tag;
} nameslot;

typedef struct nameset {
    nameslot *slot;
    size_t cap;
} nameset;

static size_t nameset_home(const nameset *s, uint64_t h)
{
    return (size_t)(((h & 0xffffffffu) * (uint64_t)s->cap) >> 32);
}

/* Add fn (hash h); false when a function of the same names is there. */
static bool nameset_add(const dtop *t, nameset *s, uint32_t fn, uint64_t h)
{
    uint32_t tag = (uint32_t)(h >> 32);
    size_t i = nameset_home(s, h);
    for (; s->slot[i].fn1; i = i + 1 == s->cap ? 0 : i + 1)
        if (s->slot[i].tag == tag && same_content(t, s->slot[i].fn1 - 1, fn))
            return false;
    s->slot[i] = (nameslot){fn + 1, tag};
    return true;
}

/*
 * Buckets of name hashes, two bits each: `seen` marks a bucket a function
 * in use hashed to, `twice` one that a second function did. Only the
 * functions of buckets met twice can share names (equal names hash
 * alike), and with 8 to 16 buckets a function about one in 8 to 16 is
 * in one.
 */
typedef struct buckets {
    uint64_t *seen, *twice;
    unsigned shift; /* a hash's bucket is its top 64 - shift bits */
} buckets;

static int buckets_init(buckets *b, const tfmt_allocator *a, size_t nfn)
{
    unsigned bits = 6; /* 64 buckets at least, 2^31 at most */
    while (bits < 31 && ((size_t)1 << bits) < 8 * nfn)
        bits++;
    size_t words = ((size_t)1 << bits) / 64;
    b->seen = tfmt__calloc_table(a, 2 * words, sizeof *b->seen);
    b->twice = b->seen ? b->seen + words : NULL;
    b->shift = 64 - bits;
    return b->seen ? TFMT_OK : TFMT_ENOMEM;
}

static bool bit_is_set(const uint64_t *w, uint32_t i)
{
    return w[i / 64] >> (i % 64) & 1;
}

/* Mark bucket i seen; a bucket seen already is marked twice (true). */
static bool bucket_mark(buckets *b, uint32_t i)
{
    uint64_t m = (uint64_t)1 << (i % 64);
    bool again = b->seen[i / 64] & m;
    b->twice[i / 64] |= again ? m : 0;
    b->seen[i / 64] |= m;
    return again;
}

/* Hashes computed, and their bitmap words fetched, a batch at a time:
 * the bitmaps outgrow the L2 cache from about 250,000 functions. */
#define NAMES_BATCH 64

static uint32_t bucket_of(const buckets *b, uint64_t h)
{
    return (uint32_t)(h >> b->shift);
}

/*
 * Pass one: the hash of each function in use to hash[] (0 for the
 * others), and its bucket marked. Returns how many functions met a
 * bucket seen before: those of buckets met twice are at most twice that,
 * as a bucket met k times counts k - 1.
 */
static size_t fill_buckets(const dtop *t, const uint8_t *used, buckets *b,
                           file_hashes *fh, uint64_t *hash)
{
    size_t again = 0;
    for (uint32_t fn = 0; fn < t->nfn; fn += NAMES_BATCH) {
        uint32_t n = t->nfn - fn < NAMES_BATCH ? t->nfn - fn : NAMES_BATCH;
        for (uint32_t k = 0; k < n; k++) {
            hash[fn + k] = used[fn + k] ? names_hash(t, fh, fn + k) : 0;
            uint32_t i = bucket_of(b, hash[fn + k]);
            __builtin_prefetch(&b->seen[i / 64]);
            __builtin_prefetch(&b->twice[i / 64]);
        }
        for (uint32_t k = 0; k < n; k++)
            if (used[fn + k])
                again += bucket_mark(b, bucket_of(b, hash[fn + k]));
    }
    return again;
}

/*
 * Pass two: the functions of buckets met twice, into an exact set (their
 * hashes kept: computing them again chased four pointers to memory).
 */
static int compare_shared(const dtop *t, const uint8_t *used, const buckets *b,
                          const uint64_t *hash, size_t again)
{
    nameset s = {NULL, 4 * (again + 1)};
    s.slot = tfmt__calloc_table(t->p->alloc, s.cap, sizeof *s.slot);
    if (!s.slot)
        return TFMT_ENOMEM;
    int rc = 0;
    for (uint32_t fn = 0; fn < t->nfn && !rc; fn += NAMES_BATCH) {
        uint32_t n = t->nfn - fn < NAMES_BATCH ? t->nfn - fn : NAMES_BATCH;
        for (uint32_t k = 0; k < n; k++)
            __builtin_prefetch(&b->twice[bucket_of(b, hash[fn + k]) / 64]);
        for (uint32_t k = 0; k < n && !rc; k++)
            if (used[fn + k] &&
                bit_is_set(b->twice, bucket_of(b, hash[fn + k])))
                rc = !nameset_add(t, &s, fn + k, hash[fn + k]);
    }
    tfmt__free(t->p->alloc, s.slot);
    return rc;
}

/*
 * Whether two functions in use have names of equal content (1), or not
 * (0); TFMT_ENOMEM. Only appended strings can be equal under two ids
 * (interned ones are one id per content). A set of every function (16
 * bytes each, cleared first) sent most probes to memory; the bucket
 * filter's bitmaps (2 to 4 bytes a function) stay in cache, and the exact
 * set holds the few functions it lets through: 64,000 of 1,050,000 on the
 * 200 MB export of bench/jsonl_bench.sh, where this check took 17.4 to
 * 17.7 ms in most runs and the set 19.6 to 49. hash[] lives in `room`, 8
 * bytes a function (the counts' block, not used yet), which the caller
 * clears afterwards.
 */
static int same_names(dtop *t, void *room)
{
    const tfmt_profile *p = t->p;
    if (!p->appended)
        return TFMT_OK;
    uint8_t *used = used_functions(t);
    file_hashes *fh = tfmt__calloc(p->alloc, 1, sizeof *fh);
    buckets b;
    int rc = used && fh ? buckets_init(&b, p->alloc, t->nfn) : TFMT_ENOMEM;
    if (rc == TFMT_OK) {
        size_t again = fill_buckets(t, used, &b, fh, room);
        if (again)
            rc = compare_shared(t, used, &b, room, again);
        tfmt__free(p->alloc, b.seen);
    }
    tfmt__free(p->alloc, fh);
    tfmt__free(p->alloc, used);
    return rc;
}

/*
 * Self and cumulative counts per function: the exports' totals summed
 * over its frames, cumulative capped at the exports' samples (as
 * tfmt__xadd_exports adds them, into counts that start at zero here).
 */
static void count(dtop *t)
{
    const tfmt_profile *p = t->p;
    for (size_t f = 0; f < p->naggs && f < p->nframes; f++) {
        const tfmt_pagg *a = tfmt__profile_agg(p, (uint32_t)f);
        if (!a)
            continue;
        uint32_t fn = t->ffn[f];
        t->self[fn] = tfmt__sat_add(t->self[fn], a->self);
        t->cum[fn] = tfmt__sat_add(t->cum[fn], a->cum);
    }
    for (uint32_t fn = 0; fn < t->nfn; fn++)
        if (t->cum[fn] > p->agg_samples)
            t->cum[fn] = p->agg_samples;
}

/* Row a comes before row b: self, cumulative, then file and name. */
static bool before(const dtop *t, uint32_t a, uint32_t b)
{
    if (t->self[a] != t->self[b])
        return t->self[a] > t->self[b];
    if (t->cum[a] != t->cum[b])
        return t->cum[a] > t->cum[b];
    const tfmt_frame *x = &t->p->frames[t->fn_frame[a]];
    const tfmt_frame *y = &t->p->frames[t->fn_frame[b]];
    int c = tfmt__pstr_cmp(t->p, x->filename, y->filename);
    return (c ? c : tfmt__pstr_cmp(t->p, x->funcname, y->funcname)) < 0;
}

/* The heap keeps the worst row kept at its root. */
static void sift_down(dtop *t, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, w = i;
        if (l < t->nheap && before(t, t->heap[w], t->heap[l]))
            w = l;
        if (r < t->nheap && before(t, t->heap[w], t->heap[r]))
            w = r;
        if (w == i)
            return;
        uint32_t x = t->heap[i];
        t->heap[i] = t->heap[w];
        t->heap[w] = x;
        i = w;
    }
}

static void heap_push(dtop *t, uint32_t fn)
{
    uint32_t i = t->nheap++;
    t->heap[i] = fn;
    while (i > 0 && before(t, t->heap[(i - 1) / 2], t->heap[i])) {
        uint32_t up = (i - 1) / 2, x = t->heap[i];
        t->heap[i] = t->heap[up];
        t->heap[up] = x;
        i = up;
    }
}

/* Keep the best `limit` rows; returns how many rows there are. */
static uint32_t select_rows(dtop *t, uint32_t limit)
{
    uint32_t rows = 0;
    for (uint32_t fn = 0; fn < t->nfn; fn++) {
        if (t->cum[fn] == 0)
            continue;
        rows++;
        if (t->nheap < limit) {
            heap_push(t, fn);
        } else if (limit && t->self[fn] >= t->self[t->heap[0]] &&
                   before(t, fn, t->heap[0])) { /* most fall at self */
            t->heap[0] = fn;
            sift_down(t, 0);
        }
    }
    return rows;
}

/* The kept rows in table order (worst last): take the root each time. */
static void order_rows(dtop *t)
{
    uint32_t n = t->nheap;
    while (t->nheap > 1) {
        uint32_t last = --t->nheap, worst = t->heap[0];
        t->heap[0] = t->heap[last];
        t->heap[last] = worst;
        sift_down(t, 0);
    }
    t->nheap = n;
}

static int put_rows(dtop *t, tfmt_buf *out, uint32_t limit)
{
    const tfmt_profile *p = t->p;
    uint32_t rows = select_rows(t, limit);
    order_rows(t);
    int rc = tfmt__buf_puts(out, TFMT_TOP_COLUMNS);
    for (uint32_t i = 0; i < t->nheap && rc == TFMT_OK; i++) {
        uint32_t fn = t->heap[i];
        rc = tfmt__top_row(out, p, &p->frames[t->fn_frame[fn]], t->self[fn],
                           t->cum[fn], p->samples_total);
    }
    if (rc == TFMT_OK && rows > limit)
        rc = tfmt__buf_printf(out, "(%u more functions)\n", rows - limit);
    return rc;
}

static void dtop_free(dtop *t)
{
    void *v[] = {t->ffn, t->fn_frame, t->self, t->heap}; /* cum: in self's */
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        tfmt__free(t->p->alloc, v[i]);
}

int tfmt__top_direct(tfmt_profile *p, uint32_t limit, tfmt_buf *out)
{
    dtop t;
    memset(&t, 0, sizeof t);
    t.p = p;
    size_t n = p->nframes ? p->nframes : 1;
    t.ffn = tfmt__malloc_table(p->alloc, n, sizeof *t.ffn);
    t.fn_frame = tfmt__malloc_table(p->alloc, n, sizeof *t.fn_frame);
    int rc = t.ffn && t.fn_frame ? number_functions(&t) : TFMT_ENOMEM;
    size_t nfn = (size_t)t.nfn + 1;
    if (rc == TFMT_OK) {
        /* self and cum in one block: hash[] of same_names first */
        t.self = tfmt__malloc_table(p->alloc, 2 * nfn, sizeof *t.self);
        t.cum = t.self ? t.self + nfn : NULL;
        t.heap = tfmt__malloc(p->alloc,
                              ((size_t)(limit < t.nfn ? limit : t.nfn) + 1) *
                                  sizeof *t.heap);
        rc = t.self && t.heap ? TFMT_OK : TFMT_ENOMEM;
    }
    if (rc == TFMT_OK)
        rc = same_names(&t, t.self);
    if (rc == TFMT_OK) {
        memset(t.self, 0, 2 * nfn * sizeof *t.self);
        count(&t);
        rc = tfmt__top_header(out, p);
    }
    if (rc == TFMT_OK)
        rc = put_rows(&t, out, limit);
    dtop_free(&t);
    return rc;
}
