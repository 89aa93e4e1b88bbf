/* SPDX-License-Identifier: MIT */
/*
 * py_offsets.h - where the recorder finds things inside a CPython
 * interpreter of one minor version: struct member offsets plus the few
 * rules that differ between versions. 3.11 and 3.12 come from static
 * tables (derived from the interpreters' DWARF, re-checked by a test);
 * 3.13 and 3.14 (with or without the GIL) come from the target's own
 * _Py_DebugOffsets.
 */
#ifndef TREC_PY_OFFSETS_H
#define TREC_PY_OFFSETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PYOFF_NONE UINT64_MAX

typedef struct py_offsets {
    const char *source; /* "table 3.11", "_Py_DebugOffsets" */
    /* A free-threaded build (3.14t): no GIL, per-thread bytecode, a
     * larger object header. */
    bool free_threaded;
    /* _PyRuntimeState */
    uint64_t rt_interpreters_head;
    uint64_t rt_gil; /* 3.11: GIL state inside the runtime */
    /* PyInterpreterState */
    uint64_t is_id;
    uint64_t is_next;
    uint64_t is_threads_head;
    uint64_t is_gil_ptr;         /* 3.12+: pointer to the GIL state */
    uint64_t is_gc_collecting;   /* int gc.collecting: the collector runs */
    uint64_t is_tlbc_generation; /* free-threaded: uint32, changes when a
                                    bytecode copy's index is given out or
                                    given back; else NONE */
    /* struct _gil_runtime_state */
    uint64_t gil_locked; /* int */
    uint64_t gil_holder; /* PyThreadState * */
    uint64_t gil_switch; /* unsigned long switch_number */
    /* PyThreadState */
    uint64_t ts_size;
    uint64_t ts_next;
    uint64_t ts_native_tid;
    uint64_t ts_cframe;          /* 3.11/3.12: _PyCFrame *, else NONE */
    uint64_t ts_current_frame;   /* in tstate (3.13) or in _PyCFrame */
    uint64_t ts_datastack_chunk; /* _PyStackChunk * of the frames */
    uint64_t ts_datastack_top;   /* first free word of that chunk */
    uint64_t ts_exc_info;        /* _PyErr_StackItem *: handled exceptions */
    uint64_t ts_exc_state;       /* the thread's own _PyErr_StackItem */
    uint64_t ts_current_exc;     /* being raised: curexc_type (3.11),
                                   current_exception (3.12+) */
    /* Free-threaded: the `_status` word, whose bit ts_active_bit says the
     * thread state is attached (it may run Python code); else NONE. */
    uint64_t ts_status;
    int ts_active_bit;
    /* 3.15: int gil_requested, the thread waits for the GIL; else NONE */
    uint64_t ts_gil_requested;
    /* _PyStackChunk: the first frame of a thread's first chunk is at
     * data[1] (3.11-3.14 push_chunk skips data[0] of a root chunk) */
    uint64_t chunk_previous;
    uint64_t chunk_data;
    /* _PyErr_StackItem */
    uint64_t err_exc_value;
    uint64_t err_previous;
    /* _PyInterpreterFrame */
    uint64_t fr_size;
    uint64_t fr_previous;
    uint64_t fr_code;     /* f_code / f_executable */
    uint64_t fr_code_tag; /* low bits of f_executable that are tags (3.14:
                             a _PyStackRef), 0 before */
    uint64_t fr_instr;    /* prev_instr (3.11/3.12), instr_ptr */
    uint64_t fr_owner;    /* char */
    uint64_t fr_is_entry; /* 3.11: char, called from C; else NONE */
    uint64_t fr_tlbc;     /* free-threaded: int32 tlbc_index, else NONE */
    int owner_generator;  /* owner of generator frames */
    int owner_cstack;     /* owners from this one up are C-stack shim
                             frames (3.14: INTERPRETER and CSTACK), -1 none */
    int owner_max;        /* largest valid owner value */
    /* PyCodeObject */
    uint64_t co_size;
    uint64_t co_filename;
    uint64_t co_qualname;
    uint64_t co_linetable;
    uint64_t co_firstlineno; /* int */
    uint64_t co_code_adaptive;
    uint64_t co_tlbc; /* free-threaded: _PyCodeArray *, else NONE */
    /* A frame's size in the frame stack, in words: co_framesize (3.12+),
     * else co_nlocalsplus + co_stacksize + frame_specials (3.11). */
    uint64_t co_framesize;   /* int, or NONE */
    uint64_t co_nlocalsplus; /* int (3.11) */
    uint64_t co_stacksize;   /* int (3.11) */
    int frame_specials;      /* words of the frame header (3.11) */
    /* str / bytes / object */
    uint64_t ob_type;
    uint64_t u_length;
    uint64_t u_state;
    int u_kind_shift;        /* bit of `state` where the kind starts: 2, or 8
                                free-threaded (interned is a whole byte there) */
    uint64_t u_ascii_size;   /* sizeof(PyASCIIObject) */
    uint64_t u_compact_size; /* sizeof(PyCompactUnicodeObject) */
    uint64_t b_size;
    uint64_t b_sval;
} py_offsets;

/* The static tables. */
extern const py_offsets py_offsets_311;
extern const py_offsets py_offsets_312;

/*
 * Fill `out` from the target's _Py_DebugOffsets at `runtime` (the start of
 * the .PyRuntime section, `section_size` bytes). Checks the cookie, the
 * version (3.13.x), the free-threading flag and that every offset used
 * lies inside its struct. Returns 0, or -1 with a message in `msg`.
 */
int py_offsets_313_load(pid_t pid, uint64_t runtime, uint64_t section_size,
                        py_offsets *out, char *msg, size_t msg_len);

/* The same for CPython 3.14 (py_offsets_314.c), with or without the GIL,
 * and 3.15 (py_offsets_315.c: its layout as CPython 3.15.0rc3 declares
 * it, untested). */
int py_offsets_314_load(pid_t pid, uint64_t runtime, uint64_t section_size,
                        py_offsets *out, char *msg, size_t msg_len);
int py_offsets_315_load(pid_t pid, uint64_t runtime, uint64_t section_size,
                        py_offsets *out, char *msg, size_t msg_len);

/* Versions whose support is written but cannot be tested here (3.15),
 * chosen only when asked for. */
#define PYOFF_ALLOW_UNTESTED 1u

/*
 * Choose the offsets for PY_VERSION_HEX `hexversion`; `flags`:
 * PYOFF_ALLOW_UNTESTED or 0. Returns 0, or -1 with a message in `msg` for
 * a version that is not supported (or not tested and not asked for).
 */
int py_offsets_select(pid_t pid, uint32_t hexversion, uint64_t runtime,
                      uint64_t section_size, unsigned flags, py_offsets *out,
                      char *msg, size_t msg_len);

/* Whether `hexversion` is one recorded only with PYOFF_ALLOW_UNTESTED. */
bool py_offsets_untested(uint32_t hexversion);

#endif
