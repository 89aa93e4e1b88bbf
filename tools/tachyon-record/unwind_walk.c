/* SPDX-License-Identifier: MIT */
/*
 * unwind_walk.c - walk the frame chains of the sampled threads so that
 * each stack written is one state its thread really was in.
 *
 * The target keeps running. A frame pointer read at one moment and a copy
 * of the frame stack taken a little later can disagree: a deep call
 * returns, a shallow one takes its place in the same memory, and a walk
 * joins the new frame to the old callers, a stack that never existed.
 * Two defences:
 *
 * 1. One window per thread. Its frame pointer and stack top, a copy of
 *    the used top of its frame stack, the frames it had outside that stack
 *    last time (generator frames, C-stack entry frames), then the pointer
 *    and top again, all in one batched read, and the walk runs on that
 *    copy only. When pointer and top did not move, no frame below the
 *    innermost was pushed or popped while the copy was taken: the walk is
 *    the thread's chain during the window.
 * 2. Callers that fit. A frame is pushed at the top of the frame stack,
 *    so a callee starts exactly where its caller's frame ends
 *    (co_framesize words, or its 3.11 parts); and a caller that called
 *    its callee directly is stopped at an instruction that calls Python
 *    code (CALL, SEND, FOR_ITER, ...; any instruction may call into C
 *    code that calls back, so frames entered from C are exempt). Every
 *    walk is checked for both, which is what catches a walk of a thread
 *    whose stack moved during the window (a thread calling faster than a
 *    read takes): a frame joined to the callers of another moment almost
 *    never fits both.
 *
 * Plus the checks on each frame (owner in range, a caller below its
 * callee, no generator frame without a caller). A walk that fails is
 * redone at once with what was learnt (the new top, a frame that was
 * outside the window); after a few tries the sample is dropped and
 * counted as failed.
 *
 * The checks make a walk of a running thread that mixes moments rare,
 * not impossible: a caller of the same size at the same place, stopped
 * at a call, passes both (about one walk in 35,000 in the tests under
 * load). So a thread that ran during its window (it held the GIL, or the
 * GIL cannot tell) is read again while it is paused (thread_pause.h),
 * which makes its window one moment; its walk is taken only then. A
 * thread that was running at the previous tick is stopped before the
 * tick's reads instead (unwind_hold.c) and read once, stopped. Only
 * without the pause (--nonblocking, or ptrace not permitted) are the
 * checks all there is.
 *
 * A free-threaded build (3.14t) has no GIL to tell which threads ran:
 * every thread's CPU clock is read around the first, batched, try (a
 * thread whose clock did not move did not run, and only a thread changes
 * its own frames), and the others are read again clocked or paused.
 */
#include <string.h>
#include <time.h>

#include "thread_pause.h"
#include "unwind.h"

#define ATTEMPTS 5
/* Windows of a running thread that moved, read again before one is
 * walked. */
#define MOVED_TRIES 6
/* Tries that learnt a frame outside the copy, and moved windows read
 * again, do not count against ATTEMPTS, up to this many in all. */
#define MAX_TRIES (ATTEMPTS + MOVED_TRIES + 8)
/* Room above the stack top guessed: it may have grown since it was read,
 * more so on the first try (the top read when the thread was listed)
 * than on later ones (the top read just before). */
#define COPY_SLACK_FIRST 4096u
#define COPY_SLACK_RETRY 512u
/* A read of a thread that ran taking longer than this was probably
 * preempted (a scheduler slice is longer); such a window is not trusted. */
#define WINDOW_MAX_NS (200 * 1000ull)
#define JOB_PIECES (2 * (6 + UNWIND_CFRAMES) + 1 + UNWIND_MAX_EXTRA)

static uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool cframe_mode(const unwinder *u)
{
    return u->off.ts_cframe != PYOFF_NONE;
}

static extra_memo *memo_for(unwinder *u, uint64_t tstate)
{
    uint64_t h = (tstate >> 4) * 0x9e3779b97f4a7c15ull;
    return &u->extras[(h >> 40) % UNWIND_EXTRA_MEMO];
}

/* Make `cframe` a candidate (the newest); false if it already was. */
static bool add_cframe(uint64_t *c, uint64_t cframe)
{
    if (!cframe)
        return false;
    for (int i = 0; i < UNWIND_CFRAMES; i++)
        if (c[i] == cframe)
            return false;
    memmove(c + 1, c, (UNWIND_CFRAMES - 1) * sizeof *c);
    c[0] = cframe;
    return true;
}

