/* SPDX-License-Identifier: MIT */
/*
 * export_tview.c - one thread's call tree at a time, for the writers that
 * split by thread (see tfmt_tview in export_internal.h).
 *
 * With a tree per thread (or one thread) a view is the thread's subtree
 * of the xorder's tree, nothing to build. With a shared tree and thread
 * leaves, thread t's tree is the union of the shared paths of its leaves:
 * those it counted alone and its pairs in the table. Its nodes are found
 * by walking up from each pair's leaf until a node already taken, then
 * put in the content preorder of the shared tree (numbered once by a walk
 * of the xorder's tree): a subtree of a tree keeps its preorder, so
 * children come out in content order and parents before children, which
 * is all the totals and the sibling chains need. A view costs its own
 * nodes (a sort of their preorder numbers), never the whole tree.
 */
#include <stdlib.h>

#include "export_internal.h"

/* In the lists of leaves: a pair of the table, not a node. */
#define TFMT_PAIR_BIT 0x80000000u

void tfmt__tviews_free(tfmt_tviews *vs)
{
    if (!vs->p)
        return;
    const tfmt_allocator *a = vs->p->alloc;
    tfmt__free(a, vs->start);
    tfmt__free(a, vs->leaves);
    tfmt__free(a, vs->pre);
    tfmt__free(a, vs->by_pre);
    tfmt__free(a, vs->stamp);
    tfmt__free(a, vs->set);
    tfmt__free(a, vs->self);
    tfmt__free(a, vs->tree.first_child);
    tfmt__free(a, vs->tree.next_sibling);
    tfmt__free(a, vs->tree.total);
    memset(vs, 0, sizeof *vs);
}

/* The thread of leaf item x (a node or TFMT_PAIR_BIT | pair). */
static uint32_t item_thread(const tfmt_profile *p, uint32_t x)
{
    return x & TFMT_PAIR_BIT ? p->tleaves[x & ~TFMT_PAIR_BIT].thread
                             : p->nodes[x].pair;
}

int tfmt__tleaf_groups(const tfmt_profile *p, uint32_t **start_out,
                       uint32_t **items_out)
{
    *start_out = *items_out = NULL;
    if (p->nnodes >= TFMT_PAIR_BIT || p->ntleaves >= TFMT_PAIR_BIT)
        return TFMT_ENOMEM; /* the items could not be told apart */
    size_t n = p->ntleaves;
    for (size_t i = 0; i < p->nnodes; i++)
        n += p->nodes[i].pair < p->nthreads;
    uint32_t *start = tfmt__calloc(p->alloc, p->nthreads + 2, sizeof *start);
    uint32_t *items = tfmt__malloc(p->alloc, (n ? n : 1) * sizeof *items);
    if (!start || !items) {
        tfmt__free(p->alloc, start);
        tfmt__free(p->alloc, items);
        return TFMT_ENOMEM;
    }
    uint32_t *s = start + 1; /* s[t] counts, then fills, thread t */
    for (uint32_t pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < p->ntleaves + p->nnodes; i++) {
            uint32_t x = i < p->ntleaves ? (uint32_t)i | TFMT_PAIR_BIT
                                         : (uint32_t)(i - p->ntleaves);
            if (!(x & TFMT_PAIR_BIT) && p->nodes[x].pair >= p->nthreads)
                continue; /* not a leaf of one thread */
            uint32_t t = item_thread(p, x);
            if (pass == 0)
                s[t + 1]++;
            else
                items[s[t]++] = x;
        }
        for (size_t t = 0; pass == 0 && t < p->nthreads; t++)
            s[t + 1] += s[t];
    }
    *start_out = start;
    *items_out = items;
    return TFMT_OK;
}

void tfmt__tleaf_item(const tfmt_profile *p, uint32_t x, uint32_t *leaf,
                      uint64_t *self)
{
    if (x & TFMT_PAIR_BIT) {
        *leaf = p->tleaves[x & ~TFMT_PAIR_BIT].node;
        *self = p->tleaves[x & ~TFMT_PAIR_BIT].self;
    } else {
        *leaf = x;
        *self = p->nodes[x].self;
    }
}

