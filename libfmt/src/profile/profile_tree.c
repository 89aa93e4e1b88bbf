/* SPDX-License-Identifier: MIT */
/*
 * profile_tree.c - read-only views of a profile's call tree for the
 * exporters: child lists, subtree totals, a stackless depth-first walk and
 * node paths. Node ids are topologically ordered (parents first), so none
 * of this needs recursion.
 */
#include "profile_internal.h"

void tfmt__ptree_free(const tfmt_profile *p, tfmt_ptree *t)
{
    tfmt__free(p->alloc, t->first_child);
    tfmt__free(p->alloc, t->next_sibling);
    tfmt__free(p->alloc, t->total);
    memset(t, 0, sizeof *t);
}

static void link_children(const tfmt_profile *p, tfmt_ptree *t)
{
    /* Prepending in reverse id order leaves every list in id order. */
    t->first_root = TFMT_NO_ID;
    for (size_t i = p->nnodes; i-- > 0;) {
        uint32_t parent = p->nodes[i].parent;
        uint32_t *head =
            parent == TFMT_NO_ID ? &t->first_root : &t->first_child[parent];
        t->next_sibling[i] = *head;
        *head = (uint32_t)i;
    }
}

static void sum_totals(const tfmt_profile *p, tfmt_ptree *t)
{
    for (size_t i = 0; i < p->nnodes; i++)
        t->total[i] = p->nodes[i].self;
    for (size_t i = p->nnodes; i-- > 0;) {
        uint32_t parent = p->nodes[i].parent;
        if (parent != TFMT_NO_ID)
            t->total[parent] += t->total[i];
    }
}

int tfmt__ptree_build(const tfmt_profile *p, tfmt_ptree *out)
{
    size_t n = p->nnodes ? p->nnodes : 1;
    memset(out, 0, sizeof *out);
    out->first_child = tfmt__malloc(p->alloc, n * sizeof(uint32_t));
    out->next_sibling = tfmt__malloc(p->alloc, n * sizeof(uint32_t));
    out->total = tfmt__malloc(p->alloc, n * sizeof(uint64_t));
    if (!out->first_child || !out->next_sibling || !out->total) {
        tfmt__ptree_free(p, out);
        return TFMT_ENOMEM;
    }
    memset(out->first_child, 0xff, n * sizeof(uint32_t));
    link_children(p, out);
    sum_totals(p, out);
    return TFMT_OK;
}

void tfmt__pwalk_init(tfmt_pwalk *w, const tfmt_profile *p, const tfmt_ptree *t)
{
    w->nodes = p->nodes;
    w->t = t;
    w->cur = t->first_root;
    w->stop = TFMT_NO_ID;
    w->entering = true;
}

void tfmt__pwalk_sub(tfmt_pwalk *w, const tfmt_pnode *nodes,
                     const tfmt_ptree *t, uint32_t root)
{
    w->nodes = nodes;
    w->t = t;
    w->cur = root;
    w->stop = root;
    w->entering = true;
}

int tfmt__pwalk_next(tfmt_pwalk *w, uint32_t *node)
{
    uint32_t cur = w->cur;
    if (cur == TFMT_NO_ID)
        return 0;
    *node = cur;
    if (w->entering) {
        uint32_t child = w->t->first_child[cur];
        if (child != TFMT_NO_ID)
            w->cur = child;
        else
            w->entering = false;
        return 1;
    }
    uint32_t sib = w->t->next_sibling[cur];
    if (cur == w->stop) {
        w->cur = TFMT_NO_ID;
    } else if (sib != TFMT_NO_ID) {
        w->cur = sib;
        w->entering = true;
    } else {
        w->cur = w->nodes[cur].parent;
    }
    return -1;
}

uint32_t tfmt__profile_path(const tfmt_profile *p, uint32_t node, uint32_t *out,
                            uint32_t cap)
{
    uint32_t depth = p->nodes[node].depth;
    if (depth > cap)
        return 0;
    for (uint32_t i = depth; i-- > 0;) {
        out[i] = p->nodes[node].frame;
        node = p->nodes[node].parent;
    }
    return depth;
}

void tfmt__profile_used(const tfmt_profile *p, uint8_t *used)
{
    memset(used, 0, p->nframes);
    for (size_t i = 0; i < p->nnodes; i++)
        if (p->nodes[i].frame != TFMT_NO_ID)
            used[p->nodes[i].frame] = 1;
    for (size_t f = 0; f < p->naggs; f++)
        if (p->agg_listed[f])
            used[f] = 1;
}