/* First guesses: from the listed thread state and the last walk. */
static void init_job(unwinder *u, walk_job *j)
{
    const listed_thread *l = &u->listed[j->listed];
    const extra_memo *m = memo_for(u, l->tstate);
    bool known = m->tstate == l->tstate;
    j->top_guess = unwind_u64(l->ts, u->off.ts_datastack_top);
    j->nextra = known ? m->n : 0;
    memcpy(j->extra, m->addr, j->nextra * sizeof m->addr[0]);
    memset(j->cframes, 0, sizeof j->cframes);
    j->high_top = known ? m->high_top : 0;
    if (known)
        memcpy(j->cframes, m->cframes, sizeof j->cframes);
    if (cframe_mode(u))
        add_cframe(j->cframes, unwind_u64(l->ts, u->off.ts_cframe));
}

/* Whether the GIL tells which threads ran: one interpreter (another one
 * sharing the GIL could switch thread states without taking it), and a
 * GIL at all (a free-threaded build runs threads without one; their
 * walks are proven by their clocks or a pause instead). */
static bool gil_known(const unwinder *u, const walk_job *j)
{
    return !u->off.free_threaded && u->single_interp &&
           u->listed[j->listed].gil != 0;
}

/*
 * Whether j's thread did not run Python code during the window, so that
 * its frames could not change: it did not hold the GIL before, after, or
 * in between. A thread that takes the GIL becomes its last_holder and
 * increments switch_number (take_gil, 3.11-3.14), so the same other
 * holder and the same count on both sides exclude it; the count is
 * stored before the thread writes any frame, and x86-64 keeps stores and
 * loads in order, so a frame it wrote cannot be in the copy without the
 * count having moved in the read after.
 */
static bool window_frozen(const unwinder *u, const walk_job *j)
{
    const walk_head *a = &j->before, *b = &j->after;
    return gil_known(u, j) && a->gil_holder == b->gil_holder &&
           a->gil_switch == b->gil_switch &&
           a->gil_holder != u->listed[j->listed].tstate;
}

/* The frame pointer and stack top, read before and after the copy. */
static size_t plan_head(const unwinder *u, const walk_job *j, walk_head *h,
                        rmem_piece *p)
{
    const py_offsets *o = &u->off;
    uint64_t ts = u->listed[j->listed].tstate;
    size_t n = 0;
    memset(h, 0, sizeof *h);
    p[n++] = (rmem_piece){ts + o->ts_native_tid, &h->tid, 8};
    if (cframe_mode(u)) {
        p[n++] = (rmem_piece){ts + o->ts_cframe, &h->cframe, 8};
        for (int i = 0; i < UNWIND_CFRAMES && j->cframes[i]; i++)
            p[n++] = (rmem_piece){j->cframes[i] + o->ts_current_frame,
                                  &h->cand_frame[i], 8};
    } else {
        p[n++] = (rmem_piece){ts + o->ts_current_frame, &h->frame, 8};
    }
    p[n++] = (rmem_piece){ts + o->ts_datastack_top, &h->top, 8};
    if (u->walk_task_off != PYOFF_NONE)
        p[n++] = (rmem_piece){ts + u->walk_task_off, &h->task, 8};
    if (gil_known(u, j)) {
        uint64_t gil = u->listed[j->listed].gil;
        p[n++] = (rmem_piece){gil + o->gil_holder, &h->gil_holder, 8};
        p[n++] = (rmem_piece){gil + o->gil_switch, &h->gil_switch, 8};
    }
    return n;
}

/* Where to copy: the used top of the chunk, with room to grow (as high
 * as the thread's stack has been seen, and some). */
static void copy_range(const unwinder *u, const walk_job *j, uint64_t *lo,
                       uint64_t *len)
{
    const uint8_t *ts = u->listed[j->listed].ts;
    uint64_t chunk = unwind_u64(ts, u->off.ts_datastack_chunk);
    uint64_t limit = unwind_u64(ts, u->off.ts_datastack_top + 8);
    uint64_t top = j->top_guess;
    *lo = *len = 0;
    if (!chunk || top <= chunk || top - chunk >= (1ull << 32))
        return;
    uint64_t hi = top + (j->tries ? COPY_SLACK_RETRY : COPY_SLACK_FIRST);
    if (j->high_top > hi && j->high_top - top < UNWIND_STACK_COPY)
        hi = j->high_top + COPY_SLACK_RETRY;
    if (limit > top && limit - chunk < (1ull << 32) && hi > limit)
        hi = limit;
    *lo = hi - chunk > UNWIND_STACK_COPY ? hi - UNWIND_STACK_COPY : chunk;
    *len = hi - *lo;
}

