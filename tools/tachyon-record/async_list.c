/* SPDX-License-Identifier: MIT */
/*
 * async_list.c - every task of the target, for --async-mode all. CPython
 * 3.14 keeps the tasks of each thread in a circular doubly linked list
 * whose head is in the thread's state (_PyThreadStateImpl), plus one list
 * per interpreter for the tasks of threads that are gone; a task's node
 * is inside the Task object.
 *
 * A linked list can only be followed node by node, a system call per
 * task. But tasks live long and lists change little between samples, so
 * the tasks listed last time are read first, all of them in a few
 * batched calls, and each list is then followed through those copies;
 * only nodes not read yet (new tasks) are read, in rounds, one per list
 * per round. Every step checks the node it comes to: aligned, a Task
 * (is_task), its `prev` pointing back to the node before (a node freed
 * and reused fails this), never seen before in this sample (a cycle),
 * and at most ASYNC_MAX_TASKS in all; a list that fails a check was
 * changing while it was read and the sample is dropped.
 */
#include <stdlib.h>
#include <string.h>

#include "async_graph.h"

#define MAX_HEADS (UNWIND_MAX_THREADS + UNWIND_MAX_INTERPS)
/* Nodes of one list read again in a sample because their copy was older
 * than the node before them (the list changed between the two reads). */
#define MAX_REREADS 8

/* One list being followed. */
typedef struct list_walk {
    uint64_t head; /* its head node */
    uint64_t cur;  /* the node to visit next; head: done */
    uint64_t prev; /* the node visited last */
    uint64_t tid;
    uint32_t interp_id;
    uint32_t rereads;
} list_walk;

/* A node to read: a new one, or one whose copy is read again. */
typedef struct wanted {
    uint64_t task;
    uint32_t copy; /* ASYNC_NONE: new */
} wanted;

/* An interpreter's list head, read in the first round. */
typedef struct interp_head {
    uint64_t addr, first, id;
} interp_head;

static uint64_t u64_at(const uint8_t *p, uint64_t off)
{
    uint64_t v;
    memcpy(&v, p + off, 8);
    return v;
}

/* The interpreters: the one the listing confirmed, or the runtime's
 * chain (bounded). */
static int find_interps(unwinder *u, interp_head *ih, uint32_t *n)
{
    const async_offsets *o = &u->as->off;
    uint64_t interp;
    *n = 0;
    if (u->single_interp) {
        ih[(*n)++] = (interp_head){u->last_interp, 0,
                                   u->nlisted ? u->listed[0].interp_id : 0};
        return RMEM_OK;
    }
    int rc = rmem_read_u64(u->pid, u->runtime + o->rt_interp_head, &interp);
    while (rc == RMEM_OK && interp) {
        if (*n >= UNWIND_MAX_INTERPS || (interp & 7))
            return RMEM_FAULT;
        uint64_t next;
        rmem_piece p[2] = {{interp + o->is_next, &next, 8},
                           {interp + o->is_id, &ih[*n].id, 8}};
        rc = rmem_readv(u->pid, p, 2);
        ih[(*n)++].addr = interp;
        interp = next;
    }
    return rc;
}

/* The lists: one per listed thread state, one per interpreter. */
static uint32_t plan_heads(unwinder *u, const interp_head *ih, uint32_t ni,
                           list_walk *w)
{
    const async_offsets *o = &u->as->off;
    uint32_t n = 0;
    for (uint32_t i = 0; i < u->nlisted; i++) {
        const listed_thread *l = &u->listed[i];
        uint64_t head = l->tstate + o->ts_tasks_head;
        w[n++] = (list_walk){
            head,         unwind_u64(l->ts, o->ts_tasks_head + o->llist_next),
            head,         unwind_u64(l->ts, u->off.ts_native_tid),
            l->interp_id, 0};
    }
    for (uint32_t i = 0; i < ni; i++) {
        uint64_t head = ih[i].addr + o->interp_tasks_head;
        w[n++] = (list_walk){head, ih[i].first, head, 0, (uint32_t)ih[i].id, 0};
    }
    return n;
}

