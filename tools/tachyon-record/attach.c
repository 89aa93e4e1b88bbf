/* SPDX-License-Identifier: MIT */
/*
 * attach.c - get from a target process to a ready unwinder: find the
 * runtime (waiting for a just-started child to map its interpreter) and
 * choose the offsets for its version.
 */
#include "attach.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "children.h"
#include "cli.h"
#include "locate.h"
#include "outcome.h"
#include "perm.h"
#include "sampler.h"
#include "text_safe.h"

#define WAIT_STEP_NS (1000 * 1000)
#define WAIT_LIMIT_NS (30 * 1000000000ull)
#define ERROR_RETRIES 300 /* about 0.3 s of 1 ms polls */

/* wait_runtime outcomes besides LOCATE_* (apart from all of them). */
enum { WAIT_EXITED = -10, WAIT_DEADLINE = -11 };

/* What the looks at a started target saw of it once it had exec'd. */
typedef struct sighting {
    bool execed;   /* a look after its exec (not the recorder's fork) */
    bool python;   /* ... found a python executable or libpython */
    char exe[256]; /* its /proc/PID/exe then */
} sighting;

/* Note what the target runs now, if it has exec'd. */
static void look_at(const target *t, sighting *s)
{
    if (!t->spawned || target_forked_unexeced(t->pid))
        return;
    char exe[sizeof s->exe];
    children_exe(t->pid, exe, sizeof exe);
    if (!exe[0])
        return; /* gone meanwhile */
    memcpy(s->exe, exe, sizeof exe);
    s->execed = true;
    s->python |= children_runs_python(t->pid, exe);
}

/* Locate the runtime and choose its offsets: LOCATE_*. */
static int try_attach(target *t, bool untested, py_runtime_loc *loc,
                      py_offsets *off, char *msg, size_t len)
{
    int rc = locate_runtime(t->pid, loc, msg, len);
    if (rc == LOCATE_FOUND &&
        py_offsets_select(
            t->pid, loc->hexversion, loc->runtime, loc->runtime_size,
            untested ? PYOFF_ALLOW_UNTESTED : 0, off, msg, len) != 0)
        rc = LOCATE_ERROR;
    return rc;
}

/*
 * Poll until the interpreter is mapped and readable, for up to 30 s;
 * LOCATE_*, or WAIT_EXITED / WAIT_DEADLINE. A child that has just been
 * started may show its
 * libpython before the loader has mapped every segment, so reading it
 * can briefly give garbage: errors are retried for a while too.
 */
static int wait_runtime(target *t, bool untested, volatile sig_atomic_t *stop,
                        const attach_wait *w, py_runtime_loc *loc,
                        py_offsets *off, sighting *seen, char *msg, size_t len)
{
    struct timespec step = {0, WAIT_STEP_NS};
    uint64_t limit = sampler_now_ns() + WAIT_LIMIT_NS;
    int errors = 0;
    while (!*stop && (w->until_exit || sampler_now_ns() < limit)) {
        uint64_t now = sampler_now_ns();
        if (w->deadline_ns && now >= w->deadline_ns)
            return WAIT_DEADLINE;
        if (w->poll)
            w->poll(w->ctx, now);
        int rc = try_attach(t, untested, loc, off, msg, len);
        if (rc == LOCATE_FOUND || rc == LOCATE_DENIED ||
            (!t->spawned && !w->until_exit))
            return rc;
        if (rc == LOCATE_ERROR && ++errors >= ERROR_RETRIES)
            return rc;
        if (rc == LOCATE_NOT_YET && !seen->python)
            look_at(t, seen);
        if (!target_alive(t))
            return WAIT_EXITED;
        nanosleep(&step, NULL);
    }
    return LOCATE_NOT_YET;
}

int attach_report_denied(target *t)
{
    char why[640];
    perm_facts f;
    perm_gather(t->pid, t->spawned, &f);
    perm_explain(&f, why, sizeof why);
    return cli_fail(CLI_EXIT_TROUBLE,
                    "process %d: permission denied reading its memory: %s",
                    (int)t->pid, why);
}

/* A started COMMAND that ended before its interpreter was found. */
static int exited_early(target *t, const sighting *seen, const char *name)
{
    char how[96];
    outcome_describe(t->wait_status, how, sizeof how);
    t->end_told = true;
    if (seen->execed && !seen->python)
        return cli_fail(CLI_EXIT_TROUBLE,
                        "%s is not Python (no CPython interpreter in it) and "
                        "%s; nothing recorded (to record the Python programs "
                        "it starts: --subprocesses)",
                        name, how);
    return cli_fail(CLI_EXIT_TROUBLE, "%s %s before %s; nothing recorded", name,
                    how,
                    seen->python ? "its CPython interpreter could be read"
                                 : "a CPython interpreter was found in it");
}

