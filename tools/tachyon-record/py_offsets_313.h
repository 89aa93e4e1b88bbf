/* SPDX-License-Identifier: MIT */
/*
 * py_offsets_313.h - the layout of CPython 3.13's _Py_DebugOffsets as
 * u64 word indices (tests/record/check_offsets.sh checks each index
 * against the interpreter's DWARF).
 */
#ifndef TREC_PY_OFFSETS_313_H
#define TREC_PY_OFFSETS_313_H

#define DBG_WORDS 73
#define DBG_BYTES (DBG_WORDS * 8)

/* Word indices in 3.13's _Py_DebugOffsets. */
enum {
    W_VERSION = 1,
    W_FREE_THREADED = 2,
    W_RT_SIZE = 3,
    W_RT_INTERP_HEAD = 5,
    W_IS_SIZE = 6,
    W_IS_ID = 7,
    W_IS_NEXT = 8,
    W_IS_THREADS = 9,
    W_IS_CEVAL_GIL = 14,
    W_IS_GIL = 15,
    W_IS_GIL_LOCKED = 17,
    W_IS_GIL_HOLDER = 18,
    W_TS_SIZE = 19,
    W_TS_NEXT = 21,
    W_TS_FRAME = 23,
    W_TS_NATIVE = 25,
    W_TS_DATASTACK = 26,
    W_FR_SIZE = 28,
    W_FR_PREV = 29,
    W_FR_EXEC = 30,
    W_FR_INSTR = 31,
    W_FR_OWNER = 33,
    W_CO_SIZE = 34,
    W_CO_FILE = 35,
    W_CO_QUAL = 37,
    W_CO_LINES = 38,
    W_CO_FIRST = 39,
    W_CO_CODE = 43,
    W_OB_TYPE = 45,
    W_BY_SIZE = 64,
    W_BY_OBSIZE = 65,
    W_BY_SVAL = 66,
    W_UN_SIZE = 67,
    W_UN_STATE = 68,
    W_UN_LENGTH = 69,
    W_UN_ASCII = 70
};

/*
 * What 3.13's table does not carry (3.14 adds most of it), fixed per minor
 * version and re-derived from the DWARF by check_offsets.sh: where the
 * collector's flag, the exception state and the compact-str header are.
 */
#define O313_GC_COLLECTING 7600 /* PyInterpreterState.gc.collecting */
#define O313_EXC_INFO 120       /* PyThreadState.exc_info */
#define O313_EXC_STATE 256      /* PyThreadState.exc_state */
#define O313_CURRENT_EXC 112    /* PyThreadState.current_exception */
#define O313_COMPACT_SIZE 56    /* sizeof(PyCompactUnicodeObject) */
#define O313_FRAMESIZE 76       /* PyCodeObject.co_framesize */
#define O313_CHUNK_DATA 24      /* _PyStackChunk.data */
/* struct _gil_runtime_state: switch_number follows locked (int, padded). */
#define O313_GIL_SWITCH_AFTER_LOCKED 8

#endif
