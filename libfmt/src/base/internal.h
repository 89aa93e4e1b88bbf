/* SPDX-License-Identifier: MIT */
/*
 * internal.h - the base layer's private helpers, shared by every module of
 * libtachyonfmt: allocation through the handle's allocator, error records,
 * growable buffers, hashing, byte-order loads/stores and LEB128 varints.
 * It sees only the status codes and the sample model of the public API
 * (each layer includes the public headers it implements itself). Never
 * installed.
 */
#ifndef TFMT_INTERNAL_H
#define TFMT_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <tachyon/fmt_error.h>
#include <tachyon/fmt_model.h>

#include "advise.h"

/* ---- allocation (alloc.c) ---- */
void *tfmt__malloc(const tfmt_allocator *a, size_t size);
void *tfmt__calloc(const tfmt_allocator *a, size_t n, size_t size);
void *tfmt__realloc(const tfmt_allocator *a, void *ptr, size_t size);
void tfmt__free(const tfmt_allocator *a, void *ptr);
/* n items of `size` bytes for a table that may be big: from 256 KiB up,
 * on huge pages where the kernel grants them (alloc.c). Freed as any
 * block. */
void *tfmt__malloc_table(const tfmt_allocator *a, size_t n, size_t size);
/* The same, zeroed (a fresh mapping is zero already: no memset). */
void *tfmt__calloc_table(const tfmt_allocator *a, size_t n, size_t size);
/* Grow *ptr (elements of `elem` bytes) to hold at least `need`; doubles
 * (fourfold for big tables in libc's allocator). */
int tfmt__grow(const tfmt_allocator *a, void **ptr, size_t *cap, size_t need,
               size_t elem);
/* The same from 4 elements (not 16): for tables kept per thread. */
int tfmt__grow_small(const tfmt_allocator *a, void **ptr, size_t *cap,
                     size_t need, size_t elem);
/* Room for `depth` (at most TFMT_MAX_DEPTH) frame ids in a thread's stack,
 * contents kept: grown by doubling from 8, so a thread's stack is as deep
 * as its deepest sample, not the format's cap. */
int tfmt__reserve_stack(const tfmt_allocator *a, uint32_t **stack,
                        uint32_t *cap, uint32_t depth);

/* ---- errors (error.c) ---- */
#if defined(__GNUC__)
#define TFMT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TFMT_PRINTF(f, a)
#endif
/* Fill `err` (may be NULL) and return `code`. */
int tfmt__error(tfmt_error *err, int code, const char *fmt, ...)
    TFMT_PRINTF(3, 4);
/* Same, located at byte `offset`. */
int tfmt__error_at(tfmt_error *err, int code, uint64_t offset, const char *fmt,
                   ...) TFMT_PRINTF(4, 5);
/* TFMT_EIO from errno, message "<what>: strerror". */
int tfmt__error_errno(tfmt_error *err, int sys_errno, const char *what);
void tfmt__error_clear(tfmt_error *err);
/*
 * A reader's error on damaged contents (EFORMAT, ETRUNC, ESCHEMA) that
 * has no hint yet gets TFMT_HINT_CHECK; others are left as they are.
 */
void tfmt__error_hint_check(tfmt_error *err);
/*
 * The library's error rule: the handle a caller called owns the error, so
 * a handle that failed because a handle it uses failed (a model's reader,
 * a writer's sink) copies that one's error into its own `to`. Should
 * `from` hold no error, `to` gets `code` with its status name. Returns the
 * status now in `to`.
 */
int tfmt__error_take(tfmt_error *to, const tfmt_error *from, int code);

/* ---- growable byte buffer (buf.c) ---- */
typedef struct tfmt_buf {
    const tfmt_allocator *alloc;
    char *data;
    size_t len;
    size_t cap;
} tfmt_buf;
void tfmt__buf_init(tfmt_buf *b, const tfmt_allocator *a);
void tfmt__buf_free(tfmt_buf *b);
int tfmt__buf_reserve(tfmt_buf *b, size_t extra);
int tfmt__buf_put(tfmt_buf *b, const void *p, size_t n);
int tfmt__buf_putc(tfmt_buf *b, char c);
int tfmt__buf_puts(tfmt_buf *b, const char *s);
int tfmt__buf_printf(tfmt_buf *b, const char *fmt, ...) TFMT_PRINTF(2, 3);
int tfmt__buf_put_u64(tfmt_buf *b, uint64_t v); /* decimal */
/*
 * v in decimal at o (at most 20 bytes); returns the end. Below 2^32 the
 * inline tfmt__fmt_u32 does it: a head of 1-4 digits, then groups of four
 * (two digits at a time from tfmt__digit_pairs).
 */
