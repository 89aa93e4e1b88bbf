/* SPDX-License-Identifier: MIT */
/*
 * py_offsets_315.c - where CPython 3.15's _Py_DebugOffsets keeps each field
 * the walker uses (py_offsets_315.h names every word). New in its table:
 * the thread's exception state and GIL request, the exception item's
 * value, the compact str size. UNTESTED (no 3.15 interpreter here); read
 * only on request.
 */
#include "py_offsets_315.h"

#include "py_offsets_dbg.h"

static const dbg_map map_315 = {
    .minor = 15,
    .words = D315_WORDS,
    .rt_size = D315_RT_SIZE,
    .rt_interp_head = D315_RT_INTERPRETERS_HEAD,
    .is_size = D315_IS_SIZE,
    .is_id = D315_IS_ID,
    .is_next = D315_IS_NEXT,
    .is_threads_head = D315_IS_THREADS_HEAD,
    .is_gc = D315_IS_GC,
    .is_ceval_gil = D315_IS_CEVAL_GIL,
    .is_gil_state = D315_IS_GIL_RUNTIME_STATE,
    .is_gil_locked = D315_IS_GIL_RUNTIME_STATE_LOCKED,
    .is_gil_holder = D315_IS_GIL_RUNTIME_STATE_HOLDER,
    .is_tlbc_generation = D315_IS_TLBC_GENERATION,
    .ts_size = D315_TS_SIZE,
    .ts_next = D315_TS_NEXT,
    .ts_current_frame = D315_TS_CURRENT_FRAME,
    .ts_native_tid = D315_TS_NATIVE_THREAD_ID,
    .ts_datastack = D315_TS_DATASTACK_CHUNK,
    .ts_status = D315_TS_STATUS,
    .ts_current_exc = D315_TS_CURRENT_EXCEPTION,
    .ts_exc_state = D315_TS_EXC_STATE,
    .ts_gil_requested = D315_TS_GIL_REQUESTED,
    .err_exc_value = D315_ERR_EXC_VALUE,
    .fr_size = D315_FR_SIZE,
    .fr_previous = D315_FR_PREVIOUS,
    .fr_executable = D315_FR_EXECUTABLE,
    .fr_instr = D315_FR_INSTR_PTR,
    .fr_owner = D315_FR_OWNER,
    .fr_tlbc = D315_FR_TLBC_INDEX,
    .co_size = D315_CO_SIZE,
    .co_filename = D315_CO_FILENAME,
    .co_qualname = D315_CO_QUALNAME,
    .co_linetable = D315_CO_LINETABLE,
    .co_firstlineno = D315_CO_FIRSTLINENO,
    .co_code_adaptive = D315_CO_CO_CODE_ADAPTIVE,
    .co_tlbc = D315_CO_CO_TLBC,
    .ob_size = D315_OB_SIZE,
    .ob_type = D315_OB_OB_TYPE,
    .by_size = D315_BYTES_SIZE,
    .by_ob_size = D315_BYTES_OB_SIZE,
    .by_ob_sval = D315_BYTES_OB_SVAL,
    .un_size = D315_UNICODE_SIZE,
    .un_state = D315_UNICODE_STATE,
    .un_length = D315_UNICODE_LENGTH,
    .un_ascii_size = D315_UNICODE_ASCIIOBJECT_SIZE,
    .un_compact_size = D315_UNICODE_COMPACTUNICODEOBJECT_SIZE,
    .gc_size = D315_GC_SIZE,
    .gc_collecting = D315_GC_COLLECTING,
};

int py_offsets_315_load(pid_t pid, uint64_t runtime, uint64_t section_size,
                        py_offsets *out, char *msg, size_t msg_len)
{
    int rc = dbg_load(&map_315, pid, runtime, section_size, out, msg, msg_len);
    if (rc == 0)
        out->source = out->free_threaded
                          ? "_Py_DebugOffsets (free-threaded), 3.15's "
                            "layout as 3.15.0rc3 declares it, untested"
                          : "_Py_DebugOffsets, 3.15's layout as 3.15.0rc3 "
                            "declares it, untested";
    return rc;
}
