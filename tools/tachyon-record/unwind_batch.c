/*
 * unwind_batch.c - the fast path for sampling every thread: the set of
 * threads rarely changes between samples, so the thread states listed
 * last time are read in one batched call and the list is verified through
 * their `next` pointers; then every thread's stack copy is fetched in one
 * call and the heads of all distinct code objects in another. A sample of
 * N threads costs a handful of reads instead of about 3N. Anything
 * unexpected returns RMEM_FAULT and unwind.c walks thread by thread.
 */
#include "unwind_internal.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "remote_mem.h"

#define BATCH_PIECES 64
#define HEAD_MAX 256
#define CODE_SET 1024               /* distinct code objects per sample */

int unwind_batch_init(unwinder *u)
{
    u->last_tstates = calloc(UNWIND_MAX_THREADS, sizeof *u->last_tstates);
    u->batch = calloc(UNWIND_MAX_THREADS, sizeof *u->batch);
    u->ts_bufs = malloc((size_t)UNWIND_MAX_THREADS * u->off.ts_size);
    u->arena = malloc(UNWIND_BATCH_ARENA);
    return u->last_tstates && u->batch && u->ts_bufs && u->arena ? 0 : -1;
}

void unwind_batch_free(unwinder *u)
{
    free(u->last_tstates);
    free(u->batch);
    free(u->ts_bufs);
    free(u->arena);
    u->last_tstates = NULL;
    u->batch = NULL;
    u->ts_bufs = NULL;
    u->arena = NULL;
}

/* readv any number of pieces, BATCH_PIECES per system call. */
static int read_pieces(pid_t pid, const rmem_piece *p, size_t n)
{
    for (size_t at = 0; at < n; at += BATCH_PIECES) {
        size_t k = n - at < BATCH_PIECES ? n - at : BATCH_PIECES;
        int rc = rmem_readv(pid, p + at, k);
        if (rc != RMEM_OK)
            return rc;
    }
    return RMEM_OK;
}

/* The thread states read into ts_bufs must still link as listed. */
static int check_chain(const unwinder *u, uint32_t n)
{
    size_t sz = u->off.ts_size;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t next = unwind_u64(u->ts_bufs + i * sz, u->off.ts_next);
        if (next != (i + 1 < n ? u->last_tstates[i + 1] : 0))
            return RMEM_FAULT;
    }
    return RMEM_OK;
}

/* Read the listed thread states; the chain must still be the same. */
static int read_states(unwinder *u, uint64_t head, uint32_t n)
{
    static rmem_piece p[UNWIND_MAX_THREADS];
    size_t sz = u->off.ts_size;
    if (n == 0 || head != u->last_tstates[0])
        return RMEM_FAULT;
    for (uint32_t i = 0; i < n; i++)
        p[i] = (rmem_piece){u->last_tstates[i], u->ts_bufs + i * sz, sz};
    int rc = read_pieces(u->pid, p, n);
    return rc == RMEM_OK ? check_chain(u, n) : rc;
}

/* Plan thread i's reads: its top frame (3.11/3.12: behind _PyCFrame) and
 * the used top of its frame stack, copied into the arena if it fits. */
static size_t plan_stack(unwinder *u, uint32_t i, size_t *arena_used,
                         rmem_piece *p)
{
    const py_offsets *o = &u->off;
    const uint8_t *ts = u->ts_bufs + i * o->ts_size;
    struct batch_thread *b = &u->batch[i];
    uint64_t chunk = unwind_u64(ts, o->ts_datastack_chunk);
    uint64_t top = unwind_u64(ts, o->ts_datastack_top);
    size_t n = 0;
    b->tstate = u->last_tstates[i];
    b->frame = 0;
    b->copy = NULL;
    b->copy_len = 0;
    if (o->ts_cframe == PYOFF_NONE) {
        b->frame = unwind_u64(ts, o->ts_current_frame);
    } else {
        uint64_t cframe = unwind_u64(ts, o->ts_cframe);
        if (!cframe)
            return 0;
        p[n++] = (rmem_piece){cframe + o->ts_current_frame, &b->frame, 8};
    }
    if (chunk && top > chunk && top - chunk < (1ull << 32)) {
        uint64_t len = top - chunk;
        len = len < UNWIND_STACK_COPY ? len : UNWIND_STACK_COPY;
        if (len <= UNWIND_BATCH_ARENA - *arena_used) {
            b->copy = u->arena + *arena_used;
            b->copy_len = len;
            b->copy_base = top - len;
            *arena_used += (len + 7) & ~(size_t)7;
            p[n++] = (rmem_piece){b->copy_base, b->copy, len};
        }
    }
    return n;
}

