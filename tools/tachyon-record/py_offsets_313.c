/* SPDX-License-Identifier: MIT */
/*
 * py_offsets_313.c - CPython 3.13 offsets read from the target's own
 * _Py_DebugOffsets (the first member of _PyRuntime). The table's layout is
 * fixed per minor version, so this file knows 3.13's: 73 u64 words, 584
 * bytes. Every offset used is checked to lie inside the struct whose size
 * the same table reports, so a torn or foreign table cannot send the
 * walker outside the objects it reads.
 */
#include "py_offsets.h"

#include <stdio.h>
#include <string.h>

#include "py_offsets_313.h"
#include "remote_mem.h"

/* Each used field: its word, the word of its struct's size, its width. */
typedef struct field_check {
    int word, size_word;
    unsigned width;
} field_check;

static const field_check checks[] = {
    {W_RT_INTERP_HEAD, W_RT_SIZE, 8}, {W_IS_ID, W_IS_SIZE, 8},
    {W_IS_NEXT, W_IS_SIZE, 8},        {W_IS_THREADS, W_IS_SIZE, 8},
    {W_IS_CEVAL_GIL, W_IS_SIZE, 8},   {W_IS_GIL_LOCKED, W_IS_SIZE, 4},
    {W_IS_GIL_HOLDER, W_IS_SIZE, 8},  {W_TS_NEXT, W_TS_SIZE, 8},
    {W_TS_FRAME, W_TS_SIZE, 8},       {W_TS_NATIVE, W_TS_SIZE, 8},
    {W_TS_DATASTACK, W_TS_SIZE, 16},  {W_FR_PREV, W_FR_SIZE, 8},
    {W_FR_EXEC, W_FR_SIZE, 8},        {W_FR_INSTR, W_FR_SIZE, 8},
    {W_FR_OWNER, W_FR_SIZE, 1},       {W_CO_FILE, W_CO_SIZE, 8},
    {W_CO_QUAL, W_CO_SIZE, 8},        {W_CO_LINES, W_CO_SIZE, 8},
    {W_CO_FIRST, W_CO_SIZE, 4},       {W_CO_CODE, W_CO_SIZE, 2},
    {W_BY_OBSIZE, W_BY_SIZE, 8},      {W_BY_SVAL, W_BY_SIZE, 1},
    {W_UN_STATE, W_UN_SIZE, 4},       {W_UN_LENGTH, W_UN_SIZE, 8},
};

/* Sizes the walker reads whole must stay small. */
static int check_bounds(const uint64_t *w, char *msg, size_t msg_len)
{
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        uint64_t off = w[checks[i].word], size = w[checks[i].size_word];
        if (size > (1u << 20) || off > size || checks[i].width > size - off) {
            snprintf(msg, msg_len,
                     "_Py_DebugOffsets field %d out of "
                     "bounds (offset %llu, struct size %llu)",
                     checks[i].word, (unsigned long long)off,
                     (unsigned long long)size);
            return -1;
        }
    }
    if (w[W_TS_SIZE] > 4096 || w[W_FR_SIZE] > 4096 || w[W_CO_SIZE] > 4096 ||
        w[W_UN_ASCII] > 256 || w[W_IS_SIZE] < O313_GC_COLLECTING + 4 ||
        w[W_TS_SIZE] < O313_EXC_STATE + 16 ||
        w[W_CO_SIZE] < O313_FRAMESIZE + 4) {
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
    if ((w[W_VERSION] >> 16) != 0x030d) {
        snprintf(msg, msg_len,
                 "_Py_DebugOffsets version 0x%08llx is not "
                 "3.13",
                 (unsigned long long)w[W_VERSION]);
        return -1;
    }
    if (w[W_FREE_THREADED] != 0) {
        snprintf(msg, msg_len,
                 "free-threaded CPython 3.13 is not "
                 "supported");
        return -1;
    }
    return 0;
}

/* The GIL fields are given relative to the interpreter; make them
 * relative to the GIL state the interpreter's ceval.gil points to. */
