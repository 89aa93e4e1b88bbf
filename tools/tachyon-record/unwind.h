/* SPDX-License-Identifier: MIT */
/*
 * unwind.h - one sample of a CPython process: its threads (all, or the
 * main thread), their status, and for each sampled thread its frames
 * innermost first, resolved to cached code objects. What is sampled
 * follows CPython 3.15's profiler: a mode keeps the threads that ran, hold
 * the GIL or handle an exception, and synthetic <GC> and <native> frames
 * may be added.
 */
#ifndef TREC_UNWIND_H
#define TREC_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "code_cache.h"
#include "py_offsets.h"
#include "remote_mem.h"
#include "thread_status.h"

#define UNWIND_MAX_DEPTH 256 /* the binary format keeps 256 */
#define UNWIND_MAX_THREADS 256
#define UNWIND_MAX_INTERPS 64
#define UNWIND_STACK_COPY (64u << 10)
#define UNWIND_ARENA (1u << 20)
#define UNWIND_FRAME_BUF 256
#define UNWIND_MAX_STEPS 4096 /* frames incl. skipped shims */

/* Profiling modes, numbered as CPython's PROFILING_MODE_*. */
typedef enum {
    UNWIND_MODE_WALL = 0,     /* every sampled thread */
    UNWIND_MODE_CPU = 1,      /* threads that ran (ON_CPU) */
    UNWIND_MODE_GIL = 2,      /* the thread holding the GIL */
    UNWIND_MODE_EXCEPTION = 4 /* threads handling an exception */
} unwind_mode;

typedef struct unwind_config {
    bool all_threads; /* else the main thread only */
    unwind_mode mode;
    bool gc;       /* <GC> while the collector runs */
    bool native;   /* <native> between Python frames */
    bool opcodes;  /* read each frame's instruction */
    bool pause;    /* pause a thread that runs while it is read */
    bool untested; /* read a version not tested here (3.15) */
} unwind_config;

typedef enum {
    FRAME_PYTHON = 0,
    FRAME_GC,    /* synthetic "<GC>" */
    FRAME_NATIVE /* synthetic "<native>" */
} frame_kind;

typedef struct raw_frame {
    uint64_t code;
    uint64_t instr;    /* prev_instr / instr_ptr */
    uint64_t base;     /* where the bytecode `instr` points into starts:
                          co_code_adaptive, or (free-threaded) the copy
                          tlbc names; 0 while not known */
    int32_t tlbc;      /* free-threaded: its thread's bytecode copy */
    code_entry *entry; /* FRAME_PYTHON only */
    uint64_t addr;     /* the frame's own address */
    uint8_t kind;      /* frame_kind */
    uint8_t opcode;    /* the instruction's opcode byte, or 255 */
    uint8_t owner;     /* FRAME_OWNED_BY_* */
    bool in_stack;     /* read from the thread's stack copy */
    bool from_c;       /* called from C code, not its caller */
} raw_frame;

typedef struct raw_thread {
    uint64_t tstate; /* address of its PyThreadState */
    uint64_t tid;    /* native thread id */
    uint32_t interp_id;
    uint8_t status; /* TFMT_STATUS_* bits */
    uint32_t depth;
    raw_frame frames[UNWIND_MAX_DEPTH]; /* innermost first */
} raw_thread;

/* A thread found in the interpreters' lists this sample. */
typedef struct listed_thread {
    uint64_t tstate;
    uint8_t *ts; /* a copy of its PyThreadState */
    uint32_t interp_id;
    uint64_t gil_holder; /* its interpreter's, 0: GIL free */
    uint64_t gil;        /* its interpreter's GIL state, 0: not known */
    bool gc_running;     /* its interpreter's collector runs */
} listed_thread;

/* Frames outside a thread's stack copy read together with it. */
#define UNWIND_MAX_EXTRA 48

/* 3.11/3.12 find the innermost frame through tstate->cframe, which
 * changes at every entry from C code: the current_frame of a few _PyCFrames
 * seen recently is read, and the one tstate->cframe names is used. */