char *tfmt__fmt_u64(char *o, uint64_t v);
extern const char tfmt__digit_pairs[200];

static inline void tfmt__fmt_pair(char *o, uint32_t v)
{
    memcpy(o, tfmt__digit_pairs + 2 * v, 2);
}

/* v (below 10000) in exactly four digits. */
static inline void tfmt__fmt_four(char *o, uint32_t v)
{
    tfmt__fmt_pair(o, v / 100);
    tfmt__fmt_pair(o + 2, v % 100);
}

/* v below 10000, without leading zeros. */
static inline char *tfmt__fmt_head(char *o, uint32_t v)
{
    if (v < 10) {
        *o = (char)('0' + v);
        return o + 1;
    }
    if (v < 100) {
        tfmt__fmt_pair(o, v);
        return o + 2;
    }
    if (v < 1000) {
        *o = (char)('0' + v / 100);
        tfmt__fmt_pair(o + 1, v % 100);
        return o + 3;
    }
    tfmt__fmt_four(o, v);
    return o + 4;
}

static inline char *tfmt__fmt_u32(char *o, uint32_t v)
{
    if (v < 10000)
        return tfmt__fmt_head(o, v);
    if (v < 100000000) {
        o = tfmt__fmt_head(o, v / 10000);
        tfmt__fmt_four(o, v % 10000);
        return o + 4;
    }
    o = tfmt__fmt_head(o, v / 100000000);
    tfmt__fmt_four(o, (v / 10000) % 10000);
    tfmt__fmt_four(o + 4, v % 10000);
    return o + 8;
}

/* The same for any v, inline below 2^32 (ids and most counts). */
static inline char *tfmt__put_dec(char *o, uint64_t v)
{
    if (v <= UINT32_MAX)
        return tfmt__fmt_u32(o, (uint32_t)v);
    return tfmt__fmt_u64(o, v);
}
int tfmt__buf_put_i64(tfmt_buf *b, int64_t v);     /* decimal */
int tfmt__buf_put_varint(tfmt_buf *b, uint64_t v); /* LEB128 */

/* ---- counts ---- */
/* a + b, or UINT64_MAX when that does not fit: counts from a file never
 * wrap around to small numbers. */
static inline uint64_t tfmt__add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---- hashing (hash.c) ---- */
/*
 * Tables keyed by what a file holds (its strings, ids, thread ids, line
 * numbers) hash with a secret drawn once a process, so that a file cannot
 * be made to put its keys in one probe chain (hash flooding: quadratic
 * time). tfmt__hash_text and tfmt__hash_key take the secret; the plain
 * hashes are for what must be the same in every process (run ids:
 * digest.c, tfmt_bin_fingerprint). tfmt__hash_odd is an odd secret, the
 * multiplier of tables hashed by multiply-shift. Nothing written out
 * depends on the secrets: tables are looked up, never listed in slot
 * order.
 */
extern uint64_t tfmt__hash_secret, tfmt__hash_odd;
uint64_t tfmt__hash_bytes(const void *p, size_t n, uint64_t seed);
/* The hash of a table key of bytes. */
static inline uint64_t tfmt__hash_text(const void *p, size_t n, uint64_t seed)
{
    return tfmt__hash_bytes(p, n, seed ^ tfmt__hash_secret);
}
static inline uint64_t tfmt__hash_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}
/* The hash of a table key (a bijection, like the mix). */
static inline uint64_t tfmt__hash_key(uint64_t x)
{
    return tfmt__hash_mix(x ^ tfmt__hash_secret);
}

/*
 * ---- a 128-bit hash of a stream fed in pieces (digest.c) ----
 * Equal bytes give equal digests however they are cut into updates.
 */
typedef struct tfmt_digest {
    uint64_t acc[4];
    uint8_t buf[32];
    size_t buffered;
    uint64_t total;
} tfmt_digest;
void tfmt__digest_init(tfmt_digest *d, uint64_t seed);
void tfmt__digest_update(tfmt_digest *d, const void *p, size_t n);
void tfmt__digest_final(const tfmt_digest *d, uint64_t out[2]);

/* ---- frames as keys (model.c): every field, ids compared as ids ---- */
uint64_t tfmt__frame_hash(const tfmt_frame *f);
bool tfmt__frame_same(const tfmt_frame *a, const tfmt_frame *b);

