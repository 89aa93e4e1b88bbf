/*
 * unwind.h - one sample of a CPython process: its threads and, for each,
 * the Python frames innermost first, resolved to cached code objects.
 */
#ifndef TREC_UNWIND_H
#define TREC_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "code_cache.h"
#include "py_offsets.h"
#include "thread_status.h"

#define UNWIND_MAX_DEPTH 256        /* the binary format keeps 256 */
#define UNWIND_MAX_THREADS 256
#define UNWIND_MAX_INTERPS 64
#define UNWIND_STACK_COPY (64u << 10)
#define UNWIND_BATCH_ARENA (1u << 20)

typedef struct raw_frame {
    uint64_t code;
    uint64_t instr;             /* prev_instr / instr_ptr */
    code_entry *entry;
} raw_frame;

typedef struct raw_thread {
    uint64_t tstate;            /* address of its PyThreadState */
    uint64_t tid;               /* native thread id */
    uint32_t interp_id;
    uint8_t status;             /* TFMT_STATUS_* bits */
    uint32_t depth;
    raw_frame frames[UNWIND_MAX_DEPTH];     /* innermost first */
} raw_thread;

typedef struct unwinder {
    pid_t pid;
    py_offsets off;
    uint64_t runtime;
    uint64_t code_type;
    bool all_threads;
    code_cache *codes;
    tstat_cache *tstat;
    raw_thread *threads;        /* UNWIND_MAX_THREADS */
    /* The used top of the current thread's frame stack, copied in one
     * read so most frames need no read of their own. copy_data points
     * into stack_copy or into the batched path's arena. */
    uint8_t *stack_copy;        /* UNWIND_STACK_COPY bytes */
    const uint8_t *copy_data;
    uint64_t copy_base, copy_len;
    uint32_t nthreads;          /* filled by unwind_sample */
    /* The batched path (unwind_batch.c): the interpreter and thread
     * states walked last time, and buffers for reading them together. */
    uint64_t last_interp;
    uint64_t last_gil;          /* its GIL state */
    bool single_interp;         /* it was the only interpreter */
    uint64_t *last_tstates;     /* UNWIND_MAX_THREADS */
    uint32_t last_count;
    struct batch_thread *batch; /* UNWIND_MAX_THREADS */
    uint8_t *ts_bufs;           /* UNWIND_MAX_THREADS thread states */
    uint8_t *arena;             /* UNWIND_BATCH_ARENA of stack copies */
} unwinder;

/* Set up `u` (offsets and addresses already filled in). 0 or -1. */
int unwind_init(unwinder *u);
void unwind_free(unwinder *u);

/*
 * Take one sample into u->threads/u->nthreads. Returns RMEM_OK, or the
 * remote_mem status of the first failed read or check; a failed sample
 * must be dropped whole (it may be torn).
 */
int unwind_sample(unwinder *u);

/* The code-unit index of a frame's instruction (may be negative). */
int64_t unwind_addrq(const unwinder *u, const raw_frame *f);

#endif
