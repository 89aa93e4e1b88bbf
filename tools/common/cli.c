/* SPDX-License-Identifier: MIT */
/*
 * cli.c - diagnostics, exit codes and --version for the tachyon tools.
 *
 * Owns the program name and the quiet flag (process-wide state is fine in a
 * tool, never in libfmt) and the one-line message formats described in
 * cli.h. Every piece of a message that is not the tool's own text (a
 * file name, the library's message, which may quote a name from a
 * profile) is written as inert text (cli_text), so no name can end the
 * line, start a forged one or send a terminal an escape sequence. Option
 * parsing lives in cli_opt.c, the progress line in progress.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *progname = "tachyon";
static bool quiet;
static bool checker; /* tachyon-validate: no hint to run itself */

const char *cli_program(void)
{
    return progname;
}

void cli_set_program(const char *name)
{
    if (name && *name)
        progname = name;
}

void cli_set_quiet(bool q)
{
    quiet = q;
}

bool cli_quiet(void)
{
    return quiet;
}

void cli_set_checker(bool on)
{
    checker = on;
}

/* A name the shell takes as one word as it is (and not as an option). */
static bool shell_word(const char *s)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyz"
                               "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_./:@%+=,-";
    size_t n = strlen(s);
    return n > 0 && n <= CLI_HINT_NAME_MAX && s[0] != '-' &&
           strspn(s, safe) == n;
}

const char *cli_hint(char *buf, size_t cap, const char *file, int hint)
{
    const char *name = file && shell_word(file) ? file : "FILE";
    bool named = file && strcmp(file, "<stdin>") != 0;

    static const char *const limits[] = {"--max-input-size",
                                         "--max-input-ratio", "--max-threads"};
    buf[0] = '\0';
    if (hint == TFMT_HINT_RECOVER && named)
        snprintf(buf, cap,
                 " (if its recording was killed, try 'tachyon-record "
                 "--recover %s')",
                 name);
    else if (hint == TFMT_HINT_CHECK && named && !checker)
        snprintf(buf, cap, " (run 'tachyon-validate %s' for every problem)",
                 name);
    else if (hint >= TFMT_HINT_MAX_SIZE && hint <= TFMT_HINT_MAX_THREADS)
        snprintf(buf, cap, " (if the input is trusted, raise %s)",
                 limits[hint - TFMT_HINT_MAX_SIZE]);
    return buf;
}

const char *cli_input_name(const char *path)
{
    return (!path || strcmp(path, "-") == 0) ? "<stdin>" : path;
}

const char *cli_output_name(const char *path)
{
    return (!path || strcmp(path, "-") == 0) ? "<stdout>" : path;
}

/*
 * Start a diagnostic line: erase any progress line, print "prog: ". A
 * line is several stdio calls, and tachyon-diff reads its two sides on
 * two threads: stderr stays locked from here to end_line(), so that two
 * warnings never interleave (they did, under load, in a CI run).
 */
static void begin_line(void)
{
    flockfile(stderr);
    cli_progress_clear();
    fflush(stdout);
    fprintf(stderr, "%s: ", progname);
}

static void end_line(void)
{
    fputc('\n', stderr);
    funlockfile(stderr);
}

/* Text that is not the tool's own, on stderr as inert text. */
static void put_text(const char *s)
{
    cli_text_fwrite(stderr, s, strlen(s), TFMT_TEXT_PLAIN);
}

/* A formatted message, escaped whole (its arguments may quote names). */
static void vput(const char *fmt, va_list ap) CLI_PRINTF(1, 0);
static void vput(const char *fmt, va_list ap)
{
    char small[1024];
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    char *text = small;
    if (n >= (int)sizeof small) {
        text = malloc((size_t)n + 1);
        if (text)
            vsnprintf(text, (size_t)n + 1, fmt, again);
    }
    va_end(again);
    if (n < 0 || !text)
        put_text("(message lost: out of memory)");
    else
        put_text(text);
    if (text != small)
        free(text);
}

/*
 * One diagnostic line: "prog: ", then `file` and ": " when given, then
 * `tag` (e.g. "warning: ") when given, then the message.
 */
static void vline(const char *file, const char *tag, const char *fmt,
                  va_list ap) CLI_PRINTF(3, 0);
static void vline(const char *file, const char *tag, const char *fmt,
                  va_list ap)
{
    begin_line();
    if (file) {
        put_text(file);
        fputs(": ", stderr);
    }
    if (tag)
        fputs(tag, stderr);
    vput(fmt, ap);
    end_line();
}

int cli_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(NULL, NULL, fmt, ap);
    va_end(ap);
    return code;
}

