/* SPDX-License-Identifier: MIT */
/*
 * export_gecko_tables.c - a Gecko thread's stack, frame, function and
 * resource tables, created in GeckoCollector's order (root to leaf, in
 * the order of the thread's samples) when the thread is written, from
 * the tree nodes its samples were spooled with. A tab frame maps to one
 * Gecko frame, cached per thread. Functions, resources and stacks have
 * one 64-bit key each, found by its hash alone (tfmt__idset_find_key).
 * Their strings were interned in CPython's order during the collection
 * (export_gecko_tree.c): here they are only looked up.
 */
#include "export_gecko.h"

typedef struct fkey {
    uint32_t func;
    int64_t line;
    int32_t col;
} fkey;

static bool frame_eq(const void *ctx, uint32_t id, const void *key)
{
    const gframe *f = &((const gtables *)ctx)->frames[id];
    const fkey *k = key;
    return f->func == k->func && f->line == k->line && f->col == k->col;
}

/* _is_python: not "<...>", except <stdin> and <string>. */
static bool is_python(tfmt_str f)
{
    if (f.len == 0 || f.ptr[0] != '<')
        return true;
    return (f.len == 7 && memcmp(f.ptr, "<stdin>", 7) == 0) ||
           (f.len == 8 && memcmp(f.ptr, "<string>", 8) == 0);
}

static int get_resource(tfmt_gecko *g, gtables *t, uint32_t file, uint32_t *out)
{
    uint64_t h = tfmt__hash_key(file);
    uint32_t id = tfmt__idset_find_key(&t->res_set, h);
    if (id == TFMT_NO_ID) {
        if (tfmt__grow_small(g->alloc, (void **)&t->res, &t->capres,
                             t->nres + 1, sizeof *t->res) != TFMT_OK)
            return tfmt__gecko_nomem(g);
        tfmt_str base = tfmt__pstr_basename(g->tab, file);
        gres *r = &t->res[t->nres];
        r->file = file;
        int rc = tfmt__gecko_string(g, base.ptr, base.len, &r->name);
        if (rc != TFMT_OK)
            return rc;
        id = (uint32_t)t->nres++;
        if (tfmt__idset_insert(&t->res_set, h, id) != TFMT_OK)
            return tfmt__gecko_nomem(g);
    }
    *out = id;
    return TFMT_OK;
}

static int new_func(tfmt_gecko *g, gtables *t, const uint32_t key[2],
                    int64_t line)
{
    if (tfmt__grow_small(g->alloc, (void **)&t->funcs, &t->capfuncs,
                         t->nfuncs + 1, sizeof *t->funcs) != TFMT_OK)
        return tfmt__gecko_nomem(g);
    gfunc *f = &t->funcs[t->nfuncs];
    memset(f, 0, sizeof *f);
    f->file = key[0];
    f->func = key[1];
    tfmt_str name = tfmt__profile_str(g->tab, key[1]);
    int rc = tfmt__gecko_string(g, name.ptr, name.len, &f->name);
    f->py = is_python(tfmt__profile_str(g->tab, key[0]));
    if (rc == TFMT_OK)
        rc = get_resource(g, t, key[0], &f->resource);
    f->fname = TFMT_NO_ID;
    f->line = G_NONE_LINE;
    if (rc == TFMT_OK && f->py) {
        tfmt_str base = tfmt__pstr_basename(g->tab, key[0]);
        rc = tfmt__gecko_string(g, base.ptr, base.len, &f->fname);
        f->line = line;
    }
    return rc;
}

static int get_func(tfmt_gecko *g, gtables *t, const tfmt_frame *tf,
                    int64_t line, uint32_t *out)
{
    uint32_t key[2] = {tf->filename, tf->funcname};
    uint64_t h = tfmt__hash_key(((uint64_t)key[0] << 32) | key[1]);
    uint32_t id = tfmt__idset_find_key(&t->func_set, h);
    if (id == TFMT_NO_ID) {
        int rc = new_func(g, t, key, line);
        if (rc != TFMT_OK)
            return rc;
        id = (uint32_t)t->nfuncs++;
        if (tfmt__idset_insert(&t->func_set, h, id) != TFMT_OK)
            return tfmt__gecko_nomem(g);
    }
    *out = id;
    return TFMT_OK;
}

static int get_frame(tfmt_gecko *g, gtables *t, uint32_t tabid, uint32_t *out)
{
    const tfmt_frame *tf = &g->tab->frames[tabid];
    bool none = tf->lineno == TFMT_NO_LOCATION;
    fkey k;
    memset(&k, 0, sizeof k);
    k.line = none ? G_NONE_LINE : tf->lineno;
    k.col = none || tf->column < 0 ? -1 : tf->column;
    int rc = get_func(g, t, tf, k.line, &k.func);
    if (rc != TFMT_OK)
        return rc;
    uint64_t h =
        tfmt__hash_mix(((uint64_t)k.func << 32) ^
                       tfmt__hash_key((uint64_t)k.line) ^ (uint32_t)k.col);
    uint32_t id = tfmt__idset_find(&t->frame_set, h, &k, frame_eq, t);
    if (id == TFMT_NO_ID) {
        if (tfmt__grow_small(g->alloc, (void **)&t->frames, &t->capframes,
                             t->nframes + 1, sizeof *t->frames) != TFMT_OK)
            return tfmt__gecko_nomem(g);
        id = (uint32_t)t->nframes++;
        t->frames[id].func = k.func;
        t->frames[id].line = k.line;
        t->frames[id].col = k.col;
        if (tfmt__idset_insert(&t->frame_set, h, id) != TFMT_OK)
            return tfmt__gecko_nomem(g);
    }
    *out = id;
    return TFMT_OK;
}