/* Plan job j's reads; 0 pieces when the arena is full (retried alone). */
static size_t plan_job(unwinder *u, walk_job *j, size_t *used, rmem_piece *p)
{
    const uint64_t sz = u->off.fr_size;
    uint64_t lo, len;
    copy_range(u, j, &lo, &len);
    if (len + j->nextra * sz > UNWIND_ARENA - *used)
        return 0;
    size_t n = plan_head(u, j, &j->before, p);
    j->copy_base = lo;
    j->copy_len = len;
    j->copy = u->arena + *used;
    if (len)
        p[n++] = (rmem_piece){lo, j->copy, len};
    *used += (len + 7) & ~(uint64_t)7;
    j->extra_buf = u->arena + *used;
    for (uint32_t i = 0; i < j->nextra; i++)
        p[n++] = (rmem_piece){j->extra[i], j->extra_buf + i * sz, sz};
    *used += j->nextra * sz;
    return n + plan_head(u, j, &j->after, p + n);
}

static bool in_copy(const walk_job *j, uint64_t addr)
{
    return j->copy_len && addr >= j->copy_base &&
           addr - j->copy_base < j->copy_len;
}

/* Where frame `addr` was read in j's window, or NULL. */
static const uint8_t *frame_at(const unwinder *u, const walk_job *j,
                               uint64_t addr)
{
    uint64_t sz = u->off.fr_size;
    if (j->copy_len && addr >= j->copy_base &&
        addr - j->copy_base <= j->copy_len &&
        sz <= j->copy_len - (addr - j->copy_base))
        return j->copy + (addr - j->copy_base);
    for (uint32_t i = 0; i < j->nextra; i++)
        if (j->extra[i] == addr)
            return j->extra_buf + i * sz;
    return NULL;
}

/* Append a synthetic frame to j's thread if there is room. */
static void add_marker(walk_job *j, frame_kind kind)
{
    raw_thread *t = j->t;
    if (t->depth < UNWIND_MAX_DEPTH)
        t->frames[t->depth++] =
            (raw_frame){.kind = (uint8_t)kind, .opcode = 255};
}

/* The innermost Python frame so far was entered from C code (the shim
 * just visited sits between it and its caller). */
static void mark_from_c(raw_thread *t)
{
    for (uint32_t i = t->depth; i-- > 0;) {
        if (t->frames[i].kind == FRAME_PYTHON) {
            t->frames[i].from_c = true;
            return;
        }
    }
}

/*
 * Take in the frame `fr` at j->addr: append it unless it is a C-stack shim
 * or still being set up (3.11/3.12 frames before their first instruction;
 * CPython hides them too), add <native> where C code sits between Python
 * frames, and move j->addr to the caller. RMEM_FAULT for a frame that
 * cannot be part of a real chain.
 */
