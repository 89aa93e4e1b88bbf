/* SPDX-License-Identifier: MIT */
/*
 * async.c - one sample of asyncio tasks (async.h): find the target's
 * asyncio once it is imported, then per sample build the task graph
 * (async_list.c, async_tasks.c, async_names.c, async_coro.c) and hand out
 * its leaf stacks. In running mode the threads running a task were walked
 * first (unwind_walk.c, reading the running task in the same window), and
 * each one's frames are cut at its task's coroutine frame, found by
 * address (CPython 3.15's reader does the same: code objects are shared
 * by recursive coroutines, frames are not).
 */
#include "async.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tachyon/fmt.h>

#include "async_graph.h"

/* How often to look for asyncio in a process that has not imported it. */
#define LOOK_EVERY_NS (100 * 1000 * 1000ull)

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool async_begin(unwinder *u)
{
    async_state *a = u->as;
    uint64_t now = mono_ns();
    if (a->found || a->bad || (a->next_look_ns && now < a->next_look_ns))
        return a->found;
    a->next_look_ns = now + LOOK_EVERY_NS;
    int rc =
        async_offsets_load(u->pid, u->hexversion, u->runtime, u->runtime_size,
                           &u->off, &a->off, a->error, sizeof a->error);
    a->bad = rc == ASYNC_BAD;
    if (rc == ASYNC_FOUND) {
        a->found = true;
        /* thread state copies now reach the asyncio fields */
        if (a->off.ts_end > u->ts_read)
            u->ts_read = a->off.ts_end;
    }
    return a->found;
}

bool async_runs_task(const unwinder *u, const listed_thread *l)
{
    const async_state *a = u->as;
    return a && a->found && unwind_u64(l->ts, a->off.ts_running_loop) &&
           unwind_u64(l->ts, a->off.ts_running_task);
}

/* All mode: each thread's running task is marked, with its thread's
 * status; the others are suspended (only "main thread" applies). */
static int mark_running(unwinder *u)
{
    async_state *a = u->as;
    for (uint32_t i = 0; i < a->ntasks; i++)
        a->tasks[i].status =
            a->tasks[i].tid == (uint64_t)u->pid ? TFMT_STATUS_MAIN_THREAD : 0;
    for (uint32_t i = 0; i < u->nlisted; i++) {
        const listed_thread *l = &u->listed[i];
        if (!async_runs_task(u, l))
            continue;
        uint32_t k =
            async_find_task(a, unwind_u64(l->ts, a->off.ts_running_task));
        if (k == ASYNC_NONE)
            continue;
        uint64_t tid = unwind_u64(l->ts, u->off.ts_native_tid);
        int rc = unwind_status(u, l, tid, &a->tasks[k].status);
        if (rc != RMEM_OK)
            return rc;
        a->tasks[k].running = true;
    }
    return RMEM_OK;
}

static int sample_all(unwinder *u)
{
    int rc = async_lists(u);
    if (rc == RMEM_OK)
        rc = async_load_tasks(u);
    if (rc == RMEM_OK)
        rc = async_awaiters(u, false);
    if (rc == RMEM_OK)
        rc = mark_running(u);
    if (rc == RMEM_OK)
        rc = async_names(u);
    if (rc == RMEM_OK)
        rc = async_coros(u, false);
    return rc;
}

/* Running mode: cut each walked thread at its task's coroutine frame.
 * The task was read in the same window as the frames, so a thread whose
 * frames do not reach it is between two steps of the task (set as
 * running, its coroutine not entered yet or just left): its whole stack
 * is kept, as CPython's reader keeps it (walking to the first frame). */
static void cut_threads(unwinder *u)
{
    async_state *a = u->as;
    for (uint32_t i = 0; i < a->ntasks; i++) {
        const async_task *t = &a->tasks[i];
        if (t->thread == ASYNC_NONE)
            continue;
        raw_thread *th = &u->threads[t->thread];
        uint64_t frame = t->coro + a->off.gen_iframe;
        uint32_t k = 0;
        while (k < th->depth && th->frames[k].addr != frame)
            k++;
        if (k < th->depth)
            th->depth = k + 1;
    }
}

static int sample_running(unwinder *u)
{
    async_state *a = u->as;
    bool oom = false;
    for (uint32_t i = 0; i < u->nthreads; i++) {
        raw_thread *th = &u->threads[i];
        if (!th->task)
            continue; /* no task ran on it while it was read */
        uint32_t k = async_add_task(a, th->task, th->tid, th->interp_id, &oom);
        if (k == ASYNC_NONE)
            return oom ? RMEM_OTHER : RMEM_OK;
        a->tasks[k].running = true;
        a->tasks[k].thread = i;
        a->tasks[k].status = th->status;
    }
    int rc = async_awaiters(u, true);
    for (uint32_t i = 0; rc == RMEM_OK && i < a->ntasks; i++)
        if (a->tasks[i].running && !a->tasks[i].is_task)
            rc = RMEM_FAULT; /* a running "task" that is none */
    if (rc == RMEM_OK)
        rc = async_names(u);
    if (rc == RMEM_OK)
        rc = async_coros(u, true);
    if (rc == RMEM_OK)
        cut_threads(u);
    return rc;
}

/* Walks of the whole task graph redone in one tick when a list changed
 * while it was read. Thousands of tasks take milliseconds to read, and a
 * service that creates and ends tasks all the time (a free-threaded one
 * on a loaded machine most of all) changes some list during a good share
 * of those walks; the next walk reads mostly copies already made (only
 * new tasks are read), so it is short and usually clean. */
#define ASYNC_ALL_RETRIES 2

/* An empty graph for this tick's threads. */
static void start_graph(unwinder *u)
{
    async_reset(u->as);
    u->as->threads = u->threads;
}

static int sample_graph(unwinder *u)
{
    if (u->as->mode != ASYNC_MODE_ALL)
        return sample_running(u);
    int rc = sample_all(u);
    for (int i = 0; rc == RMEM_FAULT && i < ASYNC_ALL_RETRIES; i++) {
        u->as->counters.retried++;
        start_graph(u);
        rc = sample_all(u);
    }
    return rc;
}

int async_sample(unwinder *u)
{
    async_state *a = u->as;
    start_graph(u);
    if (!a->found) {
        a->counters.unloaded++;
        return RMEM_OK;
    }
    int rc = sample_graph(u);
    if (rc == RMEM_OK)
        rc = async_find_leaves(a) == 0 ? RMEM_OK : RMEM_OTHER;
    if (rc != RMEM_OK) {
        a->nleaves = 0;
        return rc;
    }
    async_counters *c = &a->counters;
    c->samples++;
    c->truncated += a->truncated;
    c->tasks += a->ntasks;
    c->stacks += a->nleaves;
    if (a->ntasks > c->max_tasks)
        c->max_tasks = a->ntasks;
    return RMEM_OK;
}
