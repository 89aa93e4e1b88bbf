/* SPDX-License-Identifier: MIT */
/*
 * export_pstats.c - the marshal file of CPython's PstatsCollector.
 *
 * The collector keys functions on (filename, lineno, funcname) with lineno
 * 0 for frames without a location. Per key: direct = weight of samples
 * whose leaf it is; cumulative = weight of samples that show it at least
 * once; callers[caller] = weight of adjacent (callee, caller) pairs, every
 * occurrence counted. On the tree: direct sums node self weights,
 * cumulative sums the subtree totals of nodes whose ancestors do not show
 * the key (an active count per key during a depth-first walk), and a pair
 * adds the subtree total of its callee node.
 *
 * The per-frame totals of JSONL exports add to direct and cumulative;
 * having no stacks, they add no callers.
 *
 * The compat file (tfmt_profile_write_pstats_compat) leaves out the
 * ("__sampled__",) marker, which pstats.Stats before 3.15 cannot unpack,
 * and gives each caller cProfile's 4-tuple instead of a bare count.
 *
 * Marshal (version 4 and later read it, so Python 3.4 on): '{' pairs '0', ')'
 * small tuples, 'z'/'a'/'u' strings, 'i'/'l' ints, 'g' binary floats, 'T'.
 * Entries are in content order; marshal.load gives a dict equal to CPython's.
 */
#include <stdlib.h>

#include "export_internal.h"

typedef struct pkey {
    uint32_t file, func;
    int32_t line;
} pkey;

typedef struct ppair {
    uint32_t callee, caller;
    uint64_t count;
    uint64_t self;  /* the callee's self weight under this caller */
    uint64_t order; /* callee rank << 32 | caller rank */
} ppair;

typedef struct pctx {
    tfmt_profile *p;
    tfmt_xorder o;
    pkey *keys;
    uint32_t nkeys;
    uint32_t *kmap; /* profile frame -> key */
    tfmt_idset kset;
    uint64_t *direct, *cum;
    uint32_t *active; /* per key: occurrences on the walk's path */
    ppair *pairs;
    size_t npairs, cappairs;
    tfmt_idset pset;
    uint32_t *krank; /* key -> rank in content order */
    uint32_t *kbyrank;
    bool compat; /* no marker, callers as cProfile's 4-tuples */
    tfmt_buf out;
} pctx;

static bool pkey_eq(const void *ctx, uint32_t id, const void *key)
{
    return memcmp(&((const pctx *)ctx)->keys[id], key, sizeof(pkey)) == 0;
}

static bool pair_eq(const void *ctx, uint32_t id, const void *key)
{
    const ppair *a = &((const pctx *)ctx)->pairs[id];
    const ppair *b = key;
    return a->callee == b->callee && a->caller == b->caller;
}

static int map_keys(pctx *c)
{
    const tfmt_profile *p = c->p;
    for (size_t r = 0; r < c->o.nused; r++) {
        size_t i = c->o.frame_by_rank[r];
        const tfmt_frame *f = &p->frames[i];
        pkey k = {f->filename, f->funcname,
                  f->lineno == TFMT_NO_LOCATION ? 0 : f->lineno};
        uint64_t h = tfmt__hash_key(((uint64_t)k.file << 32) | k.func);
        h = tfmt__hash_mix(h ^ (uint32_t)k.line);
        uint32_t id = tfmt__idset_find(&c->kset, h, &k, pkey_eq, c);
        if (id == TFMT_NO_ID) {
            id = c->nkeys++;
            c->keys[id] = k;
            if (tfmt__idset_insert(&c->kset, h, id) != TFMT_OK)
                return TFMT_ENOMEM;
        }
        c->kmap[i] = id;
    }
    return TFMT_OK;
}

