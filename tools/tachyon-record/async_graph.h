/* SPDX-License-Identifier: MIT */
/*
 * async_graph.h - between the async_*.c files: one sample's task graph
 * and the state kept from one sample to the next. Everything read from
 * the target is a copy taken in batched reads (one system call per 1024
 * pieces), round by round: a graph of 10,000 tasks costs tens of system
 * calls, not tens of thousands.
 */
#ifndef TREC_ASYNC_GRAPH_H
#define TREC_ASYNC_GRAPH_H

#include "async.h"
#include "async_offsets.h"
#include "remote_mem.h"

#define ASYNC_NONE UINT32_MAX
/* Coroutine frames per task at most, and in all. */
#define ASYNC_MAX_CHAIN UNWIND_MAX_DEPTH
#define ASYNC_MAX_FRAMES (4u * ASYNC_MAX_TASKS)
/* Characters of a task name kept (CPython's reader refuses longer). */
#define ASYNC_NAME_CHARS 255u
/* Pieces per batched read (the kernel's IOV_MAX). */
#define ASYNC_BATCH 1024u

typedef struct async_task {
    uint64_t addr;
    uint64_t tid; /* thread whose stack it is in; 0: interpreter's */
    uint32_t interp_id;
    uint32_t thread; /* running mode: its thread in u->threads */
    uint32_t copy;   /* its object in the copies, or ASYNC_NONE */
    uint64_t name_obj, coro, awaited_by;
    bool ab_set;  /* awaited_by is a set, not one task */
    bool is_task; /* a Task (an awaiter may be a bare Future) */
    bool running; /* its thread's running task */
    bool awaits;  /* some task of the graph awaits it: no leaf */
    uint8_t status;
    uint32_t nparents;           /* tasks awaiting it */
    uint64_t parent;             /* the lowest of them, 0: none */
    uint32_t parent_idx;         /* that one in the graph, or ASYNC_NONE */
    uint32_t name_off, name_len; /* its <task> frame's name in names */
    uint32_t frame0, nframes;    /* coroutine frames, innermost first */
} async_task;

/* Copies of task objects (their span of fields), by address. */
typedef struct async_copies {
    uint64_t *addr;
    uint8_t *buf; /* span bytes each */
    uint32_t n, cap;
    uint32_t *slots; /* open addressing: index + 1, 0 empty */
    uint32_t nslots;
} async_copies;

struct async_state {
    async_mode mode;
    bool found;
    bool bad; /* its layout cannot be right: error says why */
    char error[256];
    async_offsets off;
    uint64_t next_look_ns;
    /* the sample */
    async_task *tasks;
    uint32_t ntasks, tasks_cap;
    uint32_t *index; /* open addressing over tasks: index + 1 */
    uint32_t nindex;
    raw_frame *frames;
    uint32_t nframes, frames_cap;
    char *names;
    size_t names_len, names_cap;
    uint32_t *leaves;
    uint32_t nleaves, leaves_cap;
    bool truncated;
    const raw_thread *threads; /* running mode: the walked threads */
    async_copies copies;
    /* kept between samples: the tasks listed last time, read first */
    uint64_t *memo;
    uint32_t nmemo, memo_cap;
    /* type address -> what a name of that type is, learnt once */
    uint64_t type_addr[16];
    uint8_t type_kind[16];
    uint32_t ntypes;
    /* scratch of async_names.c, kept to be reused */
    void *name_jobs;
    size_t name_jobs_cap;
    uint8_t *name_data;
    size_t name_data_cap;
    async_counters counters;
};

/* --- async_store.c: the sample's storage --- */

/* Empty the graph for a new sample. */
void async_reset(async_state *a);

/* Task `addr` in the graph, added if new (tid, interp_id set then);
 * ASYNC_NONE when the graph is full (a->truncated set) or out of memory
 * (*oom set). */
uint32_t async_add_task(async_state *a, uint64_t addr, uint64_t tid,
                        uint32_t interp_id, bool *oom);
uint32_t async_find_task(const async_state *a, uint64_t addr);

/* A copy of `len` bytes for the object at `addr`: its buffer, to be
 * filled; NULL when out of memory. *idx gets its index. */
uint8_t *async_copy_new(async_copies *c, uint64_t addr, size_t len,
                        uint32_t *idx);
uint32_t async_copy_find(const async_copies *c, uint64_t addr);
void async_copies_reset(async_copies *c);
void async_copies_free(async_copies *c);
uint8_t *async_copy_buf(const async_copies *c, uint32_t idx, size_t len);

/* Room for one more frame in the pool; NULL when full or out of memory. */
raw_frame *async_frame_new(async_state *a, uint32_t *idx);

/* Append a name to the names; 0 or -1 (too long in all, out of memory). */
int async_name_put(async_state *a, const char *s, size_t len, uint32_t *off);

/* Read `n` pieces, ASYNC_BATCH per system call; counts a round. */
int async_read(unwinder *u, const rmem_piece *p, size_t n);

/* --- async_list.c: the task lists (mode "all") --- */

/* Every thread's list and every interpreter's, into the graph in list
 * order, each task's object copied. */
int async_lists(unwinder *u);

/* --- async_tasks.c: from task objects to the graph --- */

/* Read the objects of the tasks added without one (running mode), and
 * take each task's fields from its copy. */
int async_load_tasks(unwinder *u);

/* Each task's awaiters (one task, or a set of them): parents, leaves;
 * with `follow`, awaiters not in the graph are added (running mode). */
int async_awaiters(unwinder *u, bool follow);

/* --- async_names.c --- */

/* The name of every task (an int n is "Task-n", as CPython shows it). */
int async_names(unwinder *u);

/* --- async_coro.c --- */

/* Each task's coroutine chain (skipping `skip_running` tasks' own, whose
 * frames come from their thread), resolved to code objects. */
int async_coros(unwinder *u, bool skip_running);

/* --- async_stacks.c --- */

/* The leaves of the graph, in task order. */
int async_find_leaves(async_state *a);

#endif
