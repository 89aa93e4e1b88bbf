/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the command-line layer shared by the tachyon tools: option table
 * parser and --help, --version, diagnostics, exit codes.
 *
 * Compiled into each tool (never exported). Rules every tool follows:
 *
 *   - main() only parses (cli_parse), calls run_<tool>() and returns its
 *     exit code. Helpers return codes (`return cli_fail(...)`); nothing in
 *     this layer calls exit().
 *   - stdout carries only data (and --help/--version text); every
 *     diagnostic goes to stderr as ONE line without a trailing period:
 *         prog: message
 *         prog: FILE:LINE: message         (error with a line number)
 *         prog: FILE: byte N: message      (with a byte offset, no line)
 *         prog: FILE: warning: message     (warnings; -q silences them)
 *   - Exit codes (CLI_EXIT_*), one table for every tool: 0 success; 1 bad
 *     input (not a profile, malformed, truncated, failed validation, over
 *     a limit); 2 usage, I/O, out of memory or internal trouble; 3 only
 *     tachyon-diff's tripped gate. tachyon-record running a COMMAND exits
 *     with the COMMAND's status and keeps 125-127 for itself.
 *
 * A minimal tool:
 *
 *     static int force;
 *     static const char *out;
 *     static cli_list inputs;
 *     static const cli_option options[] = {
 *         {"output", 'o', CLI_ARG_REQUIRED, &out, "write to FILE", "FILE",
 *          NULL},
 *         {"force", 'f', CLI_ARG_NONE, &force, "replace FILE", NULL, NULL},
 *         {NULL, 0, 0, NULL, NULL, NULL, NULL}
 *     };
 *     static const cli_spec spec = {"tachyon-x", "[OPTIONS] FILE...",
 *         "Do x.", options, &inputs, NULL};
 *
 *     static int run_x(void *ctx);    (the tool proper; ctx is NULL)
 *
 *     int main(int argc, char **argv)
 *     {
 *         int code = cli_main(&spec, argc, argv, NULL, run_x, NULL);
 *         cli_list_free(&inputs);
 *         return code;
 *     }
 */
#ifndef TACHYON_CLI_H
#define TACHYON_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <tachyon/fmt.h>

/*
 * Exit codes, the same for every tool (docs/exit-status.md, tachyon(7)).
 * A CI job can tell its data (1) from its command or machine (2), and a
 * regression (3) from both. tachyon-record with a COMMAND passes the
 * COMMAND's status through, as time(1) and timeout(1) do, and reports its
 * own failures with the codes timeout(1) and env(1) keep for themselves.
 */
enum {
    CLI_EXIT_OK = 0,           /* converted, valid, recorded, gate passed */
    CLI_EXIT_DATA = 1,         /* bad input: not a profile, malformed,
                                  truncated, invalid, over a limit */
    CLI_EXIT_TROUBLE = 2,      /* usage, I/O, out of memory, internal */
    CLI_EXIT_GATE = 3,         /* tachyon-diff: the gate tripped */
    CLI_EXIT_RECORDER = 125,   /* tachyon-record -- COMMAND: the recorder
                                  itself failed (usage, I/O, no recording) */
    CLI_EXIT_CANNOT_RUN = 126, /* COMMAND found but could not be run */
    CLI_EXIT_NOT_FOUND = 127   /* COMMAND not found */
};

#if defined(__GNUC__)
#define CLI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLI_PRINTF(a, b)
#endif

/*
 * TACHYON_DATADIR, a string defined by the build (tools/CMakeLists.txt):
 * the installed data folder (schemas, RULES.md, the ClickHouse DDL and
 * queries), PREFIX/share/tachyon, for texts that name those files.
 */

/* ------------------------------------------------------------------ */
/* Option table and parser                                             */
/* ------------------------------------------------------------------ */

