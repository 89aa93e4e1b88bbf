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
                             (uint64_t)(uintptr_t)table, 8192, o, msg,
                             sizeof msg);
}

TEST(newer_versions_refused)
{
    py_offsets o;
    int rc = py_offsets_select(getpid(), 0x030e00f0, 0, 0, &o, msg, sizeof msg);
    CHECK(rc == -1, "3.14 accepted");
    CHECK(strcmp(msg, "Python 3.14.0 is not supported (supported: 3.11, "
                      "3.12, 3.13)") == 0,
          "message: %s", msg);
    rc = py_offsets_select(getpid(), 0x030f00a1, 0, 0, &o, msg, sizeof msg);
    CHECK(rc == -1 && strstr(msg, "3.15.0 is not supported"), "%s", msg);
    rc = py_offsets_select(getpid(), 0x030a0df0, 0, 0, &o, msg, sizeof msg);
    CHECK(rc == -1 && strstr(msg, "3.10.13 is not supported"), "%s", msg);
}

TEST(tables_for_311_312)
{
    py_offsets o;
    CHECK(py_offsets_select(getpid(), 0x030b07f0, 0, 0, &o, msg, sizeof msg) ==
              0,
          "3.11");
    CHECK(o.ts_size == 360 && o.rt_gil == 360, "3.11 table");
    CHECK(py_offsets_select(getpid(), 0x030c01f0, 0, 0, &o, msg, sizeof msg) ==
              0,
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
    py_offsets_select(getpid(), 0x030d00f0, (uint64_t)(uintptr_t)table, 100, &o,
                      msg, sizeof msg);
    CHECK(strstr(msg, "cannot read"), "short section: %s", msg);
}

TESTS(TCASE(newer_versions_refused), TCASE(tables_for_311_312),
      TCASE(debug_offsets_313_accepted), TCASE(debug_offsets_313_rejected))