#define UNWIND_CFRAMES 3

/* What a walk reads twice around the copy. */
typedef struct walk_head {
    uint64_t tid;    /* native_thread_id: the same thread */
    uint64_t cframe; /* 3.11/3.12: tstate->cframe */
    uint64_t frame;  /* innermost frame, 0: not found */
    uint64_t top;    /* datastack_top */
    uint64_t cand_frame[UNWIND_CFRAMES];
    uint64_t gil_holder; /* the GIL's last_holder */
    uint64_t gil_switch; /* and its switch_number */
} walk_head;

/* Per-thread state of a walk. */
typedef struct walk_job {
    uint32_t listed;    /* index in unwinder.listed */
    raw_thread *t;      /* where the frames go */
    uint64_t top_guess; /* from the thread state or the last try */
    uint64_t high_top;  /* highest top seen: copied too */
    uint64_t cframes[UNWIND_CFRAMES]; /* candidates, 0: unused */
    walk_head before, after;
    uint64_t copy_base, copy_len;
    uint8_t *copy; /* in the arena */
    uint32_t nextra;
    uint64_t extra[UNWIND_MAX_EXTRA]; /* frames read with the copy */
    uint8_t *extra_buf;               /* in the arena, fr_size each */
    uint64_t addr;                    /* next frame to visit, 0: done */
    uint64_t root;                    /* last Python frame visited */
    bool cut;                         /* stopped at UNWIND_MAX_DEPTH */
    bool foreign; /* visited a thread-owned frame outside the copy */
    int tries;    /* failed tries that learnt nothing */
    int moves;    /* windows that moved, read again */
    bool failed;
    bool moved;      /* the stack moved while it was read */
    bool frozen;     /* it did not hold the GIL during the window */
    bool head_read;  /* this try read its thread's head */
    bool want_pause; /* it ran: read it again paused */
    bool paused;     /* read while paused */
    bool still;      /* read while its CPU clock did not move */
    bool deep;       /* more frames outside the copy than it can hold:
                        read them directly, paused or clocked */
} walk_job;

/* What a thread's last walks learnt, to read it all in the window: its
 * frames outside the copy and its recent _PyCFrames. */
typedef struct extra_memo {
    uint64_t tstate;
    uint32_t n;
    uint64_t addr[UNWIND_MAX_EXTRA];
    uint64_t cframes[UNWIND_CFRAMES];
    uint64_t high_top; /* the highest stack top seen */
} extra_memo;

#define UNWIND_EXTRA_MEMO 256

/* Why a thread's walk was not accepted on a try. */
typedef enum {
    RACE_HEAD,     /* top beyond the copy, or C frame changed */
    RACE_OUTSIDE,  /* needed a frame not read with the copy */
    RACE_TORN,     /* a frame that cannot be in a chain */
    RACE_APART,    /* caller and callee not one frame apart */
    RACE_CALLSITE, /* caller not at a call instruction */
    RACE_RETURNED, /* moved, and the innermost was returning */
    RACE_READ,     /* a read faulted (stale address) */
    RACE_SLOW,     /* the read took too long to trust (preempted) */
    RACE_MOVED,    /* it ran, and its frame pointer or top moved */
    RACE_ROOT,     /* the chain ended above the thread's first frame */
    RACE_KINDS
} race_kind;

typedef struct unwind_counters {
    uint64_t reads;        /* process_vm_readv calls (remote_mem) */
    uint64_t retried;      /* thread walks redone after a race */
    uint64_t walks;        /* thread walks accepted */
    uint64_t frozen;       /* ... of threads that did not run meanwhile */
    uint64_t still;        /* ... of a thread that did not run meanwhile */
    uint64_t paused;       /* ... of a running thread, read paused */
    uint64_t moved;        /* ... that ran and moved on every try */
    uint64_t unpaused;     /* ... that ran, read without a pause */
    uint64_t pause_failed; /* threads that could not be stopped */
    uint64_t pauses;       /* threads stopped */
    uint64_t pause_ns;     /* ... for this long in all */
    uint64_t frames;       /* Python frames taken */
    uint64_t tlbc_frames;  /* ... on a thread's own bytecode copy */
    uint64_t races[RACE_KINDS];
} unwind_counters;