/* What an option takes, and what its `target` points to. */
typedef enum {
    CLI_ARG_NONE,      /* a flag; target is an int, incremented per use
                           (so -v -v gives 2) */
    CLI_ARG_REQUIRED,  /* one value; target is a const char *, the last
                           use wins */
    CLI_ARG_REPEATABLE /* a value per use; target is a cli_list */
} cli_arg_kind;

/*
 * A growable list of borrowed strings (pointers into argv). Zero-initialize
 * it; release it with cli_list_free.
 */
typedef struct cli_list {
    const char **items;
    size_t count;
    size_t cap;
} cli_list;

void cli_list_free(cli_list *list);

/*
 * One row of an option table; a row with long_name NULL ends the table.
 * -h/--help and -V/--version are built in and must not appear in it.
 */
typedef struct cli_option {
    const char *long_name; /* without the dashes, e.g. "output" */
    char short_name;       /* e.g. 'o', or 0 for none */
    cli_arg_kind kind;
    void *target;        /* see cli_arg_kind */
    const char *help;    /* one line for --help */
    const char *metavar; /* value name in --help ("FILE"); NULL: "ARG" */
    const char *choices; /* "jsonl|collapsed|bin": allowed values, checked
                               by the parser; NULL: any value */
} cli_option;

/* What a tool's operands are, for its shell completion (cli_complete.c). */
typedef enum {
    CLI_OPERANDS_FILES = 0, /* input files ("-" for stdin) */
    CLI_OPERANDS_COMMAND    /* a command line to run, after "--" */
} cli_operand_kind;

/*
 * -h/--help and -V/--version, which every table has without listing them
 * (cli_opt.c); a row with long_name NULL ends it.
 */
extern const cli_option cli_builtin_options[];

/*
 * A whole command line: drives cli_parse, cli_print_help and the shell
 * completion scripts (cli_print_completion).
 */
typedef struct cli_spec {
    const char *name;     /* program name used in every message */
    const char *synopsis; /* after the name: "[OPTIONS] FILE..." */
    const char *summary;  /* one sentence under the usage line */
    const cli_option *options;
    cli_list *operands; /* receives the non-option arguments */
    const char *epilog; /* text after the option list, or NULL */
} cli_spec;

typedef enum {
    CLI_PARSE_OK = 0,
    CLI_PARSE_HELP,      /* -h/--help seen: print help, exit 0 */
    CLI_PARSE_VERSION,   /* -V/--version seen: print version, exit 0 */
    CLI_PARSE_ERROR,     /* usage error: message in cli_parse_error */
    CLI_PARSE_COMPLETION /* "--print-completion SHELL", alone: print the
                            completion script for argv[2] */
} cli_parse_status;

typedef struct cli_parse_error {
    char msg[256]; /* "unknown option '--frob'" */
} cli_parse_error;

/*
 * Parse argv against spec->options, storing values through the targets and
 * non-options into spec->operands. Accepts "--name value", "--name=value",
 * "-n value", "-nvalue", bundled flags ("-qf"), "-" as an operand and "--"
 * to end the options. Refuses --quiet together with --verbose (a usage
 * error in every tool) and a table whose letters break cli_letters.
 * Sets the program name used by the diagnostics below. Never prints and
 * never exits; returns a cli_parse_status.
 */
int cli_parse(const cli_spec *spec, int argc, char **argv,
              cli_parse_error *err);

/*
 * The short options of all the tools (cli_letters.c): each letter means
 * one long option, the same in every tool.
 */
typedef struct cli_letter {
    char letter;
    const char *long_name;
} cli_letter;

/* The whole list; *count gets its length. */
const cli_letter *cli_letters(size_t *count);

/* The long option `c` stands for, or NULL when no tool has -c. */
const char *cli_letter_meaning(char c);

/*
 * Whether every letter of `spec` means what cli_letters says; if not, a
 * one-line "internal error: ..." in msg. cli_parse refuses such a table.
 */
bool cli_spec_check(const cli_spec *spec, char *msg, size_t cap);

