/* SPDX-License-Identifier: MIT */
/*
 * unwind_code.c - from frames to code objects: the head of each distinct
 * code object of a sample is read once (one batched read for all
 * threads) and resolved through the code cache; with --opcodes, the
 * instruction each frame executes is read too, as CPython 3.15 does: the
 * low byte of the code unit at the frame's instruction pointer, which is
 * the specialised or instrumented opcode the interpreter is running (the
 * outputs map it to its base instruction with the version's table).
 */
#include <string.h>

#include <tachyon/fmt.h>

#include "remote_mem.h"
#include "unwind.h"

#define HEAD_MAX 256
#define CODE_SET 1024 /* distinct code objects per sample */

/* Index of `addr` in the set `keys` (open addressing), inserting it. */
static uint32_t set_put(uint64_t *keys, uint32_t *n, uint64_t addr)
{
    uint32_t i = (uint32_t)((addr >> 4) * 0x9e3779b1u) & (CODE_SET * 2 - 1);
    while (keys[i] && keys[i] != addr)
        i = (i + 1) & (CODE_SET * 2 - 1);
    if (!keys[i]) {
        keys[i] = addr;
        (*n)++;
    }
    return i;
}

int unwind_resolve_threads(unwinder *u, raw_thread *threads, uint32_t n)
{
    static uint64_t keys[CODE_SET * 2];
    static code_entry *entries[CODE_SET * 2];
    static uint8_t heads[CODE_SET * 2][HEAD_MAX];
    static rmem_piece p[CODE_SET];
    size_t hl = code_head_len(&u->off);
    uint32_t distinct = 0, np = 0;
    memset(keys, 0, sizeof keys);
    if (hl > HEAD_MAX)
        return RMEM_OTHER;
    for (uint32_t t = 0; t < n; t++) {
        for (uint32_t f = 0; f < threads[t].depth; f++) {
            const raw_frame *fr = &threads[t].frames[f];
            if (fr->kind != FRAME_PYTHON)
                continue;
            uint32_t before = distinct, s = set_put(keys, &distinct, fr->code);
            if (distinct > CODE_SET)
                return RMEM_FAULT;
            if (distinct != before)
                p[np++] = (rmem_piece){fr->code, heads[s], hl};
        }
    }
    int rc = unwind_read_pieces(u->pid, p, np);
    for (uint32_t i = 0; rc == RMEM_OK && i < CODE_SET * 2; i++)
        if (keys[i])
            rc = code_cache_get(u->codes, u->pid, &u->off, u->code_type,
                                keys[i], heads[i], &entries[i]);
    for (uint32_t t = 0; rc == RMEM_OK && t < n; t++)
        for (uint32_t f = 0; f < threads[t].depth; f++) {
            raw_frame *fr = &threads[t].frames[f];
            if (fr->kind == FRAME_PYTHON)
                fr->entry = entries[set_put(keys, &distinct, fr->code)];
        }
    return rc == RMEM_OK ? unwind_tlbc_bases(u, threads, n) : rc;
}

/* Where a frame's instruction starts: 3.11/3.12 frames in a call point
 * at the last inline cache unit of their CALL, 3.13 at the instruction.
 * Where the code's instruction starts are not known (past an opaque
 * instrumented opcode), the pointer itself, except for a 3.11/3.12 frame
 * that is not the innermost (it may point into a cache): 0 then. */
static uint64_t instruction_addr(const unwinder *u, const raw_frame *f,
                                 bool innermost)
{
    int64_t q = code_instruction_start(f->entry, unwind_addrq(u, f));
    if (q >= 0)
        return f->base + 2 * (uint64_t)q;
    return innermost || u->hexversion >= 0x030d0000 ? f->instr : 0;
}

/* The byte read as a frame's opcode, or "none" when it names no opcode
 * of the target's version (never a cache byte passed off as one). */
static uint8_t opcode_or_none(const unwinder *u, uint8_t byte)
{
    unsigned major = u->hexversion >> 24;
    unsigned minor = (u->hexversion >> 16) & 0xff;
    return tfmt_opcode_name(major, minor, byte) ? byte : 255;
}

/* The opcode byte of every Python frame, read now from the live code (a
 * specialised variant is reported as such, as CPython 3.15 does); a frame
 * whose instruction cannot be read keeps "none", as in CPython. */
static int read_opcodes(unwinder *u)
{
    enum { CHUNK = 512 };
    static rmem_piece p[CHUNK];
    static raw_frame *who[CHUNK];
    static uint8_t bytes[CHUNK];
    uint32_t n = 0;
    for (uint32_t t = 0; t < u->nthreads; t++) {
        bool innermost = true;
        for (uint32_t f = 0; f < u->threads[t].depth; f++) {
            raw_frame *fr = &u->threads[t].frames[f];
            if (fr->kind != FRAME_PYTHON)
                continue;
            uint64_t at = instruction_addr(u, fr, innermost);
            innermost = false;
            if (!at)
                continue;
            who[n] = fr;
            p[n] = (rmem_piece){at, &bytes[n], 1};
            if (++n < CHUNK)
                continue;
            if (unwind_read_pieces(u->pid, p, n) == RMEM_OK)
                for (uint32_t i = 0; i < n; i++)
                    who[i]->opcode = opcode_or_none(u, bytes[i]);
            n = 0;
        }
    }
    if (n && unwind_read_pieces(u->pid, p, n) == RMEM_OK)
        for (uint32_t i = 0; i < n; i++)
            who[i]->opcode = opcode_or_none(u, bytes[i]);
    return RMEM_OK;
}

/* How many frames were taken, and how many ran on a copy of their
 * bytecode of their thread's own (free-threaded), for -v. */
static void count_frames(unwinder *u)
{
    for (uint32_t t = 0; t < u->nthreads; t++)
        for (uint32_t f = 0; f < u->threads[t].depth; f++) {
            const raw_frame *fr = &u->threads[t].frames[f];
            u->counters.frames += fr->kind == FRAME_PYTHON;
            u->counters.tlbc_frames += fr->kind == FRAME_PYTHON && fr->tlbc;
        }
}

int unwind_resolve(unwinder *u)
{
    int rc = unwind_resolve_threads(u, u->threads, u->nthreads);
    if (rc == RMEM_OK && u->cfg.opcodes)
        rc = read_opcodes(u);
    if (rc == RMEM_OK)
        count_frames(u);
    return rc;
}
