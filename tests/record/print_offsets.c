/* SPDX-License-Identifier: MIT */
/*
 * print_offsets VERSION - print every constant tachyon-record assumes for
 * CPython VERSION (3.11, 3.12, 3.13, 3.14 or 3.14t) next to the gdb
 * expression that computes it from the interpreter's DWARF:
 * EXPRESSION<TAB>VALUE. check_offsets.sh evaluates the expressions with
 * gdb and compares. For 3.13 and 3.14 the struct offsets come from the
 * target's _Py_DebugOffsets at run time; what is checked is the word
 * index of each debug-offsets field (3.14: every one) and the few
 * constants the table does not carry.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "py_offsets.h"
#include "py_offsets_313.h"
#include "py_offsets_314.h"

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

/* Every word of 3.14's table, in the order CPython declares them. */
static const struct {
    const char *expr;
    int word;
} words_314[] = {
    {DBG("cookie"), D314_COOKIE},
    {DBG("version"), D314_VERSION},
    {DBG("free_threaded"), D314_FREE_THREADED},
    {DBG("runtime_state.size"), D314_RT_SIZE},
    {DBG("runtime_state.finalizing"), D314_RT_FINALIZING},
    {DBG("runtime_state.interpreters_head"), D314_RT_INTERPRETERS_HEAD},
    {DBG("interpreter_state.size"), D314_IS_SIZE},
    {DBG("interpreter_state.id"), D314_IS_ID},
    {DBG("interpreter_state.next"), D314_IS_NEXT},
    {DBG("interpreter_state.threads_head"), D314_IS_THREADS_HEAD},
    {DBG("interpreter_state.threads_main"), D314_IS_THREADS_MAIN},
    {DBG("interpreter_state.gc"), D314_IS_GC},
    {DBG("interpreter_state.imports_modules"), D314_IS_IMPORTS_MODULES},
    {DBG("interpreter_state.sysdict"), D314_IS_SYSDICT},
    {DBG("interpreter_state.builtins"), D314_IS_BUILTINS},
    {DBG("interpreter_state.ceval_gil"), D314_IS_CEVAL_GIL},
    {DBG("interpreter_state.gil_runtime_state"), D314_IS_GIL_RUNTIME_STATE},
    {DBG("interpreter_state.gil_runtime_state_enabled"), D314_IS_GIL_ENABLED},
    {DBG("interpreter_state.gil_runtime_state_locked"), D314_IS_GIL_LOCKED},
    {DBG("interpreter_state.gil_runtime_state_holder"), D314_IS_GIL_HOLDER},
    {DBG("interpreter_state.code_object_generation"),
     D314_IS_CODE_OBJECT_GENERATION},
    {DBG("interpreter_state.tlbc_generation"), D314_IS_TLBC_GENERATION},
    {DBG("thread_state.size"), D314_TS_SIZE},
    {DBG("thread_state.prev"), D314_TS_PREV},
    {DBG("thread_state.next"), D314_TS_NEXT},
    {DBG("thread_state.interp"), D314_TS_INTERP},
    {DBG("thread_state.current_frame"), D314_TS_CURRENT_FRAME},
    {DBG("thread_state.thread_id"), D314_TS_THREAD_ID},
    {DBG("thread_state.native_thread_id"), D314_TS_NATIVE_THREAD_ID},
    {DBG("thread_state.datastack_chunk"), D314_TS_DATASTACK_CHUNK},
    {DBG("thread_state.status"), D314_TS_STATUS},
    {DBG("interpreter_frame.size"), D314_FR_SIZE},
    {DBG("interpreter_frame.previous"), D314_FR_PREVIOUS},
    {DBG("interpreter_frame.executable"), D314_FR_EXECUTABLE},
    {DBG("interpreter_frame.instr_ptr"), D314_FR_INSTR_PTR},
    {DBG("interpreter_frame.localsplus"), D314_FR_LOCALSPLUS},
    {DBG("interpreter_frame.owner"), D314_FR_OWNER},
    {DBG("interpreter_frame.stackpointer"), D314_FR_STACKPOINTER},
    {DBG("interpreter_frame.tlbc_index"), D314_FR_TLBC_INDEX},
    {DBG("code_object.size"), D314_CO_SIZE},
    {DBG("code_object.filename"), D314_CO_FILENAME},
    {DBG("code_object.name"), D314_CO_NAME},
    {DBG("code_object.qualname"), D314_CO_QUALNAME},
    {DBG("code_object.linetable"), D314_CO_LINETABLE},
    {DBG("code_object.firstlineno"), D314_CO_FIRSTLINENO},
    {DBG("code_object.argcount"), D314_CO_ARGCOUNT},
    {DBG("code_object.localsplusnames"), D314_CO_LOCALSPLUSNAMES},
    {DBG("code_object.localspluskinds"), D314_CO_LOCALSPLUSKINDS},
    {DBG("code_object.co_code_adaptive"), D314_CO_CODE_ADAPTIVE},
    {DBG("code_object.co_tlbc"), D314_CO_TLBC},
    {DBG("pyobject.size"), D314_OB_SIZE},
    {DBG("pyobject.ob_type"), D314_OB_TYPE},
    {DBG("type_object.size"), D314_TYPE_SIZE},
    {DBG("type_object.tp_name"), D314_TYPE_TP_NAME},
    {DBG("type_object.tp_repr"), D314_TYPE_TP_REPR},
    {DBG("type_object.tp_flags"), D314_TYPE_TP_FLAGS},
    {DBG("tuple_object.size"), D314_TUPLE_SIZE},
    {DBG("tuple_object.ob_item"), D314_TUPLE_OB_ITEM},
    {DBG("tuple_object.ob_size"), D314_TUPLE_OB_SIZE},
    {DBG("list_object.size"), D314_LIST_SIZE},
    {DBG("list_object.ob_item"), D314_LIST_OB_ITEM},
    {DBG("list_object.ob_size"), D314_LIST_OB_SIZE},
    {DBG("set_object.size"), D314_SET_SIZE},
    {DBG("set_object.used"), D314_SET_USED},
    {DBG("set_object.table"), D314_SET_TABLE},
    {DBG("set_object.mask"), D314_SET_MASK},
    {DBG("dict_object.size"), D314_DICT_SIZE},
    {DBG("dict_object.ma_keys"), D314_DICT_MA_KEYS},
    {DBG("dict_object.ma_values"), D314_DICT_MA_VALUES},
    {DBG("float_object.size"), D314_FLOAT_SIZE},
    {DBG("float_object.ob_fval"), D314_FLOAT_OB_FVAL},
    {DBG("long_object.size"), D314_LONG_SIZE},
    {DBG("long_object.lv_tag"), D314_LONG_LV_TAG},
    {DBG("long_object.ob_digit"), D314_LONG_OB_DIGIT},
    {DBG("bytes_object.size"), D314_BYTES_SIZE},
    {DBG("bytes_object.ob_size"), D314_BYTES_OB_SIZE},
    {DBG("bytes_object.ob_sval"), D314_BYTES_OB_SVAL},
    {DBG("unicode_object.size"), D314_UNICODE_SIZE},
    {DBG("unicode_object.state"), D314_UNICODE_STATE},
    {DBG("unicode_object.length"), D314_UNICODE_LENGTH},
    {DBG("unicode_object.asciiobject_size"), D314_UNICODE_ASCII_SIZE},
    {DBG("gc.size"), D314_GC_SIZE},
    {DBG("gc.collecting"), D314_GC_COLLECTING},
    {DBG("gen_object.size"), D314_GEN_SIZE},
    {DBG("gen_object.gi_name"), D314_GEN_GI_NAME},
    {DBG("gen_object.gi_iframe"), D314_GEN_GI_IFRAME},
    {DBG("gen_object.gi_frame_state"), D314_GEN_GI_FRAME_STATE},
    {DBG("llist_node.next"), D314_LLIST_NEXT},
    {DBG("llist_node.prev"), D314_LLIST_PREV},
    {DBG("debugger_support.eval_breaker"), D314_DBG_EVAL_BREAKER},
    {DBG("debugger_support.remote_debugger_support"),
     D314_DBG_REMOTE_DEBUGGER_SUPPORT},
    {DBG("debugger_support.remote_debugging_enabled"),
     D314_DBG_REMOTE_DEBUGGING_ENABLED},
    {DBG("debugger_support.debugger_pending_call"), D314_DBG_PENDING_CALL},
    {DBG("debugger_support.debugger_script_path"), D314_DBG_SCRIPT_PATH},
    {DBG("debugger_support.debugger_script_path_size"),
     D314_DBG_SCRIPT_PATH_SIZE},
};