/* Print the usage, generated from the table, to stdout. Returns 0 or 2. */
int cli_print_help(const cli_spec *spec);

/*
 * Write the completion script of `spec`'s tool for `shell` ("bash", "zsh"
 * or "fish") to `out`, from the option table, with `operands` completed
 * as files or as a command (the hidden option "--print-completion SHELL",
 * which the build runs to make the installed scripts). Returns 0, or 2
 * after a message for an unknown shell or a table whose names cannot be
 * written into a script safely.
 */
int cli_write_completion(FILE *out, const cli_spec *spec,
                         cli_operand_kind operands, const char *shell);

/* cli_write_completion to stdout, checked (cli_close_stdout). */
int cli_print_completion(const cli_spec *spec, cli_operand_kind operands,
                         const char *shell);

/*
 * The body every tool's main() shares: parse argv with `spec`, answer
 * --help, --version, --print-completion and usage errors, otherwise set
 * quiet mode from *quiet (a counter option's target; may be NULL) and
 * return run(ctx). Returns the exit code; the caller frees its option
 * lists afterwards.
 */
int cli_main(const cli_spec *spec, int argc, char **argv, const int *quiet,
             int (*run)(void *ctx), void *ctx);

/*
 * Print "prog X.Y.Z (libtachyonfmt X.Y.Z)" to stdout: the tool's compiled
 * version and the version of the library actually loaded. Warns on stderr
 * when they differ. Returns 0, or 2 if stdout could not be written.
 */
int cli_print_version(void);

/* ------------------------------------------------------------------ */
/* Diagnostics                                                         */
/* ------------------------------------------------------------------ */

/* Program name for messages (set by cli_parse; "tachyon" before). */
const char *cli_program(void);
void cli_set_program(const char *name);

/* With quiet set, warnings are dropped (errors never are). */
void cli_set_quiet(bool quiet);
bool cli_quiet(void);

/* "prog: message" on stderr; returns `code` (use: return cli_fail(...)). */
int cli_fail(int code, const char *fmt, ...) CLI_PRINTF(2, 3);

/* "prog: message" + "Try 'prog --help' ..." on stderr; returns 2. */
int cli_usage(const char *fmt, ...) CLI_PRINTF(1, 2);

/* "prog: warning: message" on stderr unless quiet. */
void cli_warn(const char *fmt, ...) CLI_PRINTF(1, 2);

/*
 * "prog: FILE: message", formatted, for file-level trouble found by the
 * tool itself ("out.jsonl: file exists"). Returns `code`.
 */
int cli_file_fail(int code, const char *file, const char *fmt, ...)
    CLI_PRINTF(3, 4);

/* "prog: FILE: warning: message" on stderr unless quiet. */
void cli_file_warn(const char *file, const char *fmt, ...) CLI_PRINTF(2, 3);

/* "prog: FILE: message" on stderr, even when quiet (asked-for output). */
void cli_file_info(const char *file, const char *fmt, ...) CLI_PRINTF(2, 3);

/*
 * Report a library error located in `file` (a name as shown, NULL for
 * stdin) as "prog: FILE:LINE: msg" when it has a line, "prog: FILE: byte
 * N: msg" when it has an offset, else "prog: FILE: msg", the next step of
 * its hint after the message (cli_hint). Returns the exit code for its
 * status (cli_exit_code).
 */
int cli_report(const char *file, const tfmt_error *e);