/* Plan reading the spans of tasks addr[0..n) into new copies. */
static int read_tasks(unwinder *u, const uint64_t *addr, uint32_t n,
                      rmem_piece *p)
{
    async_state *a = u->as;
    const async_offsets *o = &a->off;
    size_t span = o->task_hi - o->task_lo;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t idx;
        uint8_t *buf = async_copy_new(&a->copies, addr[i], span, &idx);
        if (!buf)
            return RMEM_OTHER;
        p[i] = (rmem_piece){addr[i] + o->task_lo, buf, span};
    }
    return RMEM_OK;
}

/* Plan the reads of the nodes wanted: new copies, or into the old. */
static int read_wanted(unwinder *u, const wanted *wt, uint32_t n, rmem_piece *p)
{
    async_state *a = u->as;
    const async_offsets *o = &a->off;
    size_t span = o->task_hi - o->task_lo;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t idx = wt[i].copy;
        uint8_t *buf = idx == ASYNC_NONE
                           ? async_copy_new(&a->copies, wt[i].task, span, &idx)
                           : async_copy_buf(&a->copies, idx, span);
        if (!buf)
            return RMEM_OTHER;
        p[i] = (rmem_piece){wt[i].task + o->task_lo, buf, span};
    }
    return RMEM_OK;
}

/* First round: the interpreters' list heads and, speculatively, every
 * task listed last time. A stale one (freed since) may fault the read:
 * then the lists are followed from scratch. */
static int first_round(unwinder *u, interp_head *ih, uint32_t ni, rmem_piece *p)
{
    async_state *a = u->as;
    const async_offsets *o = &a->off;
    uint32_t n = 0;
    for (uint32_t i = 0; i < ni; i++)
        p[n++] = (rmem_piece){ih[i].addr + o->interp_tasks_head + o->llist_next,
                              &ih[i].first, 8};
    uint32_t memo = a->nmemo <= ASYNC_MAX_TASKS ? a->nmemo : 0;
    int rc = read_tasks(u, a->memo, memo, p + n);
    if (rc == RMEM_OK)
        rc = async_read(u, p, n + memo);
    if (rc != RMEM_FAULT)
        return rc;
    async_copies_reset(&a->copies);
    return async_read(u, p, n);
}

/* Tasks found, per list, before they go into the graph in list order. */
typedef struct found {
    uint32_t copy, head;
} found;

typedef struct walk_state {
    found *f;
    uint32_t n;
    uint8_t *visited; /* per copy */
    uint32_t visited_cap;
} walk_state;

static int mark_visited(walk_state *ws, uint32_t copy)
{
    if (copy >= ws->visited_cap) {
        uint32_t cap = ws->visited_cap ? ws->visited_cap : 1024;
        while (cap <= copy)
            cap *= 2;
        uint8_t *v = realloc(ws->visited, cap);
        if (!v)
            return RMEM_OTHER;
        memset(v + ws->visited_cap, 0, cap - ws->visited_cap);
        ws->visited = v;
        ws->visited_cap = cap;
    }
    if (ws->visited[copy])
        return RMEM_FAULT; /* met twice: a cycle, or a task in two lists */
    ws->visited[copy] = 1;
    return RMEM_OK;
}

/* Follow list `w` (number `head`) through the copies as far as they go:
 * RMEM_OK, with *want the node to read next (none when the list ended), or
 * RMEM_FAULT for a list that changed while it was read. */
