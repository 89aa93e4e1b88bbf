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
static const char *opt_compression, *opt_mode;
static int opt_all_threads, opt_quiet, opt_verbose, opt_force, opt_no_gc;
static int opt_native, opt_opcodes, opt_subprocesses, opt_dump, opt_live;
static int opt_nonblocking, opt_allow_untested;
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
    "[OPTIONS] (COMMAND [ARGS...] | -p PID | --recover FILE)",
    "Record a running CPython 3.11-3.14 process into a Tachyon binary log.",
    options,
    &operands,
    "Options end at COMMAND, the first argument that is not one (or after\n"
    "--): `tachyon-record -o run.bin python3 app.py --flag` gives --flag\n"
    "to app.py.\n"
    "MODE keeps every sample (wall) or only those of threads that ran on\n"
    "a CPU (cpu), hold the GIL (gil) or handle an exception (exception).\n"
    "The log is finalized whatever ends the recording: the target's exit,\n"
    "--duration, SIGINT (Ctrl-C), SIGTERM or SIGHUP. Reading another\n"
    "process needs the same user or CAP_SYS_PTRACE.\n"
    "A thread that runs Python code while it is read is paused for that\n"
    "read (ptrace, microseconds), so that its stack is one it was in;\n"
    "--nonblocking only checks it, and a wrong stack is then rare, not\n"
    "impossible.\n"
    "Exit status with a COMMAND: the COMMAND's own (128+N if signal N\n"
    "ended it); 125 if the recording failed, even when the COMMAND\n"
    "succeeded; 126 if COMMAND cannot be run, 127 if it is not found.\n"
    "Without one (-p, --recover): 0 done, 1 bad input, 2 trouble.\n"};

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
        if (opt_pid || o->command || opt_output)
            return cli_usage("--recover FILE takes no -p, -o or COMMAND");
        o->recover = opt_recover;
        return REC_PARSE_RUN;
    }
    if (opt_pid && o->command)
        return cli_usage("a COMMAND or -p PID, not both");
    if (!opt_pid && !o->command)
        return cli_usage("give a COMMAND to run or -p PID");
    if (opt_dump && (opt_output || opt_live || opt_subprocesses || opt_mode))
        return cli_usage("--dump prints to stdout: no -o, --live, "
                         "--subprocesses or --mode with it");
    if (opt_live && opt_subprocesses)
        return cli_usage("--live shows one process: no --subprocesses");
    return REC_PARSE_RUN;
}

static const cli_option *find_option(const char *arg, size_t len)
{
    for (const cli_option *o = options; o->long_name; o++)
        if (len ? strlen(o->long_name) == len &&
                      strncmp(o->long_name, arg, len) == 0
                : o->short_name == *arg)
            return o;
    return NULL;
}

/* How many arguments option word argv[i] takes with it (0 or 1). */
static int option_words(char **argv, int argc, int i)
{
    const char *a = argv[i];
    if (a[1] == '-') {
        const char *eq = strchr(a + 2, '=');
        const cli_option *o =
            find_option(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
        return o && o->kind != CLI_ARG_NONE && !eq && i + 1 < argc;
    }
    for (const char *p = a + 1; *p; p++) {
        const cli_option *o = find_option(p, 0);
        if (o && o->kind != CLI_ARG_NONE)
            return p[1] == '\0' && i + 1 < argc; /* -ovalue or -o value */
    }
    return 0;
}

/*
 * Where the options end, as in timeout(1) and nice(1): at the first
 * operand (COMMAND) or after "--". *cmd gets the index of COMMAND, argc
 * when there is none; returns the count of argv words the option parser
 * is to see.
 */
static int options_end(int argc, char **argv, int *cmd)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            *cmd = i + 1;
            return i;
        }
        if (a[0] != '-' || a[1] == '\0') {
            *cmd = i;
            return i;
        }
        i += option_words(argv, argc, i);
    }
    *cmd = argc;
    return argc;
}

static void copy_flags(rec_options *o)
{
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
}

/* Parse the options; an exit code, or REC_PARSE_RUN. */
static int parse(int argc, char **argv, rec_options *o)
{
    cli_parse_error perr;
    switch (cli_parse(&spec, argc, argv, &perr)) {
    case CLI_PARSE_HELP: return cli_print_help(&spec);
    case CLI_PARSE_VERSION: return cli_print_version();
    case CLI_PARSE_ERROR: return cli_usage("%s", perr.msg);
    case CLI_PARSE_COMPLETION:
        return cli_print_completion(&spec, CLI_OPERANDS_COMMAND, argv[2]);
    default: break;
    }
    copy_flags(o);
    cli_set_quiet(o->quiet);
    return check_values(o);
}

int rec_parse_options(int argc, char **argv, rec_options *o)
{
    int cmd = argc, words = argc;
    memset(o, 0, sizeof *o);
    o->rate_hz = 1000;
    /* The build's hidden --print-completion SHELL (cli_parse): its SHELL
     * is no COMMAND. */
    if (argc != 3 || strcmp(argv[1], "--print-completion") != 0)
        words = options_end(argc, argv, &cmd);
    /* The COMMAND, argv-backed and NULL-terminated (argv[argc] is). */
    if (cmd < argc)
        o->command = argv + cmd;
    int rc = parse(words, argv, o);
    /* With a COMMAND, the recorder's own failures are 125 (cli.h); a
     * --dump answers for itself (0/1/2) even of a started COMMAND. */
    if (o->command && !opt_dump && rc == CLI_EXIT_TROUBLE)
        rc = CLI_EXIT_RECORDER;
    return rc;
}