/* An ASCII str's state word shifted by the kind's bit: kind 1, compact
 * and ascii set (25), read from a static string in the file's data. */
#define STATE_A                                                                \
    "*(unsigned int *)&_PyRuntime.static_objects.singletons.strings."          \
    "ascii[65]._ascii.state"

static void print_314(bool ft)
{
    static char state[160];
    const struct {
        const char *expr;
        long value;
    } fixed[] = {
        {"(long)sizeof(_Py_DebugOffsets)", D314_BYTES},
        {OFF("PyThreadState", "exc_info"), O314_EXC_INFO},
        {OFF("PyThreadState", "exc_state"), O314_EXC_STATE},
        {OFF("PyThreadState", "current_exception"), O314_CURRENT_EXC},
        {OFF("PyThreadState", "datastack_top") " - " OFF("PyThreadState",
                                                         "datastack_chunk"),
         O314_DATASTACK_TOP},
        {OFF("PyThreadState", "datastack_limit") " - " OFF("PyThreadState",
                                                           "datastack_top"),
         8},
        {OFF("_PyStackChunk", "previous"), 0},
        {OFF("_PyStackChunk", "data"), O314_CHUNK_DATA},
        {OFF("_PyErr_StackItem", "exc_value"), 0},
        {OFF("_PyErr_StackItem", "previous_item"), 8},
        {"(long)sizeof(PyCompactUnicodeObject) - "
         "(long)sizeof(PyASCIIObject)",
         O314_COMPACT_EXTRA},
        {OFF("PyCodeObject", "co_framesize") " - " OFF("PyCodeObject",
                                                       "co_firstlineno"),
         O314_FRAMESIZE_AFTER_FIRSTLINENO},
        {OFF("struct _gil_runtime_state",
             "switch_number") " - " OFF("struct _gil_runtime_state", "locked"),
         O314_GIL_SWITCH_AFTER_LOCKED},
        {state, 25},
        {"(long)FRAME_OWNED_BY_GENERATOR", O314_OWNED_BY_GENERATOR},
        {"(long)FRAME_OWNED_BY_INTERPRETER", O314_OWNED_BY_INTERPRETER},
        {"(long)FRAME_OWNED_BY_CSTACK", O314_OWNED_BY_CSTACK},
    };
    snprintf(state, sizeof state, "(long)(" STATE_A " >> %d) & 31",
             ft ? O314T_KIND_SHIFT : O314_KIND_SHIFT);
    for (size_t i = 0; i < sizeof words_314 / sizeof words_314[0]; i++)
        printf("%s\t%d\n", words_314[i].expr, words_314[i].word);
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        printf("%s\t%ld\n", fixed[i].expr, fixed[i].value);
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
    } else if (strcmp(v, "3.14") == 0 || strcmp(v, "3.14t") == 0) {
        print_314(strcmp(v, "3.14t") == 0);
    } else {
        fprintf(stderr, "usage: print_offsets 3.11|3.12|3.13|3.14|3.14t\n");
        return 2;
    }
    return 0;
}
