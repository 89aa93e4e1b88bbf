/* SPDX-License-Identifier: MIT */
/*
 * test_offsets_select - version selection and _Py_DebugOffsets checks of
 * tachyon-record, against fake tables placed in this process's own memory
 * (process_vm_readv works on oneself).
 */
#include <string.h>
#include <unistd.h>

#include "../unit/harness.h"
#include "py_offsets.h"
#include "py_offsets_313.h"
#include "py_offsets_314.h"
#include "py_offsets_315.h"
#include "real_314_offsets.h"

static uint64_t table[DBG_WORDS];
static char msg[256];

/* A plausible 3.13.0 table with the values gdb reports for pyenv 3.13.0. */
static void fake_313(void)
{
    memset(table, 0, sizeof table);
    memcpy(table, "xdebugpy", 8);
    table[W_VERSION] = 0x030d00f0;
    table[W_RT_SIZE] = 4096;
    table[W_RT_INTERP_HEAD] = 632;
    table[W_IS_SIZE] = 8000;
    table[W_IS_THREADS] = 7344;
    table[W_IS_CEVAL_GIL] = 16;
    table[W_IS_GIL] = 7752;
    table[W_IS_GIL_LOCKED] = 7752 + 16;
    table[W_IS_GIL_HOLDER] = 7752 + 8;
    table[W_TS_SIZE] = 304;
    table[W_TS_NEXT] = 8;
    table[W_TS_FRAME] = 72;
    table[W_TS_NATIVE] = 160;
    table[W_FR_SIZE] = 80;
    table[W_FR_PREV] = 8;
    table[W_FR_INSTR] = 56;
    table[W_FR_OWNER] = 70;
    table[W_CO_SIZE] = 208;
    table[W_CO_FILE] = 112;
    table[W_CO_QUAL] = 128;
    table[W_CO_LINES] = 136;
    table[W_CO_FIRST] = 68;
    table[W_CO_CODE] = 200;
    table[W_OB_TYPE] = 8;
    table[W_BY_SIZE] = 40;
    table[W_BY_OBSIZE] = 16;
    table[W_BY_SVAL] = 32;
    table[W_UN_SIZE] = 40;
    table[W_UN_STATE] = 32;
    table[W_UN_LENGTH] = 16;
    table[W_UN_ASCII] = 40;
}

static int load(py_offsets *o)
{
    return py_offsets_select(getpid(), (uint32_t)table[W_VERSION],
                             (uint64_t)(uintptr_t)table, 8192, 0, o, msg,
                             sizeof msg);
}

TEST(other_versions_refused)
{
    py_offsets o;
    int rc =
        py_offsets_select(getpid(), 0x031000a1, 0, 0, 0, &o, msg, sizeof msg);
    CHECK(rc == -1, "3.16 accepted");
    CHECK(strcmp(msg, "Python 3.16.0 is not supported (supported: 3.11, "
                      "3.12, 3.13, 3.14)") == 0,
          "message: %s", msg);
    rc = py_offsets_select(getpid(), 0x030a0df0, 0, 0, 0, &o, msg, sizeof msg);
    CHECK(rc == -1 && strstr(msg, "3.10.13 is not supported"), "%s", msg);
}

TEST(tables_for_311_312)
{
    py_offsets o;
    CHECK(py_offsets_select(getpid(), 0x030b07f0, 0, 0, 0, &o, msg,
                            sizeof msg) == 0,
          "3.11");
    CHECK(o.ts_size == 360 && o.rt_gil == 360, "3.11 table");
    CHECK(py_offsets_select(getpid(), 0x030c01f0, 0, 0, 0, &o, msg,
                            sizeof msg) == 0,
          "3.12");
    CHECK(o.is_gil_ptr == 384 && o.owner_cstack == 3, "3.12 table");
}

TEST(debug_offsets_313_accepted)
{
    py_offsets o;
    fake_313();
    REQUIRE(load(&o) == 0, "valid table refused: %s", msg);
    CHECK(o.rt_interpreters_head == 632 && o.is_threads_head == 7344,
          "runtime/interp");
    CHECK(o.gil_locked == 16 && o.gil_holder == 8,
          "GIL offsets relative "
          "to the GIL state: %llu %llu",
          (unsigned long long)o.gil_locked, (unsigned long long)o.gil_holder);
    CHECK(o.ts_cframe == PYOFF_NONE && o.ts_current_frame == 72, "frame");
    CHECK(o.co_code_adaptive == 200 && o.u_compact_size == 56, "code");
}

