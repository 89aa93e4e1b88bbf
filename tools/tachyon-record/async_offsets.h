/* SPDX-License-Identifier: MIT */
/*
 * async_offsets.h - where asyncio keeps its tasks in a CPython 3.14 (or,
 * untested, 3.15) process: the _asyncio module's AsyncioDebug section
 * (the Task object's fields, the per-thread and per-interpreter task
 * lists, each thread's running loop and task) plus the few words of
 * _Py_DebugOffsets a task graph needs that the stack walker does not
 * (coroutine objects, list nodes, int and set objects, type flags).
 */
#ifndef TREC_ASYNC_OFFSETS_H
#define TREC_ASYNC_OFFSETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "py_offsets.h"

/* The AsyncioDebug section: 13 u64 words in 3.14 and 3.15. */
#define ASYNC_SECTION_WORDS 13

/* The asyncio fields of a thread state lie just past PyThreadState (in
 * _PyThreadStateImpl); a thread state copy reaches this far beyond it. */
#define ASYNC_TS_EXTRA 512u

typedef struct async_offsets {
    /* TaskObj */
    uint64_t task_size;
    uint64_t task_name, task_awaited_by, task_is_task;
    uint64_t task_awaited_by_is_set, task_coro, task_node;
    uint64_t task_lo, task_hi; /* the span holding those fields */
    /* the task lists: PyInterpreterState, _PyThreadStateImpl */
    uint64_t interp_tasks_head;
    uint64_t ts_running_loop, ts_running_task, ts_tasks_head;
    uint64_t ts_end; /* end of those fields in a thread state */
    /* from _Py_DebugOffsets */
    uint64_t rt_interp_head, is_next, is_id;
    uint64_t llist_next, llist_prev;
    uint64_t gen_size, gen_iframe, gen_frame_state;
    uint64_t fr_stackpointer, fr_localsplus;
    uint64_t type_size, type_flags;
    uint64_t long_size, long_tag, long_digit;
    uint64_t set_size, set_used, set_table, set_mask;
    /* A coroutine suspended in `await` keeps what it awaits this many
     * words below its frame's stack pointer (3.14: 1, 3.15: 2). */
    unsigned yield_from_words;
    char where[512]; /* the file whose section it is */
} async_offsets;

/*
 * Whether `hexversion` can be read with --async-aware; 0, or -1 with a
 * message naming the version (3.11-3.13 publish no task layout).
 */
int async_version_check(uint32_t hexversion, bool untested, char *msg,
                        size_t msg_len);

/* async_offsets_load's results. */
enum {
    ASYNC_FOUND = 0,
    ASYNC_NOT_LOADED = 1, /* no _asyncio module mapped (yet) */
    ASYNC_BAD = -1        /* a section or table that cannot be right */
};

/*
 * Find the target's AsyncioDebug section (in a mapped file whose name
 * contains "_asyncio" or "python"), read and check it, and take the rest
 * from the target's _Py_DebugOffsets at `runtime` (`runtime_size` bytes),
 * whose thread states `off` describes. Returns ASYNC_FOUND,
 * ASYNC_NOT_LOADED, or ASYNC_BAD with a message in `msg`.
 */
int async_offsets_load(pid_t pid, uint32_t hexversion, uint64_t runtime,
                       uint64_t runtime_size, const py_offsets *off,
                       async_offsets *out, char *msg, size_t msg_len);

/*
 * Fill `out` from the section's 13 words and the words of a
 * _Py_DebugOffsets table of 3.`minor` (`table`, as many words as that
 * version's table has) and check every offset against its struct's size.
 * 0, or -1 with a message. (async_offsets_load without the reads; for
 * the tests.)
 */
int async_offsets_fill(const uint64_t section[ASYNC_SECTION_WORDS],
                       unsigned minor, const uint64_t *table,
                       const py_offsets *off, async_offsets *out, char *msg,
                       size_t msg_len);

#endif