static int follow(async_state *a, walk_state *ws, list_walk *w, uint32_t head,
                  wanted *want)
{
    const async_offsets *o = &a->off;
    size_t span = o->task_hi - o->task_lo;
    want->task = 0;
    while (w->cur != w->head) {
        if (ws->n >= ASYNC_MAX_TASKS) {
            a->truncated = true;
            return RMEM_OK;
        }
        if (!w->cur || (w->cur & 7) || w->cur < o->task_node)
            return RMEM_FAULT;
        uint64_t task = w->cur - o->task_node;
        uint32_t c = async_copy_find(&a->copies, task);
        if (c == ASYNC_NONE) {
            *want = (wanted){task, ASYNC_NONE};
            return RMEM_OK;
        }
        const uint8_t *b = async_copy_buf(&a->copies, c, span);
        uint64_t node = o->task_node - o->task_lo;
        if (u64_at(b, node + o->llist_prev) != w->prev &&
            w->rereads < MAX_REREADS) {
            /* its copy may be older than the node before it */
            w->rereads++;
            *want = (wanted){task, c};
            return RMEM_OK;
        }
        if (u64_at(b, node + o->llist_prev) != w->prev ||
            b[o->task_is_task - o->task_lo] != 1)
            return RMEM_FAULT;
        int rc = mark_visited(ws, c);
        if (rc != RMEM_OK)
            return rc;
        ws->f[ws->n++] = (found){c, head};
        w->prev = w->cur;
        w->cur = u64_at(b, node + o->llist_next);
    }
    return RMEM_OK;
}

/* Follow every list, reading the nodes not copied yet in rounds. */
static int follow_all(unwinder *u, walk_state *ws, list_walk *w, uint32_t n,
                      rmem_piece *p)
{
    static wanted wt[MAX_HEADS];
    async_state *a = u->as;
    for (;;) {
        uint32_t nw = 0;
        for (uint32_t i = 0; i < n && !a->truncated; i++) {
            int rc = follow(a, ws, &w[i], i, &wt[nw]);
            if (rc != RMEM_OK)
                return rc;
            nw += wt[nw].task != 0;
        }
        if (nw == 0 || a->truncated)
            return RMEM_OK;
        if (a->copies.n + nw > 2 * ASYNC_MAX_TASKS)
            return RMEM_FAULT;
        int rc = read_wanted(u, wt, nw, p);
        if (rc == RMEM_OK)
            rc = async_read(u, p, nw);
        if (rc != RMEM_OK)
            return rc;
    }
}

/* The tasks found into the graph, list by list in list order. */
static int add_found(async_state *a, const walk_state *ws, const list_walk *w,
                     uint32_t nheads)
{
    bool oom = false;
    for (uint32_t h = 0; h < nheads; h++) {
        for (uint32_t i = 0; i < ws->n; i++) {
            if (ws->f[i].head != h)
                continue;
            uint32_t c = ws->f[i].copy;
            uint32_t t = async_add_task(a, a->copies.addr[c], w[h].tid,
                                        w[h].interp_id, &oom);
            if (t == ASYNC_NONE)
                return oom ? RMEM_OTHER : RMEM_OK;
            a->tasks[t].copy = c;
        }
    }
    return RMEM_OK;
}

/* Remember this sample's tasks, to read them first next time. */
static void remember(async_state *a)
{
    if (a->ntasks > a->memo_cap) {
        uint64_t *m = realloc(a->memo, (size_t)a->ntasks * sizeof *m);
        if (!m) {
            a->nmemo = 0;
            return;
        }
        a->memo = m;
        a->memo_cap = a->ntasks;
    }
    for (uint32_t i = 0; i < a->ntasks; i++)
        a->memo[i] = a->tasks[i].addr;
    a->nmemo = a->ntasks;
}

int async_lists(unwinder *u)
{
    static rmem_piece p[ASYNC_MAX_TASKS + UNWIND_MAX_INTERPS];
    static list_walk w[MAX_HEADS];
    static found f[ASYNC_MAX_TASKS];
    static walk_state ws = {f, 0, NULL, 0};
    interp_head ih[UNWIND_MAX_INTERPS];
    uint32_t ni, nheads;
    int rc = find_interps(u, ih, &ni);
    if (rc == RMEM_OK)
        rc = first_round(u, ih, ni, p);
    if (rc != RMEM_OK)
        return rc;
    nheads = plan_heads(u, ih, ni, w);
    ws.n = 0;
    if (ws.visited)
        memset(ws.visited, 0, ws.visited_cap);
    rc = follow_all(u, &ws, w, nheads, p);
    if (rc == RMEM_OK)
        rc = add_found(u->as, &ws, w, nheads);
    if (rc == RMEM_OK)
        remember(u->as);
    else
        u->as->nmemo = 0; /* read them from scratch next time */
    return rc;
}
