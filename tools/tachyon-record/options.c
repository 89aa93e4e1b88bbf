/* SPDX-License-Identifier: MIT */
/*
 * options.c - tachyon-record's option table (tools/common/cli.h) and the
 * checks on the values.
 */
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *opt_output, *opt_rate, *opt_duration, *opt_pid;
static const char *opt_recover;
static const char *opt_compression, *opt_mode, *opt_async_mode;
static int opt_all_threads, opt_quiet, opt_verbose, opt_force, opt_no_gc;
static int opt_native, opt_opcodes, opt_subprocesses, opt_dump, opt_live;
static int opt_nonblocking, opt_allow_untested, opt_async_aware;
static cli_list operands;

static const cli_option options[] = {
    {"output", 'o', CLI_ARG_REQUIRED, &opt_output,
     "write the log to FILE (default tachyon_PID.bin)", "FILE", NULL},
    {"rate", 'r', CLI_ARG_REQUIRED, &opt_rate,
     "sampling ticks per second (default 1000)", "HZ", NULL},
    {"duration", 'd', CLI_ARG_REQUIRED, &opt_duration,
     "stop after S seconds (default: at the target's exit)", "S", NULL},
    {"mode", 0, CLI_ARG_REQUIRED, &opt_mode,
     "wall (every sample, default), cpu, gil or exception", "MODE",
     "wall|cpu|gil|exception"},
    {"all-threads", 'a', CLI_ARG_NONE, &opt_all_threads,
     "sample every thread, not just the main thread", NULL, NULL},
    {"async-aware", 0, CLI_ARG_NONE, &opt_async_aware,
     "a stack per asyncio task, joined to its awaiters (3.14+)", NULL, NULL},
    {"async-mode", 0, CLI_ARG_REQUIRED, &opt_async_mode,
     "running (each thread's running task, default) or all tasks", "MODE",
     "running|all"},
    {"no-gc", 0, CLI_ARG_NONE, &opt_no_gc,
     "no <GC> frames while the garbage collector runs", NULL, NULL},
    {"native", 0, CLI_ARG_NONE, &opt_native,
     "add <native> frames where C code calls Python", NULL, NULL},
    {"opcodes", 0, CLI_ARG_NONE, &opt_opcodes,
     "record each frame's bytecode instruction", NULL, NULL},
    {"nonblocking", 0, CLI_ARG_NONE, &opt_nonblocking,
     "never pause a thread to read it (see below)", NULL, NULL},
    {"allow-untested", 0, CLI_ARG_NONE, &opt_allow_untested,
     "record CPython 3.15 too, whose layout no test here checks", NULL, NULL},
    {"compression", 'c', CLI_ARG_REQUIRED, &opt_compression,
     "compress the samples: none (default) or zstd", "KIND", "none|zstd"},
    {"dump", 0, CLI_ARG_NONE, &opt_dump,
     "print every thread's stack once (after -d S) and exit", NULL, NULL},
    {"live", 0, CLI_ARG_NONE, &opt_live,
     "show the hottest functions live (q quits)", NULL, NULL},
    {"recover", 0, CLI_ARG_REQUIRED, &opt_recover,
     "make a killed recording's FILE a valid log again", "FILE", NULL},
    {"subprocesses", 0, CLI_ARG_NONE, &opt_subprocesses,
     "record Python children too, NAME.PID.bin each", NULL, NULL},
    {"pid", 'p', CLI_ARG_REQUIRED, &opt_pid,
     "attach to the running process PID", "PID", NULL},
    {"force", 'f', CLI_ARG_NONE, &opt_force, "replace an existing output FILE",
     NULL, NULL},
    {"quiet", 'q', CLI_ARG_NONE, &opt_quiet, "print no summary or warnings",
     NULL, NULL},
    {"verbose", 'v', CLI_ARG_NONE, &opt_verbose,
     "print timing and cache figures at the end", NULL, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, NULL}};

static const cli_spec spec = {
    "tachyon-record",
    "[OPTIONS] (-p PID | -- COMMAND [ARGS...] | --recover FILE)",
    "Record a running CPython 3.11-3.14 process into a Tachyon binary log.",
    options,
    &operands,
    "MODE keeps every sample (wall) or only those of threads that ran on\n"
    "a CPU (cpu), hold the GIL (gil) or handle an exception (exception).\n"
    "The log is finalized whatever ends the recording: the target's exit,\n"
    "--duration, SIGINT (Ctrl-C), SIGTERM or SIGHUP. Reading another\n"
    "process needs the same user or CAP_SYS_PTRACE.\n"
    "A thread that runs Python code while it is read is paused for that\n"
    "read (ptrace, microseconds), so that its stack is one it was in;\n"
    "--nonblocking only checks it, and a wrong stack is then rare, not\n"
    "impossible.\n"
    "--async-aware records asyncio tasks instead of threads: a stack per\n"
    "task that no other task awaits, its frames, a <task> frame naming it,\n"
    "then the frames and <task> frame of each task awaiting it.\n"};

