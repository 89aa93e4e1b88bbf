/* SPDX-License-Identifier: MIT */
/*
 * py_offsets_314.c - CPython 3.14 offsets read from the target's own
 * _Py_DebugOffsets, for the GIL build and the free-threaded one (3.14t).
 * The table is 95 u64 words (py_offsets_314.h); every offset the walker
 * uses is checked to lie inside the struct whose size the same table
 * reports, so a torn or foreign table cannot send it outside the objects
 * it reads.
 *
 * What changed since 3.13, for the walker: f_executable is a _PyStackRef
 * whose low bits are tags; frames owned by the interpreter (3, the entry
 * frame on the C stack) or the C stack (4) are shims; the collector's
 * flag has its own section. Free-threaded: no GIL (a thread's state is
 * "attached" while it may run Python code), each thread may run its own
 * copy of a code object's bytecode (tlbc_index into co_tlbc), and the
 * object header is 16 bytes longer, which moves the code object's fields
 * and the str state's bits.
 */
#include "py_offsets_314.h"

#include <stdio.h>
#include <string.h>

#include "py_offsets.h"
#include "remote_mem.h"

/* Each used field: its word, the word of its struct's size, its width,
 * and whether only the free-threaded build fills it. */
typedef struct field_check {
    int word, size_word;
    unsigned width;
    bool ft_only;
} field_check;

static const field_check checks[] = {
    {D314_RT_INTERPRETERS_HEAD, D314_RT_SIZE, 8, false},
    {D314_IS_ID, D314_IS_SIZE, 8, false},
    {D314_IS_NEXT, D314_IS_SIZE, 8, false},
    {D314_IS_THREADS_HEAD, D314_IS_SIZE, 8, false},
    {D314_IS_CEVAL_GIL, D314_IS_SIZE, 8, false},
    {D314_IS_GIL_LOCKED, D314_IS_SIZE, 4, false},
    {D314_IS_GIL_HOLDER, D314_IS_SIZE, 8, false},
    {D314_IS_TLBC_GENERATION, D314_IS_SIZE, 4, true},
    {D314_GC_COLLECTING, D314_GC_SIZE, 4, false},
    {D314_TS_NEXT, D314_TS_SIZE, 8, false},
    {D314_TS_CURRENT_FRAME, D314_TS_SIZE, 8, false},
    {D314_TS_NATIVE_THREAD_ID, D314_TS_SIZE, 8, false},
    /* datastack_chunk, _top and _limit are read together */
    {D314_TS_DATASTACK_CHUNK, D314_TS_SIZE, 24, false},
    {D314_TS_STATUS, D314_TS_SIZE, 4, true},
    {D314_FR_PREVIOUS, D314_FR_SIZE, 8, false},
    {D314_FR_EXECUTABLE, D314_FR_SIZE, 8, false},
    {D314_FR_INSTR_PTR, D314_FR_SIZE, 8, false},
    {D314_FR_OWNER, D314_FR_SIZE, 1, false},
    {D314_FR_TLBC_INDEX, D314_FR_SIZE, 4, true},
    {D314_CO_FILENAME, D314_CO_SIZE, 8, false},
    {D314_CO_QUALNAME, D314_CO_SIZE, 8, false},
    {D314_CO_LINETABLE, D314_CO_SIZE, 8, false},
    {D314_CO_FIRSTLINENO, D314_CO_SIZE, 4, false},
    {D314_CO_CODE_ADAPTIVE, D314_CO_SIZE, 2, false},
    {D314_CO_TLBC, D314_CO_SIZE, 8, true},
    {D314_OB_TYPE, D314_OB_SIZE, 8, false},
    {D314_BYTES_OB_SIZE, D314_BYTES_SIZE, 8, false},
    {D314_BYTES_OB_SVAL, D314_BYTES_SIZE, 1, false},
    {D314_UNICODE_STATE, D314_UNICODE_SIZE, 4, false},
    {D314_UNICODE_LENGTH, D314_UNICODE_SIZE, 8, false},
};

/* Sizes a reader copies whole must stay small; the struct a section
 * describes bounds each offset used in it. */
