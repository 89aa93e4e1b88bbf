/* SPDX-License-Identifier: MIT */
/*
 * py_offsets_dbg.c - a _Py_DebugOffsets table of CPython 3.14 or later
 * (one map per minor version says where its fields are) read into
 * py_offsets, for the GIL build and the free-threaded one.
 *
 * What changed since 3.13, for the walker: f_executable is a _PyStackRef
 * whose low bits are tags; frames owned by the interpreter (3, the entry
 * frame on the C stack) or the C stack (4, 3.14 only) are shims; the
 * collector's flag has its own section. Free-threaded: no GIL (a thread's
 * state is "attached" while it may run Python code), each thread may run
 * its own copy of a code object's bytecode (tlbc_index into co_tlbc), and
 * the object header is 16 bytes longer, which moves the code object's
 * fields and the str state's bits. What no table carries is fixed in
 * py_offsets_314.h, from both 3.14.7 builds' DWARF; 3.15 (untested) is
 * assumed to keep it where its own table does not say.
 */
#include "py_offsets_dbg.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "py_offsets_314.h"
#include "remote_mem.h"

/* One field the walker uses: its word, its struct's size word, its
 * width, and whether only a free-threaded build fills it. */
typedef struct field_check {
    int word, size_word;
    unsigned width;
    bool ft_only;
} field_check;

/* The fields to check, from the map; returns how many. */
static size_t field_checks(const dbg_map *m, field_check *c)
{
    const field_check all[] = {
        {m->rt_interp_head, m->rt_size, 8, false},
        {m->is_id, m->is_size, 8, false},
        {m->is_next, m->is_size, 8, false},
        {m->is_threads_head, m->is_size, 8, false},
        {m->is_ceval_gil, m->is_size, 8, false},
        {m->is_gil_locked, m->is_size, 4, false},
        {m->is_gil_holder, m->is_size, 8, false},
        {m->is_tlbc_generation, m->is_size, 4, true},
        {m->gc_collecting, m->gc_size, 4, false},
        {m->ts_next, m->ts_size, 8, false},
        {m->ts_current_frame, m->ts_size, 8, false},
        {m->ts_native_tid, m->ts_size, 8, false},
        /* datastack_chunk, _top and _limit are read together */
        {m->ts_datastack, m->ts_size, 24, false},
        {m->ts_status, m->ts_size, 4, true},
        {m->ts_current_exc, m->ts_size, 16, false}, /* and exc_info */
        {m->ts_exc_state, m->ts_size, 16, false},
        {m->ts_gil_requested, m->ts_size, 4, false},
        {m->fr_previous, m->fr_size, 8, false},
        {m->fr_executable, m->fr_size, 8, false},
        {m->fr_instr, m->fr_size, 8, false},
        {m->fr_owner, m->fr_size, 1, false},
        {m->fr_tlbc, m->fr_size, 4, true},
        {m->co_filename, m->co_size, 8, false},
        {m->co_qualname, m->co_size, 8, false},
        {m->co_linetable, m->co_size, 8, false},
        {m->co_firstlineno, m->co_size, 12, false}, /* and co_framesize */
        {m->co_code_adaptive, m->co_size, 2, false},
        {m->co_tlbc, m->co_size, 8, true},
        {m->ob_type, m->ob_size, 8, false},
        {m->by_ob_size, m->by_size, 8, false},
        {m->by_ob_sval, m->by_size, 1, false},
        {m->un_state, m->un_size, 4, false},
        {m->un_length, m->un_size, 8, false},
    };
    size_t n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i].word >= 0)
            c[n++] = all[i];
    return n;
}

static int check_fields(const dbg_map *m, const uint64_t *w, char *msg,
                        size_t msg_len)
{
    field_check c[40];
    size_t n = field_checks(m, c);
    bool ft = w[DBG_FREE_THREADED] != 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t off = w[c[i].word], size = w[c[i].size_word];
        if (c[i].ft_only && !ft)
            continue;
        if (size > (1u << 20) || off > size || c[i].width > size - off) {
            snprintf(msg, msg_len,
                     "_Py_DebugOffsets field %d out of bounds (offset "
                     "%llu, struct size %llu)",
                     c[i].word, (unsigned long long)off,
                     (unsigned long long)size);
            return -1;
        }
    }
    return 0;
}

/* Sizes a reader copies whole must stay small; sections must lie inside
 * the struct that holds them. */
