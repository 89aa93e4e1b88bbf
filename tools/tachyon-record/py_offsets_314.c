/* SPDX-License-Identifier: MIT */
/*
 * py_offsets_314.c - where CPython 3.14's _Py_DebugOffsets keeps each field
 * the walker uses (py_offsets_314.h names every word); py_offsets_dbg.c
 * reads and checks the table. Tested on 3.14.7 with and without the GIL.
 */
#include "py_offsets_314.h"

#include "py_offsets_dbg.h"

static const dbg_map map_314 = {
    .minor = 14,
    .words = D314_WORDS,
    .rt_size = D314_RT_SIZE,
    .rt_interp_head = D314_RT_INTERPRETERS_HEAD,
    .is_size = D314_IS_SIZE,
    .is_id = D314_IS_ID,
    .is_next = D314_IS_NEXT,
    .is_threads_head = D314_IS_THREADS_HEAD,
    .is_gc = D314_IS_GC,
    .is_ceval_gil = D314_IS_CEVAL_GIL,
    .is_gil_state = D314_IS_GIL_RUNTIME_STATE,
    .is_gil_locked = D314_IS_GIL_LOCKED,
    .is_gil_holder = D314_IS_GIL_HOLDER,
    .is_tlbc_generation = D314_IS_TLBC_GENERATION,
    .ts_size = D314_TS_SIZE,
    .ts_next = D314_TS_NEXT,
    .ts_current_frame = D314_TS_CURRENT_FRAME,
    .ts_native_tid = D314_TS_NATIVE_THREAD_ID,
    .ts_datastack = D314_TS_DATASTACK_CHUNK,
    .ts_status = D314_TS_STATUS,
    .ts_current_exc = -1, /* O314_CURRENT_EXC */
    .ts_exc_state = -1,   /* O314_EXC_STATE */
    .ts_gil_requested = -1,
    .err_exc_value = -1,
    .fr_size = D314_FR_SIZE,
    .fr_previous = D314_FR_PREVIOUS,
    .fr_executable = D314_FR_EXECUTABLE,
    .fr_instr = D314_FR_INSTR_PTR,
    .fr_owner = D314_FR_OWNER,
    .fr_tlbc = D314_FR_TLBC_INDEX,
    .co_size = D314_CO_SIZE,
    .co_filename = D314_CO_FILENAME,
    .co_qualname = D314_CO_QUALNAME,
    .co_linetable = D314_CO_LINETABLE,
    .co_firstlineno = D314_CO_FIRSTLINENO,
    .co_code_adaptive = D314_CO_CODE_ADAPTIVE,
    .co_tlbc = D314_CO_TLBC,
    .ob_size = D314_OB_SIZE,
    .ob_type = D314_OB_TYPE,
    .by_size = D314_BYTES_SIZE,
    .by_ob_size = D314_BYTES_OB_SIZE,
    .by_ob_sval = D314_BYTES_OB_SVAL,
    .un_size = D314_UNICODE_SIZE,
    .un_state = D314_UNICODE_STATE,
    .un_length = D314_UNICODE_LENGTH,
    .un_ascii_size = D314_UNICODE_ASCII_SIZE,
    .un_compact_size = -1, /* ascii size + O314_COMPACT_EXTRA */
    .gc_size = D314_GC_SIZE,
    .gc_collecting = D314_GC_COLLECTING,
};

int py_offsets_314_read(pid_t pid, uint64_t runtime, uint64_t section_size,
                        uint64_t words[D314_WORDS], char *msg, size_t msg_len)
{
    return dbg_read(&map_314, pid, runtime, section_size, words, msg, msg_len);
}

int py_offsets_314_load(pid_t pid, uint64_t runtime, uint64_t section_size,
                        py_offsets *out, char *msg, size_t msg_len)
{
    return dbg_load(&map_314, pid, runtime, section_size, out, msg, msg_len);
}
