/* SPDX-License-Identifier: MIT */
/*
 * async_tasks.c - from Task objects to the graph's edges. A task's
 * awaited_by is NULL, one task (the one awaiting it), or a set of tasks
 * (awaited_by_is_set), CPython's own encoding (Modules/_asynciomodule.c,
 * future_awaited_by_add). Set entries are {key, hash}: an empty slot has
 * no key and a deleted one the dummy key with hash -1, both skipped (the
 * dummy is no task; CPython 3.14's reader would take it for one).
 *
 * A task awaited by several takes the one at the lowest address as its
 * parent, as CPython's collector does (min of the task ids). In running
 * mode the graph is every running task and, transitively, whatever
 * awaits it: awaiters are added as they are found, read in rounds.
 */
#include <string.h>

#include "async_graph.h"

/* Entries of an awaiter set read at most (a larger set's awaiters are
 * not read, and the sample counts as truncated). */
#define SET_MAX_ENTRIES (1u << 16)

static uint64_t u64_at(const uint8_t *p, uint64_t off)
{
    uint64_t v;
    memcpy(&v, p + off, 8);
    return v;
}

/* First the is_task flag of objects never read (an awaiter may be a bare
 * Future, smaller than a Task), then the Tasks' spans. */
static int read_unloaded(unwinder *u, uint32_t from, rmem_piece *p,
                         uint8_t *flag)
{
    async_state *a = u->as;
    const async_offsets *o = &a->off;
    size_t span = o->task_hi - o->task_lo;
    uint32_t n = 0;
    for (uint32_t i = from; i < a->ntasks; i++)
        if (a->tasks[i].copy == ASYNC_NONE)
            p[n++] = (rmem_piece){a->tasks[i].addr + o->task_is_task,
                                  &flag[i - from], 1};
    int rc = n ? async_read(u, p, n) : RMEM_OK;
    n = 0;
    for (uint32_t i = from; rc == RMEM_OK && i < a->ntasks; i++) {
        async_task *t = &a->tasks[i];
        if (t->copy != ASYNC_NONE || flag[i - from] != 1)
            continue;
        uint8_t *buf = async_copy_new(&a->copies, t->addr, span, &t->copy);
        if (!buf)
            return RMEM_OTHER;
        p[n++] = (rmem_piece){t->addr + o->task_lo, buf, span};
    }
    return rc == RMEM_OK && n ? async_read(u, p, n) : rc;
}

/* A task's fields from its copy; RMEM_FAULT for flags that are no flags
 * or pointers that are no objects. */
static int parse_task(async_state *a, async_task *t)
{
    const async_offsets *o = &a->off;
    size_t span = o->task_hi - o->task_lo;
    if (t->copy == ASYNC_NONE)
        return RMEM_OK; /* not a Task */
    const uint8_t *b = async_copy_buf(&a->copies, t->copy, span);
    uint8_t is_task = b[o->task_is_task - o->task_lo];
    uint8_t ab_set = b[o->task_awaited_by_is_set - o->task_lo];
    t->is_task = is_task == 1;
    t->name_obj = u64_at(b, o->task_name - o->task_lo);
    t->coro = u64_at(b, o->task_coro - o->task_lo);
    t->awaited_by = u64_at(b, o->task_awaited_by - o->task_lo);
    t->ab_set = ab_set == 1;
    if (is_task > 1 || ab_set > 1 || (t->name_obj & 7) || !t->name_obj ||
        (t->coro & 7) || (t->awaited_by & 7))
        return RMEM_FAULT;
    return RMEM_OK;
}

int async_load_tasks(unwinder *u)
{
    static rmem_piece p[ASYNC_MAX_TASKS];
    static uint8_t flag[ASYNC_MAX_TASKS];
    async_state *a = u->as;
    int rc = read_unloaded(u, 0, p, flag);
    for (uint32_t i = 0; rc == RMEM_OK && i < a->ntasks; i++)
        rc = parse_task(a, &a->tasks[i]);
    return rc;
}

/* One awaiter of task i: counted, the lowest kept, added to the graph
 * with `follow`, marked as awaiting when it is in the graph. */