TEST(debug_offsets_313_rejected)
{
    py_offsets o;
    fake_313();
    memcpy(table, "xdebugpz", 8);
    CHECK(load(&o) == -1 && strstr(msg, "cookie"), "cookie: %s", msg);
    fake_313();
    table[W_FREE_THREADED] = 1;
    CHECK(load(&o) == -1 && strstr(msg, "free-threaded"), "ft: %s", msg);
    fake_313();
    table[W_FR_OWNER] = 80; /* a 1-byte field at the struct's end */
    CHECK(load(&o) == -1 && strstr(msg, "out of bounds"), "oob: %s", msg);
    fake_313();
    table[W_CO_SIZE] = 1u << 30;
    CHECK(load(&o) == -1, "huge struct accepted");
    fake_313();
    py_offsets_select(getpid(), 0x030d00f0, (uint64_t)(uintptr_t)table, 100, 0,
                      &o, msg, sizeof msg);
    CHECK(strstr(msg, "cannot read"), "short section: %s", msg);
}

static uint64_t t314[D314_WORDS];

static void fake_314(const uint64_t *real)
{
    memcpy(t314, real, sizeof t314);
    memcpy(t314, "xdebugpy", 8);
}

static int load_314(py_offsets *o)
{
    /* .PyRuntime holds all of _PyRuntimeState; the table is its start */
    return py_offsets_select(getpid(), 0x030e07f0, (uint64_t)(uintptr_t)t314,
                             1u << 20, 0, o, msg, sizeof msg);
}

TEST(debug_offsets_314_accepted)
{
    py_offsets o;
    fake_314(real_314);
    REQUIRE(load_314(&o) == 0, "3.14 table refused: %s", msg);
    CHECK(!o.free_threaded && o.fr_tlbc == PYOFF_NONE &&
              o.co_tlbc == PYOFF_NONE && o.ts_status == PYOFF_NONE,
          "GIL build read as free-threaded");
    CHECK(o.rt_interpreters_head == 808 && o.is_threads_head == 7344 &&
              o.is_gc_collecting == 7600,
          "runtime/interp: %llu", (unsigned long long)o.is_gc_collecting);
    CHECK(o.gil_locked == 16 && o.gil_holder == 8 && o.gil_switch == 24,
          "GIL offsets relative to the GIL state");
    CHECK(o.ts_current_frame == 72 && o.ts_datastack_chunk == 232 &&
              o.ts_datastack_top == 240,
          "thread");
    CHECK(o.fr_code == 0 && o.fr_code_tag == 3 && o.fr_instr == 56 &&
              o.fr_owner == 74 && o.owner_cstack == 3 && o.owner_max == 4,
          "frame");
    CHECK(o.co_code_adaptive == 208 && o.co_framesize == 76 &&
              o.u_compact_size == 56 && o.u_kind_shift == 2,
          "code and str");
}

TEST(debug_offsets_314t_accepted)
{
    py_offsets o;
    fake_314(real_314t);
    REQUIRE(load_314(&o) == 0, "3.14t table refused: %s", msg);
    CHECK(o.free_threaded && o.fr_tlbc == 72 && o.co_tlbc == 224 &&
              o.ts_status == 32 && o.is_tlbc_generation == 17628,
          "free-threaded fields");
    CHECK(o.fr_code_tag == 1 && o.u_kind_shift == 8 && o.u_compact_size == 72 &&
              o.co_framesize == 92 && o.co_filename == 128 && o.ob_type == 24,
          "the longer object header");
}

TEST(debug_offsets_314_rejected)
{
    py_offsets o;
    fake_314(real_314);
    memcpy(t314, "xdebugpz", 8);
    CHECK(load_314(&o) == -1 && strstr(msg, "cookie"), "cookie: %s", msg);
    fake_314(real_314);
    t314[D314_VERSION] = 0x030d00f0;
    CHECK(load_314(&o) == -1 && strstr(msg, "is not 3.14"), "ver: %s", msg);
    fake_314(real_314);
    t314[D314_FREE_THREADED] = 2;
    CHECK(load_314(&o) == -1 && strstr(msg, "free_threaded"), "ft: %s", msg);
    fake_314(real_314t);
    t314[D314_FR_TLBC_INDEX] = 86; /* 4 bytes at the 88-byte frame's end */
    CHECK(load_314(&o) == -1 && strstr(msg, "out of bounds"), "tlbc: %s", msg);
    fake_314(real_314);
    t314[D314_FR_TLBC_INDEX] = 86; /* not used without free threading */
    CHECK(load_314(&o) == 0, "GIL build checked a free-threaded field");
    fake_314(real_314);
    t314[D314_GC_COLLECTING] = 262;
    CHECK(load_314(&o) == -1 && strstr(msg, "out of bounds"), "gc: %s", msg);
    fake_314(real_314);
    t314[D314_IS_GC] = 225864 - 100;
    CHECK(load_314(&o) == -1 && strstr(msg, "implausible"), "gc sec: %s", msg);
    fake_314(real_314);
    py_offsets_select(getpid(), 0x030e07f0, (uint64_t)(uintptr_t)t314, 700, 0,
                      &o, msg, sizeof msg);
    CHECK(strstr(msg, "cannot read"), "short section: %s", msg);
}