int cli_usage(const char *fmt, ...)
{
    va_list ap;
    begin_line();
    va_start(ap, fmt);
    vput(fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help' for more information.", progname);
    end_line();
    return CLI_EXIT_TROUBLE;
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    if (quiet)
        return;
    va_start(ap, fmt);
    vline(NULL, "warning: ", fmt, ap);
    va_end(ap);
}

int cli_file_fail(int code, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(file, NULL, fmt, ap);
    va_end(ap);
    return code;
}

void cli_file_warn(const char *file, const char *fmt, ...)
{
    va_list ap;
    if (quiet)
        return;
    va_start(ap, fmt);
    vline(file, "warning: ", fmt, ap);
    va_end(ap);
}

void cli_file_info(const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(file, NULL, fmt, ap);
    va_end(ap);
}

int cli_exit_code(int status)
{
    switch (status) {
    case TFMT_OK:
    case TFMT_DONE: return CLI_EXIT_OK;
    case TFMT_EFORMAT:
    case TFMT_ETRUNC:
    case TFMT_EVERSION:
    case TFMT_ELIMIT:
    case TFMT_ESCHEMA: return CLI_EXIT_DATA;
    default: return CLI_EXIT_TROUBLE;
    }
}

/* Print "prog: FILE:LINE: ", "prog: FILE: byte N: " or "prog: FILE: ". */
static void begin_located(const char *file, const tfmt_error *e)
{
    begin_line();
    put_text(file);
    if (e->line > 0)
        fprintf(stderr, ":%llu: ", (unsigned long long)e->line);
    else if (e->has_offset)
        fprintf(stderr, ": byte %llu: ", (unsigned long long)e->offset);
    else
        fputs(": ", stderr);
}

/* The message of an error, never empty. */
static const char *error_text(const tfmt_error *e)
{
    if (e->msg[0])
        return e->msg;
    if (e->code == TFMT_EIO && e->sys_errno)
        return strerror(e->sys_errno);
    return tfmt_strerror(e->code);
}

/* "prog: FILE...: [RULE: ]message (next step)" */
static int report(const char *file, const char *rule, const tfmt_error *e)
{
    char hint[CLI_HINT_MAX];
    file = file ? file : "<stdin>";
    begin_located(file, e);
    if (rule)
        fprintf(stderr, "%s: ", rule);
    put_text(error_text(e));
    put_text(cli_hint(hint, sizeof hint, file, e->hint));
    end_line();
    return cli_exit_code(e->code);
}

int cli_report(const char *file, const tfmt_error *e)
{
    return report(file, NULL, e);
}

int cli_report_jsonl(const char *file, const tfmt_error *e)
{
    return report(file, tfmt_jsonl_rule(e->check), e);
}

void cli_jsonl_note(void *ctx, tfmt_jsonl_note kind, const tfmt_error *where)
{
    const char *rule = kind == TFMT_JNOTE_WARNING
                           ? tfmt_jsonl_rule(where->check)
                           : tfmt_jsonl_note_rule(kind);
    if (quiet || !rule || kind == TFMT_JNOTE_UNKNOWN_TYPE ||
        kind == TFMT_JNOTE_UNKNOWN_FIELD)
        return;
    begin_located(cli_input_name(ctx), where);
    fprintf(stderr, "warning: %s: ", rule);
    put_text(where->msg);
    end_line();
}

void cli_report_warning(const char *file, const tfmt_error *e)
{
    if (quiet)
        return;
    begin_located(file ? file : "<stdin>", e);
    fputs("warning: ", stderr);
    put_text(e->msg[0] ? e->msg : "(no details)");
    end_line();
}

int cli_close_stdout(int code)
{
    int failed = fflush(stdout) != 0 || ferror(stdout);
    int saved = errno;

    if (!failed)
        return code;
    return cli_file_fail(CLI_EXIT_TROUBLE, "<stdout>", "%s",
                         strerror(saved ? saved : EIO));
}

int cli_print_version(void)
{
    const char *runtime = tfmt_version();

    printf("%s %s (libtachyonfmt %s)\n", progname, TFMT_VERSION_STRING,
           runtime);
    if (strcmp(runtime, TFMT_VERSION_STRING) != 0)
        cli_warn("built against libtachyonfmt %s but running with %s",
                 TFMT_VERSION_STRING, runtime);
    return cli_close_stdout(CLI_EXIT_OK);
}

int cli_main(const cli_spec *spec, int argc, char **argv, const int *quietp,
             int (*run)(void *ctx), void *ctx)
{
    cli_parse_error perr;
    switch (cli_parse(spec, argc, argv, &perr)) {
    case CLI_PARSE_HELP: return cli_print_help(spec);
    case CLI_PARSE_VERSION: return cli_print_version();
    case CLI_PARSE_ERROR: return cli_usage("%s", perr.msg);
    case CLI_PARSE_COMPLETION:
        return cli_print_completion(spec, CLI_OPERANDS_FILES, argv[2]);
    default: break;
    }
    cli_set_quiet(quietp && *quietp > 0);
    return run(ctx);
}