static int add_awaiter(async_state *a, uint32_t i, uint64_t w, bool follow)
{
    bool oom = false;
    if (!w || (w & 7))
        return RMEM_FAULT;
    async_task *t = &a->tasks[i];
    t->nparents++;
    if (!t->parent || w < t->parent)
        t->parent = w;
    uint32_t k = follow ? async_add_task(a, w, a->tasks[i].tid,
                                         a->tasks[i].interp_id, &oom)
                        : async_find_task(a, w);
    if (oom)
        return RMEM_OTHER;
    if (k != ASYNC_NONE)
        a->tasks[k].awaits = true;
    return RMEM_OK;
}

/* The span of a set object holding used, mask and table. */
static void set_span(const async_offsets *o, uint64_t *lo, uint64_t *hi)
{
    const uint64_t f[3] = {o->set_used, o->set_mask, o->set_table};
    *lo = UINT64_MAX;
    *hi = 0;
    for (int i = 0; i < 3; i++) {
        *lo = f[i] < *lo ? f[i] : *lo;
        *hi = f[i] + 8 > *hi ? f[i] + 8 : *hi;
    }
}

/* The entries of one awaiter set's table, in one read (sets are rare:
 * only a task awaited by more than one has one). */
static int read_table(unwinder *u, uint32_t i, uint64_t table, uint64_t entries,
                      bool follow)
{
    static uint64_t ent[2 * SET_MAX_ENTRIES];
    int rc = rmem_read(u->pid, table, ent, 16 * entries);
    u->as->counters.rounds++;
    for (uint64_t k = 0; rc == RMEM_OK && k < entries; k++)
        if (ent[2 * k] && ent[2 * k + 1] != UINT64_MAX)
            rc = add_awaiter(u->as, i, ent[2 * k], follow);
    return rc;
}

/* The awaiter sets of tasks[from..to): headers, then tables. */
static int read_sets(unwinder *u, uint32_t from, uint32_t to, bool follow)
{
    static rmem_piece p[ASYNC_MAX_TASKS];
    static uint8_t head[ASYNC_MAX_TASKS][32];
    async_state *a = u->as;
    const async_offsets *o = &a->off;
    uint64_t lo, hi;
    uint32_t n = 0;
    set_span(o, &lo, &hi);
    if (hi - lo > sizeof head[0])
        return RMEM_OTHER;
    for (uint32_t i = from; i < to; i++) {
        if (a->tasks[i].is_task && a->tasks[i].ab_set &&
            a->tasks[i].awaited_by) {
            p[n] = (rmem_piece){a->tasks[i].awaited_by + lo, head[n], hi - lo};
            n++;
        }
    }
    int rc = n ? async_read(u, p, n) : RMEM_OK;
    n = 0;
    for (uint32_t i = from; rc == RMEM_OK && i < to; i++) {
        async_task *t = &a->tasks[i];
        if (!t->is_task || !t->ab_set || !t->awaited_by)
            continue;
        const uint8_t *h = head[n++];
        int64_t used = (int64_t)u64_at(h, o->set_used - lo);
        int64_t mask = (int64_t)u64_at(h, o->set_mask - lo);
        uint64_t table = u64_at(h, o->set_table - lo);
        if (mask < 0 || mask >= (1 << 20) || used < 0 || used > mask + 1 ||
            ((uint64_t)mask & (uint64_t)(mask + 1)) || !table || (table & 7))
            return RMEM_FAULT;
        if ((uint64_t)mask + 1 > SET_MAX_ENTRIES) {
            a->truncated = true;
            continue;
        }
        rc = read_table(u, i, table, (uint64_t)mask + 1, follow);
    }
    return rc;
}

int async_awaiters(unwinder *u, bool follow)
{
    async_state *a = u->as;
    uint32_t from = 0;
    int rc = RMEM_OK;
    while (rc == RMEM_OK && from < a->ntasks) {
        uint32_t to = a->ntasks;
        if (follow)
            rc = async_load_tasks(u);
        for (uint32_t i = from; rc == RMEM_OK && i < to; i++) {
            async_task *t = &a->tasks[i];
            if (t->is_task && t->awaited_by && !t->ab_set)
                rc = add_awaiter(a, i, t->awaited_by, follow);
        }
        if (rc == RMEM_OK)
            rc = read_sets(u, from, to, follow);
        from = to;
        if (!follow)
            break;
    }
    for (uint32_t i = 0; rc == RMEM_OK && i < a->ntasks; i++)
        if (a->tasks[i].parent)
            a->tasks[i].parent_idx = async_find_task(a, a->tasks[i].parent);
    return rc;
}