typedef struct unwinder {
    pid_t pid;
    uint32_t hexversion; /* the target's PY_VERSION_HEX */
    py_offsets off;
    uint64_t runtime;
    uint64_t code_type;
    uint64_t none_obj;        /* None: an empty exception slot */
    uint8_t call_sites[32];   /* bit per opcode: may call Python */
    uint8_t return_sites[32]; /* bit per opcode: returns */
    unwind_config cfg;
    code_cache *codes;
    tstat_cache *tstat;
    raw_thread *threads;      /* UNWIND_MAX_THREADS */
    uint32_t nthreads;        /* filled by unwind_sample */
    uint64_t now_ns;          /* time of the sample being taken */
    uint32_t tlbc_generation; /* free-threaded: the interpreter's, as
                                 listed this sample */
    unwind_counters counters;
    bool pause_denied; /* ptrace is not permitted: no pauses */
    /* Threads listed this sample; their PyThreadState copies. */
    listed_thread *listed; /* UNWIND_MAX_THREADS */
    uint32_t nlisted;
    uint8_t *ts_bufs; /* UNWIND_MAX_THREADS thread states */
    /* The speculative listing: the one interpreter and its GIL seen last
     * time (nlisted threads at listed[].tstate). */
    uint64_t last_interp, last_gil;
    bool single_interp;
    /* Walk state. */
    walk_job *jobs;     /* UNWIND_MAX_THREADS */
    extra_memo *extras; /* UNWIND_EXTRA_MEMO */
    uint8_t *arena;     /* UNWIND_ARENA: stack copies */
} unwinder;

/* Set up `u` (offsets, addresses and cfg already filled in). 0 or -1. */
int unwind_init(unwinder *u);
void unwind_free(unwinder *u);

/*
 * Take one sample into u->threads/u->nthreads. Returns RMEM_OK, or the
 * remote_mem status of the first failed read or check; a failed sample
 * must be dropped whole (it may be torn). A sample with no thread to keep
 * (the mode kept none) is RMEM_OK with nthreads 0.
 */
int unwind_sample(unwinder *u);

/* The code-unit index of a frame's instruction (may be negative). */
int64_t unwind_addrq(const unwinder *u, const raw_frame *f);

/* Little-endian u64 at byte `off` of `p`. */
uint64_t unwind_u64(const uint8_t *p, uint64_t off);

/* --- between the unwind_*.c files --- */

/* List every interpreter's threads into u->listed (unwind_list.c). */
int unwind_list(unwinder *u);

/* rmem_readv over any number of pieces, 64 per system call. */
int unwind_read_pieces(pid_t pid, const rmem_piece *p, size_t n);

/* The status bits of a listed thread (unwind_status.c); reads the
 * exception stack and the scheduler. */
int unwind_status(unwinder *u, const listed_thread *l, uint64_t tid,
                  uint8_t *out);

/* Walk jobs[0..n) (unwind_walk.c): each thread's frames as one
 * consistent state of it, retried when a walk raced with its thread;
 * RMEM_FAULT when one could not be had. */
int unwind_walk(unwinder *u, walk_job *jobs, uint32_t n);

/* Resolve every frame's code object, read opcodes (unwind_code.c). */
int unwind_resolve(unwinder *u);

/* Resolve the code objects of threads t[0..n) only. */
int unwind_resolve_threads(unwinder *u, raw_thread *t, uint32_t n);

/* Free-threaded: where each frame's own bytecode copy starts
 * (unwind_tlbc.c), once its code object is resolved. */
int unwind_tlbc_bases(unwinder *u, raw_thread *t, uint32_t n);

#endif