static int visit(unwinder *u, walk_job *j, const uint8_t *fr)
{
    const py_offsets *o = &u->off;
    uint64_t here = j->addr, prev = unwind_u64(fr, o->fr_previous);
    uint8_t owner = fr[o->fr_owner];
    raw_thread *t = j->t;
    /* A thread's outermost frame is never a generator's: a generator
     * frame without a caller has just yielded. A frame that owns its
     * place in the frame stack sits above its caller there. */
    if (owner > o->owner_max || (!prev && owner == o->owner_generator) ||
        (owner == 0 && in_copy(j, here) && in_copy(j, prev) && prev >= here))
        return RMEM_FAULT;
    j->addr = prev;
    if (o->owner_cstack >= 0 && owner >= o->owner_cstack) {
        mark_from_c(t);
        if (u->cfg.native && t->depth > 0 && prev)
            add_marker(j, FRAME_NATIVE);
        return RMEM_OK;
    }
    j->root = here;
    /* A frame of a frame stack outside the copy: an older chunk, or
     * another stack switched in (greenlets). */
    if (owner == 0 && !in_copy(j, here))
        j->foreign = true;
    raw_frame f = {.code = unwind_u64(fr, o->fr_code) & ~o->fr_code_tag,
                   .instr = unwind_u64(fr, o->fr_instr),
                   .addr = here,
                   .kind = FRAME_PYTHON,
                   .opcode = 255,
                   .owner = owner,
                   .in_stack = in_copy(j, here)};
    if (!f.code || (f.code & 7))
        return RMEM_FAULT;
    f.from_c = o->fr_is_entry != PYOFF_NONE && fr[o->fr_is_entry];
    if (o->fr_tlbc != PYOFF_NONE)
        memcpy(&f.tlbc, fr + o->fr_tlbc, 4);
    /* A thread's own bytecode copy is found once the code object is
     * known (unwind_tlbc.c); the main copy is at the object's end. */
    if (f.tlbc == 0)
        f.base = f.code + o->co_code_adaptive;
    if (!f.base || unwind_addrq(u, &f) >= 0)
        t->frames[t->depth++] = f;
    /* 3.11 marks a frame called from C code instead of a shim. */
    if (u->cfg.native && o->fr_is_entry != PYOFF_NONE && fr[o->fr_is_entry] &&
        prev && t->depth > 0)
        add_marker(j, FRAME_NATIVE);
    if (t->depth >= UNWIND_MAX_DEPTH) {
        j->addr = 0; /* the innermost 256 are kept, as CPython does */
        j->cut = true;
    }
    return RMEM_OK;
}

/* Remember a frame the walk needed outside the window, for the next
 * try; false when there is no room for more. */
static bool want_extra(walk_job *j, uint64_t addr)
{
    if (j->nextra >= UNWIND_MAX_EXTRA)
        return false;
    j->extra[j->nextra++] = addr;
    return true;
}

/* Keep the out-of-copy frames a successful walk used for next time. */
static void remember_extras(unwinder *u, const walk_job *j,
                            const uint64_t *used, uint32_t n)
{
    extra_memo *m = memo_for(u, u->listed[j->listed].tstate);
    m->tstate = u->listed[j->listed].tstate;
    m->n = n;
    memcpy(m->addr, used, n * sizeof used[0]);
    memcpy(m->cframes, j->cframes, sizeof m->cframes);
    m->high_top = j->high_top;
}

/*
 * Whether the window can be walked: the frame pointer was read through
 * the current _PyCFrame (3.11/3.12) and the stack top lay inside the copy.
 * j->moved says whether the pointer or top moved during the window.
 */
/* The frame pointer read through the _PyCFrame that was current. */
static bool pick_frame(const walk_job *j, walk_head *h)
{
    if (!h->cframe)
        return true; /* no Python code running: no frames */
    for (int i = 0; i < UNWIND_CFRAMES && j->cframes[i]; i++) {
        if (j->cframes[i] == h->cframe) {
            h->frame = h->cand_frame[i];
            return true;
        }
    }
    return false;
}

static bool head_usable(const unwinder *u, walk_job *j)
{
    walk_head *a = &j->before, *b = &j->after;
    bool through = !cframe_mode(u) || (pick_frame(j, a) && pick_frame(j, b));
    bool inside = !j->copy_len || (a->top <= j->copy_base + j->copy_len &&
                                   b->top <= j->copy_base + j->copy_len);
    j->moved = a->cframe != b->cframe || a->frame != b->frame ||
               a->top != b->top || a->task != b->task;
    j->frozen = window_frozen(u, j);
    /* A thread state reused by another thread, or bound to its thread
     * after it was listed (3.11 fills in the creator's id first): this
     * sample's status bits would be another thread's. */
    if (a->tid != j->t->tid || b->tid != j->t->tid) {
        j->tries = ATTEMPTS;
        return false;
    }
    j->head_read = true;
    /* The next try starts from what was just seen; a new _PyCFrame is
     * something learnt, not a failed try. */
    j->top_guess = b->top;
    j->high_top = a->top > j->high_top ? a->top : j->high_top;
    j->high_top = b->top > j->high_top ? b->top : j->high_top;
    if (cframe_mode(u) && !through) {
        bool learnt = add_cframe(j->cframes, a->cframe);
        learnt = add_cframe(j->cframes, b->cframe) || learnt;
        if (learnt)
            j->tries--;
    }
    return through && inside;
}

