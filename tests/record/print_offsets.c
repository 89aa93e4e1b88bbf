/* SPDX-License-Identifier: MIT */
/*
 * print_offsets VERSION - print every constant tachyon-record assumes for
 * CPython VERSION (3.11, 3.12 or 3.13) next to the gdb expression that
 * computes it from the interpreter's DWARF:  EXPRESSION<TAB>VALUE.
 * check_offsets.sh evaluates the expressions with gdb and compares.
 * For 3.13 the struct offsets come from the target's _Py_DebugOffsets at
 * run time; what is checked is the word index of each debug-offsets field
 * used and the few constants the table does not carry.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "py_offsets.h"
#include "py_offsets_313.h"

typedef struct row {
    const char *expr;
    size_t field; /* offsetof(py_offsets, ...) */
} row;

#define OFF(t, m) "(long)&((" t "*)0)->" m
#define ROW(expr, f)                                                           \
    {                                                                          \
        expr, offsetof(py_offsets, f)                                          \
    }

/* Shared by 3.11 and 3.12 (the 3.11-only / 3.12-only ones follow). */
static const row common[] = {
    ROW(OFF("_PyRuntimeState", "interpreters.head"), rt_interpreters_head),
    ROW(OFF("PyInterpreterState", "id"), is_id),
    ROW(OFF("PyInterpreterState", "next"), is_next),
    ROW(OFF("PyInterpreterState", "threads.head"), is_threads_head),
    ROW(OFF("struct _gil_runtime_state", "locked"), gil_locked),
    ROW(OFF("struct _gil_runtime_state", "last_holder"), gil_holder),
    ROW(OFF("struct _gil_runtime_state", "switch_number"), gil_switch),
    ROW("(long)sizeof(PyThreadState)", ts_size),
    ROW(OFF("PyThreadState", "next"), ts_next),
    ROW(OFF("PyThreadState", "native_thread_id"), ts_native_tid),
    ROW(OFF("PyThreadState", "cframe"), ts_cframe),
    ROW(OFF("_PyCFrame", "current_frame"), ts_current_frame),
    ROW(OFF("PyThreadState", "datastack_chunk"), ts_datastack_chunk),
    ROW(OFF("PyThreadState", "datastack_top"), ts_datastack_top),
    ROW(OFF("PyThreadState", "exc_info"), ts_exc_info),
    ROW(OFF("PyThreadState", "exc_state"), ts_exc_state),
    ROW(OFF("_PyStackChunk", "previous"), chunk_previous),
    ROW(OFF("_PyStackChunk", "data"), chunk_data),
    ROW(OFF("_PyErr_StackItem", "exc_value"), err_exc_value),
    ROW(OFF("_PyErr_StackItem", "previous_item"), err_previous),
    ROW(OFF("PyInterpreterState", "gc.collecting"), is_gc_collecting),
    ROW("(long)sizeof(_PyInterpreterFrame)", fr_size),
    ROW(OFF("_PyInterpreterFrame", "previous"), fr_previous),
    ROW(OFF("_PyInterpreterFrame", "f_code"), fr_code),
    ROW(OFF("_PyInterpreterFrame", "prev_instr"), fr_instr),
    ROW(OFF("_PyInterpreterFrame", "owner"), fr_owner),
    ROW("(long)sizeof(PyCodeObject)", co_size),
    ROW(OFF("PyCodeObject", "co_filename"), co_filename),
    ROW(OFF("PyCodeObject", "co_qualname"), co_qualname),
    ROW(OFF("PyCodeObject", "co_linetable"), co_linetable),
    ROW(OFF("PyCodeObject", "co_firstlineno"), co_firstlineno),
    ROW(OFF("PyCodeObject", "co_code_adaptive"), co_code_adaptive),
    /* The walker reads datastack_limit right after datastack_top. */
    ROW("(long)&((PyThreadState*)0)->datastack_limit - 8", ts_datastack_top),
    ROW(OFF("PyObject", "ob_type"), ob_type),
    ROW(OFF("PyASCIIObject", "length"), u_length),
    ROW(OFF("PyASCIIObject", "state"), u_state),
    ROW("(long)sizeof(PyASCIIObject)", u_ascii_size),
    ROW("(long)sizeof(PyCompactUnicodeObject)", u_compact_size),
    ROW(OFF("PyBytesObject", "ob_base.ob_size"), b_size),
    ROW(OFF("PyBytesObject", "ob_sval"), b_sval),
};

static const row only311[] = {
    ROW(OFF("_PyRuntimeState", "ceval.gil"), rt_gil),
    ROW(OFF("PyThreadState", "curexc_type"), ts_current_exc),
    ROW(OFF("_PyInterpreterFrame", "is_entry"), fr_is_entry),
    ROW(OFF("PyCodeObject", "co_nlocalsplus"), co_nlocalsplus),
    ROW(OFF("PyCodeObject", "co_stacksize"), co_stacksize),
};

static const row only312[] = {
    ROW(OFF("PyInterpreterState", "ceval.gil"), is_gil_ptr),
    ROW(OFF("PyThreadState", "current_exception"), ts_current_exc),
    ROW(OFF("PyCodeObject", "co_framesize"), co_framesize),
};

static void print_rows(const py_offsets *o, const row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, (const char *)o + rows[i].field, sizeof v);
        printf("%s\t%llu\n", rows[i].expr, (unsigned long long)v);
    }
}

#define DBG(m) "(long)&((_Py_DebugOffsets*)0)->" m " / 8"

