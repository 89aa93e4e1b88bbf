/* SPDX-License-Identifier: MIT */
/*
 * py_offsets_315.h - the layout of CPython 3.15's _Py_DebugOffsets, every
 * u64 word by name (section prefix, then the field as CPython names it):
 * 111 words, 888 bytes, the field order of 3.15.0rc3's
 * Include/internal/pycore_debug_offsets.h as a public third-party reader
 * transcribes it (no 3.15 source is on this machine); its size agrees with
 * the 888 bytes CPython's own debug_offsets_validation.h asserts.
 * UNTESTED: no 3.15 interpreter can run here, and pre-releases changed
 * this layout (3.15.0b4 inserted last_profiled_frame_seq), so
 * tachyon-record reads a 3.15 process only when asked to
 * (--allow-untested), and checks what it can: the cookie, the version,
 * every offset inside its struct, the compact str size against the ASCII
 * one (a layout shifted by a word fails these).
 */
#ifndef TREC_PY_OFFSETS_315_H
#define TREC_PY_OFFSETS_315_H

#define D315_WORDS 111
#define D315_BYTES (D315_WORDS * 8)

enum {
    D315_COOKIE = 0,
    D315_VERSION = 1,
    D315_FREE_THREADED = 2,
    /* runtime_state */
    D315_RT_SIZE = 3,
    D315_RT_FINALIZING = 4,
    D315_RT_INTERPRETERS_HEAD = 5,
    /* interpreter_state */
    D315_IS_SIZE = 6,
    D315_IS_ID = 7,
    D315_IS_NEXT = 8,
    D315_IS_THREADS_HEAD = 9,
    D315_IS_THREADS_MAIN = 10,
    D315_IS_GC = 11,
    D315_IS_IMPORTS_MODULES = 12,
    D315_IS_SYSDICT = 13,
    D315_IS_BUILTINS = 14,
    D315_IS_CEVAL_GIL = 15,
    D315_IS_GIL_RUNTIME_STATE = 16,
    D315_IS_GIL_RUNTIME_STATE_ENABLED = 17,
    D315_IS_GIL_RUNTIME_STATE_LOCKED = 18,
    D315_IS_GIL_RUNTIME_STATE_HOLDER = 19,
    D315_IS_CODE_OBJECT_GENERATION = 20,
    D315_IS_TLBC_GENERATION = 21,
    /* thread_state */
    D315_TS_SIZE = 22,
    D315_TS_PREV = 23,
    D315_TS_NEXT = 24,
    D315_TS_INTERP = 25,
    D315_TS_CURRENT_FRAME = 26,
    D315_TS_BASE_FRAME = 27,
    D315_TS_LAST_PROFILED_FRAME = 28,
    D315_TS_LAST_PROFILED_FRAME_SEQ = 29,
    D315_TS_THREAD_ID = 30,
    D315_TS_NATIVE_THREAD_ID = 31,
    D315_TS_DATASTACK_CHUNK = 32,
    D315_TS_STATUS = 33,
    D315_TS_HOLDS_GIL = 34,
    D315_TS_GIL_REQUESTED = 35,
    D315_TS_CURRENT_EXCEPTION = 36,
    D315_TS_EXC_STATE = 37,
    /* err_stackitem */
    D315_ERR_EXC_VALUE = 38,
    /* interpreter_frame */
    D315_FR_SIZE = 39,
    D315_FR_PREVIOUS = 40,
    D315_FR_EXECUTABLE = 41,
    D315_FR_INSTR_PTR = 42,
    D315_FR_LOCALSPLUS = 43,
    D315_FR_OWNER = 44,
    D315_FR_STACKPOINTER = 45,
    D315_FR_TLBC_INDEX = 46,
    /* code_object */
    D315_CO_SIZE = 47,
    D315_CO_FILENAME = 48,
    D315_CO_NAME = 49,
    D315_CO_QUALNAME = 50,
    D315_CO_LINETABLE = 51,
    D315_CO_FIRSTLINENO = 52,
    D315_CO_ARGCOUNT = 53,
    D315_CO_LOCALSPLUSNAMES = 54,
    D315_CO_LOCALSPLUSKINDS = 55,
    D315_CO_CO_CODE_ADAPTIVE = 56,
    D315_CO_CO_TLBC = 57,
    /* pyobject */
    D315_OB_SIZE = 58,
    D315_OB_OB_TYPE = 59,
    /* type_object */
    D315_TYPE_SIZE = 60,
    D315_TYPE_TP_NAME = 61,
    D315_TYPE_TP_REPR = 62,
    D315_TYPE_TP_FLAGS = 63,
    D315_TYPE_TP_BASICSIZE = 64,
    D315_TYPE_TP_DICTOFFSET = 65,
    /* heap_type_object */
    D315_HTYPE_SIZE = 66,
    D315_HTYPE_HT_CACHED_KEYS = 67,
    /* tuple_object */
    D315_TUPLE_SIZE = 68,
    D315_TUPLE_OB_ITEM = 69,
    D315_TUPLE_OB_SIZE = 70,
    /* list_object */
    D315_LIST_SIZE = 71,
    D315_LIST_OB_ITEM = 72,
    D315_LIST_OB_SIZE = 73,
    /* set_object */
    D315_SET_SIZE = 74,
    D315_SET_USED = 75,
    D315_SET_TABLE = 76,
    D315_SET_MASK = 77,
    /* dict_object */
    D315_DICT_SIZE = 78,
    D315_DICT_MA_KEYS = 79,
    D315_DICT_MA_VALUES = 80,
    /* float_object */
    D315_FLOAT_SIZE = 81,
    D315_FLOAT_OB_FVAL = 82,
    /* long_object */
    D315_LONG_SIZE = 83,
    D315_LONG_LV_TAG = 84,
    D315_LONG_OB_DIGIT = 85,
    /* bytes_object */
    D315_BYTES_SIZE = 86,
    D315_BYTES_OB_SIZE = 87,
    D315_BYTES_OB_SVAL = 88,
    /* unicode_object */
    D315_UNICODE_SIZE = 89,
    D315_UNICODE_STATE = 90,
    D315_UNICODE_LENGTH = 91,
    D315_UNICODE_ASCIIOBJECT_SIZE = 92,
    D315_UNICODE_COMPACTUNICODEOBJECT_SIZE = 93,
    /* gc */
    D315_GC_SIZE = 94,
    D315_GC_COLLECTING = 95,
    D315_GC_FRAME = 96,
    D315_GC_GENERATION_STATS_SIZE = 97,
    D315_GC_GENERATION_STATS = 98,
    /* gen_object */
    D315_GEN_SIZE = 99,
    D315_GEN_GI_NAME = 100,
    D315_GEN_GI_IFRAME = 101,
    D315_GEN_GI_FRAME_STATE = 102,
    /* llist_node */
    D315_LLIST_NEXT = 103,
    D315_LLIST_PREV = 104,
    /* debugger_support */
    D315_DBG_EVAL_BREAKER = 105,
    D315_DBG_REMOTE_DEBUGGER_SUPPORT = 106,
    D315_DBG_REMOTE_DEBUGGING_ENABLED = 107,
    D315_DBG_DEBUGGER_PENDING_CALL = 108,
    D315_DBG_DEBUGGER_SCRIPT_PATH = 109,
    D315_DBG_DEBUGGER_SCRIPT_PATH_SIZE = 110,
};

#endif