/*
 * Whether a whole chain was walked, down to the thread's first frame. In
 * 3.11-3.14 that frame sits at data[1] of the thread's root stack chunk
 * (push_chunk skips data[0] of a chunk without a previous one) and stays
 * there while the thread has frames. When the copy holds a root chunk in
 * use before and after, a walk must end there: one that ends above was
 * cut short by a frame of another moment (a link read as NULL). Chains
 * that go on into frames of another chunk or stack (an older chunk,
 * greenlets), or deeper than the depth kept, are not checked this way.
 */
static bool rooted(const unwinder *u, const walk_job *j)
{
    const py_offsets *o = &u->off;
    uint64_t chunk = unwind_u64(u->listed[j->listed].ts, o->ts_datastack_chunk);
    uint64_t first = chunk + o->chunk_data + 8;
    if (j->cut || j->foreign || !chunk || j->copy_base != chunk ||
        j->copy_len < o->chunk_data + 8 ||
        unwind_u64(j->copy, o->chunk_previous) != 0 || j->before.top <= first ||
        j->after.top <= first)
        return true;
    return j->root == first;
}

/* Memory read around frames outside the window of a paused thread. */
#define PAUSED_BLOCK (16u << 10)
#define PAGE 4096u
typedef struct paused_block {
    uint64_t base, len; /* len 0: nothing read */
    uint8_t data[PAUSED_BLOCK];
} paused_block;

/*
 * A frame outside j's window, read while its thread is paused or while its
 * CPU clock is watched (when every read sees the same state, or the walk
 * is not taken); NULL if it cannot be. Callers sit below their
 * callees, so the pages below the frame are read with it, up to
 * PAUSED_BLOCK: a deep recursion spanning older stack chunks takes a read
 * per few dozen frames, not one per frame or per try. Where the pages
 * below are not mapped (a chunk starts there), only the frame's own.
 */
static const uint8_t *read_paused_frame(const unwinder *u, const walk_job *j,
                                        paused_block *b)
{
    uint64_t a = j->addr, end = a + u->off.fr_size;
    if (!(j->paused || j->still) || end < a)
        return NULL;
    if (b->len && a >= b->base && end <= b->base + b->len)
        return b->data + (a - b->base);
    uint64_t hi = (end + PAGE - 1) & ~(uint64_t)(PAGE - 1);
    if (hi < end)
        return NULL; /* a torn pointer in the last page of the address
                      * space: rounding up wraps to 0 */
    uint64_t lo = hi > PAUSED_BLOCK ? hi - PAUSED_BLOCK : 0;
    b->len = 0;
    if (rmem_read(u->pid, lo, b->data, hi - lo) != RMEM_OK) {
        lo = a & ~(uint64_t)(PAGE - 1);
        if (rmem_read(u->pid, lo, b->data, hi - lo) != RMEM_OK)
            return NULL;
    }
    b->base = lo;
    b->len = hi - lo;
    return b->data + (a - lo);
}

/* Walk job j on what its window read. */
static void walk_job_frames(unwinder *u, walk_job *j)
{
    static paused_block block;
    uint64_t used[UNWIND_MAX_EXTRA];
    uint32_t nused = 0;
    block.len = 0; /* another moment's */
    j->failed = true;
    j->t->depth = 0;
    if (!head_usable(u, j)) {
        u->counters.races[RACE_HEAD]++;
        j->tries++;
        remember_extras(u, j, j->extra, j->nextra);
        return;
    }
    /* A thread that ran and whose frame pointer or top moved while it
     * was read: its copy may mix moments. Read again, up to MOVED_TRIES
     * times (not counted as failed tries); then such a walk is taken if
     * it passes the checks below. */
    if (!j->frozen && j->moved && j->moves < MOVED_TRIES) {
        u->counters.races[RACE_MOVED]++;
        j->moves++;
        remember_extras(u, j, j->extra, j->nextra);
        return;
    }
    j->addr = j->before.frame;
    j->root = 0;
    j->cut = false;
    j->foreign = false;
    for (int steps = 0; j->addr; steps++) {
        const uint8_t *fr = frame_at(u, j, j->addr);
        if (steps >= UNWIND_MAX_STEPS || (j->addr & 7)) {
            u->counters.races[RACE_TORN]++;
            j->tries++;
            return;
        }
        /* A deep stack spans chunks the copy does not reach: learning
         * one frame a try would take a try per frame. */
        if (!fr)
            fr = read_paused_frame(u, j, &block);
        if (!fr) {
            u->counters.races[RACE_OUTSIDE]++;
            if (want_extra(j, j->addr)) {
                remember_extras(u, j, j->extra, j->nextra);
            } else {
                j->tries++;
                j->deep = true;
            }
            return;
        }
        if ((fr < j->copy || fr >= j->copy + j->copy_len) &&
            nused < UNWIND_MAX_EXTRA)
            used[nused++] = j->addr;
        if (visit(u, j, fr) != RMEM_OK) {
            u->counters.races[RACE_TORN]++;
            j->tries++;
            return;
        }
    }
    remember_extras(u, j, used, nused);
    if (!rooted(u, j)) {
        u->counters.races[RACE_ROOT]++;
        j->tries++;
        return;
    }
    j->failed = false;
    j->t->cut = j->cut;
    j->t->task = j->before.task;
}