/*
 * An open-addressing table of uint32 ids. The caller owns the keyed items
 * and supplies the hash and an equality callback; the table stores only
 * each item's hash and id, side by side in a 16-byte slot, so a probe
 * reads one slot and calls the callback only when the hashes match.
 */
typedef bool (*tfmt_idset_eq)(const void *ctx, uint32_t id, const void *key);
typedef struct tfmt_idslot {
    uint64_t hash;
    uint32_t id1; /* id + 1; 0 marks an empty slot */
} tfmt_idslot;
typedef struct tfmt_idset {
    const tfmt_allocator *alloc;
    tfmt_idslot *slots;
    size_t cap; /* power of two */
    size_t count;
} tfmt_idset;
void tfmt__idset_init(tfmt_idset *s, const tfmt_allocator *a);
void tfmt__idset_free(tfmt_idset *s);
/* Find `key`; returns its id or UINT32_MAX. */
uint32_t tfmt__idset_find(const tfmt_idset *s, uint64_t hash, const void *key,
                          tfmt_idset_eq eq, const void *ctx);
/* Insert id (caller checked it is absent). */
int tfmt__idset_insert(tfmt_idset *s, uint64_t hash, uint32_t id);
/* Make room for `n` ids in all (no rehash until then). */
int tfmt__idset_reserve(tfmt_idset *s, size_t n);
/*
 * Find by hash alone, for items keyed by one 64-bit value whose hash is
 * tfmt__hash_key(key): a bijection, so equal hashes are equal
 * keys and no callback is needed. Returns the id or UINT32_MAX.
 */
static inline uint32_t tfmt__idset_find_key(const tfmt_idset *s, uint64_t hash)
{
    if (!s->cap)
        return UINT32_MAX;
    size_t mask = s->cap - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        const tfmt_idslot *x = &s->slots[i];
        if (x->id1 == 0)
            return UINT32_MAX;
        if (x->hash == hash)
            return x->id1 - 1;
    }
}
/*
 * Start loading the slot `hash` probes first, so that a batch of lookups
 * waits for memory once, not once per lookup.
 */
static inline void tfmt__idset_prefetch(const tfmt_idset *s, uint64_t hash)
{
    if (s->cap)
        __builtin_prefetch(&s->slots[hash & (s->cap - 1)]);
}

/*
 * A set of uint32 ids an input chooses (idbits.c): a bitmap for the dense
 * ids writers use, a hash table for the rest, memory proportional to the
 * ids stored.
 */
typedef struct tfmt_idbits {
    const tfmt_allocator *alloc;
    uint64_t *bits; /* id's bit, for ids below 64 * nwords */
    size_t nwords;
    uint64_t *slots; /* spilled ids: 0 empty, else id + 1 */
    size_t cap, nspilled;
    size_t count; /* ids stored */
} tfmt_idbits;
void tfmt__idbits_init(tfmt_idbits *s, const tfmt_allocator *a);
void tfmt__idbits_free(tfmt_idbits *s);
bool tfmt__idbits_spilled(const tfmt_idbits *s, uint32_t id);
static inline bool tfmt__idbits_has(const tfmt_idbits *s, uint32_t id)
{
    /* An id may have been spilled before the bitmap grew to cover it. */
    if ((id >> 6) < s->nwords && (s->bits[id >> 6] >> (id & 63)) & 1)
        return true;
    return tfmt__idbits_spilled(s, id);
}
/* Add `id`: 1 when added, 0 when present, TFMT_ENOMEM. */
int tfmt__idbits_add(tfmt_idbits *s, uint32_t id);
/* Call fn for every id, in no particular order. */
void tfmt__idbits_each(const tfmt_idbits *s, void (*fn)(void *, uint32_t),
                       void *ctx);

/*
 * A map from (thread id, interpreter id) to a dense index (tidmap.c):
 * each slot holds the key and index + 1 (0: empty), so a lookup reads one
 * slot a probe and calls nothing.
 */
typedef struct tfmt_tidslot {
    uint64_t tid;
    uint32_t interp;
    uint32_t index1; /* index + 1; 0 marks an empty slot */
} tfmt_tidslot;
typedef struct tfmt_tidmap {
    const tfmt_allocator *alloc;
    tfmt_tidslot *slots;
    size_t cap; /* power of two, or 0 */
    size_t count;
    unsigned shift; /* 64 - log2(cap) */
} tfmt_tidmap;
void tfmt__tidmap_init(tfmt_tidmap *m, const tfmt_allocator *a);
void tfmt__tidmap_free(tfmt_tidmap *m);
/* Add a key known to be absent; TFMT_ENOMEM on failure. */
int tfmt__tidmap_insert(tfmt_tidmap *m, uint64_t tid, uint32_t interp,
                        uint32_t index);