static int check_bounds(const uint64_t *w, char *msg, size_t msg_len)
{
    bool ft = w[D314_FREE_THREADED] != 0;
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        uint64_t off = w[checks[i].word], size = w[checks[i].size_word];
        if (checks[i].ft_only && !ft)
            continue;
        if (size > (1u << 20) || off > size || checks[i].width > size - off) {
            snprintf(msg, msg_len,
                     "_Py_DebugOffsets field %d out of bounds (offset "
                     "%llu, struct size %llu)",
                     checks[i].word, (unsigned long long)off,
                     (unsigned long long)size);
            return -1;
        }
    }
    uint64_t framesize = ft ? O314T_FRAMESIZE : O314_FRAMESIZE;
    if (w[D314_TS_SIZE] > 4096 || w[D314_FR_SIZE] > 4096 ||
        w[D314_CO_SIZE] > 4096 || w[D314_UNICODE_ASCII_SIZE] > 256 ||
        w[D314_GC_SIZE] > w[D314_IS_SIZE] ||
        w[D314_IS_GC] > w[D314_IS_SIZE] - w[D314_GC_SIZE] ||
        w[D314_TS_SIZE] < O314_EXC_STATE + 16 ||
        w[D314_CO_SIZE] < framesize + 4 ||
        w[D314_IS_GIL_LOCKED] < w[D314_IS_GIL_RUNTIME_STATE] ||
        w[D314_IS_GIL_HOLDER] < w[D314_IS_GIL_RUNTIME_STATE]) {
        snprintf(msg, msg_len, "_Py_DebugOffsets struct sizes implausible");
        return -1;
    }
    return 0;
}

static int check_identity(const uint64_t *w, const char *cookie, char *msg,
                          size_t msg_len)
{
    if (memcmp(cookie, "xdebugpy", 8) != 0) {
        snprintf(msg, msg_len, "no _Py_DebugOffsets cookie in _PyRuntime");
        return -1;
    }
    if ((w[D314_VERSION] >> 16) != 0x030e) {
        snprintf(msg, msg_len, "_Py_DebugOffsets version 0x%08llx is not 3.14",
                 (unsigned long long)w[D314_VERSION]);
        return -1;
    }
    if (w[D314_FREE_THREADED] > 1) {
        snprintf(msg, msg_len, "_Py_DebugOffsets free_threaded flag %llu",
                 (unsigned long long)w[D314_FREE_THREADED]);
        return -1;
    }
    return 0;
}

int py_offsets_314_read(pid_t pid, uint64_t runtime, uint64_t section_size,
                        uint64_t words[D314_WORDS], char *msg, size_t msg_len)
{
    unsigned char raw[D314_BYTES];
    if (section_size < D314_BYTES ||
        rmem_read(pid, runtime, raw, sizeof raw) != RMEM_OK) {
        snprintf(msg, msg_len, "cannot read _Py_DebugOffsets");
        return -1;
    }
    memcpy(words, raw, D314_BYTES);
    if (check_identity(words, (const char *)raw, msg, msg_len) != 0 ||
        check_bounds(words, msg, msg_len) != 0)
        return -1;
    if (words[D314_RT_SIZE] > section_size) {
        snprintf(msg, msg_len, "_Py_DebugOffsets runtime layout implausible");
        return -1;
    }
    return 0;
}