/* Whether a callee sits where its caller's frame ends, when both own
 * their place in the copied frame stack (a frame is pushed at its top). */
static bool adjacent(const raw_frame *callee, const raw_frame *caller)
{
    if (callee->owner != 0 || caller->owner != 0 || !callee->in_stack ||
        !caller->in_stack)
        return true;
    return caller->entry->framesize &&
           callee->addr == caller->addr + 8ull * caller->entry->framesize;
}

/* Whether the instruction a frame stopped at is in the opcode set
 * `bits`; `unknown` when it cannot be told. */
static bool stopped_at(const unwinder *u, const raw_frame *f,
                       const uint8_t *bits, bool unknown)
{
    const code_entry *e = f->entry;
    int64_t q = code_instruction_start(e, unwind_addrq(u, f));
    if (q < 0)
        return unknown;
    uint8_t op = e->bytecode[2 * q];
    return bits[op >> 3] & (1u << (op & 7));
}

/*
 * Whether every caller-callee pair of a walk fits: frames one size apart
 * in the frame stack, and the caller at a call instruction. A walk that
 * joined a frame to the callers of another moment almost never does both.
 * When the stack moved during the read, the innermost frame may also be
 * one that had already returned (its memory not yet reused): such a frame
 * stopped at a return instruction, so a walk that starts at one is not
 * taken.
 */
static race_kind consistent(const unwinder *u, const raw_thread *t, bool moved)
{
    const raw_frame *inner = NULL;
    for (uint32_t i = 0; i < t->depth; i++) {
        const raw_frame *f = &t->frames[i];
        if (f->kind != FRAME_PYTHON)
            continue;
        /* A frame's instruction lies in its own code: one outside was
         * read at another moment than its code pointer. */
        if (f->entry->bytecode_len &&
            (uint64_t)unwind_addrq(u, f) >= f->entry->bytecode_len / 2)
            return RACE_TORN;
        if (!inner && moved && stopped_at(u, f, u->return_sites, false))
            return RACE_RETURNED;
        if (inner && !adjacent(inner, f))
            return RACE_APART;
        if (inner && !inner->from_c && !stopped_at(u, f, u->call_sites, true))
            return RACE_CALLSITE;
        inner = f;
    }
    return RACE_KINDS;
}

/* Resolve the code objects of the walked jobs and check adjacency. */
static int check_walks(unwinder *u, walk_job **jobs, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        walk_job *j = jobs[i];
        if (j->failed)
            continue;
        int rc = unwind_resolve_threads(u, j->t, 1);
        race_kind why = RACE_TORN;
        if (rc != RMEM_OK && rc != RMEM_FAULT)
            return rc;
        if (rc == RMEM_OK)
            why = consistent(u, j->t, j->moved);
        if (why == RACE_KINDS)
            continue;
        u->counters.races[why]++;
        j->failed = true;
        j->tries++;
    }
    return RMEM_OK;
}

/* Whether j's thread ran Python code during the window just read, or has
 * more frames outside it than a window holds (a deep recursion over
 * older stack chunks), and must be read again paused or clocked before
 * its walk can be taken. */
static bool needs_pause(const unwinder *u, const walk_job *j)
{
    return u->cfg.pause && !u->pause_denied && j->head_read &&
           (!j->frozen || j->deep) && !j->paused && !j->still;
}

/* One try at jobs[0..n). A read fault (a stale address somewhere) fails
 * every job of the try: which one is unknown. */