static int fetch_stacks(unwinder *u, uint32_t n)
{
    static rmem_piece p[2 * UNWIND_MAX_THREADS];
    size_t np = 0, used = 0;
    for (uint32_t i = 0; i < n; i++)
        np += plan_stack(u, i, &used, p + np);
    return read_pieces(u->pid, p, np);
}

/* Per-thread walk state of walk_all. */
typedef struct walk_state {
    raw_thread *t;              /* NULL: not walked (not bound yet) */
    uint64_t addr;              /* next frame to visit, 0: done */
    int steps;
} walk_state;

static bool in_copy(const struct batch_thread *b, uint64_t addr,
                    uint64_t len)
{
    return b->copy && addr >= b->copy_base &&
           addr - b->copy_base <= b->copy_len &&
           len <= b->copy_len - (addr - b->copy_base);
}

/* Visit thread i's frames that lie in its stack copy. */
static int advance_local(unwinder *u, uint32_t i, walk_state *w)
{
    const struct batch_thread *b = &u->batch[i];
    uint64_t len = u->off.fr_size;
    while (w->addr && w->t->depth < UNWIND_MAX_DEPTH &&
           in_copy(b, w->addr, len)) {
        if (++w->steps > UNWIND_MAX_STEPS || (w->addr & 7))
            return RMEM_FAULT;
        int rc = unwind_visit_frame(u, b->copy + (w->addr - b->copy_base),
                                    w->t, &w->addr);
        if (rc != RMEM_OK)
            return rc;
    }
    return RMEM_OK;
}

/* Start the walk of thread i in the next raw_thread slot. */
static void start_walk(unwinder *u, uint32_t i, uint32_t interp_id,
                       walk_state *w)
{
    uint64_t tid = unwind_u64(u->ts_bufs + i * u->off.ts_size,
                              u->off.ts_native_tid);
    w->t = NULL;
    w->addr = 0;
    w->steps = 0;
    if (tid == 0)
        return;     /* not bound to an OS thread yet (start-up) */
    w->t = &u->threads[u->nthreads++];
    w->t->tid = tid;
    w->t->tstate = u->batch[i].tstate;
    w->t->interp_id = interp_id;
    w->t->depth = 0;
    w->addr = u->batch[i].frame;
}

/*
 * Walk every thread: frames inside a thread's stack copy locally, the
 * others (generator frames, C-stack entry frames) for all threads at
 * once, one level of the chains per batched read.
 */
static int walk_all(unwinder *u, uint32_t n, uint32_t interp_id)
{
    static walk_state w[UNWIND_MAX_THREADS];
    static uint8_t frames[UNWIND_MAX_THREADS][UNWIND_FRAME_BUF];
    static rmem_piece p[UNWIND_MAX_THREADS];
    static uint32_t who[UNWIND_MAX_THREADS];
    for (uint32_t i = 0; i < n; i++)
        start_walk(u, i, interp_id, &w[i]);
    for (int round = 0; round < UNWIND_MAX_STEPS; round++) {
        uint32_t np = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (!w[i].t)
                continue;
            if (advance_local(u, i, &w[i]) != RMEM_OK)
                return RMEM_FAULT;
            if (!w[i].addr || w[i].t->depth >= UNWIND_MAX_DEPTH)
                continue;
            if ((w[i].addr & 7) || ++w[i].steps > UNWIND_MAX_STEPS)
                return RMEM_FAULT;
            p[np] = (rmem_piece){w[i].addr, frames[np], u->off.fr_size};
            who[np++] = i;
        }
        if (np == 0)
            return RMEM_OK;
        int rc = read_pieces(u->pid, p, np);
        for (uint32_t k = 0; rc == RMEM_OK && k < np; k++)
            rc = unwind_visit_frame(u, frames[k], w[who[k]].t,
                                    &w[who[k]].addr);
        if (rc != RMEM_OK)
            return rc;
    }
    return RMEM_FAULT;
}

/* Index of `addr` in the set `keys` (open addressing), inserting it. */
static uint32_t set_put(uint64_t *keys, uint32_t *n, uint64_t addr)
{
    uint32_t i = (uint32_t)((addr >> 4) * 0x9e3779b1u) & (CODE_SET * 2 - 1);
    while (keys[i] && keys[i] != addr)
        i = (i + 1) & (CODE_SET * 2 - 1);
    if (!keys[i]) {
        keys[i] = addr;
        (*n)++;
    }
    return i;
}

/* Read each distinct code object's head once, resolve it, and point
 * every frame of threads [first, u->nthreads) at its entry. */