/* The thread, frame and code fields. */
static void fill_frames(const uint64_t *w, bool ft, py_offsets *o)
{
    o->ts_size = w[D314_TS_SIZE];
    o->ts_next = w[D314_TS_NEXT];
    o->ts_native_tid = w[D314_TS_NATIVE_THREAD_ID];
    o->ts_cframe = PYOFF_NONE;
    o->ts_current_frame = w[D314_TS_CURRENT_FRAME];
    o->ts_datastack_chunk = w[D314_TS_DATASTACK_CHUNK];
    o->ts_datastack_top = w[D314_TS_DATASTACK_CHUNK] + O314_DATASTACK_TOP;
    o->ts_exc_info = O314_EXC_INFO;
    o->ts_exc_state = O314_EXC_STATE;
    o->ts_current_exc = O314_CURRENT_EXC;
    o->ts_status = ft ? w[D314_TS_STATUS] : PYOFF_NONE;
    o->ts_active_bit = O314_STATUS_ACTIVE_BIT;
    o->chunk_previous = 0;
    o->chunk_data = O314_CHUNK_DATA;
    o->err_exc_value = 0;
    o->err_previous = 8;
    o->fr_size = w[D314_FR_SIZE];
    o->fr_previous = w[D314_FR_PREVIOUS];
    o->fr_code = w[D314_FR_EXECUTABLE];
    o->fr_code_tag = ft ? O314T_STACKREF_TAG : O314_STACKREF_TAG;
    o->fr_instr = w[D314_FR_INSTR_PTR];
    o->fr_owner = w[D314_FR_OWNER];
    o->fr_is_entry = PYOFF_NONE;
    o->fr_tlbc = ft ? w[D314_FR_TLBC_INDEX] : PYOFF_NONE;
    o->owner_generator = O314_OWNED_BY_GENERATOR;
    o->owner_cstack = O314_OWNED_BY_INTERPRETER;
    o->owner_max = O314_OWNED_BY_CSTACK;
    o->co_size = w[D314_CO_SIZE];
    o->co_filename = w[D314_CO_FILENAME];
    o->co_qualname = w[D314_CO_QUALNAME];
    o->co_linetable = w[D314_CO_LINETABLE];
    o->co_firstlineno = w[D314_CO_FIRSTLINENO];
    o->co_code_adaptive = w[D314_CO_CODE_ADAPTIVE];
    o->co_tlbc = ft ? w[D314_CO_TLBC] : PYOFF_NONE;
    o->co_framesize = ft ? O314T_FRAMESIZE : O314_FRAMESIZE;
    o->co_nlocalsplus = o->co_stacksize = PYOFF_NONE;
}

/* The GIL fields are given relative to the interpreter; make them
 * relative to the GIL state its ceval.gil points to. */
static void fill(const uint64_t *w, py_offsets *o)
{
    bool ft = w[D314_FREE_THREADED] != 0;
    uint64_t gil = w[D314_IS_GIL_RUNTIME_STATE];
    memset(o, 0, sizeof *o);
    o->source = ft ? "_Py_DebugOffsets (free-threaded)" : "_Py_DebugOffsets";
    o->free_threaded = ft;
    o->rt_interpreters_head = w[D314_RT_INTERPRETERS_HEAD];
    o->rt_gil = PYOFF_NONE;
    o->is_id = w[D314_IS_ID];
    o->is_next = w[D314_IS_NEXT];
    o->is_threads_head = w[D314_IS_THREADS_HEAD];
    o->is_gil_ptr = w[D314_IS_CEVAL_GIL];
    o->is_gc_collecting = w[D314_IS_GC] + w[D314_GC_COLLECTING];
    o->is_tlbc_generation = ft ? w[D314_IS_TLBC_GENERATION] : PYOFF_NONE;
    o->gil_locked = w[D314_IS_GIL_LOCKED] - gil;
    o->gil_holder = w[D314_IS_GIL_HOLDER] - gil;
    o->gil_switch = o->gil_locked + O314_GIL_SWITCH_AFTER_LOCKED;
    fill_frames(w, ft, o);
    o->ob_type = w[D314_OB_TYPE];
    o->u_length = w[D314_UNICODE_LENGTH];
    o->u_state = w[D314_UNICODE_STATE];
    o->u_kind_shift = ft ? O314T_KIND_SHIFT : O314_KIND_SHIFT;
    o->u_ascii_size = w[D314_UNICODE_ASCII_SIZE];
    o->u_compact_size = w[D314_UNICODE_ASCII_SIZE] + O314_COMPACT_EXTRA;
    o->b_size = w[D314_BYTES_OB_SIZE];
    o->b_sval = w[D314_BYTES_OB_SVAL];
}

int py_offsets_314_load(pid_t pid, uint64_t runtime, uint64_t section_size,
                        py_offsets *out, char *msg, size_t msg_len)
{
    uint64_t w[D314_WORDS];
    if (py_offsets_314_read(pid, runtime, section_size, w, msg, msg_len) != 0)
        return -1;
    fill(w, out);
    return 0;
}