static int add_pair(pctx *c, uint32_t callee, uint32_t caller, uint64_t n,
                    uint64_t self)
{
    ppair k = {callee, caller, 0, 0, 0};
    uint64_t h = tfmt__hash_key(((uint64_t)callee << 32) | caller);
    uint32_t id = tfmt__idset_find(&c->pset, h, &k, pair_eq, c);
    if (id == TFMT_NO_ID) {
        if (tfmt__grow(c->p->alloc, (void **)&c->pairs, &c->cappairs,
                       c->npairs + 1, sizeof *c->pairs) != TFMT_OK)
            return TFMT_ENOMEM;
        id = (uint32_t)c->npairs++;
        c->pairs[id] = k;
        if (tfmt__idset_insert(&c->pset, h, id) != TFMT_OK)
            return TFMT_ENOMEM;
    }
    c->pairs[id].count += n;
    c->pairs[id].self += self;
    return TFMT_OK;
}

/* One depth-first walk: direct, cumulative (deduplicated) and pairs. */
static int count(pctx *c)
{
    const tfmt_profile *p = c->p;
    const uint64_t *total = c->o.tree.total;
    tfmt_pwalk w;
    tfmt__pwalk_init(&w, p, &c->o.tree);
    uint32_t node;
    int dir;
    while ((dir = tfmt__pwalk_next(&w, &node)) != 0) {
        const tfmt_pnode *n = &p->nodes[node];
        if (n->frame == TFMT_NO_ID)
            continue;
        uint32_t k = c->kmap[n->frame];
        if (dir < 0) {
            c->active[k]--;
            continue;
        }
        if (c->active[k]++ == 0)
            c->cum[k] += total[node];
        c->direct[k] += n->self;
        const tfmt_pnode *up = &p->nodes[n->parent];
        if (up->frame != TFMT_NO_ID &&
            add_pair(c, k, c->kmap[up->frame], total[node], n->self) != TFMT_OK)
            return TFMT_ENOMEM;
    }
    /* JSONL exports: direct and cumulative, but no callers (no stacks). */
    return tfmt__xadd_exports(p, c->kmap, c->nkeys, c->direct, c->cum);
}

/* ---- content order of keys and pairs ---- */

typedef struct ksort {
    const tfmt_profile *p;
    const pkey *k;
    uint32_t id;
} ksort;

static int key_cmp(const void *va, const void *vb)
{
    const ksort *a = va, *b = vb;
    int r = tfmt__pstr_cmp(a->p, a->k->file, b->k->file);
    if (!r && a->k->line != b->k->line)
        r = a->k->line < b->k->line ? -1 : 1;
    if (!r)
        r = tfmt__pstr_cmp(a->p, a->k->func, b->k->func);
    return r;
}