static void fill(const uint64_t *w, py_offsets *o)
{
    memset(o, 0, sizeof *o);
    o->source = "_Py_DebugOffsets";
    o->rt_interpreters_head = w[W_RT_INTERP_HEAD];
    o->rt_gil = PYOFF_NONE;
    o->is_id = w[W_IS_ID];
    o->is_next = w[W_IS_NEXT];
    o->is_threads_head = w[W_IS_THREADS];
    o->is_gil_ptr = w[W_IS_CEVAL_GIL];
    o->is_gc_collecting = O313_GC_COLLECTING;
    o->is_tlbc_generation = PYOFF_NONE;
    o->gil_locked = w[W_IS_GIL_LOCKED] - w[W_IS_GIL];
    o->gil_holder = w[W_IS_GIL_HOLDER] - w[W_IS_GIL];
    /* Not in the table: the word after `locked` (checked against the
     * DWARF by check_offsets.sh). */
    o->gil_switch = o->gil_locked + O313_GIL_SWITCH_AFTER_LOCKED;
    o->ts_size = w[W_TS_SIZE];
    o->ts_next = w[W_TS_NEXT];
    o->ts_native_tid = w[W_TS_NATIVE];
    o->ts_cframe = PYOFF_NONE;
    o->ts_current_frame = w[W_TS_FRAME];
    /* datastack_top follows datastack_chunk in 3.11-3.13 (checked by
     * check_offsets.sh); the table has only the chunk. */
    o->ts_datastack_chunk = w[W_TS_DATASTACK];
    o->ts_datastack_top = w[W_TS_DATASTACK] + 8;
    o->ts_exc_info = O313_EXC_INFO;
    o->ts_exc_state = O313_EXC_STATE;
    o->ts_current_exc = O313_CURRENT_EXC;
    o->ts_status = PYOFF_NONE;
    o->ts_gil_requested = PYOFF_NONE;
    o->chunk_previous = 0;
    o->chunk_data = O313_CHUNK_DATA;
    o->err_exc_value = 0;
    o->err_previous = 8;
    o->fr_size = w[W_FR_SIZE];
    o->fr_previous = w[W_FR_PREV];
    o->fr_code = w[W_FR_EXEC];
    o->fr_instr = w[W_FR_INSTR];
    o->fr_owner = w[W_FR_OWNER];
    o->fr_is_entry = PYOFF_NONE;
    o->fr_code_tag = 0;
    o->fr_tlbc = PYOFF_NONE;
    o->owner_generator = 1; /* FRAME_OWNED_BY_GENERATOR */
    o->owner_cstack = 3;    /* FRAME_OWNED_BY_CSTACK */
    o->owner_max = 3;
    o->co_size = w[W_CO_SIZE];
    o->co_filename = w[W_CO_FILE];
    o->co_qualname = w[W_CO_QUAL];
    o->co_linetable = w[W_CO_LINES];
    o->co_firstlineno = w[W_CO_FIRST];
    o->co_code_adaptive = w[W_CO_CODE];
    o->co_tlbc = PYOFF_NONE;
    o->co_framesize = O313_FRAMESIZE;
    o->co_nlocalsplus = o->co_stacksize = PYOFF_NONE;
    o->ob_type = w[W_OB_TYPE];
    o->u_length = w[W_UN_LENGTH];
    o->u_state = w[W_UN_STATE];
    o->u_kind_shift = 2;
    o->u_ascii_size = w[W_UN_ASCII];
    o->u_compact_size = O313_COMPACT_SIZE;
    o->b_size = w[W_BY_OBSIZE];
    o->b_sval = w[W_BY_SVAL];
}

int py_offsets_313_load(pid_t pid, uint64_t runtime, uint64_t section_size,
                        py_offsets *out, char *msg, size_t msg_len)
{
    unsigned char raw[DBG_BYTES];
    uint64_t w[DBG_WORDS];
    if (section_size < DBG_BYTES ||
        rmem_read(pid, runtime, raw, sizeof raw) != RMEM_OK) {
        snprintf(msg, msg_len, "cannot read _Py_DebugOffsets");
        return -1;
    }
    memcpy(w, raw, sizeof w);
    if (check_identity(w, (const char *)raw, msg, msg_len) != 0 ||
        check_bounds(w, msg, msg_len) != 0)
        return -1;
    if (w[W_RT_SIZE] > section_size || w[W_IS_GIL_LOCKED] < w[W_IS_GIL] ||
        w[W_IS_GIL_HOLDER] < w[W_IS_GIL]) {
        snprintf(msg, msg_len,
                 "_Py_DebugOffsets runtime layout "
                 "implausible");
        return -1;
    }
    fill(w, out);
    return 0;
}
