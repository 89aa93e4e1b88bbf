/* SPDX-License-Identifier: MIT */
/*
 * py_offsets_314.h - the layout of CPython 3.14's _Py_DebugOffsets (the
 * first member of _PyRuntime): every u64 word of it by name, in the order
 * of Include/internal/pycore_debug_offsets.h, so that a reader of any of
 * its sections (the unwinder; asyncio task graphs, generators) takes the
 * word it needs from one place. The layout is the same with and without
 * the GIL (the free-threaded build fills a few words the other leaves 0)
 * and fixed across 3.14 patch releases. tests/record/check_offsets.sh
 * checks every index against the interpreters' DWARF.
 */
#ifndef TREC_PY_OFFSETS_314_H
#define TREC_PY_OFFSETS_314_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define D314_WORDS 95
#define D314_BYTES (D314_WORDS * 8)

/* Word indices in 3.14's _Py_DebugOffsets ("size" words are sizeof the
 * struct the section describes; the others offsets in it). */
enum {
    D314_COOKIE = 0, /* "xdebugpy" */
    D314_VERSION = 1,
    D314_FREE_THREADED = 2,
    /* _PyRuntimeState */
    D314_RT_SIZE = 3,
    D314_RT_FINALIZING = 4,
    D314_RT_INTERPRETERS_HEAD = 5,
    /* PyInterpreterState */
    D314_IS_SIZE = 6,
    D314_IS_ID = 7,
    D314_IS_NEXT = 8,
    D314_IS_THREADS_HEAD = 9,
    D314_IS_THREADS_MAIN = 10,
    D314_IS_GC = 11, /* struct _gc_runtime_state: the D314_GC_* words */
    D314_IS_IMPORTS_MODULES = 12,
    D314_IS_SYSDICT = 13,
    D314_IS_BUILTINS = 14,
    D314_IS_CEVAL_GIL = 15,         /* struct _gil_runtime_state * */
    D314_IS_GIL_RUNTIME_STATE = 16, /* the interpreter's own _gil */
    D314_IS_GIL_ENABLED = 17,       /* free-threaded only */
    D314_IS_GIL_LOCKED = 18,        /* _gil.locked, from the interpreter */
    D314_IS_GIL_HOLDER = 19,        /* _gil.last_holder, likewise */
    D314_IS_CODE_OBJECT_GENERATION = 20,
    D314_IS_TLBC_GENERATION = 21, /* free-threaded only */
    /* PyThreadState */
    D314_TS_SIZE = 22,
    D314_TS_PREV = 23,
    D314_TS_NEXT = 24,
    D314_TS_INTERP = 25,
    D314_TS_CURRENT_FRAME = 26,
    D314_TS_THREAD_ID = 27,
    D314_TS_NATIVE_THREAD_ID = 28,
    D314_TS_DATASTACK_CHUNK = 29,
    D314_TS_STATUS = 30, /* the _status bit field word */
    /* _PyInterpreterFrame */
    D314_FR_SIZE = 31,
    D314_FR_PREVIOUS = 32,
    D314_FR_EXECUTABLE = 33, /* a _PyStackRef: tag bits to clear */
    D314_FR_INSTR_PTR = 34,
    D314_FR_LOCALSPLUS = 35,
    D314_FR_OWNER = 36,
    D314_FR_STACKPOINTER = 37,
    D314_FR_TLBC_INDEX = 38, /* free-threaded only */
    /* PyCodeObject */
    D314_CO_SIZE = 39,
    D314_CO_FILENAME = 40,
    D314_CO_NAME = 41,
    D314_CO_QUALNAME = 42,
    D314_CO_LINETABLE = 43,
    D314_CO_FIRSTLINENO = 44,
    D314_CO_ARGCOUNT = 45,
    D314_CO_LOCALSPLUSNAMES = 46,
    D314_CO_LOCALSPLUSKINDS = 47,
    D314_CO_CODE_ADAPTIVE = 48,
    D314_CO_TLBC = 49, /* free-threaded only */
    /* PyObject, PyTypeObject */
    D314_OB_SIZE = 50,
    D314_OB_TYPE = 51,
    D314_TYPE_SIZE = 52,
    D314_TYPE_TP_NAME = 53,
    D314_TYPE_TP_REPR = 54,
    D314_TYPE_TP_FLAGS = 55,
    /* tuple, list, set, dict, float, int */
    D314_TUPLE_SIZE = 56,
    D314_TUPLE_OB_ITEM = 57,
    D314_TUPLE_OB_SIZE = 58,
    D314_LIST_SIZE = 59,
    D314_LIST_OB_ITEM = 60,
    D314_LIST_OB_SIZE = 61,
    D314_SET_SIZE = 62,
    D314_SET_USED = 63,
    D314_SET_TABLE = 64,
    D314_SET_MASK = 65,
    D314_DICT_SIZE = 66,
    D314_DICT_MA_KEYS = 67,
    D314_DICT_MA_VALUES = 68,
    D314_FLOAT_SIZE = 69,
    D314_FLOAT_OB_FVAL = 70,
    D314_LONG_SIZE = 71,
    D314_LONG_LV_TAG = 72,
    D314_LONG_OB_DIGIT = 73,
    /* bytes, str */
    D314_BYTES_SIZE = 74,
    D314_BYTES_OB_SIZE = 75,
    D314_BYTES_OB_SVAL = 76,
    D314_UNICODE_SIZE = 77,
    D314_UNICODE_STATE = 78,
    D314_UNICODE_LENGTH = 79,
    D314_UNICODE_ASCII_SIZE = 80, /* sizeof(PyASCIIObject) */
    /* struct _gc_runtime_state */
    D314_GC_SIZE = 81,
    D314_GC_COLLECTING = 82,
    /* generators and coroutines */
    D314_GEN_SIZE = 83,
    D314_GEN_GI_NAME = 84,
    D314_GEN_GI_IFRAME = 85,
    D314_GEN_GI_FRAME_STATE = 86,
    /* struct llist_node (asyncio's task lists) */
    D314_LLIST_NEXT = 87,
    D314_LLIST_PREV = 88,
    /* remote debugger support */
    D314_DBG_EVAL_BREAKER = 89,
    D314_DBG_REMOTE_DEBUGGER_SUPPORT = 90,
    D314_DBG_REMOTE_DEBUGGING_ENABLED = 91,
    D314_DBG_PENDING_CALL = 92,
    D314_DBG_SCRIPT_PATH = 93,
    D314_DBG_SCRIPT_PATH_SIZE = 94
};