/*
 * The next step a library error's hint (tfmt_error.hint) names for input
 * `file` (its name as shown), as " (...)" to follow the message, written
 * to buf (CLI_HINT_MAX bytes will do) and returned; "" for none. The one
 * place the tools word their hints:
 *   TFMT_HINT_RECOVER  " (if its recording was killed, try
 *                       'tachyon-record --recover FILE')"
 *   TFMT_HINT_CHECK    " (run 'tachyon-validate FILE' for every problem)",
 *                      but not in tachyon-validate (cli_set_checker)
 *   TFMT_HINT_MAX_*    " (if the input is trusted, raise --max-input-size)"
 *                      (--max-input-ratio, --max-threads), every tool's
 *                      options (CLI_INPUT_LIMIT_OPTIONS, CLI_READER_OPTIONS)
 * FILE is the name itself when the shell takes it as one word as it is
 * (letters, digits, _./:@%+=,- and no leading '-', at most
 * CLI_HINT_NAME_MAX bytes), else the word FILE; no hint for <stdin>,
 * which no other command can reopen (the limits' hints stand).
 */
#define CLI_HINT_NAME_MAX 200
#define CLI_HINT_MAX (CLI_HINT_NAME_MAX + 80)
const char *cli_hint(char *buf, size_t cap, const char *file, int hint);

/* tachyon-validate is the full check: it suggests no run of itself. */
void cli_set_checker(bool on);

/*
 * As cli_report, for an error met while reading a JSONL export: the rule id
 * of its check (tfmt_jsonl_rule, schemas/RULES.md) follows the location,
 * "prog: FILE:LINE: TV125: msg", as in tachyon-validate's messages.
 */
int cli_report_jsonl(const char *file, const tfmt_error *e);

/*
 * The JSONL reader's on_note for tools other than tachyon-validate, with
 * its severities: the missing final newline and the rulebook's warnings
 * (TV130..TV132) are warnings, "prog: FILE:LINE: warning: TV130: ...";
 * unknown record types and fields (TV140, TV141) are notes, which readers
 * ignore, so nothing is printed.
 * `ctx` is the input's path as given.
 */
void cli_jsonl_note(void *ctx, tfmt_jsonl_note kind, const tfmt_error *where);

/* The same shape with "warning: " after the location; dropped if quiet. */
void cli_report_warning(const char *file, const tfmt_error *e);

/*
 * Exit code for a library status: 0 for TFMT_OK/TFMT_DONE, 1 for bad data
 * (EFORMAT, ETRUNC, EVERSION, ELIMIT, ESCHEMA), 2 for everything else.
 */
int cli_exit_code(int status);

/* How a path is named in messages: "-" and NULL become "<stdin>". */
const char *cli_input_name(const char *path);

/* How an output is named: "-" and NULL become "<stdout>". */
const char *cli_output_name(const char *path);

/*
 * Flush stdout and check it for write errors (a full disk, a closed pipe);
 * reports "prog: <stdout>: ..." and returns 2 on failure, else `code`.
 */
int cli_close_stdout(int code);

/* ------------------------------------------------------------------ */
/* ClickHouse query results (rows_warn.c)                              */
/* ------------------------------------------------------------------ */

/*
 * Warn (unless quiet) of each run of a read query result that was loaded
 * more than once: identical copies of its rows (read once), and a run
 * that looks like an earlier one's recording under another run id.
 */
void cli_rows_warn(const char *file, const tfmt_rows_reader *r);
/* The texts of those warnings; false when the run has nothing to say. */
bool cli_rows_copies_msg(const tfmt_rows_run *run, char *msg, size_t cap);
bool cli_rows_twin_msg(const tfmt_rows_reader *r, const tfmt_rows_run *run,
                       char *msg, size_t cap);

/* ------------------------------------------------------------------ */
/* Output files (output.c)                                             */
/* ------------------------------------------------------------------ */

/*
 * tfmt_sink_open for a tool's -o (allocator: libc). When the sink's
 * temporary file has a name (no O_TMPFILE here), SIGINT, SIGTERM and
 * SIGHUP (unless ignored) remove it before the tool dies of the signal.
 * Free the sink with cli_sink_free.
 */
int cli_sink_open(tfmt_sink **out, const char *path, unsigned flags,
                  tfmt_error *err);
void cli_sink_free(tfmt_sink *sink);

