/*
 * unwind.c - walk interpreters -> threads -> frames of a live CPython
 * 3.11-3.13 process without stopping it. The target keeps running, so
 * every pointer may be stale: frames must be aligned, owners in range,
 * code objects of code type, and walks bounded; any failed check drops
 * the whole sample rather than write a torn stack.
 */
#include "unwind.h"

#include <stdlib.h>
#include <string.h>

#include <tachyon/fmt.h>

#include "remote_mem.h"
#include "unwind_internal.h"

#define FRAME_BUF UNWIND_FRAME_BUF
#define MAX_STEPS UNWIND_MAX_STEPS
#define TSTATE_BUF 4096

uint64_t unwind_u64(const uint8_t *p, uint64_t off)
{
    uint64_t v;
    memcpy(&v, p + off, 8);
    return v;
}

#define u64_at unwind_u64

int unwind_init(unwinder *u)
{
    u->codes = code_cache_new();
    u->tstat = tstat_new(u->pid);
    u->threads = calloc(UNWIND_MAX_THREADS, sizeof *u->threads);
    u->stack_copy = malloc(UNWIND_STACK_COPY);
    if (!u->codes || !u->tstat || !u->threads || !u->stack_copy ||
        u->off.fr_size > FRAME_BUF || u->off.ts_size > TSTATE_BUF ||
        unwind_batch_init(u) != 0) {
        unwind_free(u);
        return -1;
    }
    return 0;
}

void unwind_free(unwinder *u)
{
    code_cache_free(u->codes);
    tstat_free(u->tstat);
    free(u->threads);
    free(u->stack_copy);
    u->stack_copy = NULL;
    unwind_batch_free(u);
    u->codes = NULL;
    u->tstat = NULL;
    u->threads = NULL;
}

/* Read a frame from the stack copy when it lies inside, else remotely. */
static int read_frame(unwinder *u, uint64_t addr, uint8_t *fr)
{
    uint64_t len = u->off.fr_size;
    if (addr >= u->copy_base && addr - u->copy_base <= u->copy_len &&
        len <= u->copy_len - (addr - u->copy_base)) {
        memcpy(fr, u->copy_data + (addr - u->copy_base), len);
        return RMEM_OK;
    }
    return rmem_read(u->pid, addr, fr, len);
}

int unwind_visit_frame(unwinder *u, const uint8_t *fr, raw_thread *t,
                       uint64_t *addr)
{
    const py_offsets *o = &u->off;
    int owner = fr[o->fr_owner];
    if (owner > o->owner_max)
        return RMEM_FAULT;
    *addr = u64_at(fr, o->fr_previous);
    /* A thread's outermost frame is never a generator's: a generator
     * frame without a caller has just yielded (YIELD_VALUE clears
     * `previous`) between our reads, so the stack is torn. */
    if (!*addr && owner == o->owner_generator)
        return RMEM_FAULT;
    if (owner == o->owner_cstack || t->depth >= UNWIND_MAX_DEPTH)
        return RMEM_OK;
    raw_frame *f = &t->frames[t->depth];
    f->code = u64_at(fr, o->fr_code);
    f->instr = u64_at(fr, o->fr_instr);
    if (!f->code || (f->code & 7))
        return RMEM_FAULT;
    /* 3.11/3.12 frames whose prev_instr is still before the first
     * instruction are being set up; CPython hides such incomplete frames
     * from its own frame views, and so does the recorder. */
    if (unwind_addrq(u, f) >= 0)
        t->depth++;
    return RMEM_OK;
}

int unwind_walk_frames(unwinder *u, uint64_t addr, raw_thread *t)
{
    uint8_t fr[FRAME_BUF];
    t->depth = 0;
    for (int steps = 0; addr && t->depth < UNWIND_MAX_DEPTH; steps++) {
        if (steps >= MAX_STEPS || (addr & 7))
            return RMEM_FAULT;
        int rc = read_frame(u, addr, fr);
        if (rc == RMEM_OK)
            rc = unwind_visit_frame(u, fr, t, &addr);
        if (rc != RMEM_OK)
            return rc;
    }
    return RMEM_OK;
}

/* Read the heads of all frames' code objects (batched) and resolve them
 * through the cache. */