/* pre[] and by_pre[]: a walk of the shared tree in content order. */
static void number_preorder(tfmt_tviews *vs)
{
    const tfmt_profile *p = vs->p;
    tfmt_pwalk w;
    tfmt__pwalk_init(&w, p, &vs->o->tree);
    uint32_t node, next = 0;
    int dir;
    while ((dir = tfmt__pwalk_next(&w, &node)) != 0) {
        if (dir < 0)
            continue;
        vs->pre[node] = next;
        vs->by_pre[next++] = node;
    }
}

int tfmt__tviews_init(tfmt_tviews *vs, const tfmt_profile *p,
                      const tfmt_xorder *o)
{
    memset(vs, 0, sizeof *vs);
    vs->p = p;
    vs->o = o;
    /* One thread's tree is the shared one. */
    if (!p->opts.shared_tree || p->nthreads <= 1)
        return TFMT_OK;
    vs->rebuild = true;
    size_t n = p->nnodes ? p->nnodes : 1;
    const tfmt_allocator *a = p->alloc;
    vs->pre = tfmt__malloc(a, n * sizeof *vs->pre);
    vs->by_pre = tfmt__malloc(a, n * sizeof *vs->by_pre);
    vs->stamp = tfmt__calloc(a, n, sizeof *vs->stamp);
    vs->set = tfmt__malloc(a, n * sizeof *vs->set);
    vs->self = tfmt__malloc(a, n * sizeof *vs->self);
    vs->tree.first_child = tfmt__malloc(a, n * sizeof(uint32_t));
    vs->tree.next_sibling = tfmt__malloc(a, n * sizeof(uint32_t));
    vs->tree.total = tfmt__malloc(a, n * sizeof(uint64_t));
    if (!vs->pre || !vs->by_pre || !vs->stamp || !vs->set || !vs->self ||
        !vs->tree.first_child || !vs->tree.next_sibling || !vs->tree.total ||
        tfmt__tleaf_groups(p, &vs->start, &vs->leaves) != TFMT_OK)
        return TFMT_ENOMEM;
    number_preorder(vs);
    return TFMT_OK;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Take `node` and its ancestors not yet in view `gen`; returns the count
   of nodes taken so far. */
static size_t take_path(tfmt_tviews *vs, uint32_t node, uint32_t gen, size_t n)
{
    const tfmt_pnode *nodes = vs->p->nodes;
    while (node != TFMT_NO_ID && vs->stamp[node] != gen) {
        vs->stamp[node] = gen;
        vs->self[node] = 0;
        vs->set[n++] = vs->pre[node];
        node = nodes[node].parent;
    }
    return n;
}

/* Totals and sibling chains of the view's nodes, in preorder. */
static void link_view(tfmt_tviews *vs, size_t n)
{
    const tfmt_pnode *nodes = vs->p->nodes;
    tfmt_ptree *t = &vs->tree;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = vs->by_pre[vs->set[i]];
        t->first_child[x] = t->next_sibling[x] = TFMT_NO_ID;
        t->total[x] = vs->self[x];
    }
    /* Prepending in reverse preorder leaves every list in content order;
     * set[0] is the root. */
    for (size_t i = n; i-- > 1;) {
        uint32_t x = vs->by_pre[vs->set[i]], up = nodes[x].parent;
        t->next_sibling[x] = t->first_child[up];
        t->first_child[up] = x;
        t->total[up] += t->total[x];
    }
}

int tfmt__tviews_get(tfmt_tviews *vs, uint32_t thread, tfmt_tview *out)
{
    const tfmt_profile *p = vs->p;
    out->thread = thread;
    out->root = p->threads[thread].root;
    out->nodes = p->nodes;
    out->self = NULL;
    out->tree = &vs->o->tree;
    if (!vs->rebuild)
        return TFMT_OK;
    if (++vs->gen == 0) { /* after 2^32 views, stamps start over */
        memset(vs->stamp, 0, p->nnodes * sizeof *vs->stamp);
        vs->gen = 1;
    }
    uint32_t gen = vs->gen;
    size_t n = take_path(vs, out->root, gen, 0);
    for (uint32_t i = vs->start[thread]; i < vs->start[thread + 1]; i++) {
        uint32_t leaf;
        uint64_t self;
        tfmt__tleaf_item(p, vs->leaves[i], &leaf, &self);
        n = take_path(vs, leaf, gen, n);
        vs->self[leaf] += self;
    }
    qsort(vs->set, n, sizeof *vs->set, cmp_u32);
    link_view(vs, n);
    out->self = vs->self;
    out->tree = &vs->tree;
    return TFMT_OK;
}