static int walk_try(unwinder *u, walk_job **jobs, uint32_t n)
{
    static rmem_piece p[UNWIND_MAX_THREADS * JOB_PIECES];
    size_t np = 0, used = 0;
    for (uint32_t i = 0; i < n; i++) {
        jobs[i]->frozen = jobs[i]->head_read = false;
        size_t k = plan_job(u, jobs[i], &used, p + np);
        jobs[i]->failed = k == 0;
        jobs[i]->tries += k == 0;
        np += k;
    }
    uint64_t t0 = clock_ns();
    int rc = unwind_read_pieces(u->pid, p, np);
    uint64_t elapsed = clock_ns() - t0;
    for (uint32_t i = 0; rc == RMEM_OK && i < n; i++)
        if (!jobs[i]->failed)
            walk_job_frames(u, jobs[i]);
    for (uint32_t i = 0; rc == RMEM_OK && i < n; i++) {
        walk_job *j = jobs[i];
        if (needs_pause(u, j)) {
            j->want_pause = true;
            j->failed = true;
        } else if (!j->failed && !j->frozen && !j->paused && !j->still &&
                   elapsed > WINDOW_MAX_NS) {
            u->counters.races[RACE_SLOW]++;
            j->failed = true;
            j->tries++;
        }
    }
    if (rc == RMEM_OK)
        return check_walks(u, jobs, n);
    if (rc != RMEM_FAULT)
        return rc;
    u->counters.races[RACE_READ]++;
    for (uint32_t i = 0; i < n; i++) {
        jobs[i]->failed = true;
        jobs[i]->tries++;
        if (n == 1)
            jobs[i]->nextra = 0; /* a stale extra may be the cause */
    }
    return RMEM_OK;
}

/* 1 when j's thread did not run at all during a try (its CPU clock read
 * the same before and after), 0 when it ran, -1 when no clock tells. */
static int walk_clocked(unwinder *u, walk_job *j, int *rc)
{
    uint64_t c0, c1;
    if (tstat_cpu_time(u->tstat, j->t->tid, &c0) != 0)
        return -1;
    j->still = true;
    *rc = walk_try(u, &j, 1);
    if (tstat_cpu_time(u->tstat, j->t->tid, &c1) == 0 && c1 == c0)
        return 1;
    j->still = false;
    j->failed = true;
    return 0;
}

/*
 * Read job j with its thread paused, trying until a walk passes (the
 * window can no longer move, but a frame may be outside the copy). A
 * thread that cannot be stopped (it exited, or sleeps uninterruptibly)
 * fails the sample; when pausing is not permitted at all, running threads
 * are read unpaused from then on.
 */
static int walk_paused(unwinder *u, walk_job *j)
{
    thread_pause p;
    /* A thread that holds the GIL need not be running: preempted on a
     * busy machine, or blocked in C code. Its CPU clock proves it still
     * more cheaply than a pause, which waits for it to get a CPU. */
    int rc = RMEM_OK, ran = walk_clocked(u, j, &rc);
    if (rc != RMEM_OK || (ran == 1 && !j->failed))
        return rc;
    j->still = false;
    j->failed = true;
    uint64_t t0 = clock_ns(); /* from before the stop: an upper bound */
    pause_status s = thread_pause_stop(&p, u->pid, (pid_t)j->t->tid);
    j->want_pause = false;
    if (s == PAUSE_DENIED) {
        u->pause_denied = true;
        return RMEM_OK;
    }
    if (s != PAUSE_OK) {
        /* Not stopped in time: asleep in the kernel, say, where its
         * frames cannot change either, which its clock can prove. */
        u->counters.pause_failed++;
        ran = walk_clocked(u, j, &rc);
        if (rc == RMEM_OK && !(ran == 1 && !j->failed)) {
            j->still = false;
            j->failed = true;
            j->tries = ATTEMPTS;
        }
        return rc;
    }
    /* Its thread state as it is now: a deep recursion may have moved to
     * another stack chunk since the threads were listed. */
    listed_thread *l = &u->listed[j->listed];
    rc = rmem_read(u->pid, l->tstate, l->ts, u->ts_read);
    j->paused = true;
    j->tries = rc == RMEM_OK ? 0 : ATTEMPTS;
    j->moves = 0;
    j->top_guess = unwind_u64(l->ts, u->off.ts_datastack_top);
    rc = rc == RMEM_FAULT ? RMEM_OK : rc;
    for (int k = 0;
         rc == RMEM_OK && j->failed && j->tries < ATTEMPTS && k < MAX_TRIES;
         k++)
        rc = walk_try(u, &j, 1);
    thread_pause_resume(&p);
    j->stopped_ns = clock_ns() - t0;
    u->counters.pauses++;
    u->counters.pause_ns += j->stopped_ns;
    if (j->failed)
        j->tries = ATTEMPTS;
    return rc;
}