static int resolve_all(unwinder *u, uint32_t first)
{
    static uint64_t keys[CODE_SET * 2];
    static code_entry *entries[CODE_SET * 2];
    static uint8_t heads[CODE_SET * 2][HEAD_MAX];
    static rmem_piece p[CODE_SET];
    size_t hl = code_head_len(&u->off);
    uint32_t distinct = 0, np = 0;
    memset(keys, 0, sizeof keys);
    if (hl > HEAD_MAX)
        return RMEM_OTHER;
    for (uint32_t t = first; t < u->nthreads; t++) {
        for (uint32_t f = 0; f < u->threads[t].depth; f++) {
            uint64_t code = u->threads[t].frames[f].code;
            uint32_t before = distinct, s = set_put(keys, &distinct, code);
            if (distinct > CODE_SET)
                return RMEM_FAULT;
            if (distinct != before)
                p[np++] = (rmem_piece){code, heads[s], hl};
        }
    }
    int rc = read_pieces(u->pid, p, np);
    for (uint32_t i = 0; rc == RMEM_OK && i < CODE_SET * 2; i++)
        if (keys[i])
            rc = code_cache_get(u->codes, u->pid, &u->off, u->code_type,
                                keys[i], heads[i], &entries[i]);
    for (uint32_t t = first; rc == RMEM_OK && t < u->nthreads; t++)
        for (uint32_t f = 0; f < u->threads[t].depth; f++) {
            raw_frame *fr = &u->threads[t].frames[f];
            fr->entry = entries[set_put(keys, &distinct, fr->code)];
        }
    return rc;
}

/* Everything after the thread states: stacks, frames, code objects and
 * statuses of the n listed threads, appended from u->threads[first]. */
static int finish_batch(unwinder *u, uint32_t n, uint32_t first,
                        uint32_t interp_id, uint64_t gil_holder)
{
    int rc = fetch_stacks(u, n);
    if (rc == RMEM_OK)
        rc = walk_all(u, n, interp_id);
    if (rc == RMEM_OK)
        rc = resolve_all(u, first);
    for (uint32_t t = first; rc == RMEM_OK && t < u->nthreads; t++) {
        raw_thread *th = &u->threads[t];
        th->status = unwind_thread_status(u, th->tstate, th->tid,
                                          gil_holder);
    }
    return rc;
}

int unwind_batched(unwinder *u, uint64_t head, uint32_t interp_id,
                   uint64_t gil_holder)
{
    uint32_t n = u->last_count, first = u->nthreads;
    if (first + n > UNWIND_MAX_THREADS)
        return RMEM_FAULT;
    int rc = read_states(u, head, n);
    return rc == RMEM_OK ? finish_batch(u, n, first, interp_id, gil_holder)
                         : rc;
}

/* The per-sample reads that precede the thread states. */
typedef struct spec_reads {
    uint64_t interp, head, id, next, gil, holder;
    int32_t locked;
} spec_reads;

/* Plan the speculative reads into p; returns how many. */
static size_t plan_speculative(const unwinder *u, spec_reads *v,
                               rmem_piece *p)
{
    const py_offsets *o = &u->off;
    uint64_t in = u->last_interp, gil = u->last_gil;
    size_t k = 0, sz = o->ts_size;
    v->gil = gil;
    p[k++] = (rmem_piece){u->runtime + o->rt_interpreters_head, &v->interp,
                          8};
    p[k++] = (rmem_piece){in + o->is_threads_head, &v->head, 8};
    p[k++] = (rmem_piece){in + o->is_id, &v->id, 8};
    p[k++] = (rmem_piece){in + o->is_next, &v->next, 8};
    if (o->rt_gil == PYOFF_NONE)
        p[k++] = (rmem_piece){in + o->is_gil_ptr, &v->gil, 8};
    p[k++] = (rmem_piece){gil + o->gil_locked, &v->locked, 4};
    p[k++] = (rmem_piece){gil + o->gil_holder, &v->holder, 8};
    for (uint32_t i = 0; i < u->last_count; i++)
        p[k++] = (rmem_piece){u->last_tstates[i], u->ts_bufs + i * sz, sz};
    return k;
}

int unwind_speculative(unwinder *u)
{
    static rmem_piece p[UNWIND_MAX_THREADS + 8];
    spec_reads v;
    uint32_t n = u->last_count;
    if (!u->single_interp || !u->last_interp || !u->last_gil || n == 0)
        return RMEM_FAULT;
    int rc = read_pieces(u->pid, p, plan_speculative(u, &v, p));
    if (rc != RMEM_OK)
        return rc;
    if (v.interp != u->last_interp || v.next != 0 || v.gil != u->last_gil ||
        v.head != u->last_tstates[0] || check_chain(u, n) != RMEM_OK)
        return RMEM_FAULT;
    return finish_batch(u, n, 0, (uint32_t)v.id, v.locked == 1 ? v.holder
                                                                : 0);
}
