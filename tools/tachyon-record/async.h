/* SPDX-License-Identifier: MIT */
/*
 * async.h - --async-aware: a sample of asyncio tasks instead of threads,
 * with the meaning CPython 3.15's profiler gives it
 * (Lib/profiling/sampling/collector.py, iter_async_frames). One stack per
 * leaf task (a task no other task of the sample awaits): its coroutine
 * frames innermost first, then a <task> frame naming it, then the frames
 * of the task awaiting it, its <task> frame, and so on to a task nobody
 * awaits. A task awaited by several takes the awaiter at the lowest
 * address, and its <task> frame says "NAME (N parents)".
 *
 *   running  each thread's running task, its thread's frames down to the
 *            task's own coroutine frame, then its awaiters
 *            (RemoteUnwinder.get_async_stack_trace);
 *   all      every task of every thread's list and the interpreter's,
 *            suspended ones by their coroutine chains (what they await,
 *            while that is a coroutine: get_all_awaited_by).
 *
 * A <task> frame is an ordinary frame: file "<task>", function the
 * task's name, no location, no opcode.
 */
#ifndef TREC_ASYNC_H
#define TREC_ASYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind.h"

typedef enum {
    ASYNC_MODE_OFF = 0,
    ASYNC_MODE_RUNNING = 1,
    ASYNC_MODE_ALL = 2
} async_mode;

/* Tasks read per sample at most, over all lists (CPython's reader stops
 * a list at 65536); the rest of a larger graph is not read and the
 * sample says so (async_counters.truncated). */
#define ASYNC_MAX_TASKS 65536u

/* One frame of a task stack: a Python frame, or (f NULL) the <task>
 * frame of task number `task`. */
typedef struct async_frame {
    const raw_frame *f;
    uint32_t task;
} async_frame;

/* One task stack, innermost first. */
typedef struct async_stack {
    uint64_t tid;       /* the leaf's thread (0: the interpreter's list) */
    uint32_t interp_id; /* its interpreter */
    uint8_t status;     /* the thread's status if the leaf runs on it */
    uint64_t leaf;      /* the leaf task's address (its id) */
    uint32_t depth;
    async_frame frames[UNWIND_MAX_DEPTH];
} async_stack;

/* What the run saw, for -v and the warnings. */
typedef struct async_counters {
    uint64_t samples;   /* samples taken with asyncio found */
    uint64_t unloaded;  /* samples before asyncio was imported */
    uint64_t truncated; /* samples with more tasks than were read */
    uint64_t tasks;     /* tasks read, all samples */
    uint64_t stacks;    /* task stacks, all samples */
    uint64_t max_tasks; /* most tasks in one sample */
    uint64_t rounds;    /* batched reads of task memory */
    uint64_t retried;   /* walks of all tasks redone in the same tick */
} async_counters;

typedef struct async_state async_state;

/* A state for `mode` (not OFF); NULL when out of memory. */
async_state *async_new(async_mode mode);
void async_free(async_state *a);
async_mode async_get_mode(const async_state *a);

/*
 * Before a sample's threads are listed: find the target's asyncio (its
 * AsyncioDebug section) if it is not found yet, looking at most every
 * 100 ms. Returns whether it is there: a process that has not imported
 * asyncio has no tasks, nor has one whose asyncio layout cannot be right
 * (async_error says why).
 */
bool async_begin(unwinder *u);

/* Why the target's asyncio cannot be read, or NULL. */
const char *async_error(const async_state *a);

/* The file asyncio's layout came from, or NULL before it was found. */
const char *async_where(const async_state *a);

/* The offset of a thread state's running task (found asyncio only). */
uint64_t async_running_task_offset(const async_state *a);

/* Whether listed thread `l`'s copy says it runs a task now. */
bool async_runs_task(const unwinder *u, const listed_thread *l);

/*
 * Take the sample's task graph: after the listing ("all": every list;
 * "running": after the walk of the threads running a task, whose frames
 * are cut at the task's coroutine frame). Returns a remote_mem status;
 * RMEM_FAULT for a graph that changed while it was read.
 */
int async_sample(unwinder *u);

/* Task stacks of the last sample, and stack `i` of them. */
uint32_t async_nstacks(const async_state *a);
void async_stack_get(const async_state *a, uint32_t i, async_stack *out);

/* The name task `task`'s <task> frame shows (UTF-8, NUL-terminated). */
const char *async_task_name(const async_state *a, uint32_t task, size_t *len);

/* The address (id) of task `task`. */
uint64_t async_task_addr(const async_state *a, uint32_t task);

const async_counters *async_get_counters(const async_state *a);

#endif