/*
 * The first try of a free-threaded process, where no GIL tells which
 * threads ran: every thread's CPU clock is read before and after one
 * batched try, so the threads that did not run (most of them, in most
 * programs) are proven at once; the others go on to be read one at a
 * time, clocked or paused (walk_paused).
 */
static int walk_clocked_batch(unwinder *u, walk_job **jobs, uint32_t n)
{
    static uint64_t c0[UNWIND_MAX_THREADS];
    for (uint32_t i = 0; i < n; i++)
        jobs[i]->still = tstat_cpu_time(u->tstat, jobs[i]->t->tid, &c0[i]) == 0;
    int rc = walk_try(u, jobs, n);
    for (uint32_t i = 0; i < n; i++) {
        walk_job *j = jobs[i];
        uint64_t c1;
        bool proven = j->still && !j->failed &&
                      tstat_cpu_time(u->tstat, j->t->tid, &c1) == 0 &&
                      c1 == c0[i];
        if (proven)
            continue;
        /* Not proven (it ran, no clock, or the walk failed): read it
         * again alone, clocked or paused. */
        j->want_pause = j->failed ? j->want_pause || j->still : true;
        j->still = false;
        j->failed = true;
    }
    return rc;
}

/* Whether the first try reads every thread's clock around it. */
static bool clock_first(const unwinder *u)
{
    return u->off.free_threaded && u->cfg.pause && !u->pause_denied;
}

/*
 * The jobs of threads stopped before the tick's reads (unwind_hold.c):
 * read together in one try, each failed one again alone until its walk
 * passes (the window can no longer move, but a frame may be outside the
 * copy), then all let go.
 */
static int walk_held(unwinder *u, walk_job **held, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        held[i]->paused = true;
    int rc = n ? walk_try(u, held, n) : RMEM_OK;
    for (uint32_t i = 0; i < n; i++) {
        walk_job *j = held[i];
        for (int k = 0;
             rc == RMEM_OK && j->failed && j->tries < ATTEMPTS && k < MAX_TRIES;
             k++)
            rc = walk_try(u, &j, 1);
        if (j->failed)
            j->tries = ATTEMPTS;
        j->stopped_ns = unwind_held_for(u, j->t->tid);
    }
    unwind_hold_release(u);
    return rc;
}

int unwind_walk(unwinder *u, walk_job *jobs, uint32_t n)
{
    static walk_job *todo[UNWIND_MAX_THREADS], *held[UNWIND_MAX_THREADS];
    uint32_t left = 0, nheld = 0;
    for (uint32_t i = 0; i < n; i++) {
        init_job(u, &jobs[i]);
        if (jobs[i].held)
            held[nheld++] = &jobs[i];
        else
            todo[left++] = &jobs[i];
    }
    int rc = walk_held(u, held, nheld);
    if (rc == RMEM_OK && left)
        rc = clock_first(u) ? walk_clocked_batch(u, todo, left)
                            : walk_try(u, todo, left);
    for (int tries = 1; rc == RMEM_OK && tries < MAX_TRIES; tries++) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < left; i++)
            if (todo[i]->failed && todo[i]->tries < ATTEMPTS)
                todo[k++] = todo[i];
        left = k;
        if (left == 0)
            break;
        u->counters.retried += left;
        /* One thread at a time, so one racing thread cannot fail the
         * others again. */
        for (uint32_t i = 0; rc == RMEM_OK && i < left; i++)
            rc = todo[i]->want_pause ? walk_paused(u, todo[i])
                                     : walk_try(u, &todo[i], 1);
    }
    if (rc != RMEM_OK)
        return rc;
    for (uint32_t i = 0; i < n; i++)
        if (jobs[i].failed)
            return RMEM_FAULT;
    u->counters.walks += n;
    for (uint32_t i = 0; i < n; i++) {
        /* Each walk counted once, by its strongest proof. */
        const walk_job *j = &jobs[i];
        bool ran = !j->frozen && !j->paused && !j->still;
        u->counters.frozen += j->frozen;
        u->counters.still += !j->frozen && j->still;
        u->counters.paused += !j->frozen && !j->still && j->paused;
        u->counters.moved += ran && j->moved;
        u->counters.unpaused += ran;
    }
    return RMEM_OK;
}