/* A positive finite number no larger than `max`, or -1. */
static double parse_positive(const char *s, double max)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > max)
        return -1;
    return v;
}

/* unwind_mode numbers (CPython's PROFILING_MODE_*); the parser already
 * checked the name. */
static int mode_value(const char *name)
{
    static const char *const names[] = {"wall", "cpu", "gil", NULL,
                                        "exception"};
    for (int i = 0; name && i < 5; i++)
        if (names[i] && strcmp(names[i], name) == 0)
            return i;
    return 0;
}

/* --async-aware replaces thread stacks by task stacks: what selects or
 * decorates threads does not apply (as in CPython 3.15's profiler). */
static int check_async(rec_options *o)
{
    if (opt_async_mode && !opt_async_aware)
        return cli_usage("--async-mode requires --async-aware");
    if (!opt_async_aware)
        return REC_PARSE_RUN;
    if ((opt_mode && strcmp(opt_mode, "wall") != 0) || opt_all_threads ||
        opt_native || opt_no_gc)
        return cli_usage("--async-aware takes no --mode (but wall), -a, "
                         "--native or --no-gc: task stacks replace thread "
                         "stacks");
    if (opt_live)
        return cli_usage("--live shows threads: no --async-aware");
    o->async_mode =
        opt_async_mode && strcmp(opt_async_mode, "all") == 0 ? 2 : 1;
    return REC_PARSE_RUN;
}

static int check_values(rec_options *o)
{
    if (opt_rate && (o->rate_hz = parse_positive(opt_rate, 100000)) < 0)
        return cli_usage("invalid --rate '%s' (1 to 100000 Hz)", opt_rate);
    if (opt_duration && (o->duration_s = parse_positive(opt_duration, 1e7)) < 0)
        return cli_usage("invalid --duration '%s'", opt_duration);
    if (opt_pid) {
        double pid = parse_positive(opt_pid, 4194304);
        if (pid < 0 || pid != (double)(pid_t)pid)
            return cli_usage("invalid --pid '%s'", opt_pid);
        o->pid = (pid_t)pid;
    }
    if (opt_recover) {
        if (opt_pid || operands.count || opt_output)
            return cli_usage("--recover FILE takes no -p, -o or COMMAND");
        o->recover = opt_recover;
        return REC_PARSE_RUN;
    }
    if (!opt_pid == (operands.count == 0))
        return cli_usage("give either -p PID or -- COMMAND ARGS...");
    if (opt_dump && (opt_output || opt_live || opt_subprocesses || opt_mode))
        return cli_usage("--dump prints to stdout: no -o, --live, "
                         "--subprocesses or --mode with it");
    if (opt_live && opt_subprocesses)
        return cli_usage("--live shows one process: no --subprocesses");
    return check_async(o);
}

int rec_parse_options(int argc, char **argv, rec_options *o)
{
    cli_parse_error perr;
    memset(o, 0, sizeof *o);
    o->rate_hz = 1000;
    switch (cli_parse(&spec, argc, argv, &perr)) {
    case CLI_PARSE_HELP: return cli_print_help(&spec);
    case CLI_PARSE_VERSION: return cli_print_version();
    case CLI_PARSE_ERROR: return cli_usage("%s", perr.msg);
    default: break;
    }
    o->output = opt_output;
    o->all_threads = opt_all_threads > 0;
    o->mode = mode_value(opt_mode);
    o->gc = opt_no_gc == 0;
    o->native = opt_native > 0;
    o->opcodes = opt_opcodes > 0;
    o->nonblocking = opt_nonblocking > 0;
    o->allow_untested = opt_allow_untested > 0;
    o->force = opt_force > 0;
    o->subprocesses = opt_subprocesses > 0;
    o->dump = opt_dump > 0;
    o->live = opt_live > 0;
    o->zstd = opt_compression && strcmp(opt_compression, "zstd") == 0;
    o->quiet = opt_quiet > 0;
    o->verbose = opt_verbose;
    cli_set_quiet(o->quiet);
    int rc = check_values(o);
    if (rc != REC_PARSE_RUN)
        return rc;
    if (operands.count) {
        /* argv-backed strings; the list's array is NULL-terminated here. */
        o->command = calloc(operands.count + 1, sizeof *o->command);
        if (!o->command)
            return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
        for (size_t i = 0; i < operands.count; i++)
            o->command[i] = (char *)operands.items[i];
    }
    return REC_PARSE_RUN;
}
