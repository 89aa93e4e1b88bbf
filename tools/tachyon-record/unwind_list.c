/* SPDX-License-Identifier: MIT */
/*
 * unwind_list.c - the interpreters and threads of the target, with a copy
 * of each PyThreadState. The set of threads rarely changes between
 * samples, so the threads listed last time are read speculatively together
 * with the interpreter's fields and the GIL in one batched call, and the
 * list is confirmed through the copies' `next` pointers; when anything
 * changed, the lists are walked again, one read per thread.
 */
#include <string.h>

#include "remote_mem.h"
#include "unwind.h"

#define BATCH_PIECES 64

/* Per-interpreter fields read before its threads. */
typedef struct interp_fields {
    uint64_t head, id, next, gil;
    int32_t gc_collecting;
    uint32_t tlbc_generation; /* free-threaded */
    int32_t locked;
    uint64_t holder;
} interp_fields;

int unwind_read_pieces(pid_t pid, const rmem_piece *p, size_t n)
{
    for (size_t at = 0; at < n; at += BATCH_PIECES) {
        size_t k = n - at < BATCH_PIECES ? n - at : BATCH_PIECES;
        int rc = rmem_readv(pid, p + at, k);
        if (rc != RMEM_OK)
            return rc;
    }
    return RMEM_OK;
}

/* Plan the reads of an interpreter's fields (not the GIL state). */
static size_t plan_interp(const unwinder *u, uint64_t interp, interp_fields *v,
                          rmem_piece *p)
{
    const py_offsets *o = &u->off;
    size_t k = 0;
    p[k++] = (rmem_piece){interp + o->is_threads_head, &v->head, 8};
    p[k++] = (rmem_piece){interp + o->is_id, &v->id, 8};
    p[k++] = (rmem_piece){interp + o->is_next, &v->next, 8};
    p[k++] = (rmem_piece){interp + o->is_gc_collecting, &v->gc_collecting, 4};
    if (o->rt_gil == PYOFF_NONE)
        p[k++] = (rmem_piece){interp + o->is_gil_ptr, &v->gil, 8};
    if (o->is_tlbc_generation != PYOFF_NONE)
        p[k++] = (rmem_piece){interp + o->is_tlbc_generation,
                              &v->tlbc_generation, 4};
    return k;
}

static size_t plan_gil(const unwinder *u, interp_fields *v, rmem_piece *p)
{
    p[0] = (rmem_piece){v->gil + u->off.gil_locked, &v->locked, 4};
    p[1] = (rmem_piece){v->gil + u->off.gil_holder, &v->holder, 8};
    return 2;
}

static void add_listed(unwinder *u, uint64_t tstate, const interp_fields *v)
{
    listed_thread *l = &u->listed[u->nlisted];
    l->tstate = tstate;
    l->ts = u->ts_bufs + (size_t)u->nlisted * u->off.ts_size;
    l->interp_id = (uint32_t)v->id;
    l->gil_holder = v->locked == 1 ? v->holder : 0;
    l->gil = v->gil;
    l->gc_running = v->gc_collecting != 0;
    u->nlisted++;
}

/* Read one interpreter's fields, GIL and threads; *next: the next one. */
static int list_interp(unwinder *u, uint64_t interp, uint64_t *next)
{
    rmem_piece p[8];
    interp_fields v = {0};
    v.gil = u->runtime + u->off.rt_gil;
    int rc = rmem_readv(u->pid, p, plan_interp(u, interp, &v, p));
    if (rc == RMEM_OK && v.gil)
        rc = rmem_readv(u->pid, p, plan_gil(u, &v, p));
    if (rc != RMEM_OK)
        return rc;
    *next = v.next;
    /* Generations only grow: their sum changes when any one does. */
    u->tlbc_generation += v.tlbc_generation;
    if (u->nlisted == 0) {
        u->last_interp = interp;
        u->last_gil = v.gil;
    }
    for (uint64_t ts = v.head; ts;) {
        if (u->nlisted >= UNWIND_MAX_THREADS)
            return RMEM_OK; /* keep the first ones; bounds a loop */
        if (ts & 7)
            return RMEM_FAULT;
        add_listed(u, ts, &v);
        listed_thread *l = &u->listed[u->nlisted - 1];
        rc = rmem_read(u->pid, ts, l->ts, u->off.ts_size);
        if (rc != RMEM_OK)
            return rc;
        ts = unwind_u64(l->ts, u->off.ts_next);
    }
    return RMEM_OK;
}

/* Walk every interpreter's list of threads. */
static int list_slow(unwinder *u)
{
    uint64_t interp;
    int i, rc = rmem_read_u64(u->pid, u->runtime + u->off.rt_interpreters_head,
                              &interp);
    u->nlisted = 0;
    u->tlbc_generation = 0;
    for (i = 0; interp && rc == RMEM_OK; i++) {
        if (i >= UNWIND_MAX_INTERPS || (interp & 7))
            return RMEM_FAULT;
        rc = list_interp(u, interp, &interp);
    }
    u->single_interp = rc == RMEM_OK && i == 1 && u->nlisted > 0;
    return rc;
}

/* The copies read must still link as listed. */
static int check_chain(const unwinder *u)
{
    for (uint32_t i = 0; i < u->nlisted; i++) {
        uint64_t next = unwind_u64(u->listed[i].ts, u->off.ts_next);
        if (next != (i + 1 < u->nlisted ? u->listed[i + 1].tstate : 0))
            return RMEM_FAULT;
    }
    return RMEM_OK;
}

/* The whole list in one batched read, if it is still what it was. */
static int list_speculative(unwinder *u)
{
    static rmem_piece p[UNWIND_MAX_THREADS + 16];
    interp_fields v = {0};
    uint64_t head_interp;
    size_t k = 0, sz = u->off.ts_size;
    if (!u->single_interp)
        return RMEM_FAULT;
    v.gil = u->last_gil;
    p[k++] =
        (rmem_piece){u->runtime + u->off.rt_interpreters_head, &head_interp, 8};
    k += plan_interp(u, u->last_interp, &v, p + k);
    k += plan_gil(u, &v, p + k);
    for (uint32_t i = 0; i < u->nlisted; i++)
        p[k++] = (rmem_piece){u->listed[i].tstate, u->listed[i].ts, sz};
    int rc = unwind_read_pieces(u->pid, p, k);
    if (rc != RMEM_OK)
        return rc;
    uint64_t gil =
        u->off.rt_gil == PYOFF_NONE ? v.gil : u->runtime + u->off.rt_gil;
    if (head_interp != u->last_interp || v.next != 0 || gil != u->last_gil ||
        v.head != u->listed[0].tstate || check_chain(u) != RMEM_OK)
        return RMEM_FAULT;
    u->tlbc_generation = v.tlbc_generation;
    for (uint32_t i = 0; i < u->nlisted; i++) {
        u->listed[i].interp_id = (uint32_t)v.id;
        u->listed[i].gil_holder = v.locked == 1 ? v.holder : 0;
        u->listed[i].gil = gil;
        u->listed[i].gc_running = v.gc_collecting != 0;
    }
    return RMEM_OK;
}

int unwind_list(unwinder *u)
{
    if (list_speculative(u) == RMEM_OK)
        return RMEM_OK;
    return list_slow(u);
}
