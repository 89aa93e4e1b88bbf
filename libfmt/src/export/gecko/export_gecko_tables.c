/*
 * export_gecko_tables.c - a Gecko thread's stack, frame, function and
 * resource tables, created in GeckoCollector's order (root to leaf:
 * function name, resource name, file basename interned as they first
 * appear). A tab frame maps to one Gecko frame, cached per thread.
 * Functions, resources and stacks have one 64-bit key each, found by its
 * hash alone (tfmt__idset_find_key).
 */
#include "export_gecko.h"

typedef struct fkey {
    uint32_t func;
    int64_t line;
    int32_t col;
} fkey;

static bool frame_eq(const void *ctx, uint32_t id, const void *key)
{
    const gframe *f = &((const gthread *)ctx)->frames[id];
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

static int get_resource(tfmt_gecko *g, gthread *t, uint32_t file, uint32_t *out)
{
    uint64_t h = tfmt__hash_mix(file);
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

static int new_func(tfmt_gecko *g, gthread *t, const uint32_t key[2],
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

static int get_func(tfmt_gecko *g, gthread *t, const tfmt_frame *tf,
                    int64_t line, uint32_t *out)
{
    uint32_t key[2] = {tf->filename, tf->funcname};
    uint64_t h = tfmt__hash_mix(((uint64_t)key[0] << 32) | key[1]);
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

static int get_frame(tfmt_gecko *g, gthread *t, uint32_t tabid, uint32_t *out)
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
                       tfmt__hash_mix((uint64_t)k.line) ^ (uint32_t)k.col);
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

int tfmt__gecko_frame(tfmt_gecko *g, gthread *t, uint32_t tabid, uint32_t *out)
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

static int new_stack(tfmt_gecko *g, gthread *t, uint32_t frame, uint32_t prefix,
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
static int get_stack(tfmt_gecko *g, gthread *t, uint32_t frame, uint32_t prefix,
                     uint32_t *out)
{
    bool root = prefix == TFMT_NO_ID;
    uint32_t cf = root ? t->root_child_frame : t->stacks[prefix].child_frame;
    if (cf == frame && cf != TFMT_NO_ID) {
        *out = root ? t->root_child : t->stacks[prefix].child;
        return TFMT_OK;
    }
    uint64_t h = tfmt__hash_mix(((uint64_t)frame << 32) | prefix);
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

/*
 * The outermost frames a stack shares with the thread's previous one
 * keep their stack indices: only the rest is looked up (in order, so
 * tables grow exactly as CPython's would).
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
        uint32_t frame = 0;
        int rc = tfmt__gecko_frame(g, t, stack[i], &frame);
        if (rc == TFMT_OK)
            rc = get_stack(g, t, frame, prefix, &prefix);
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