/*
 * What 3.14's table does not carry, fixed per build (GIL or
 * free-threaded; check_offsets.sh derives each from the DWARF). 3.15's
 * table carries the exception state and the compact str size; the rest
 * is assumed to stay (untested).
 */
#define O314_EXC_INFO 120     /* PyThreadState.exc_info */
#define O314_EXC_STATE 256    /* PyThreadState.exc_state */
#define O314_CURRENT_EXC 112  /* PyThreadState.current_exception */
#define O314_DATASTACK_TOP 8  /* datastack_top - datastack_chunk */
#define O314_CHUNK_DATA 24    /* _PyStackChunk.data */
#define O314_COMPACT_EXTRA 16 /* PyCompactUnicodeObject - PyASCIIObject */
/* co_framesize - co_firstlineno (76 - 68; free-threaded 92 - 84) */
#define O314_FRAMESIZE_AFTER_FIRSTLINENO 8
#define O314_GIL_SWITCH_AFTER_LOCKED 8 /* switch_number - locked */
#define O314_STACKREF_TAG 3            /* Py_TAG_BITS of f_executable */
#define O314T_STACKREF_TAG 1           /* ... free-threaded */
#define O314_KIND_SHIFT 2              /* str state: kind after interned:2 */
#define O314T_KIND_SHIFT 8             /* ... after `unsigned char interned` */
#define O314_STATUS_ACTIVE_BIT 4       /* _status.active: attached */
/* enum _frameowner */
#define O314_OWNED_BY_GENERATOR 1
#define O314_OWNED_BY_INTERPRETER 3 /* entry frames on the C stack */
#define O314_OWNED_BY_CSTACK 4

/*
 * Read the target's 3.14 table at `runtime` (`section_size` bytes of
 * .PyRuntime there) into `words` and check it (dbg_read), for readers of
 * any of its sections. Returns 0, or -1 with a message in `msg`.
 */
int py_offsets_314_read(pid_t pid, uint64_t runtime, uint64_t section_size,
                        uint64_t words[D314_WORDS], char *msg, size_t msg_len);

#endif