/* A 3.15 table holding the real 3.14.7 values where 3.15 keeps a field
 * 3.14 has, and plausible ones for its new fields. */
static uint64_t t315[D315_WORDS];

static void fake_315(const uint64_t *real)
{
    /* Runs of words both tables have in the same order. */
    static const struct {
        int at315, at314, n;
    } runs[] = {
        /* runtime, interpreter and the thread state's first five */
        {D315_RT_SIZE, D314_RT_SIZE, 3 + 16 + 5},
        {D315_TS_THREAD_ID, D314_TS_THREAD_ID, 4},
        {D315_FR_SIZE, D314_FR_SIZE, 8},
        {D315_CO_SIZE, D314_CO_SIZE, 11},
        {D315_OB_SIZE, D314_OB_SIZE, 2},
        {D315_TYPE_SIZE, D314_TYPE_SIZE, 4},
        /* tuple, list, set, dict, float, int, bytes, str */
        {D315_TUPLE_SIZE, D314_TUPLE_SIZE, 25},
        {D315_GC_SIZE, D314_GC_SIZE, 2},
    };
    memset(t315, 0, sizeof t315);
    memcpy(t315, "xdebugpy", 8);
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        for (int k = 0; k < runs[i].n; k++)
            t315[runs[i].at315 + k] = real[runs[i].at314 + k];
    t315[D315_VERSION] = 0x030f00f0;
    t315[D315_TS_HOLDS_GIL] = 36;
    t315[D315_TS_GIL_REQUESTED] = 48;
    t315[D315_TS_CURRENT_EXCEPTION] = 112;
    t315[D315_TS_EXC_STATE] = 256;
    t315[D315_UNICODE_COMPACTUNICODEOBJECT_SIZE] =
        t315[D315_UNICODE_ASCIIOBJECT_SIZE] + 16;
}

static int load_315(py_offsets *o, unsigned flags)
{
    return py_offsets_select(getpid(), 0x030f00f0, (uint64_t)(uintptr_t)t315,
                             1u << 20, flags, o, msg, sizeof msg);
}

TEST(debug_offsets_315_on_request)
{
    py_offsets o;
    fake_315(real_314);
    CHECK(load_315(&o, 0) == -1, "3.15 read without being asked");
    CHECK(strcmp(msg, "Python 3.15.0 is not tested with tachyon-record "
                      "(tested: 3.11, 3.12, 3.13, 3.14); --allow-untested "
                      "records it anyway") == 0,
          "message: %s", msg);
    REQUIRE(load_315(&o, PYOFF_ALLOW_UNTESTED) == 0, "3.15 refused: %s", msg);
    CHECK(strstr(o.source, "untested") != NULL, "source: %s", o.source);
    CHECK(o.ts_native_tid == 160 && o.ts_datastack_chunk == 232 &&
              o.ts_exc_state == 256 && o.ts_current_exc == 112 &&
              o.ts_exc_info == 120 && o.ts_gil_requested == 48,
          "thread fields");
    CHECK(o.fr_owner == 74 && o.co_code_adaptive == 208 &&
              o.co_framesize == 76 && o.u_compact_size == 56 &&
              o.is_gc_collecting == 7600 && o.fr_code_tag == 7,
          "frame, code, str, gc");
    CHECK(py_offsets_untested(0x030f00f0) && !py_offsets_untested(0x030e07f0),
          "which versions are untested");
}

TEST(debug_offsets_315_shifted_rejected)
{
    py_offsets o;
    /* The layout before 3.15.0b4, without last_profiled_frame_seq. */
    fake_315(real_314);
    memmove(&t315[D315_TS_LAST_PROFILED_FRAME_SEQ],
            &t315[D315_TS_LAST_PROFILED_FRAME_SEQ + 1],
            (D315_WORDS - D315_TS_LAST_PROFILED_FRAME_SEQ - 1) * 8);
    CHECK(load_315(&o, PYOFF_ALLOW_UNTESTED) == -1,
          "a table shifted by a word accepted");
    fake_315(real_314);
    t315[D315_ERR_EXC_VALUE] = 1000; /* outside the thread state */
    CHECK(load_315(&o, PYOFF_ALLOW_UNTESTED) == -1, "exception item");
    fake_315(real_314);
    t315[D315_UNICODE_COMPACTUNICODEOBJECT_SIZE] = 64;
    CHECK(load_315(&o, PYOFF_ALLOW_UNTESTED) == -1 &&
              strstr(msg, "implausible"),
          "compact size: %s", msg);
}

TESTS(TCASE(other_versions_refused), TCASE(tables_for_311_312),
      TCASE(debug_offsets_313_accepted), TCASE(debug_offsets_313_rejected),
      TCASE(debug_offsets_314_accepted), TCASE(debug_offsets_314t_accepted),
      TCASE(debug_offsets_314_rejected), TCASE(debug_offsets_315_on_request),
      TCASE(debug_offsets_315_shifted_rejected))
