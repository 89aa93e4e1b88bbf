/* SPDX-License-Identifier: MIT */
/*
 * py_offsets_dbg.h - the _Py_DebugOffsets tables of CPython 3.14 and later
 * read into py_offsets. The table's layout is fixed per minor version
 * (fields are inserted mid-struct from one to the next): a map says where
 * each field the walker uses sits in one version's table, and one loader
 * checks and reads any of them.
 */
#ifndef TREC_PY_OFFSETS_DBG_H
#define TREC_PY_OFFSETS_DBG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "py_offsets.h"

/* Word indices in one version's table; -1: not in it. */
typedef struct dbg_map {
    unsigned minor; /* 3.minor */
    int words;      /* the table's length in u64 words */
    int rt_size, rt_interp_head;
    int is_size, is_id, is_next, is_threads_head, is_gc, is_ceval_gil;
    int is_gil_state, is_gil_locked, is_gil_holder, is_tlbc_generation;
    int ts_size, ts_next, ts_current_frame, ts_native_tid, ts_datastack;
    int ts_status, ts_current_exc, ts_exc_state, ts_gil_requested;
    int err_exc_value;
    int fr_size, fr_previous, fr_executable, fr_instr, fr_owner, fr_tlbc;
    int co_size, co_filename, co_qualname, co_linetable, co_firstlineno;
    int co_code_adaptive, co_tlbc;
    int ob_size, ob_type;
    int by_size, by_ob_size, by_ob_sval;
    int un_size, un_state, un_length, un_ascii_size, un_compact_size;
    int gc_size, gc_collecting;
} dbg_map;

/* Every table starts with the cookie, the version and the free-threaded
 * flag. */
#define DBG_VERSION 1
#define DBG_FREE_THREADED 2
#define DBG_MAX_WORDS 160

/*
 * Read the table at `runtime` (the start of .PyRuntime, `section_size`
 * bytes) into `words` (m->words of them) and check it: the cookie, the
 * version m describes, and that every offset the walker uses lies inside
 * the struct whose size the same table gives, so that a torn or foreign
 * table cannot send it outside the objects it reads. Returns 0, or -1
 * with a message in `msg`.
 */
int dbg_read(const dbg_map *m, pid_t pid, uint64_t runtime,
             uint64_t section_size, uint64_t *words, char *msg, size_t msg_len);

/* dbg_read, then fill `out` from the table. */
int dbg_load(const dbg_map *m, pid_t pid, uint64_t runtime,
             uint64_t section_size, py_offsets *out, char *msg, size_t msg_len);

#endif
