/* SPDX-License-Identifier: MIT */
/*
 * unwind.c - one sample of a live CPython 3.11-3.14 process, without
 * stopping it: list the threads (unwind_list.c), keep those the options
 * ask for (the main thread or all; the mode's status), walk and check
 * their frame chains (unwind_walk.c), resolve code objects (unwind_code.c)
 * and add the synthetic <GC> frame. Every pointer read may be stale, so
 * every step checks what it reads; a sample with a failed check is dropped
 * whole rather than written torn.
 */
#include "unwind.h"

#include <stdlib.h>
#include <string.h>

#include <tachyon/fmt.h>

#include "async.h"
#include "async_offsets.h"
#include "remote_mem.h"
#include "thread_pause.h"

uint64_t unwind_u64(const uint8_t *p, uint64_t off)
{
    uint64_t v;
    memcpy(&v, p + off, 8);
    return v;
}

/*
 * The instructions at which a frame calls a Python function directly,
 * without C code between: the variants of these (by the version's opcode
 * table), and the opaque ones (instrumented lines, executors) which may
 * stand for any of them. EXIT_INIT_CHECK is the shim below __init__.
 */
/* Set the bit of every opcode whose base instruction is named in
 * `names`; all bits when the version's table is not known. */
static void opcode_set(const unwinder *u, const char *const *names, size_t n,
                       uint8_t *bits)
{
    unsigned major = u->hexversion >> 24;
    unsigned minor = (u->hexversion >> 16) & 0xff;
    bool known = tfmt_opcode_name(major, minor, 0) != NULL;
    memset(bits, known ? 0 : 0xff, 32);
    for (unsigned op = 0; known && op < 256; op++) {
        const char *base =
            tfmt_opcode_name(major, minor, tfmt_opcode_base(major, minor, op));
        for (size_t i = 0; base && i < n; i++)
            if (strcmp(base, names[i]) == 0)
                bits[op >> 3] |= (uint8_t)(1u << (op & 7));
    }
}

static void init_call_sites(unwinder *u)
{
    static const char *const sites[] = {"CALL",
                                        "CALL_KW",
                                        "CALL_FUNCTION_EX",
                                        "PRECALL",
                                        "SEND",
                                        "FOR_ITER",
                                        "BINARY_SUBSCR",
                                        "BINARY_OP",
                                        "LOAD_ATTR",
                                        "LOAD_SUPER_ATTR",
                                        "EXIT_INIT_CHECK",
                                        "INSTRUMENTED_CALL",
                                        "INSTRUMENTED_CALL_KW",
                                        "INSTRUMENTED_CALL_FUNCTION_EX",
                                        "INSTRUMENTED_FOR_ITER",
                                        "INSTRUMENTED_LOAD_SUPER_ATTR",
                                        "INSTRUMENTED_LINE",
                                        "INSTRUMENTED_INSTRUCTION",
                                        "ENTER_EXECUTOR"};
    static const char *const returns[] = {"RETURN_VALUE", "RETURN_CONST",
                                          "INSTRUMENTED_RETURN_VALUE",
                                          "INSTRUMENTED_RETURN_CONST"};
    opcode_set(u, sites, sizeof sites / sizeof *sites, u->call_sites);
    opcode_set(u, returns, sizeof returns / sizeof *returns, u->return_sites);
    if (u->return_sites[0] == 0xff)
        memset(u->return_sites, 0, sizeof u->return_sites);
}

