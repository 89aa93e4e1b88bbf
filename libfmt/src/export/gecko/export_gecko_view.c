/* SPDX-License-Identifier: MIT */
/*
 * export_gecko_view.c - each Gecko thread's copy of the reader's last
 * stack for it, as tab frames, carried from one batch to the next. The
 * reader tells how many outermost frames a sample shares with the
 * thread's previous one (tfmt_sample.unchanged), so only the frames past
 * those are mapped, checked for "<GC>" and, when no stack filter rewrites
 * the stack, compared with the thread's last stack: on a typical log a
 * batch changes one or two frames out of thirty, and a repeat none.
 */
#include "export_gecko.h"

/* Is tab frame f a "<GC>" frame (cached per frame); -1: out of memory. */
int tfmt__gecko_is_gc(tfmt_gecko *g, uint32_t f)
{
    tfmt_profile *tab = g->tab;
    if (f >= g->capgc) {
        size_t old = g->capgc;
        if (tfmt__grow(g->alloc, (void **)&g->gc, &g->capgc, tab->nframes, 1) !=
            TFMT_OK)
            return -1;
        memset(g->gc + old, 0, g->capgc - old);
    }
    if (!g->gc[f]) {
        tfmt_str fn = tfmt__profile_str(tab, tab->frames[f].funcname);
        g->gc[f] = fn.len == 4 && memcmp(fn.ptr, "<GC>", 4) == 0 ? 2 : 1;
    }
    return g->gc[f] == 2;
}

/* Map frames [from, depth) of the sample into the view. */
static int map_tail(tfmt_gecko *g, gthread *t, const tfmt_sample *s,
                    uint32_t from, const gmapper *m)
{
    if (s->depth > t->capview &&
        tfmt__grow(g->alloc, (void **)&t->view, &t->capview, s->depth,
                   sizeof *t->view) != TFMT_OK)
        return tfmt__gecko_nomem(g);
    if (t->view_gc >= from)
        t->view_gc = UINT32_MAX;
    for (uint32_t i = from; i < s->depth; i++) {
        int rc = m->map(m->ctx, s->stack[i], &t->view[i]);
        if (rc != TFMT_OK)
            return rc;
        int gc =
            t->view_gc == UINT32_MAX ? tfmt__gecko_is_gc(g, t->view[i]) : 0;
        if (gc < 0)
            return tfmt__gecko_nomem(g);
        if (gc)
            t->view_gc = i;
    }
    t->view_depth = s->depth;
    return TFMT_OK;
}

int tfmt__gecko_view(tfmt_gecko *g, gthread *t, const tfmt_sample *s,
                     const gmapper *m, uint32_t *unchanged)
{
    uint32_t u = 0;
    if (t->view_input == m->input && t->view_thread == s->thread_index) {
        u = s->unchanged < t->view_depth ? s->unchanged : t->view_depth;
        u = u < s->depth ? u : s->depth;
    }
    t->view_input = m->input;
    t->view_thread = s->thread_index;
    *unchanged = u;
    return map_tail(g, t, s, u, m);
}

void tfmt__gecko_view_free(const tfmt_allocator *a, gthread *t)
{
    tfmt__free(a, t->view);
    t->view = NULL;
    t->capview = 0;
}