static int check_sizes(const dbg_map *m, const uint64_t *w, char *msg,
                       size_t msg_len)
{
    uint64_t gil = w[m->is_gil_state];
    /* The thread's own exception item is read from its state's copy:
     * the item's value and link must lie inside the thread state. */
    bool item_ok =
        m->err_exc_value < 0 ||
        (w[m->err_exc_value] <= 64 &&
         w[m->ts_exc_state] + w[m->err_exc_value] + 16 <= w[m->ts_size]);
    bool compact_ok =
        m->un_compact_size < 0 ||
        w[m->un_compact_size] == w[m->un_ascii_size] + O314_COMPACT_EXTRA;
    if (w[m->ts_size] > 4096 || w[m->fr_size] > 4096 || w[m->co_size] > 4096 ||
        w[m->un_ascii_size] > 256 || !compact_ok || !item_ok ||
        w[m->gc_size] > w[m->is_size] ||
        w[m->is_gc] > w[m->is_size] - w[m->gc_size] ||
        (m->ts_exc_state < 0 && w[m->ts_size] < O314_EXC_STATE + 16) ||
        w[m->is_gil_locked] < gil || w[m->is_gil_holder] < gil ||
        w[m->rt_size] < 8) {
        snprintf(msg, msg_len, "_Py_DebugOffsets struct sizes implausible");
        return -1;
    }
    return 0;
}

static int check_identity(const dbg_map *m, const uint64_t *w,
                          const char *cookie, char *msg, size_t msg_len)
{
    if (memcmp(cookie, "xdebugpy", 8) != 0) {
        snprintf(msg, msg_len, "no _Py_DebugOffsets cookie in _PyRuntime");
        return -1;
    }
    if ((w[DBG_VERSION] >> 16) != (0x0300u | m->minor)) {
        snprintf(msg, msg_len, "_Py_DebugOffsets version 0x%08llx is not 3.%u",
                 (unsigned long long)w[DBG_VERSION], m->minor);
        return -1;
    }
    if (w[DBG_FREE_THREADED] > 1) {
        snprintf(msg, msg_len, "_Py_DebugOffsets free_threaded flag %llu",
                 (unsigned long long)w[DBG_FREE_THREADED]);
        return -1;
    }
    return 0;
}

int dbg_read(const dbg_map *m, pid_t pid, uint64_t runtime,
             uint64_t section_size, uint64_t *words, char *msg, size_t msg_len)
{
    unsigned char raw[DBG_MAX_WORDS * 8];
    size_t len = (size_t)m->words * 8;
    if (m->words > DBG_MAX_WORDS || section_size < len ||
        rmem_read(pid, runtime, raw, len) != RMEM_OK) {
        snprintf(msg, msg_len, "cannot read _Py_DebugOffsets");
        return -1;
    }
    memcpy(words, raw, len);
    if (check_identity(m, words, (const char *)raw, msg, msg_len) != 0 ||
        check_fields(m, words, msg, msg_len) != 0 ||
        check_sizes(m, words, msg, msg_len) != 0)
        return -1;
    if (words[m->rt_size] > section_size) {
        snprintf(msg, msg_len, "_Py_DebugOffsets runtime layout implausible");
        return -1;
    }
    return 0;
}

/* The thread fields and the exception state: in the table from 3.15,
 * else where 3.14 has them (exc_info follows current_exception). */
static void fill_thread(const dbg_map *m, const uint64_t *w, bool ft,
                        py_offsets *o)
{
    o->ts_size = w[m->ts_size];
    o->ts_next = w[m->ts_next];
    o->ts_native_tid = w[m->ts_native_tid];
    o->ts_cframe = PYOFF_NONE;
    o->ts_current_frame = w[m->ts_current_frame];
    o->ts_datastack_chunk = w[m->ts_datastack];
    o->ts_datastack_top = w[m->ts_datastack] + O314_DATASTACK_TOP;
    o->ts_current_exc =
        m->ts_current_exc >= 0 ? w[m->ts_current_exc] : O314_CURRENT_EXC;
    o->ts_exc_info = o->ts_current_exc + 8;
    o->ts_exc_state =
        m->ts_exc_state >= 0 ? w[m->ts_exc_state] : O314_EXC_STATE;
    o->ts_gil_requested =
        m->ts_gil_requested >= 0 && !ft ? w[m->ts_gil_requested] : PYOFF_NONE;
    o->ts_status = ft ? w[m->ts_status] : PYOFF_NONE;
    o->ts_active_bit = O314_STATUS_ACTIVE_BIT;
    o->chunk_previous = 0;
    o->chunk_data = O314_CHUNK_DATA;
    o->err_exc_value = m->err_exc_value >= 0 ? w[m->err_exc_value] : 0;
    o->err_previous = o->err_exc_value + 8;
}