int unwind_init(unwinder *u)
{
    init_call_sites(u);
    u->ts_read = u->off.ts_size;
    u->ts_stride = u->off.ts_size + (u->cfg.async_mode ? ASYNC_TS_EXTRA : 0);
    u->walk_task_off = PYOFF_NONE;
    if (u->cfg.async_mode)
        u->as = async_new((async_mode)u->cfg.async_mode);
    u->codes = code_cache_new(u->hexversion);
    u->tstat = tstat_new(u->pid);
    u->threads = calloc(UNWIND_MAX_THREADS, sizeof *u->threads);
    u->listed = calloc(UNWIND_MAX_THREADS, sizeof *u->listed);
    u->ts_bufs = malloc((size_t)UNWIND_MAX_THREADS * u->ts_stride);
    u->jobs = calloc(UNWIND_MAX_THREADS, sizeof *u->jobs);
    u->extras = calloc(UNWIND_EXTRA_MEMO, sizeof *u->extras);
    u->arena = malloc(UNWIND_ARENA);
    if (!u->codes || !u->tstat || !u->threads || !u->listed || !u->ts_bufs ||
        !u->jobs || !u->extras || !u->arena || (u->cfg.async_mode && !u->as) ||
        u->off.fr_size > UNWIND_FRAME_BUF) {
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
    free(u->listed);
    free(u->ts_bufs);
    free(u->jobs);
    free(u->extras);
    free(u->arena);
    async_free(u->as);
    u->as = NULL;
    u->codes = NULL;
    u->tstat = NULL;
    u->threads = NULL;
    u->listed = NULL;
    u->ts_bufs = NULL;
    u->jobs = NULL;
    u->extras = NULL;
    u->arena = NULL;
}

/* Whether the mode keeps a thread with this status. */
static bool mode_keeps(unwind_mode mode, uint8_t status)
{
    switch (mode) {
    case UNWIND_MODE_CPU: return status & TFMT_STATUS_ON_CPU;
    case UNWIND_MODE_GIL: return status & TFMT_STATUS_HAS_GIL;
    case UNWIND_MODE_EXCEPTION: return status & TFMT_STATUS_HAS_EXCEPTION;
    default: return true;
    }
}

/* Whether a thread state listed after `i` has the same thread id: a new
 * thread's state carries its creator's id until the thread starts (3.11),
 * and new states are listed first, so the last one is the real one. */
static bool shadowed(const unwinder *u, uint32_t i, uint64_t tid)
{
    for (uint32_t k = i + 1; k < u->nlisted; k++)
        if (unwind_u64(u->listed[k].ts, u->off.ts_native_tid) == tid)
            return true;
    return false;
}

/* The native id of listed thread i if it is to be sampled, else 0. */
static uint64_t eligible(const unwinder *u, uint32_t i)
{
    uint64_t tid = unwind_u64(u->listed[i].ts, u->off.ts_native_tid);
    if (tid == 0 || shadowed(u, i, tid))
        return 0; /* not bound to its OS thread yet (start-up) */
    if (u->as ? !async_runs_task(u, &u->listed[i])
              : !u->cfg.all_threads && tid != (uint64_t)u->pid)
        return 0;
    return tid;
}

/*
 * The statuses of the eligible threads not read yet (done[i] false), or,
 * with `skip_held`, of those not asked to stop; done[] records each read.
 */
static int read_statuses(unwinder *u, bool skip_held, uint8_t *status,
                         bool *done)
{
    for (uint32_t i = 0; i < u->nlisted; i++) {
        uint64_t tid = eligible(u, i);
        if (!tid || done[i] || (skip_held && unwind_held(u, tid)))
            continue;
        int rc = unwind_status(u, &u->listed[i], tid, &status[i]);
        if (rc != RMEM_OK)
            return rc;
        done[i] = true;
    }
    return RMEM_OK;
}

/*
 * Choose the threads to walk and set up their jobs (*count of them).
 * Threads that ran at the last sample are asked to stop first, and their
 * statuses read once they have (unwind_hold.c). The second reading takes
 * every thread the first left, held or not: a thread whose stop failed is
 * no longer held by then, and reading only the held ones left its status
 * from an earlier sample (a main thread without its MAIN_THREAD bit, seen
 * by record.*.threads).
 */
static int select_threads(unwinder *u, uint32_t *count)
{
    static uint8_t status[UNWIND_MAX_THREADS];
    static bool done[UNWIND_MAX_THREADS];
    uint32_t n = 0;
    memset(done, 0, u->nlisted * sizeof *done);
    unwind_hold_ask(u);
    int rc = read_statuses(u, true, status, done);
    if (rc == RMEM_OK)
        rc = unwind_hold_wait(u);
    if (rc == RMEM_OK)
        rc = read_statuses(u, false, status, done);
    for (uint32_t i = 0; rc == RMEM_OK && i < u->nlisted; i++) {
        const listed_thread *l = &u->listed[i];
        uint64_t tid = eligible(u, i);
        if (!tid || !mode_keeps(u->cfg.mode, status[i]))
            continue;
        raw_thread *t = &u->threads[n];
        t->tstate = l->tstate;
        t->tid = tid;
        t->interp_id = l->interp_id;
        t->status = status[i];
        t->depth = 0;
        t->cut = false;
        t->task = 0;
        u->jobs[n] =
            (walk_job){.listed = i, .t = t, .held = unwind_held(u, tid)};
        n++;
    }
    *count = n;
    return rc;
}

/*
 * <GC> goes innermost on the thread holding the GIL (free-threaded: the
 * one attached, as the collector stops the others) while its
 * interpreter's collector runs: 3.11-3.14 do not record the frame that
 * started the collection (3.15 does, and CPython puts <GC> there).
 */
static void add_gc_frames(unwinder *u)
{
    for (uint32_t i = 0; i < u->nthreads; i++) {
        raw_thread *t = &u->threads[i];
        const listed_thread *l = &u->listed[u->jobs[i].listed];
        /* No Python frame, no <GC>: CPython puts it above the frame that
         * started the collection. */
        if (!l->gc_running || !(t->status & TFMT_STATUS_HAS_GIL) ||
            t->depth == 0)
            continue;
        uint32_t keep =
            t->depth < UNWIND_MAX_DEPTH ? t->depth : UNWIND_MAX_DEPTH - 1;
        memmove(&t->frames[1], &t->frames[0], keep * sizeof t->frames[0]);
        t->frames[0] = (raw_frame){.kind = FRAME_GC, .opcode = 255};
        t->depth = keep + 1;
    }
}

/*
 * --async-aware: find asyncio first (the thread state copies then reach
 * its fields); "all" needs no thread walked, "running" walks the threads
 * that run a task, reading the task in each walk's window.
 */
static void async_prepare(unwinder *u, bool *walk)
{
    bool found = async_begin(u);
    *walk = found && async_get_mode(u->as) == ASYNC_MODE_RUNNING;
    u->walk_task_off = *walk ? async_running_task_offset(u->as) : PYOFF_NONE;
}

/* The threads to walk, walked and resolved, with <GC> frames. */
static int sample_threads(unwinder *u)
{
    uint32_t n = 0;
    int rc = select_threads(u, &n);
    /* A thread stopped late must not stay stopped; those held again were
     * taken over by select_threads (unwind_hold.c). */
    thread_pause_tidy();
    if (rc == RMEM_OK)
        rc = unwind_walk(u, u->jobs, n);
    unwind_hold_release(u);
    if (rc == RMEM_OK)
        unwind_hold_note(u, u->jobs, n);
    if (rc == RMEM_OK) {
        u->nthreads = n;
        rc = unwind_resolve(u);
    }
    if (rc == RMEM_OK && u->cfg.gc)
        add_gc_frames(u);
    return rc;
}

int unwind_sample(unwinder *u)
{
    uint64_t reads0 = rmem_calls();
    bool walk = true;
    u->nthreads = u->nstacks = 0;
    code_cache_maintain(u->codes);
    if (u->as)
        async_prepare(u, &walk);
    int rc = unwind_list(u);
    if (rc == RMEM_OK && walk)
        rc = sample_threads(u);
    else /* every tick: a thread stopped late must not stay stopped */
        thread_pause_tidy();
    if (rc == RMEM_OK && u->as)
        rc = async_sample(u);
    u->counters.reads += rmem_calls() - reads0;
    if (rc != RMEM_OK)
        u->nthreads = 0;
    else
        u->nstacks = u->as ? async_nstacks(u->as) : u->nthreads;
    return rc;
}

int64_t unwind_addrq(const unwinder *u, const raw_frame *f)
{
    (void)u;
    if (!f->base)
        return -1; /* a free-threaded copy not found: never inside */
    return ((int64_t)(f->instr - f->base)) / 2;
}
