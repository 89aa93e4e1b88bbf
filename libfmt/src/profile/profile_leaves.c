/* SPDX-License-Identifier: MIT */
/*
 * profile_leaves.c - the (thread, leaf) counts of a profile built with
 * opts.shared_tree and opts.thread_leaves.
 *
 * A shared tree holds each distinct stack once, whatever thread ran it;
 * the pairs say which threads ran it and how often. The writers that
 * split by thread rebuild one thread's tree at a time from them
 * (export_tview.c), so a profile of 10,000 threads never holds 10,000
 * trees.
 *
 * Most leaves are counted by one thread only: such a leaf notes the
 * thread (tfmt_pnode.pair) and its self is that thread's count, with no
 * table and no lookup, which keeps the common case at its speed. When a
 * second thread counts it, the leaf's counts move into the pair table,
 * an open-addressing index like the node index's (8-byte slots of pair
 * id and 32 bits of the key's hash) over pairs appended as they come.
 */
#include "profile_internal.h"

static uint64_t tleaf_key(uint32_t thread, uint32_t node)
{
    return ((uint64_t)thread << 32) | node;
}

static size_t tleaf_slot(const tfmt_profile *p, uint64_t key)
{
    return (size_t)((key * tfmt__hash_odd) >> p->tleaf_shift);
}

void tfmt__tleaf_drop_index(tfmt_profile *p)
{
    tfmt__free(p->alloc, p->tleaf_slots);
    p->tleaf_slots = NULL;
    p->tleaf_cap = 0;
}

void tfmt__tleaf_free(tfmt_profile *p)
{
    tfmt__tleaf_drop_index(p);
    tfmt__free(p->alloc, p->tleaves);
    tfmt__free(p->alloc, p->tleaf_mark);
    p->tleaves = NULL;
    p->tleaf_mark = NULL;
    p->ntleaves = p->captleaves = p->capmarks = 0;
    p->mark_base = 0;
}

static void tleaf_put(tfmt_profile *p, uint32_t id)
{
    uint64_t key = tleaf_key(p->tleaves[id].thread, p->tleaves[id].node);
    size_t j = tleaf_slot(p, key);
    while (p->tleaf_slots[j].id != TFMT_NO_ID)
        j = (j + 1) & (p->tleaf_cap - 1);
    p->tleaf_slots[j].id = id;
    p->tleaf_slots[j].tag = tfmt__profile_tag(key);
}

/* Room for one more pair, the load kept at most 3/4 (a miss probes a
   few slots more than at 1/2, for half the table): the index is built
   from the pairs (after a drop) or rebuilt at twice the size. */
static int tleaf_room(tfmt_profile *p)
{
    if (p->tleaf_cap && (p->ntleaves + 1) * 4 <= p->tleaf_cap * 3)
        return TFMT_OK;
    size_t cap = 1024;
    while (cap * 3 < 4 * (p->ntleaves + 1))
        cap *= 2;
    tfmt__tleaf_drop_index(p);
    if (cap > SIZE_MAX / 2 / sizeof(tfmt_pslot))
        return TFMT_ENOMEM;
    p->tleaf_slots = tfmt__malloc_table(p->alloc, cap, sizeof *p->tleaf_slots);
    if (!p->tleaf_slots)
        return TFMT_ENOMEM;
    for (size_t i = 0; i < cap; i++) {
        p->tleaf_slots[i].id = TFMT_NO_ID;
        p->tleaf_slots[i].tag = 0;
    }
    p->tleaf_cap = cap;
    p->tleaf_shift = 64 - (unsigned)__builtin_ctzll((unsigned long long)cap);
    for (size_t i = 0; i < p->ntleaves; i++)
        tleaf_put(p, (uint32_t)i);
    return TFMT_OK;
}

/* The pair's id, appended when new. */
static int tleaf_find(tfmt_profile *p, uint32_t thread, uint32_t node,
                      uint32_t *out)
{
    if (tleaf_room(p) != TFMT_OK)
        return TFMT_ENOMEM;
    uint64_t key = tleaf_key(thread, node);
    uint32_t tag = tfmt__profile_tag(key);
    size_t j = tleaf_slot(p, key);
    for (;; j = (j + 1) & (p->tleaf_cap - 1)) {
        const tfmt_pslot *s = &p->tleaf_slots[j];
        if (s->id == TFMT_NO_ID)
            break;
        const tfmt_ptleaf *l = &p->tleaves[s->id];
        if (s->tag == tag && l->thread == thread && l->node == node) {
            *out = s->id;
            return TFMT_OK;
        }
    }
    if (p->ntleaves >= TFMT_NO_ID)
        return TFMT_ELIMIT;
    if (tfmt__grow(p->alloc, (void **)&p->tleaves, &p->captleaves,
                   p->ntleaves + 1, sizeof *p->tleaves) != TFMT_OK)
        return TFMT_ENOMEM;
    uint32_t id = (uint32_t)p->ntleaves++;
    p->tleaves[id] = (tfmt_ptleaf){thread, node, 0};
    p->tleaf_slots[j].id = id;
    p->tleaf_slots[j].tag = tag;
    *out = id;
    return TFMT_OK;
}

static int tleaf_fail(tfmt_profile *p, int rc)
{
    if (rc == TFMT_ELIMIT)
        return tfmt__error(&p->err, rc, "too many (thread, stack) pairs");
    return tfmt__error(&p->err, rc, "out of memory");
}

