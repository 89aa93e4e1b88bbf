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
 * content walk would interleave those, so such a profile is left to it
 * (top_twins.c tells).
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
                tfmt__hash_key((uint64_t)fr->filename << 32 | fr->funcname);
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
        /* self and cum in one block, which tfmt__top_twins uses first */
        t.self = tfmt__malloc_table(p->alloc, 2 * nfn, sizeof *t.self);
        t.cum = t.self ? t.self + nfn : NULL;
        t.heap = tfmt__malloc(p->alloc,
                              ((size_t)(limit < t.nfn ? limit : t.nfn) + 1) *
                                  sizeof *t.heap);
        rc = t.self && t.heap ? TFMT_OK : TFMT_ENOMEM;
    }
    if (rc == TFMT_OK) /* hashes in the counts' block, not used yet */
        rc = tfmt__top_twins(p, t.ffn, t.fn_frame, t.nfn, t.self);
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
