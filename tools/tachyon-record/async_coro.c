/* SPDX-License-Identifier: MIT */
/*
 * async_coro.c - each task's coroutine frames, as CPython's reader takes
 * them (Modules/_remote_debugging, parse_coro_chain): the task's
 * coroutine's own frame (none once the coroutine is cleared), and while
 * that coroutine is suspended in an `await` (FRAME_SUSPENDED_YIELD_FROM),
 * the object it awaits, found on its frame's value stack just below the
 * stack pointer, if that object is a coroutine too (same type), and so
 * on. What a coroutine awaits that is no coroutine (a Future, a
 * generator-based awaitable) ends the chain. A Task's coroutine that is
 * no CPython coroutine or generator (one compiled by Cython, say) has no
 * frames here: its object is not laid out as one (CPython's reader reads
 * it as one anyway).
 *
 * All tasks advance together, one level per round: a round reads every
 * coroutine object (its head and embedded frame) of that level, then
 * every awaited-object slot. Frames are then ordered innermost first per
 * task and resolved through the code cache.
 */
#include <stdlib.h>
#include <string.h>

#include "async_graph.h"

#define FRAME_SUSPENDED_YIELD_FROM (-1)
#define FRAME_CLEARED 4
#define OWNED_BY_THREAD 0

/* A coroutine read this round, and where its frame goes. */
typedef struct link {
    uint32_t task, level;
    uint64_t obj;  /* the coroutine object */
    uint64_t next; /* what it awaits, once read */
} link;

/* Scratch of the rounds, grown as needed. */
typedef struct coro_scratch {
    link *links;
    uint32_t cap;
    uint8_t *copies; /* one coroutine head each */
    size_t copies_cap;
    raw_frame *sorted;
    uint32_t sorted_cap;
} coro_scratch;

/* Per pool frame: its task, and its level in the task's chain (0: the
 * task's own coroutine, the outermost). */
static uint32_t frame_task[ASYNC_MAX_FRAMES];
static uint16_t frame_level[ASYNC_MAX_FRAMES];

static uint64_t u64_at(const uint8_t *p, uint64_t off)
{
    uint64_t v;
    memcpy(&v, p + off, 8);
    return v;
}

/* The part of a coroutine object read: ob_type to the frame's end. */
static void coro_span(const unwinder *u, uint64_t *lo, uint64_t *len)
{
    const async_offsets *o = &u->as->off;
    *lo = u->off.ob_type;
    *len = o->gen_iframe + u->off.fr_size - *lo;
}

static int ensure(coro_scratch *s, uint32_t n, size_t span)
{
    if (n <= s->cap)
        return 0;
    link *l = realloc(s->links, (size_t)n * sizeof *l);
    if (!l)
        return -1;
    s->links = l;
    s->cap = n;
    uint8_t *c = realloc(s->copies, (size_t)n * span);
    if (!c)
        return -1;
    s->copies = c;
    s->copies_cap = (size_t)n * span;
    return 0;
}

/* Where what the suspended frame `f` (its copy `fr`) awaits is: just
 * below its stack pointer, in its own locals and stack; 0 for a pointer
 * outside them. */
static uint64_t await_slot(const async_offsets *ao, const raw_frame *f,
                           const uint8_t *fr)
{
    uint64_t sp = u64_at(fr, ao->fr_stackpointer) & ~(uint64_t)7;
    uint64_t below = 8ull * ao->yield_from_words;
    if (sp < f->addr + ao->fr_localsplus + below || sp - f->addr > (1u << 20))
        return 0;
    return sp - below;
}

/* The frame at `addr` from its copy `fr`, into `f`; RMEM_FAULT for a
 * code pointer that is none. */
static int frame_from(const py_offsets *o, const uint8_t *fr, uint64_t addr,
                      uint8_t owner, raw_frame *f)
{
    *f = (raw_frame){.code = u64_at(fr, o->fr_code) & ~o->fr_code_tag,
                     .instr = u64_at(fr, o->fr_instr),
                     .addr = addr,
                     .kind = FRAME_PYTHON,
                     .opcode = 255,
                     .owner = owner};
    if (!f->code || (f->code & 7))
        return RMEM_FAULT;
    if (o->fr_tlbc != PYOFF_NONE)
        memcpy(&f->tlbc, fr + o->fr_tlbc, 4);
    /* a thread's own bytecode copy is found once the code is known */
    if (f->tlbc == 0)
        f->base = f->code + o->co_code_adaptive;
    return RMEM_OK;
}

/* Whether a Task's own coroutine (level 0) of type `type` is laid out as
 * a CPython coroutine or generator. */
static bool is_coroutine(const unwinder *u, uint64_t type)
{
    return !u->coro_type || type == u->coro_type ||
           (u->gen_type && type == u->gen_type);
}

/* Take in coroutine `l` from its copy `c`: its frame into the pool (with
 * its task's level), and whether to follow what it awaits (*slot: the
 * address holding it). RMEM_FAULT for a frame no coroutine has. */
