/* SPDX-License-Identifier: MIT */
/*
 * emit.c - turn resolved frames into writer frame indices. Strings are
 * interned once per code object (indices kept in the code cache) and the
 * location of each (code object, instruction) pair is decoded once, then
 * remembered in a direct-mapped memo: a steady-state sample costs no
 * line-table decoding and no string hashing. Synthetic frames are written
 * as CPython's writer writes them: file "~", function "<GC>" or
 * "<native>", no location, no opcode.
 */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

#include "async.h"
#include "linetable.h"

static int intern_names(tfmt_bin_writer *w, code_entry *c)
{
    int rc = TFMT_OK;
    if (c->filename_idx == CODE_IDX_UNSET)
        rc = tfmt_bin_writer_string(w, c->filename, c->filename_len,
                                    &c->filename_idx);
    if (rc == TFMT_OK && c->qualname_idx == CODE_IDX_UNSET)
        rc = tfmt_bin_writer_string(w, c->qualname, c->qualname_len,
                                    &c->qualname_idx);
    return rc;
}

static emit_memo *memo_slot(emitter *e, uint64_t serial, int64_t addrq,
                            uint8_t opcode)
{
    uint64_t h = (serial * 0x9e3779b97f4a7c15ull) ^ (uint64_t)addrq ^
                 ((uint64_t)opcode << 48);
    h *= 0xff51afd7ed558ccdull;
    return &e->memo[(h >> 40) % EMIT_MEMO_SLOTS];
}

/* The writer frame index of one raw frame. */
static int frame_index(emitter *e, const unwinder *u, const raw_frame *f,
                       uint32_t *out)
{
    code_entry *c = f->entry;
    int64_t addrq = unwind_addrq(u, f);
    int rc = intern_names(e->w, c);
    if (rc != TFMT_OK)
        return rc;
    emit_memo *m = memo_slot(e, c->serial, addrq, f->opcode);
    if (m->serial == c->serial && m->addrq == addrq && m->opcode == f->opcode) {
        *out = m->frame;
        return TFMT_OK;
    }
    py_location loc =
        linetable_lookup(c->linetable, c->linetable_len, c->firstlineno, addrq);
    tfmt_frame fr = {c->filename_idx, c->qualname_idx, loc.lineno,
                     loc.end_lineno,  loc.column,      loc.end_column,
                     f->opcode};
    rc = tfmt_bin_writer_frame(e->w, &fr, out);
    if (rc == TFMT_OK)
        *m = (emit_memo){c->serial, addrq, f->opcode, *out};
    return rc;
}

/* The writer frame of a synthetic frame named `name`. */
static int synthetic_index(emitter *e, emit_synthetic *s, const char *name,
                           uint32_t *out)
{
    uint32_t file = 0, func = 0;
    if (!s->done) {
        int rc = tfmt_bin_writer_string(e->w, "~", 1, &file);
        if (rc == TFMT_OK)
            rc = tfmt_bin_writer_string(e->w, name, strlen(name), &func);
        tfmt_frame fr = {file, func, -1, -1, -1, -1, TFMT_NO_OPCODE};
        if (rc == TFMT_OK)
            rc = tfmt_bin_writer_frame(e->w, &fr, &s->frame);
        if (rc != TFMT_OK)
            return rc;
        s->done = true;
    }
    *out = s->frame;
    return TFMT_OK;
}

static int any_index(emitter *e, const unwinder *u, const raw_frame *f,
                     uint32_t *out)
{
    if (f->kind == FRAME_GC)
        return synthetic_index(e, &e->gc, "<GC>", out);
    if (f->kind == FRAME_NATIVE)
        return synthetic_index(e, &e->native, "<native>", out);
    return frame_index(e, u, f, out);
}

static int emit_thread(emitter *e, const unwinder *u, const raw_thread *t,
                       uint64_t timestamp_us)
{
    uint32_t stack[UNWIND_MAX_DEPTH];
    for (uint32_t i = 0; i < t->depth; i++) {
        /* Frames come innermost first; the writer wants root first. */
        int rc = any_index(e, u, &t->frames[i], &stack[t->depth - 1 - i]);
        if (rc != TFMT_OK)
            return rc;
    }
    return tfmt_bin_writer_sample(e->w, t->tid, t->interp_id, timestamp_us,
                                  t->status, stack, t->depth);
}

/* A task's <task> frame: file "<task>", its name, no location, no
 * opcode, interned in CPython's order (file first). */
static int task_index(emitter *e, const async_state *a, uint32_t task,
                      uint32_t *out)
{
    size_t len;
    const char *name = async_task_name(a, task, &len);
    uint64_t addr = async_task_addr(a, task);
    uint32_t h = (uint32_t)((addr >> 4) * 0x9e3779b97f4a7c15ull >> 40);
    emit_task_memo *m = NULL;
    if (!e->tasks)
        e->tasks = calloc(EMIT_TASK_SLOTS, sizeof *e->tasks);
    for (uint32_t k = 0; e->tasks && k < EMIT_TASK_PROBES; k++) {
        emit_task_memo *s = &e->tasks[(h + k) % EMIT_TASK_SLOTS];
        if (s->addr == addr && s->len == len &&
            memcmp(s->name, name, len) == 0) {
            *out = s->frame;
            return TFMT_OK;
        }
        /* where to remember it: empty, this task's stale entry, or the
         * last one looked at */
        if (!m && (!s->addr || s->addr == addr || k + 1 == EMIT_TASK_PROBES))
            m = s;
    }
    int rc = tfmt_bin_writer_location(e->w, "<task>", 6, name, len, -1, -1, -1,
                                      -1, TFMT_NO_OPCODE, out);
    if (rc == TFMT_OK && m && len <= EMIT_TASK_NAME) {
        m->addr = addr;
        m->frame = *out;
        m->len = (uint16_t)len;
        memcpy(m->name, name, len);
    }
    return rc;
}

/* One task stack per leaf task, on its thread. */
static int emit_tasks(emitter *e, const unwinder *u, uint64_t timestamp_us)
{
    static async_stack st;
    uint32_t stack[UNWIND_MAX_DEPTH];
    for (uint32_t i = 0; i < async_nstacks(u->as); i++) {
        async_stack_get(u->as, i, &st);
        for (uint32_t k = 0; k < st.depth; k++) {
            const async_frame *f = &st.frames[k];
            uint32_t *slot = &stack[st.depth - 1 - k];
            int rc = f->f ? any_index(e, u, f->f, slot)
                          : task_index(e, u->as, f->task, slot);
            if (rc != TFMT_OK)
                return rc;
        }
        int rc =
            tfmt_bin_writer_sample(e->w, st.tid, st.interp_id, timestamp_us,
                                   st.status, stack, st.depth);
        if (rc != TFMT_OK)
            return rc;
    }
    return TFMT_OK;
}

int emit_sample(emitter *e, const unwinder *u, uint64_t timestamp_us)
{
    if (!e->w)
        return TFMT_OK; /* --live without -o: nothing written */
    if (u->as)
        return emit_tasks(e, u, timestamp_us);
    for (uint32_t i = 0; i < u->nthreads; i++) {
        int rc = emit_thread(e, u, &u->threads[i], timestamp_us);
        if (rc != TFMT_OK)
            return rc;
    }
    return TFMT_OK;
}