/* The frame and code fields. */
static void fill_frames(const dbg_map *m, const uint64_t *w, bool ft,
                        py_offsets *o)
{
    o->fr_size = w[m->fr_size];
    o->fr_previous = w[m->fr_previous];
    o->fr_code = w[m->fr_executable];
    /* 3.14's tag bits; later versions: any of the three low bits */
    o->fr_code_tag = m->minor > 14 ? 7
                     : ft          ? O314T_STACKREF_TAG
                                   : O314_STACKREF_TAG;
    o->fr_instr = w[m->fr_instr];
    o->fr_owner = w[m->fr_owner];
    o->fr_is_entry = PYOFF_NONE;
    o->fr_tlbc = ft ? w[m->fr_tlbc] : PYOFF_NONE;
    o->owner_generator = O314_OWNED_BY_GENERATOR;
    o->owner_cstack = O314_OWNED_BY_INTERPRETER;
    o->owner_max = O314_OWNED_BY_CSTACK;
    o->co_size = w[m->co_size];
    o->co_filename = w[m->co_filename];
    o->co_qualname = w[m->co_qualname];
    o->co_linetable = w[m->co_linetable];
    o->co_firstlineno = w[m->co_firstlineno];
    o->co_code_adaptive = w[m->co_code_adaptive];
    o->co_tlbc = ft ? w[m->co_tlbc] : PYOFF_NONE;
    /* co_framesize follows co_firstlineno and co_nlocalsplus */
    o->co_framesize = o->co_firstlineno + O314_FRAMESIZE_AFTER_FIRSTLINENO;
    o->co_nlocalsplus = o->co_stacksize = PYOFF_NONE;
}

/* The GIL fields are given relative to the interpreter; make them
 * relative to the GIL state its ceval.gil points to. */
static void fill(const dbg_map *m, const uint64_t *w, py_offsets *o)
{
    bool ft = w[DBG_FREE_THREADED] != 0;
    uint64_t gil = w[m->is_gil_state];
    memset(o, 0, sizeof *o);
    o->source = ft ? "_Py_DebugOffsets (free-threaded)" : "_Py_DebugOffsets";
    o->free_threaded = ft;
    o->rt_interpreters_head = w[m->rt_interp_head];
    o->rt_gil = PYOFF_NONE;
    o->is_id = w[m->is_id];
    o->is_next = w[m->is_next];
    o->is_threads_head = w[m->is_threads_head];
    o->is_gil_ptr = w[m->is_ceval_gil];
    o->is_gc_collecting = w[m->is_gc] + w[m->gc_collecting];
    o->is_tlbc_generation = ft ? w[m->is_tlbc_generation] : PYOFF_NONE;
    o->gil_locked = w[m->is_gil_locked] - gil;
    o->gil_holder = w[m->is_gil_holder] - gil;
    o->gil_switch = o->gil_locked + O314_GIL_SWITCH_AFTER_LOCKED;
    fill_thread(m, w, ft, o);
    fill_frames(m, w, ft, o);
    o->ob_type = w[m->ob_type];
    o->u_length = w[m->un_length];
    o->u_state = w[m->un_state];
    o->u_kind_shift = ft ? O314T_KIND_SHIFT : O314_KIND_SHIFT;
    o->u_ascii_size = w[m->un_ascii_size];
    o->u_compact_size = w[m->un_ascii_size] + O314_COMPACT_EXTRA;
    o->b_size = w[m->by_ob_size];
    o->b_sval = w[m->by_ob_sval];
}

int dbg_load(const dbg_map *m, pid_t pid, uint64_t runtime,
             uint64_t section_size, py_offsets *out, char *msg, size_t msg_len)
{
    uint64_t w[DBG_MAX_WORDS];
    if (dbg_read(m, pid, runtime, section_size, w, msg, msg_len) != 0)
        return -1;
    fill(m, w, out);
    return 0;
}