static int tab_frame(tfmt_gecko *g, gtables *t, uint32_t tabid, uint32_t *out)
{
    uint32_t id = tfmt__tidmap_find(&t->tabframe, tabid, 0);
    if (id == UINT32_MAX) {
        int rc = get_frame(g, t, tabid, &id);
        if (rc != TFMT_OK)
            return rc;
        if (tfmt__tidmap_insert(&t->tabframe, tabid, 0, id) != TFMT_OK)
            return tfmt__gecko_nomem(g);
    }
    *out = id;
    return TFMT_OK;
}

static int new_stack(tfmt_gecko *g, gtables *t, uint32_t frame, uint32_t prefix,
                     uint64_t h, uint32_t *out)
{
    if (tfmt__grow_small(g->alloc, (void **)&t->stacks, &t->capstacks,
                         t->nstacks + 1, sizeof *t->stacks) != TFMT_OK)
        return tfmt__gecko_nomem(g);
    uint32_t id = (uint32_t)t->nstacks++;
    gstack *s = &t->stacks[id];
    s->frame = frame;
    s->prefix = prefix;
    s->child_frame = TFMT_NO_ID;
    s->child = TFMT_NO_ID;
    s->cat = t->funcs[t->frames[frame].func].py ? G_CAT_PYTHON : G_CAT_NATIVE;
    if (tfmt__idset_insert(&t->stack_set, h, id) != TFMT_OK)
        return tfmt__gecko_nomem(g);
    *out = id;
    return TFMT_OK;
}

/*
 * The stack (frame, prefix). A program often calls the same function from
 * one place many times in a row, so each stack remembers the last child
 * looked up under it, which spares a probe of the per-thread table (on
 * the bench log 47% of lookups end there, and a run takes 8% less CPU).
 */
static int get_stack(tfmt_gecko *g, gtables *t, uint32_t frame, uint32_t prefix,
                     uint32_t *out)
{
    bool root = prefix == TFMT_NO_ID;
    uint32_t cf = root ? t->root_child_frame : t->stacks[prefix].child_frame;
    if (cf == frame && cf != TFMT_NO_ID) {
        *out = root ? t->root_child : t->stacks[prefix].child;
        return TFMT_OK;
    }
    uint64_t h = tfmt__hash_key(((uint64_t)frame << 32) | prefix);
    uint32_t id = tfmt__idset_find_key(&t->stack_set, h);
    if (id == TFMT_NO_ID) {
        int rc = new_stack(g, t, frame, prefix, h, &id);
        if (rc != TFMT_OK)
            return rc;
    }
    if (root) {
        t->root_child_frame = frame;
        t->root_child = id;
    } else {
        t->stacks[prefix].child_frame = frame;
        t->stacks[prefix].child = id;
    }
    *out = id;
    return TFMT_OK;
}

void tfmt__gecko_tables_init(gtables *t, const tfmt_allocator *a)
{
    memset(t, 0, sizeof *t);
    t->root_child_frame = TFMT_NO_ID;
    tfmt__idset_init(&t->func_set, a);
    tfmt__idset_init(&t->frame_set, a);
    tfmt__idset_init(&t->stack_set, a);
    tfmt__idset_init(&t->res_set, a);
    tfmt__tidmap_init(&t->tabframe, a);
}

void tfmt__gecko_tables_free(const tfmt_allocator *a, gtables *t)
{
    void *v[] = {t->funcs, t->frames, t->stacks, t->res};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        tfmt__free(a, v[i]);
    tfmt__idset_free(&t->func_set);
    tfmt__idset_free(&t->frame_set);
    tfmt__idset_free(&t->stack_set);
    tfmt__idset_free(&t->res_set);
    tfmt__tidmap_free(&t->tabframe);
    tfmt__gecko_tables_init(t, a);
}

/*
 * CPython looks a sample's stack up root to leaf, making what is new. A
 * node mapped before has all its prefixes mapped, and a node's stack
 * exists once any node of the same path did: so looking up only the
 * nodes not mapped yet, root first, makes the same entries in the same
 * order as looking up every sample whole.
 */
int tfmt__gecko_local(gwriter *w, uint32_t node, uint32_t *out)
{
    tfmt_gecko *g = w->g;
    if (node >= g->nnodes)
        return TFMT_EIO; /* not a record: a damaged spool file */
    size_t n = 0;
    uint32_t x = node;
    for (; x != TFMT_NO_ID && w->loc_serial[x] != w->serial;
         x = g->nodes[x].prefix) {
        if (n == w->capchain &&
            tfmt__grow(g->alloc, (void **)&w->chain, &w->capchain, n + 1,
                       sizeof *w->chain) != TFMT_OK)
            return tfmt__gecko_nomem(g);
        w->chain[n++] = x;
    }
    uint32_t prefix = x == TFMT_NO_ID ? TFMT_NO_ID : w->loc[x];
    while (n > 0) {
        x = w->chain[--n];
        uint32_t frame = 0;
        int rc = tab_frame(g, &w->tab, g->nodes[x].frame, &frame);
        if (rc == TFMT_OK)
            rc = get_stack(g, &w->tab, frame, prefix, &prefix);
        if (rc != TFMT_OK)
            return rc;
        w->loc[x] = prefix;
        w->loc_serial[x] = w->serial;
    }
    *out = prefix;
    return TFMT_OK;
}
