/* SPDX-License-Identifier: MIT */
/*
 * py_offsets_311.c - CPython 3.11 layout (x86_64, GIL build). Each value
 * is offsetof/sizeof from the pyenv 3.11.7 build's DWARF; patch releases
 * keep the layout. tests/record/check_offsets.sh re-derives every number
 * with gdb and compares it with this table.
 */
#include "py_offsets.h"

const py_offsets py_offsets_311 = {
    .source = "table 3.11",
    .rt_interpreters_head = 40, /* interpreters.head */
    .rt_gil = 360,              /* ceval.gil */
    .is_id = 48,
    .is_next = 0,
    .is_threads_head = 16,
    .is_gil_ptr = PYOFF_NONE,
    .is_gc_collecting = 848, /* gc.collecting */
    .is_tlbc_generation = PYOFF_NONE,
    .gil_locked = 16,
    .gil_holder = 8,  /* last_holder */
    .gil_switch = 24, /* switch_number */
    .ts_size = 360,
    .ts_next = 8,
    .ts_native_tid = 160,
    .ts_cframe = 56,
    .ts_current_frame = 8, /* _PyCFrame.current_frame */
    .ts_datastack_chunk = 296,
    .ts_datastack_top = 304,
    .ts_status = PYOFF_NONE,
    .ts_gil_requested = PYOFF_NONE,
    .ts_exc_info = 120,
    .ts_exc_state = 320,
    .ts_current_exc = 96, /* curexc_type */
    .chunk_previous = 0,
    .chunk_data = 24,
    .err_exc_value = 0,
    .err_previous = 8,
    .fr_size = 80,
    .fr_previous = 48,
    .fr_code = 32,  /* f_code */
    .fr_instr = 56, /* prev_instr */
    .fr_code_tag = 0,
    .fr_tlbc = PYOFF_NONE,
    .fr_owner = 69,
    .fr_is_entry = 68,
    .owner_generator = 1,
    .owner_cstack = -1,
    .owner_max = 2,
    .co_size = 192,
    .co_filename = 112,
    .co_qualname = 128,
    .co_linetable = 136,
    .co_firstlineno = 72,
    .co_code_adaptive = 184,
    .co_tlbc = PYOFF_NONE,
    .co_framesize = PYOFF_NONE,
    .co_nlocalsplus = 76,
    .co_stacksize = 68,
    .frame_specials = 9, /* (sizeof(_PyInterpreterFrame) - 1) / 8 */
    .ob_type = 8,
    .u_length = 16,
    .u_state = 32,
    .u_kind_shift = 2,
    .u_ascii_size = 48,
    .u_compact_size = 72,
    .b_size = 16,
    .b_sval = 32,
};