/*
 * Before any work: refuse to replace an existing -o FILE without --force
 * ("prog: FILE: file exists (use --force to replace it)", returns 2).
 * NULL and "-" (stdout) and what is not a regular file (/dev/null, a
 * FIFO: written in place) pass. Returns an exit code.
 */
int cli_output_check(const char *path, bool force);

/* ------------------------------------------------------------------ */
/* Input limits (limits.c)                                             */
/* ------------------------------------------------------------------ */

/*
 * The values of --max-input-size and --max-input-ratio (NULL: default),
 * which every tool reading profiles offers with CLI_INPUT_LIMIT_OPTIONS.
 */
typedef struct cli_input_limits {
    const char *size;
    const char *ratio;
} cli_input_limits;

#define CLI_INPUT_LIMIT_OPTIONS(l)                                             \
    {"max-input-size",                                                         \
     0,                                                                        \
     CLI_ARG_REQUIRED,                                                         \
     &(l).size,                                                                \
     "stop a compressed or piped input at SIZE (4G; 0: off)",                  \
     "SIZE",                                                                   \
     NULL},                                                                    \
    {                                                                          \
        "max-input-ratio", 0, CLI_ARG_REQUIRED, &(l).ratio,                    \
            "stop if it grows N times its compressed size (1000)", "N", NULL   \
    }

/*
 * Check and keep the limits for every later cli_open_input. SIZE takes a
 * K, M, G or T suffix (powers of 1024). Returns 0, or 2 after a usage
 * message.
 */
int cli_input_limits_set(const cli_input_limits *l);

/* Give `src` the limits kept by cli_input_limits_set (or the defaults). */
void cli_input_limits_apply(tfmt_source *src);

/*
 * Open input `path` ("-" is stdin) and tell what it holds (tfmt_detect);
 * nothing of it is consumed. On failure returns the negative status with
 * `err` filled and *src NULL; the caller frees *src otherwise.
 */
int cli_open_input(const char *path, tfmt_source **src, tfmt_detection *d,
                   tfmt_error *err);

/* ------------------------------------------------------------------ */
/* Binary-reader options (reader_opts.c)                               */
/* ------------------------------------------------------------------ */

/* The reader options as given (borrowed from argv), NULL when absent. */
typedef struct cli_reader_args {
    const char *max_threads; /* --max-threads N */
} cli_reader_args;

/* The option-table rows for `a` (a cli_reader_args lvalue). */
#define CLI_READER_OPTIONS(a)                                                  \
    {                                                                          \
        "max-threads", 0, CLI_ARG_REQUIRED, &(a).max_threads,                  \
            "fail on more than N threads (50000; 0: no limit)", "N", NULL      \
    }

/*
 * Check the values (a usage message and 2 on a bad one) and start *o from
 * TFMT_BIN_OPTIONS_INIT with them; the caller adds its callbacks.
 */
int cli_reader_options(const cli_reader_args *a, tfmt_bin_options *o);

/* ------------------------------------------------------------------ */
/* Progress (progress.c)                                               */
/* ------------------------------------------------------------------ */

/*
 * A one-line progress indicator on stderr. It is shown only when stderr is
 * a terminal, the CI environment variable is unset and -q was not given;
 * it stays hidden for runs shorter than 300 ms, redraws at most 10 times
 * per second and erases its line at the end
 * (and before any diagnostic is printed).
 */
typedef struct cli_progress {
    bool on;
    const char *label;
    uint64_t total;    /* 0: unknown, show a count only */
    uint64_t start_ms; /* monotonic time of cli_progress_start */
    uint64_t last_ms;  /* monotonic time of the last redraw, 0 none */
} cli_progress;

void cli_progress_start(cli_progress *p, const char *label, uint64_t total);
void cli_progress_update(cli_progress *p, uint64_t done);
void cli_progress_end(cli_progress *p);

/* Erase a drawn progress line, if any (the diagnostics call this). */
void cli_progress_clear(void);

#endif
