/*
 * attach.c - get from a target process to a ready unwinder: find the
 * runtime (waiting for a just-started child to map its interpreter) and
 * choose the offsets for its version.
 */
#include "attach.h"

#include <stdio.h>
#include <time.h>

#include "cli.h"
#include "locate.h"

#define WAIT_STEP_NS (1000 * 1000)
#define WAIT_LIMIT_MS 30000

/* Poll until the interpreter is mapped; LOCATE_* or -2 if it exited. */
static int wait_runtime(target *t, volatile sig_atomic_t *stop,
                        py_runtime_loc *loc, char *msg, size_t len)
{
    struct timespec step = {0, WAIT_STEP_NS};
    for (int ms = 0; ms < WAIT_LIMIT_MS && !*stop; ms++) {
        int rc = locate_runtime(t->pid, loc, msg, len);
        if (rc != LOCATE_NOT_YET || !t->spawned)
            return rc;
        if (!target_alive(t))
            return -2;
        nanosleep(&step, NULL);
    }
    return LOCATE_NOT_YET;
}

static int describe_failure(const target *t, int rc, const char *msg)
{
    if (rc == -2)
        return cli_fail(CLI_EXIT_TROUBLE, "process %d exited before a "
                        "CPython interpreter was found", (int)t->pid);
    if (rc == LOCATE_NOT_YET)
        return cli_fail(CLI_EXIT_TROUBLE, "process %d: no CPython "
                        "3.11-3.13 interpreter found (no mapped python "
                        "file defines _PyRuntime)", (int)t->pid);
    return cli_fail(CLI_EXIT_TROUBLE, "process %d: %s", (int)t->pid, msg);
}

int attach_unwinder(target *t, bool all_threads,
                    volatile sig_atomic_t *stop, unwinder *u,
                    uint32_t *hexversion)
{
    py_runtime_loc loc;
    char msg[512] = "";
    int rc = wait_runtime(t, stop, &loc, msg, sizeof msg);
    if (rc != LOCATE_FOUND)
        return describe_failure(t, rc, msg);
    if (py_offsets_select(t->pid, loc.hexversion, loc.runtime,
                          loc.runtime_size, &u->off, msg, sizeof msg) != 0)
        return cli_fail(CLI_EXIT_TROUBLE, "process %d: %s", (int)t->pid,
                        msg);
    u->pid = t->pid;
    u->runtime = loc.runtime;
    u->code_type = loc.code_type;
    u->all_threads = all_threads;
    *hexversion = loc.hexversion;
    if (unwind_init(u) != 0)
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    return CLI_EXIT_OK;
}
