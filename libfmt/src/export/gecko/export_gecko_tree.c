/* SPDX-License-Identifier: MIT */
/*
 * export_gecko_tree.c - the stack tree the collection spools samples
 * with: one node per (prefix node, tab frame), shared by all threads, so
 * its size follows the unique stacks, not the threads. A thread's Gecko
 * tables are made from it when the thread is written
 * (export_gecko_tables.c); what must happen in collection order is the
 * global string array, which grows as functions are first made: a
 * function's name, then its file's basename (its resource, its
 * fileName). A function new to a thread is new to the whole collection
 * or has its strings interned already, so interning them when a tab
 * frame is first seen in a stack, root to leaf, gives CPython's order.
 */
#include "export_gecko.h"

/* Intern the strings of tab frame f's function, on its first sight. */
static int names(tfmt_gecko *g, uint32_t f)
{
    if (f >= g->capfname) {
        size_t old = g->capfname;
        if (tfmt__grow(g->alloc, (void **)&g->fname, &g->capfname,
                       (size_t)f + 1, sizeof *g->fname) != TFMT_OK)
            return tfmt__gecko_nomem(g);
        memset(g->fname + old, 0xff, (g->capfname - old) * sizeof *g->fname);
    }
    if (g->fname[f] != TFMT_NO_ID)
        return TFMT_OK;
    const tfmt_frame *tf = &g->tab->frames[f];
    tfmt_str name = tfmt__profile_str(g->tab, tf->funcname);
    tfmt_str base = tfmt__pstr_basename(g->tab, tf->filename);
    uint32_t id = 0, unused = 0;
    int rc = tfmt__gecko_string(g, name.ptr, name.len, &id);
    if (rc == TFMT_OK)
        rc = tfmt__gecko_string(g, base.ptr, base.len, &unused);
    if (rc == TFMT_OK)
        g->fname[f] = id;
    return rc;
}

/* The node (frame, prefix), made if new. (frame, prefix) is the key and
 * its mix a bijection, so the hash alone finds it, as for the per-thread
 * stacks of export_gecko_tables.c. */
static int find_node(tfmt_gecko *g, uint32_t frame, uint32_t prefix,
                     uint32_t *out)
{
    uint64_t h = tfmt__hash_key(((uint64_t)frame << 32) | prefix);
    uint32_t id = tfmt__idset_find_key(&g->node_set, h);
    if (id != UINT32_MAX) {
        *out = id;
        return TFMT_OK;
    }
    if (g->nnodes >= UINT32_MAX - 1 ||
        tfmt__grow(g->alloc, (void **)&g->nodes, &g->capnodes, g->nnodes + 1,
                   sizeof *g->nodes) != TFMT_OK)
        return tfmt__gecko_nomem(g);
    id = (uint32_t)g->nnodes++;
    gnode *n = &g->nodes[id];
    n->frame = frame;
    n->prefix = prefix;
    n->child_frame = n->child = TFMT_NO_ID;
    *out = id;
    if (tfmt__idset_insert(&g->node_set, h, id) != TFMT_OK)
        return tfmt__gecko_nomem(g);
    return TFMT_OK;
}

/*
 * The child of `prefix` for `frame`. A program often calls the same
 * function from one place many times in a row, so each node remembers
 * the last child looked up under it, which spares a probe of the table.
 */
static int child(tfmt_gecko *g, uint32_t frame, uint32_t prefix, uint32_t *out)
{
    bool root = prefix == TFMT_NO_ID;
    uint32_t *cf = root ? &g->root_child_frame : &g->nodes[prefix].child_frame;
    if (*cf == frame && frame != TFMT_NO_ID) {
        *out = root ? g->root_child : g->nodes[prefix].child;
        return TFMT_OK;
    }
    uint32_t id = 0;
    int rc = find_node(g, frame, prefix, &id);
    if (rc != TFMT_OK)
        return rc;
    /* find_node may have moved the nodes */
    if (root) {
        g->root_child_frame = frame;
        g->root_child = id;
    } else {
        g->nodes[prefix].child_frame = frame;
        g->nodes[prefix].child = id;
    }
    *out = id;
    return TFMT_OK;
}

/*
 * The outermost frames a stack shares with the thread's previous one
 * keep their nodes: only the rest is looked up, root first.
 */
int tfmt__gecko_stack(tfmt_gecko *g, gthread *t, const uint32_t *stack,
                      uint32_t depth, uint32_t hint, uint32_t *out)
{
    if (depth > t->caplast) {
        size_t cap = t->caplast;
        if (tfmt__grow_small(g->alloc, (void **)&t->last_tab, &cap, depth,
                             sizeof *t->last_tab) != TFMT_OK ||
            tfmt__grow_small(g->alloc, (void **)&t->last_stack, &t->caplast,
                             depth, sizeof *t->last_stack) != TFMT_OK)
            return tfmt__gecko_nomem(g);
    }
    uint32_t k = hint;
    while (k < depth && k < t->last_depth && t->last_tab[k] == stack[k])
        k++;
    uint32_t prefix = k ? t->last_stack[k - 1] : TFMT_NO_ID;
    t->last_depth = k;
    for (uint32_t i = k; i < depth; i++) {
        int rc = names(g, stack[i]);
        if (rc == TFMT_OK)
            rc = child(g, stack[i], prefix, &prefix);
        if (rc != TFMT_OK)
            return rc;
        t->last_tab[i] = stack[i];
        t->last_stack[i] = prefix;
        t->last_depth = i + 1;
    }
    t->last_depth = depth;
    *out = prefix;
    return TFMT_OK;
}

void tfmt__gecko_tree_free(tfmt_gecko *g)
{
    tfmt__free(g->alloc, g->nodes);
    tfmt__idset_free(&g->node_set);
    tfmt__free(g->alloc, g->fname);
    g->nodes = NULL;
    g->fname = NULL;
    g->nnodes = g->capnodes = g->capfname = 0;
}