static int pair_cmp(const void *va, const void *vb)
{
    const ppair *a = va, *b = vb;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int sort_all(pctx *c)
{
    ksort *v = tfmt__malloc(c->p->alloc, (c->nkeys + 1) * sizeof *v);
    if (!v)
        return TFMT_ENOMEM;
    for (uint32_t i = 0; i < c->nkeys; i++) {
        v[i].p = c->p;
        v[i].k = &c->keys[i];
        v[i].id = i;
    }
    qsort(v, c->nkeys, sizeof *v, key_cmp);
    for (uint32_t i = 0; i < c->nkeys; i++) {
        c->kbyrank[i] = v[i].id;
        c->krank[v[i].id] = i;
    }
    tfmt__free(c->p->alloc, v);
    for (size_t i = 0; i < c->npairs; i++)
        c->pairs[i].order = ((uint64_t)c->krank[c->pairs[i].callee] << 32) |
                            c->krank[c->pairs[i].caller];
    if (c->npairs)
        qsort(c->pairs, c->npairs, sizeof *c->pairs, pair_cmp);
    return TFMT_OK;
}

/* ---- marshal ---- */

static int m_int(tfmt_buf *b, uint64_t v)
{
    if (v <= INT32_MAX) {
        uint8_t x[5] = {'i', (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
                        (uint8_t)(v >> 24)};
        return tfmt__buf_put(b, x, 5);
    }
    /* TYPE_LONG: digit count, then 15-bit digits, least significant first */
    uint8_t d[2 * 5];
    int n = 0;
    for (; v; v >>= 15, n++) {
        d[2 * n] = (uint8_t)(v & 0xff);
        d[2 * n + 1] = (uint8_t)((v >> 8) & 0x7f);
    }
    uint8_t x[5] = {'l', (uint8_t)n, 0, 0, 0};
    int rc = tfmt__buf_put(b, x, 5);
    return rc | tfmt__buf_put(b, d, (size_t)(2 * n));
}

static int m_float(tfmt_buf *b, double v)
{
    uint8_t x[9] = {'g'};
    uint64_t u;
    memcpy(&u, &v, 8);
    for (int i = 0; i < 8; i++)
        x[1 + i] = (uint8_t)(u >> (8 * i));
    return tfmt__buf_put(b, x, 9);
}

static int m_str(tfmt_buf *b, const char *s, size_t n)
{
    bool ascii = true;
    for (size_t i = 0; i < n && ascii; i++)
        ascii = (unsigned char)s[i] < 0x80;
    int rc;
    if (ascii && n < 256) {
        uint8_t x[2] = {'z', (uint8_t)n};
        rc = tfmt__buf_put(b, x, 2);
    } else {
        uint8_t x[5] = {ascii ? 'a' : 'u', (uint8_t)n, (uint8_t)(n >> 8),
                        (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
        rc = tfmt__buf_put(b, x, 5);
    }
    return rc | tfmt__buf_put(b, s, n);
}

static int m_key(pctx *c, uint32_t k)
{
    const pkey *key = &c->keys[k];
    tfmt_str f = tfmt__profile_str(c->p, key->file);
    tfmt_str fn = tfmt__profile_str(c->p, key->func);
    uint8_t t[2] = {')', 3};
    int rc = tfmt__buf_put(&c->out, t, 2);
    rc |= m_str(&c->out, f.ptr, f.len);
    /* lineno is an int in Python; a negative one stays negative */
    if (key->line < 0) {
        uint8_t x[5] = {'i', (uint8_t)key->line, (uint8_t)(key->line >> 8),
                        (uint8_t)(key->line >> 16),
                        (uint8_t)((uint32_t)key->line >> 24)};
        rc |= tfmt__buf_put(&c->out, x, 5);
    } else {
        rc |= m_int(&c->out, (uint64_t)key->line);
    }
    return rc | m_str(&c->out, fn.ptr, fn.len);
}

/*
 * A caller's value: CPython's count, or with compat cProfile's tuple
 * (calls, primitive calls, tottime, cumtime) as (count, count, the
 * callee's self samples under this caller and count, in seconds), the
 * form snakeviz reads (its call tree takes the caller's cumtime, [3]).
 */
static int m_caller(pctx *c, const ppair *pr, double sec)
{
    tfmt_buf *b = &c->out;
    if (!c->compat)
        return m_int(b, pr->count);
    uint8_t t[2] = {')', 4};
    int rc = tfmt__buf_put(b, t, 2);
    rc |= m_int(b, pr->count);
    rc |= m_int(b, pr->count);
    rc |= m_float(b, (double)pr->self * sec);
    return rc | m_float(b, (double)pr->count * sec);
}

static int m_entry(pctx *c, uint32_t k, size_t *pi, double sec)
{
    tfmt_buf *b = &c->out;
    uint8_t t[2] = {')', 5};
    int rc = m_key(c, k);
    rc |= tfmt__buf_put(b, t, 2);
    rc |= m_int(b, c->direct[k]);
    rc |= m_int(b, c->cum[k]);
    rc |= m_float(b, (double)c->direct[k] * sec);
    rc |= m_float(b, (double)c->cum[k] * sec);
    rc |= tfmt__buf_putc(b, '{');
    for (; *pi < c->npairs && c->pairs[*pi].callee == k; (*pi)++) {
        rc |= m_key(c, c->pairs[*pi].caller);
        rc |= m_caller(c, &c->pairs[*pi], sec);
    }
    return rc | tfmt__buf_putc(b, '0');
}

static int write_marshal(pctx *c, tfmt_sink *sink)
{
    double sec = (double)c->p->interval_us / 1000000.0;
    int rc = tfmt__buf_putc(&c->out, '{');
    size_t pi = 0;
    for (uint32_t r = 0; r < c->nkeys && rc == TFMT_OK; r++) {
        rc = m_entry(c, c->kbyrank[r], &pi, sec);
        if (rc == TFMT_OK)
            rc = tfmt__xflush(c->p, &c->out, sink, false);
    }
    if (rc != TFMT_OK)
        return rc;
    if (c->compat)
        return tfmt__buf_putc(&c->out, '0');
    uint8_t marker[] = {')', 1,   'z', 11,  '_', '_', 's', 'a', 'm',
                        'p', 'l', 'e', 'd', '_', '_', 'T', '0'};
    return tfmt__buf_put(&c->out, marker, sizeof marker);
}

static int alloc_all(pctx *c)
{
    const tfmt_allocator *a = c->p->alloc;
    size_t n = c->p->nframes ? c->p->nframes : 1;
    c->keys = tfmt__malloc(a, n * sizeof *c->keys);
    c->kmap = tfmt__malloc(a, n * sizeof *c->kmap);
    c->direct = tfmt__calloc(a, n, sizeof *c->direct);
    c->cum = tfmt__calloc(a, n, sizeof *c->cum);
    c->active = tfmt__calloc(a, n, sizeof *c->active);
    c->krank = tfmt__malloc(a, n * sizeof *c->krank);
    c->kbyrank = tfmt__malloc(a, n * sizeof *c->kbyrank);
    bool ok = c->keys && c->kmap && c->direct && c->cum && c->active &&
              c->krank && c->kbyrank;
    return ok ? TFMT_OK : TFMT_ENOMEM;
}

static void free_all(pctx *c)
{
    const tfmt_allocator *a = c->p->alloc;
    void *v[] = {c->keys,   c->kmap,  c->direct,  c->cum,
                 c->active, c->krank, c->kbyrank, c->pairs};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        tfmt__free(a, v[i]);
    tfmt__idset_free(&c->kset);
    tfmt__idset_free(&c->pset);
    tfmt__buf_free(&c->out);
    tfmt__xorder_free(c->p, &c->o);
}

static int write_pstats(tfmt_profile *p, tfmt_sink *sink, bool compat)
{
    pctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.compat = compat;
    tfmt__idset_init(&c.kset, p->alloc);
    tfmt__idset_init(&c.pset, p->alloc);
    tfmt__buf_init(&c.out, p->alloc);
    int rc = tfmt__xorder_build(p, &c.o);
    if (rc == TFMT_OK)
        rc = alloc_all(&c);
    if (rc == TFMT_OK)
        rc = map_keys(&c);
    if (rc == TFMT_OK)
        rc = count(&c);
    if (rc == TFMT_OK)
        rc = sort_all(&c);
    if (rc == TFMT_OK)
        rc = write_marshal(&c, sink);
    if (rc == TFMT_OK)
        rc = tfmt__xflush(p, &c.out, sink, true);
    else if (rc == TFMT_ENOMEM)
        rc = tfmt__xfail(p, rc, NULL);
    free_all(&c);
    return rc;
}

int tfmt_profile_write_pstats(tfmt_profile *p, tfmt_sink *sink)
{
    return write_pstats(p, sink, false);
}

int tfmt_profile_write_pstats_compat(tfmt_profile *p, tfmt_sink *sink)
{
    return write_pstats(p, sink, true);
}