/* A started COMMAND with no interpreter when the search ended. */
static int not_found(const target *t, const sighting *seen, const char *name,
                     const char *when)
{
    char exe[300];
    if (seen->execed && !seen->python)
        return cli_fail(CLI_EXIT_TROUBLE,
                        "%s is not Python: no CPython interpreter in it "
                        "%s (it runs %s); nothing recorded",
                        name, when, cli_escape(exe, sizeof exe, seen->exe));
    return cli_fail(CLI_EXIT_TROUBLE,
                    "%s (process %d): no CPython 3.11-3.14 interpreter found "
                    "%s; nothing recorded",
                    name, (int)t->pid, when);
}

static int describe_failure(target *t, int rc, const sighting *seen,
                            const char *msg, volatile sig_atomic_t *stop)
{
    char name[300];
    bool ended = rc == WAIT_DEADLINE || (rc == LOCATE_NOT_YET && *stop);
    cli_escape(name, sizeof name, t->name);
    if (rc == LOCATE_DENIED && !target_alive(t))
        rc = WAIT_EXITED; /* refused because it was exiting */
    if (rc == LOCATE_DENIED)
        return attach_report_denied(t);
    if (rc == WAIT_EXITED && t->spawned)
        return exited_early(t, seen, name);
    if (rc == WAIT_EXITED)
        return cli_fail(CLI_EXIT_TROUBLE,
                        "process %d exited before a CPython interpreter was "
                        "found",
                        (int)t->pid);
    if (t->spawned && (ended || rc == LOCATE_NOT_YET))
        return not_found(t, seen, name,
                         ended ? "before the recording ended" : "after 30 s");
    if (ended)
        return cli_fail(CLI_EXIT_TROUBLE,
                        "process %d: no CPython 3.11-3.14 interpreter found "
                        "before the recording ended",
                        (int)t->pid);
    if (rc == LOCATE_NOT_YET)
        return cli_fail(CLI_EXIT_TROUBLE,
                        "process %d: no CPython 3.11-3.14 interpreter found "
                        "(no mapped python file defines _PyRuntime)",
                        (int)t->pid);
    char text[700]; /* msg names files from the target's maps */
    return cli_fail(CLI_EXIT_TROUBLE, "process %d: %s", (int)t->pid,
                    cli_escape(text, sizeof text, msg));
}

int attach_unwinder(target *t, const unwind_config *cfg, bool verbose,
                    volatile sig_atomic_t *stop, const attach_wait *w,
                    unwinder *u, uint32_t *hexversion)
{
    py_runtime_loc loc;
    sighting seen = {false, false, ""};
    char msg[512] = "";
    /* Forked and unexec'd before and after the search: what was found is
     * the image the fork copied (the sampler watches for an exec). */
    bool forked = target_forked_unexeced(t->pid);
    int rc = wait_runtime(t, cfg->untested, stop, w, &loc, &u->off, &seen, msg,
                          sizeof msg);
    t->fork_image = forked && target_forked_unexeced(t->pid);
    /* Following children, a target that is not Python (a shell wrapper)
     * is not an error by itself. */
    if (w->quiet_exit &&
        (rc == WAIT_EXITED || (rc == LOCATE_ERROR && !target_alive(t))))
        return ATTACH_GONE;
    /* ... nor one that exec'd a program that is not Python between the
     * follower's look and this search: the follower looks again. */
    if (w->quiet_exit && rc == LOCATE_NOT_YET && !*stop)
        return ATTACH_NO_PYTHON;
    if (w->until_exit && (rc == WAIT_EXITED || rc == WAIT_DEADLINE ||
                          (rc == LOCATE_NOT_YET && *stop)))
        return ATTACH_NO_PYTHON;
    if (rc != LOCATE_FOUND)
        return describe_failure(t, rc, &seen, msg, stop);
    u->pid = t->pid;
    u->hexversion = loc.hexversion;
    u->runtime = loc.runtime;
    u->code_type = loc.code_type;
    u->none_obj = loc.none_obj;
    u->cfg = *cfg;
    *hexversion = loc.hexversion;
    if (verbose) {
        char path[600];
        fprintf(stderr,
                "%s: process %d: CPython %u.%u.%u in %s, offsets "
                "from %s\n",
                cli_program(), (int)t->pid, loc.hexversion >> 24,
                (loc.hexversion >> 16) & 0xff, (loc.hexversion >> 8) & 0xff,
                cli_escape(path, sizeof path, loc.path), u->off.source);
    }
    if (py_offsets_untested(loc.hexversion))
        cli_warn("process %d: CPython %u.%u.%u is not tested with "
                 "tachyon-record: its stacks, status bits and opcode names "
                 "rest on a layout no test here could check",
                 (int)t->pid, loc.hexversion >> 24,
                 (loc.hexversion >> 16) & 0xff, (loc.hexversion >> 8) & 0xff);
    if (cfg->mode == UNWIND_MODE_GIL && u->off.free_threaded && !cli_quiet())
        fprintf(stderr,
                "%s: process %d: free-threaded CPython has no GIL: --mode "
                "gil keeps the threads whose thread state is attached "
                "(running Python code, not waiting in a call that releases "
                "it)\n",
                cli_program(), (int)t->pid);
    if (unwind_init(u) != 0)
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    return CLI_EXIT_OK;
}