static int take(unwinder *u, link *l, const uint8_t *c, uint64_t type0,
                uint32_t *pool_idx, uint64_t *slot)
{
    const py_offsets *o = &u->off;
    const async_offsets *ao = &u->as->off;
    uint64_t lo, len;
    coro_span(u, &lo, &len);
    const uint8_t *fr = c + (ao->gen_iframe - lo);
    int8_t state = (int8_t)c[ao->gen_frame_state - lo];
    uint8_t owner = fr[o->fr_owner];
    *slot = 0;
    *pool_idx = ASYNC_NONE;
    if (u64_at(c, 0) != type0 || !is_coroutine(u, type0) ||
        state == FRAME_CLEARED)
        return RMEM_OK; /* no coroutine, or no frame left */
    if (o->owner_cstack >= 0 && owner >= o->owner_cstack)
        return RMEM_OK; /* as CPython: no Python frame there */
    if (owner != o->owner_generator && owner != OWNED_BY_THREAD)
        return RMEM_FAULT;
    if (u->as->nframes >= ASYNC_MAX_FRAMES) {
        u->as->truncated = true; /* the rest of the chain is not read */
        return RMEM_OK;
    }
    raw_frame *f = async_frame_new(u->as, pool_idx);
    if (!f)
        return RMEM_OTHER;
    int rc = frame_from(o, fr, l->obj + ao->gen_iframe, owner, f);
    if (rc != RMEM_OK || state != FRAME_SUSPENDED_YIELD_FROM ||
        l->level + 1 >= ASYNC_MAX_CHAIN)
        return rc;
    *slot = await_slot(ao, f, fr);
    return *slot ? RMEM_OK : RMEM_FAULT;
}

/* The first level: every Task's coroutine (tasks running on a thread
 * in running mode have their thread's frames instead). */
static uint32_t first_links(const async_state *a, bool skip_running, link *l)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->ntasks; i++) {
        const async_task *t = &a->tasks[i];
        if (t->is_task && t->coro && !(skip_running && t->running))
            l[n++] = (link){i, 0, t->coro, 0};
    }
    return n;
}

/* One level for links l[0..n): read, take, read the slots; the links
 * that go on are left in l[0..*next). */
static int one_level(unwinder *u, coro_scratch *s, uint32_t n, uint64_t *types,
                     uint32_t *next, rmem_piece *p)
{
    uint64_t lo, len;
    coro_span(u, &lo, &len);
    for (uint32_t i = 0; i < n; i++)
        p[i] = (rmem_piece){s->links[i].obj + lo, s->copies + i * len, len};
    int rc = async_read(u, p, n);
    uint32_t np = 0;
    for (uint32_t i = 0; rc == RMEM_OK && i < n; i++) {
        link *l = &s->links[i];
        const uint8_t *c = s->copies + i * len;
        uint64_t slot;
        uint32_t idx;
        if (l->level == 0)
            types[l->task] = u64_at(c, 0);
        rc = take(u, l, c, types[l->task], &idx, &slot);
        if (rc == RMEM_OK && idx != ASYNC_NONE) {
            frame_task[idx] = l->task;
            frame_level[idx] = (uint16_t)l->level;
        }
        if (rc == RMEM_OK && slot) {
            s->links[np] = *l;
            p[np] = (rmem_piece){slot, &s->links[np].next, 8};
            np++;
        }
    }
    if (rc == RMEM_OK && np)
        rc = async_read(u, p, np);
    *next = 0;
    for (uint32_t i = 0; rc == RMEM_OK && i < np; i++) {
        uint64_t obj = s->links[i].next & ~u->off.fr_code_tag;
        if (!obj)
            continue;
        if (obj & 7)
            return RMEM_FAULT;
        s->links[*next] =
            (link){s->links[i].task, s->links[i].level + 1, obj, 0};
        (*next)++;
    }
    return rc;
}

/* Order the pool innermost first within each task: a task's frames are
 * one per level, 0 (its coroutine) to its deepest. */
static int order_frames(async_state *a, coro_scratch *s)
{
    if (a->nframes > s->sorted_cap) {
        raw_frame *f = realloc(s->sorted, (size_t)a->nframes * sizeof *f);
        if (!f)
            return RMEM_OTHER;
        s->sorted = f;
        s->sorted_cap = a->nframes;
    }
    for (uint32_t i = 0; i < a->ntasks; i++)
        a->tasks[i].nframes = 0;
    for (uint32_t k = 0; k < a->nframes; k++)
        a->tasks[frame_task[k]].nframes++;
    uint32_t at = 0;
    for (uint32_t i = 0; i < a->ntasks; i++) {
        a->tasks[i].frame0 = at;
        at += a->tasks[i].nframes;
    }
    for (uint32_t k = 0; k < a->nframes; k++) {
        const async_task *t = &a->tasks[frame_task[k]];
        if (frame_level[k] >= t->nframes)
            return RMEM_FAULT; /* a level missing: cannot happen */
        s->sorted[t->frame0 + t->nframes - 1 - frame_level[k]] = a->frames[k];
    }
    if (a->nframes) /* no frames: both arrays may still be NULL */
        memcpy(a->frames, s->sorted, (size_t)a->nframes * sizeof *a->frames);
    return RMEM_OK;
}

int async_coros(unwinder *u, bool skip_running)
{
    static coro_scratch s;
    static uint64_t types[ASYNC_MAX_TASKS];
    static rmem_piece p[ASYNC_MAX_TASKS];
    async_state *a = u->as;
    uint64_t lo, len;
    coro_span(u, &lo, &len);
    if (ensure(&s, a->ntasks ? a->ntasks : 1, len) != 0)
        return RMEM_OTHER;
    uint32_t n = first_links(a, skip_running, s.links);
    int rc = RMEM_OK;
    while (rc == RMEM_OK && n)
        rc = one_level(u, &s, n, types, &n, p);
    if (rc == RMEM_OK)
        rc = order_frames(a, &s);
    if (rc == RMEM_OK)
        rc = unwind_resolve_frames(u, a->frames, a->nframes);
    if (rc == RMEM_OK && u->cfg.opcodes)
        unwind_read_opcodes(u, a->frames, a->nframes);
    return rc;
}