static int resolve_codes(unwinder *u, raw_thread *t)
{
    enum { BATCH = 32 };
    size_t hl = code_head_len(&u->off);
    uint8_t heads[BATCH][256];
    rmem_piece pieces[BATCH];
    if (hl > sizeof heads[0])
        return RMEM_OTHER;
    for (uint32_t base = 0; base < t->depth; base += BATCH) {
        uint32_t n = t->depth - base < BATCH ? t->depth - base : BATCH;
        for (uint32_t i = 0; i < n; i++)
            pieces[i] = (rmem_piece){t->frames[base + i].code, heads[i], hl};
        int rc = rmem_readv(u->pid, pieces, n);
        for (uint32_t i = 0; rc == RMEM_OK && i < n; i++)
            rc = code_cache_get(u->codes, u->pid, &u->off, u->code_type,
                                t->frames[base + i].code, heads[i],
                                &t->frames[base + i].entry);
        if (rc != RMEM_OK)
            return rc;
    }
    return RMEM_OK;
}

/*
 * From a thread state held in `ts`: the innermost frame pointer (behind
 * _PyCFrame in 3.11/3.12) and a copy of the used top of the frame stack,
 * fetched together in one batched read.
 */
static int top_frame(unwinder *u, const uint8_t *ts, uint64_t *out)
{
    const py_offsets *o = &u->off;
    rmem_piece p[2];
    size_t n = 0;
    uint64_t chunk = u64_at(ts, o->ts_datastack_chunk);
    uint64_t top = u64_at(ts, o->ts_datastack_top);
    u->copy_len = 0;
    u->copy_data = u->stack_copy;
    *out = 0;
    if (o->ts_cframe == PYOFF_NONE) {
        *out = u64_at(ts, o->ts_current_frame);
    } else {
        uint64_t cframe = u64_at(ts, o->ts_cframe);
        if (!cframe)
            return RMEM_OK;
        p[n++] = (rmem_piece){cframe + o->ts_current_frame, out, 8};
    }
    if (chunk && top > chunk && top - chunk < (1ull << 32)) {
        uint64_t len = top - chunk;
        u->copy_len = len < UNWIND_STACK_COPY ? len : UNWIND_STACK_COPY;
        u->copy_base = top - u->copy_len;
        p[n++] = (rmem_piece){u->copy_base, u->stack_copy, u->copy_len};
    }
    int rc = n ? rmem_readv(u->pid, p, n) : RMEM_OK;
    if (rc != RMEM_OK)
        u->copy_len = 0;
    return rc;
}

uint8_t unwind_thread_status(unwinder *u, uint64_t tstate, uint64_t tid,
                             uint64_t gil_holder)
{
    uint8_t status = 0;
    if (gil_holder && gil_holder == tstate)
        status |= TFMT_STATUS_HAS_GIL;
    if (tid == (uint64_t)u->pid)
        status |= TFMT_STATUS_MAIN_THREAD;
    int cpu = tstat_on_cpu(u->tstat, tid);
    if (cpu > 0)
        status |= TFMT_STATUS_ON_CPU;
    else if (cpu < 0)
        status |= TFMT_STATUS_UNKNOWN;
    return status;
}

/* Read the thread state at `tstate` and walk its frames into `t`. */
static int walk_thread(unwinder *u, uint64_t tstate, raw_thread *t,
                       uint64_t *next)
{
    uint8_t ts[TSTATE_BUF];
    uint64_t frame;
    int rc = rmem_read(u->pid, tstate, ts, u->off.ts_size);
    if (rc == RMEM_OK)
        rc = top_frame(u, ts, &frame);
    if (rc != RMEM_OK)
        return rc;
    *next = u64_at(ts, u->off.ts_next);
    t->tid = u64_at(ts, u->off.ts_native_tid);
    rc = unwind_walk_frames(u, frame, t);
    return rc == RMEM_OK ? resolve_codes(u, t) : rc;
}

/*
 * Sample the thread state at `tstate`; *next gets the next one. A walk
 * that raced with the thread (a frame changed between two reads) is
 * retried at once, so a busy generator does not cost most samples.
 */
