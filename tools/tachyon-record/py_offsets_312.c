/* SPDX-License-Identifier: MIT */
/*
 * py_offsets_312.c - CPython 3.12 layout (x86_64, GIL build), from the
 * pyenv 3.12.1 build's DWARF; tests/record/check_offsets.sh re-checks it.
 * New in 3.12: the GIL moved to the interpreter (ceval.gil), frames owned
 * by the C stack (owner 3) are shims to skip.
 */
#include "py_offsets.h"

const py_offsets py_offsets_312 = {
    .source = "table 3.12",
    .rt_interpreters_head = 40,
    .rt_gil = PYOFF_NONE,
    .is_id = 8,
    .is_next = 0,
    .is_threads_head = 72,
    .is_gil_ptr = 384,       /* ceval.gil */
    .is_gc_collecting = 312, /* gc.collecting */
    .is_tlbc_generation = PYOFF_NONE,
    .gil_locked = 16,
    .gil_holder = 8,
    .gil_switch = 24, /* switch_number */
    .ts_size = 288,
    .ts_next = 8,
    .ts_native_tid = 144,
    .ts_cframe = 56,
    .ts_current_frame = 0, /* _PyCFrame.current_frame */
    .ts_datastack_chunk = 232,
    .ts_datastack_top = 240,
    .ts_status = PYOFF_NONE,
    .ts_gil_requested = PYOFF_NONE,
    .ts_exc_info = 104,
    .ts_exc_state = 256,
    .ts_current_exc = 96, /* current_exception */
    .chunk_previous = 0,
    .chunk_data = 24,
    .err_exc_value = 0,
    .err_previous = 8,
    .fr_size = 80,
    .fr_previous = 8,
    .fr_code = 0,   /* f_code */
    .fr_instr = 56, /* prev_instr */
    .fr_code_tag = 0,
    .fr_tlbc = PYOFF_NONE,
    .fr_owner = 70,
    .fr_is_entry = PYOFF_NONE,
    .owner_generator = 1,
    .owner_cstack = 3,
    .owner_max = 3,
    .co_size = 200,
    .co_filename = 112,
    .co_qualname = 128,
    .co_linetable = 136,
    .co_firstlineno = 68,
    .co_code_adaptive = 192,
    .co_tlbc = PYOFF_NONE,
    .co_framesize = 76,
    .co_nlocalsplus = PYOFF_NONE,
    .co_stacksize = PYOFF_NONE,
    .frame_specials = 0,
    .ob_type = 8,
    .u_length = 16,
    .u_state = 32,
    .u_kind_shift = 2,
    .u_ascii_size = 40,
    .u_compact_size = 56,
    .b_size = 16,
    .b_sval = 32,
};
