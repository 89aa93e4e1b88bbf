/* SPDX-License-Identifier: MIT */
/*
 * async_stacks.c - the stacks of a task graph, as CPython 3.15's
 * collector joins them (collector.py: _build_task_graph,
 * _build_linear_stacks): one per leaf, a task no task of the graph
 * awaits, in the order the tasks were found (list order; running mode:
 * thread order). From the leaf up: the task's frames (its thread's, cut
 * at its coroutine, when it runs there in running mode; else its
 * coroutine chain), its <task> frame, then the same for the task
 * awaiting it (the lowest address of several), until a task that nothing
 * awaits, an awaiter that is no task of the graph, a task met before on
 * the way (a cycle), or the 256 frames a stack keeps.
 */
#include <stdlib.h>
#include <string.h>

#include "async_graph.h"

int async_find_leaves(async_state *a)
{
    if (a->ntasks > a->leaves_cap) {
        uint32_t *l = realloc(a->leaves, (size_t)a->ntasks * sizeof *l);
        if (!l)
            return -1;
        a->leaves = l;
        a->leaves_cap = a->ntasks;
    }
    a->nleaves = 0;
    for (uint32_t i = 0; i < a->ntasks; i++)
        if (a->tasks[i].is_task && !a->tasks[i].awaits)
            a->leaves[a->nleaves++] = i;
    return 0;
}

uint32_t async_nstacks(const async_state *a)
{
    return a ? a->nleaves : 0;
}

const char *async_task_name(const async_state *a, uint32_t task, size_t *len)
{
    const async_task *t = &a->tasks[task];
    if (t->name_off == ASYNC_NONE) {
        *len = 0;
        return "";
    }
    *len = t->name_len;
    return a->names + t->name_off;
}

uint64_t async_task_addr(const async_state *a, uint32_t task)
{
    return a->tasks[task].addr;
}

/* Append task t's own frames to `out`, as many as fit. */
static void put_frames(const async_state *a, const async_task *t,
                       async_stack *out)
{
    /* a->frames is NULL until a task has frames of its own */
    const raw_frame *f = t->nframes ? a->frames + t->frame0 : NULL;
    uint32_t n = t->nframes;
    if (t->thread != ASYNC_NONE) {
        f = a->threads[t->thread].frames;
        n = a->threads[t->thread].depth;
    }
    for (uint32_t k = 0; k < n && out->depth < UNWIND_MAX_DEPTH; k++)
        out->frames[out->depth++] = (async_frame){&f[k], ASYNC_NONE};
}

static bool seen(const uint32_t *path, uint32_t n, uint32_t task)
{
    for (uint32_t i = 0; i < n; i++)
        if (path[i] == task)
            return true;
    return false;
}

void async_stack_get(const async_state *a, uint32_t i, async_stack *out)
{
    uint32_t path[UNWIND_MAX_DEPTH], npath = 0;
    uint32_t cur = a->leaves[i];
    const async_task *leaf = &a->tasks[cur];
    out->tid = leaf->tid;
    out->interp_id = leaf->interp_id;
    out->status = leaf->status;
    out->leaf = leaf->addr;
    out->depth = 0;
    /* every task adds its <task> frame: at most UNWIND_MAX_DEPTH steps */
    while (cur != ASYNC_NONE && out->depth < UNWIND_MAX_DEPTH &&
           !seen(path, npath, cur)) {
        const async_task *t = &a->tasks[cur];
        path[npath++] = cur;
        put_frames(a, t, out);
        if (out->depth < UNWIND_MAX_DEPTH)
            out->frames[out->depth++] = (async_frame){NULL, cur};
        cur = t->parent_idx;
        if (cur != ASYNC_NONE && !a->tasks[cur].is_task)
            cur = ASYNC_NONE;
    }
}