static int sample_thread(unwinder *u, uint64_t tstate, uint32_t interp_id,
                         uint64_t gil_holder, uint64_t *next)
{
    enum { ATTEMPTS = 3 };
    if (u->nthreads >= UNWIND_MAX_THREADS) {
        *next = 0;      /* keep the first threads; bounds a looped list */
        return RMEM_OK;
    }
    if (tstate & 7)
        return RMEM_FAULT;
    raw_thread *t = &u->threads[u->nthreads];
    int rc = RMEM_FAULT;
    for (int i = 0; i < ATTEMPTS && rc == RMEM_FAULT; i++)
        rc = walk_thread(u, tstate, t, next);
    if (rc != RMEM_OK)
        return rc;
    if (t->tid == 0)
        return RMEM_OK;     /* not bound to an OS thread yet (start-up) */
    t->interp_id = interp_id;
    t->tstate = tstate;
    t->status = unwind_thread_status(u, tstate, t->tid, gil_holder);
    u->nthreads++;
    return RMEM_OK;
}

/* The thread state holding the GIL at `gil`, or 0 when it is free. */
static int gil_holder_at(unwinder *u, uint64_t gil, uint64_t *out)
{
    const py_offsets *o = &u->off;
    int32_t locked;
    *out = 0;
    if (!gil)
        return RMEM_OK;
    rmem_piece p[2] = {{gil + o->gil_locked, &locked, 4},
                       {gil + o->gil_holder, out, 8}};
    int rc = rmem_readv(u->pid, p, 2);
    if (rc == RMEM_OK && locked != 1)
        *out = 0;
    return rc;
}

/* Sample one interpreter's threads; *next gets the next interpreter. The
 * GIL lives in the runtime in 3.11 and behind interp->ceval.gil after. */
static int sample_interp(unwinder *u, uint64_t interp, uint64_t *next)
{
    const py_offsets *o = &u->off;
    uint64_t head, id, holder, gil = u->runtime + o->rt_gil;
    rmem_piece p[4] = {{interp + o->is_threads_head, &head, 8},
                       {interp + o->is_id, &id, 8},
                       {interp + o->is_next, next, 8},
                       {interp + o->is_gil_ptr, &gil, 8}};
    int rc = rmem_readv(u->pid, p, o->rt_gil == PYOFF_NONE ? 4 : 3);
    if (rc == RMEM_OK)
        rc = gil_holder_at(u, gil, &holder);
    if (rc != RMEM_OK)
        return rc;
    if (!u->all_threads) {
        uint64_t unused;
        return holder ? sample_thread(u, holder, (uint32_t)id, holder,
                                      &unused) : RMEM_OK;
    }
    uint32_t mark = u->nthreads;
    if (interp == u->last_interp &&
        unwind_batched(u, head, (uint32_t)id, holder) == RMEM_OK)
        return RMEM_OK;
    /* One thread at a time, remembering the list for the batched path. */
    u->nthreads = mark;
    u->last_interp = interp;
    u->last_gil = gil;
    u->last_count = 0;
    for (uint64_t ts = head; ts && rc == RMEM_OK;) {
        if (u->last_count < UNWIND_MAX_THREADS)
            u->last_tstates[u->last_count++] = ts;
        rc = sample_thread(u, ts, (uint32_t)id, holder, &ts);
    }
    if (rc != RMEM_OK)
        u->last_count = 0;
    return rc;
}

int unwind_sample(unwinder *u)
{
    uint64_t interp;
    int i;
    u->nthreads = 0;
    code_cache_maintain(u->codes);
    if (u->all_threads && unwind_speculative(u) == RMEM_OK)
        return RMEM_OK;
    u->nthreads = 0;
    int rc = rmem_read_u64(u->pid, u->runtime + u->off.rt_interpreters_head,
                           &interp);
    for (i = 0; interp && rc == RMEM_OK; i++) {
        if (i >= UNWIND_MAX_INTERPS || (interp & 7))
            return RMEM_FAULT;
        rc = sample_interp(u, interp, &interp);
    }
    u->single_interp = rc == RMEM_OK && i == 1;
    return rc;
}

int64_t unwind_addrq(const unwinder *u, const raw_frame *f)
{
    uint64_t first = f->code + u->off.co_code_adaptive;
    return ((int64_t)(f->instr - first)) / 2;
}