static void print_313(void)
{
    static const struct {
        const char *expr;
        int word;
    } words[] = {
        {DBG("version"), W_VERSION},
        {DBG("free_threaded"), W_FREE_THREADED},
        {DBG("runtime_state.size"), W_RT_SIZE},
        {DBG("runtime_state.interpreters_head"), W_RT_INTERP_HEAD},
        {DBG("interpreter_state.size"), W_IS_SIZE},
        {DBG("interpreter_state.id"), W_IS_ID},
        {DBG("interpreter_state.next"), W_IS_NEXT},
        {DBG("interpreter_state.threads_head"), W_IS_THREADS},
        {DBG("interpreter_state.ceval_gil"), W_IS_CEVAL_GIL},
        {DBG("interpreter_state.gil_runtime_state"), W_IS_GIL},
        {DBG("interpreter_state.gil_runtime_state_locked"), W_IS_GIL_LOCKED},
        {DBG("interpreter_state.gil_runtime_state_holder"), W_IS_GIL_HOLDER},
        {DBG("thread_state.size"), W_TS_SIZE},
        {DBG("thread_state.next"), W_TS_NEXT},
        {DBG("thread_state.current_frame"), W_TS_FRAME},
        {DBG("thread_state.native_thread_id"), W_TS_NATIVE},
        {DBG("thread_state.datastack_chunk"), W_TS_DATASTACK},
        {"(long)&((PyThreadState*)0)->datastack_top - "
         "(long)&((PyThreadState*)0)->datastack_chunk",
         8},
        {DBG("interpreter_frame.size"), W_FR_SIZE},
        {DBG("interpreter_frame.previous"), W_FR_PREV},
        {DBG("interpreter_frame.executable"), W_FR_EXEC},
        {DBG("interpreter_frame.instr_ptr"), W_FR_INSTR},
        {DBG("interpreter_frame.owner"), W_FR_OWNER},
        {DBG("code_object.size"), W_CO_SIZE},
        {DBG("code_object.filename"), W_CO_FILE},
        {DBG("code_object.qualname"), W_CO_QUAL},
        {DBG("code_object.linetable"), W_CO_LINES},
        {DBG("code_object.firstlineno"), W_CO_FIRST},
        {DBG("code_object.co_code_adaptive"), W_CO_CODE},
        {DBG("pyobject.ob_type"), W_OB_TYPE},
        {DBG("bytes_object.size"), W_BY_SIZE},
        {DBG("bytes_object.ob_size"), W_BY_OBSIZE},
        {DBG("bytes_object.ob_sval"), W_BY_SVAL},
        {DBG("unicode_object.size"), W_UN_SIZE},
        {DBG("unicode_object.state"), W_UN_STATE},
        {DBG("unicode_object.length"), W_UN_LENGTH},
        {DBG("unicode_object.asciiobject_size"), W_UN_ASCII},
        {"(long)sizeof(_Py_DebugOffsets)", DBG_BYTES},
        {"(long)sizeof(PyCompactUnicodeObject)", O313_COMPACT_SIZE},
        {OFF("PyInterpreterState", "gc.collecting"), O313_GC_COLLECTING},
        {OFF("PyThreadState", "exc_info"), O313_EXC_INFO},
        {OFF("PyThreadState", "exc_state"), O313_EXC_STATE},
        {OFF("PyThreadState", "current_exception"), O313_CURRENT_EXC},
        {OFF("_PyStackChunk", "previous"), 0},
        {OFF("_PyStackChunk", "data"), O313_CHUNK_DATA},
        {OFF("_PyErr_StackItem", "exc_value"), 0},
        {OFF("_PyErr_StackItem", "previous_item"), 8},
        {OFF("PyCodeObject", "co_framesize"), O313_FRAMESIZE},
        {"(long)&((PyThreadState*)0)->datastack_limit - "
         "(long)&((PyThreadState*)0)->datastack_top",
         8},
        {OFF("struct _gil_runtime_state",
             "switch_number") " - " OFF("struct _gil_runtime_state", "locked"),
         O313_GIL_SWITCH_AFTER_LOCKED},
        {"(long)FRAME_OWNED_BY_CSTACK", 3},
        {"(long)FRAME_OWNED_BY_GENERATOR", 1},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        printf("%s\t%d\n", words[i].expr, words[i].word);
}

int main(int argc, char **argv)
{
    const char *v = argc == 2 ? argv[1] : "";
    if (strcmp(v, "3.11") == 0) {
        print_rows(&py_offsets_311, common, sizeof common / sizeof *common);
        print_rows(&py_offsets_311, only311, sizeof only311 / sizeof *only311);
        printf("(long)FRAME_OWNED_BY_FRAME_OBJECT\t%d\n",
               py_offsets_311.owner_max);
        printf("(long)FRAME_OWNED_BY_GENERATOR\t%d\n",
               py_offsets_311.owner_generator);
        printf("(long)((sizeof(_PyInterpreterFrame) - 1) / "
               "sizeof(PyObject *))\t%d\n",
               py_offsets_311.frame_specials);
    } else if (strcmp(v, "3.12") == 0) {
        print_rows(&py_offsets_312, common, sizeof common / sizeof *common);
        print_rows(&py_offsets_312, only312, sizeof only312 / sizeof *only312);
        printf("(long)FRAME_OWNED_BY_CSTACK\t%d\n",
               py_offsets_312.owner_cstack);
        printf("(long)FRAME_OWNED_BY_GENERATOR\t%d\n",
               py_offsets_312.owner_generator);
    } else if (strcmp(v, "3.13") == 0) {
        print_313();
    } else {
        fprintf(stderr, "usage: print_offsets 3.11|3.12|3.13\n");
        return 2;
    }
    return 0;
}