/* Add `weight` to the table's pair (thread, leaf). */
static int pair_add(tfmt_profile *p, uint32_t thread, uint32_t leaf,
                    uint64_t weight)
{
    uint32_t id;
    int rc = tleaf_find(p, thread, leaf, &id);
    if (rc != TFMT_OK)
        return tleaf_fail(p, rc);
    p->tleaves[id].self += weight; /* as a node's self: the same sums */
    return TFMT_OK;
}

int tfmt__tleaf_add(tfmt_profile *p, uint32_t thread, uint32_t leaf,
                    uint64_t weight)
{
    /* A leaf's first count: note where the pairs were (a first count
     * always comes here, as no thread owns the leaf yet); until the first
     * pair that is 0, which needs no note. */
    if (p->nodes[leaf].leaf_seq == TFMT_NO_ID && p->ntleaves) {
        size_t k = p->nleaves - p->mark_base;
        if (tfmt__grow(p->alloc, (void **)&p->tleaf_mark, &p->capmarks, k + 1,
                       sizeof *p->tleaf_mark) != TFMT_OK)
            return tleaf_fail(p, TFMT_ENOMEM);
        p->tleaf_mark[k] = (uint32_t)p->ntleaves;
    } else if (!p->ntleaves) {
        p->mark_base = p->nleaves + (p->nodes[leaf].leaf_seq == TFMT_NO_ID);
    }
    uint32_t *owner = &p->nodes[leaf].pair;
    if (*owner == thread)
        return TFMT_OK; /* its own leaf: the node's self counts it */
    if (*owner == TFMT_NO_ID && thread < TFMT_PAIR_TABLE) {
        *owner = thread;
        return TFMT_OK;
    }
    if (*owner != TFMT_PAIR_TABLE) {
        /* a second thread: the first one's count so far goes first */
        if (*owner != TFMT_NO_ID) {
            int rc = pair_add(p, *owner, leaf, p->nodes[leaf].self);
            if (rc != TFMT_OK)
                return rc;
        }
        *owner = TFMT_PAIR_TABLE;
    }
    return pair_add(p, thread, leaf, weight);
}

/* ---- pairs in the order they were first counted ---- */

int tfmt__pfirst_init(tfmt_pfirst *it, const tfmt_profile *p)
{
    memset(it, 0, sizeof *it);
    it->p = p;
    it->order =
        tfmt__malloc(p->alloc, ((size_t)p->nleaves + 1) * sizeof(uint32_t));
    it->own = tfmt__malloc(p->alloc,
                           (p->ntleaves ? p->nnodes : 1) * sizeof(uint32_t));
    if (!it->order || !it->own) {
        tfmt__pfirst_free(it);
        return TFMT_ENOMEM;
    }
    for (size_t n = 0; n < p->nnodes; n++)
        if (p->nodes[n].leaf_seq < p->nleaves)
            it->order[p->nodes[n].leaf_seq] = (uint32_t)n;
    /* a leaf's first pair is its owner's */
    for (size_t n = 0; p->ntleaves && n < p->nnodes; n++)
        it->own[n] = TFMT_NO_ID;
    for (size_t i = p->ntleaves; i-- > 0;)
        it->own[p->tleaves[i].node] = (uint32_t)i;
    return TFMT_OK;
}

void tfmt__pfirst_free(tfmt_pfirst *it)
{
    if (!it->p)
        return;
    tfmt__free(it->p->alloc, it->order);
    tfmt__free(it->p->alloc, it->own);
    memset(it, 0, sizeof *it);
}

/* The next leaf's first count: its owner's, or its tree's thread's. */
static int leaf_first(tfmt_pfirst *it, uint32_t *thread, uint32_t *leaf,
                      uint64_t *weight)
{
    const tfmt_profile *p = it->p;
    uint32_t n = it->order[it->i++];
    const tfmt_pnode *pn = &p->nodes[n];
    *leaf = n;
    *weight = pn->self;
    if (!p->opts.thread_leaves) {
        *thread = pn->thread;
    } else if (pn->pair == TFMT_PAIR_TABLE) {
        *thread = p->tleaves[it->own[n]].thread;
        *weight = p->tleaves[it->own[n]].self;
    } else if (pn->pair < p->nthreads) {
        *thread = pn->pair;
    } else {
        return TFMT_EINVAL;
    }
    return TFMT_OK;
}

int tfmt__pfirst_next(tfmt_pfirst *it, uint32_t *thread, uint32_t *leaf,
                      uint64_t *weight)
{
    const tfmt_profile *p = it->p;
    while (it->j < p->ntleaves && it->own[p->tleaves[it->j].node] == it->j)
        it->j++; /* an owner pair comes with its leaf */
    /* pairs made before leaf i's first count come before it */
    bool pair =
        it->j < p->ntleaves &&
        (it->i == p->nleaves || (it->i >= p->mark_base &&
                                 it->j < p->tleaf_mark[it->i - p->mark_base]));
    if (pair) {
        const tfmt_ptleaf *l = &p->tleaves[it->j++];
        *thread = l->thread;
        *leaf = l->node;
        *weight = l->self;
        return TFMT_OK;
    }
    return it->i < p->nleaves ? leaf_first(it, thread, leaf, weight)
                              : TFMT_DONE;
}