/* Multiply-shift on both parts, by two odd secrets (combining them first
 * would let a file choose pairs that combine alike). */
static inline size_t tfmt__tidmap_home(uint64_t tid, uint32_t interp,
                                       unsigned shift)
{
    uint64_t k =
        tid * tfmt__hash_odd + (uint64_t)interp * (tfmt__hash_secret | 1);
    return (size_t)(k >> shift);
}
/* The index of (tid, interp), or UINT32_MAX. */
static inline uint32_t tfmt__tidmap_find(const tfmt_tidmap *m, uint64_t tid,
                                         uint32_t interp)
{
    if (!m->cap)
        return UINT32_MAX;
    size_t mask = m->cap - 1;
    for (size_t i = tfmt__tidmap_home(tid, interp, m->shift);;
         i = (i + 1) & mask) {
        const tfmt_tidslot *s = &m->slots[i];
        if (s->index1 == 0)
            return UINT32_MAX;
        if (s->tid == tid && s->interp == interp)
            return s->index1 - 1;
    }
}

/* ---- byte order ---- */
static inline uint32_t tfmt__bswap32(uint32_t v)
{
    return __builtin_bswap32(v);
}
static inline uint64_t tfmt__bswap64(uint64_t v)
{
    return __builtin_bswap64(v);
}
static inline uint32_t tfmt__load32(const void *p, bool swap)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return swap ? tfmt__bswap32(v) : v;
}
static inline uint64_t tfmt__load64(const void *p, bool swap)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return swap ? tfmt__bswap64(v) : v;
}
static inline double tfmt__load_f64(const void *p, bool swap)
{
    uint64_t u = tfmt__load64(p, swap);
    double d;
    memcpy(&d, &u, 8);
    return d;
}
static inline void tfmt__store32(void *p, uint32_t v)
{
    memcpy(p, &v, 4);
}
static inline void tfmt__store64(void *p, uint64_t v)
{
    memcpy(p, &v, 8);
}
static inline void tfmt__store_f64(void *p, double d)
{
    memcpy(p, &d, 8);
}

/* ---- varints (LEB128, low group first) ---- */
/*
 * Decode an unsigned varint from [*pp, end). Returns 1 on success (advancing
 * *pp), 0 when the input ends first, -1 when the shift would reach 64 bits
 * (CPython's "malformed" case).
 */
static inline int tfmt__varint_u64(const uint8_t **pp, const uint8_t *end,
                                   uint64_t *out)
{
    const uint8_t *p = *pp;
    /* One and two bytes hold most frame indices and time deltas. */
    if (end - p >= 2) {
        if (p[0] < 0x80) {
            *out = p[0];
            *pp = p + 1;
            return 1;
        }
        if (p[1] < 0x80) {
            *out = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
            *pp = p + 2;
            return 1;
        }
    }
    uint64_t v = 0;
    unsigned shift = 0;
    for (;;) {
        if (p >= end)
            return 0;
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
        shift += 7;
        if (shift >= 64)
            return -1;
    }
    *pp = p;
    *out = v;
    return 1;
}

/* As tfmt__varint_u64, and -1 (*pp unmoved) also when the value exceeds
 * UINT32_MAX. */
static inline int tfmt__varint_u32(const uint8_t **pp, const uint8_t *end,
                                   uint32_t *out)
{
    const uint8_t *start = *pp;
    uint64_t v;
    int rc = tfmt__varint_u64(pp, end, &v);
    if (rc <= 0)
        return rc;
    if (v > UINT32_MAX) {
        *pp = start; /* located at its first byte, as a malformed one */
        return -1;
    }
    *out = (uint32_t)v;
    return 1;
}

static inline uint32_t tfmt__zigzag32(int32_t n)
{
    return ((uint32_t)n << 1) ^ (uint32_t)(n >> 31);
}
static inline int32_t tfmt__unzigzag32(uint32_t z)
{
    return (int32_t)((z >> 1) ^ (~(z & 1) + 1));
}

/* Encode `v` into out (at least 10 bytes); returns the byte count. */
static inline size_t tfmt__varint_encode(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

#endif
