/* SPDX-License-Identifier: MIT */
/*
 * unwind_tlbc.c - free-threaded CPython (3.14t) runs each thread on its
 * own copy of a code object's bytecode, so that one thread specialising
 * an instruction does not race with another executing it. A frame's
 * instr_ptr then points into the copy its tlbc_index names, not into
 * co_code_adaptive: code->co_tlbc is a _PyCodeArray {Py_ssize_t size;
 * char *entries[size]}, entries[0] being co_code_adaptive itself. The
 * line, the column and the opcode of a frame are all taken relative to
 * the start of that copy.
 *
 * A copy stays where it is while a thread holds its index (copies of
 * indices no thread holds may be freed, and an index given back may be
 * given to a new thread, which changes the interpreter's tlbc
 * generation), so where each (code object, index) copy starts is kept in
 * the code cache for the generation it was read in.
 */
#include <stdlib.h>
#include <string.h>

#include "remote_mem.h"
#include "unwind.h"

/* Longest co_tlbc array believed: one entry per thread index. */
#define TLBC_MAX_SIZE (1 << 20)

/* The entry's cache for this generation, emptied when it changed. */
static uint64_t *cache_for(code_entry *e, uint32_t gen)
{
    if (!e->tlbc_base) {
        e->tlbc_base = calloc(CODE_TLBC_CACHED, sizeof *e->tlbc_base);
        e->tlbc_gen = gen;
        return e->tlbc_base;
    }
    if (e->tlbc_gen != gen) {
        memset(e->tlbc_base, 0, CODE_TLBC_CACHED * sizeof *e->tlbc_base);
        e->tlbc_gen = gen;
    }
    return e->tlbc_base;
}

/* Read where copy `idx` of the code object at `code` starts. */
static int read_base(const unwinder *u, uint64_t code, int32_t idx,
                     uint64_t *out)
{
    uint64_t array;
    int64_t size;
    int rc = rmem_read_u64(u->pid, code + u->off.co_tlbc, &array);
    if (rc != RMEM_OK)
        return rc;
    if (!array || (array & 7))
        return RMEM_FAULT;
    rmem_piece p[2] = {{array, &size, 8},
                       {array + 8 + 8 * (uint64_t)idx, out, 8}};
    rc = rmem_readv(u->pid, p, 1);
    if (rc != RMEM_OK)
        return rc;
    /* The entry is read only once the size says it exists. */
    if (size <= idx || size > TLBC_MAX_SIZE)
        return RMEM_FAULT;
    rc = rmem_readv(u->pid, p + 1, 1);
    if (rc == RMEM_OK && (!*out || (*out & 1)))
        rc = RMEM_FAULT;
    return rc;
}

/* Fill f->base for a frame on a copy other than the main one. */
static int frame_base(unwinder *u, raw_frame *f)
{
    code_entry *e = f->entry;
    uint64_t *cache = NULL;
    if (f->tlbc < 0)
        return RMEM_FAULT;
    if (f->tlbc < CODE_TLBC_CACHED) {
        cache = cache_for(e, u->tlbc_generation);
        if (!cache)
            return RMEM_OTHER;
        if (cache[f->tlbc]) {
            f->base = cache[f->tlbc];
            return RMEM_OK;
        }
    }
    int rc = read_base(u, f->code, f->tlbc, &f->base);
    if (rc != RMEM_OK) {
        f->base = 0;
        return rc;
    }
    if (cache)
        cache[f->tlbc] = f->base;
    return RMEM_OK;
}

int unwind_tlbc_bases(unwinder *u, raw_thread *t, uint32_t n)
{
    if (u->off.fr_tlbc == PYOFF_NONE)
        return RMEM_OK;
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t k = 0; k < t[i].depth; k++) {
            raw_frame *f = &t[i].frames[k];
            if (f->kind != FRAME_PYTHON || f->base)
                continue;
            int rc = frame_base(u, f);
            if (rc != RMEM_OK)
                return rc;
        }
    }
    return RMEM_OK;
}
