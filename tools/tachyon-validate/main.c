/* SPDX-License-Identifier: MIT */
/*
 * tachyon-validate - check Tachyon binary sample logs and JSONL exports
 * against every rule of their format, reporting each problem with a stable
 * rule id (schemas/RULES.md).
 *
 * main() only parses the command line and hands over to run_validate().
 */
#include "validate.h"

static tv_options opts;

static const cli_option options[] = {
    {"format", 'f', CLI_ARG_REQUIRED, &opts.format,
     "text (default; stderr), json, junit, github (stdout)", "FORMAT",
     "text|json|junit|github"},
    {"strict", 's', CLI_ARG_NONE, &opts.strict, "treat warnings as errors",
     NULL, NULL},
    {"max-errors", 'm', CLI_ARG_REQUIRED, &opts.max_errors,
     "stop a file after N errors (default 100; 0: all)", "N", NULL},
    {"max-line", 0, CLI_ARG_REQUIRED, &opts.max_line,
     "longest JSONL line accepted (default 67108864)", "BYTES", NULL},
    CLI_INPUT_LIMIT_OPTIONS(opts.limits),
    CLI_READER_OPTIONS(opts.reader),
    {"list-rules", 0, CLI_ARG_NONE, &opts.list_rules,
     "print every rule id with its severity and exit", NULL, NULL},
    {"quiet", 'q', CLI_ARG_NONE, &opts.quiet, "do not print warnings", NULL,
     NULL},
    {"verbose", 'v', CLI_ARG_NONE, &opts.verbose,
     "print notes (unknown types, fields) and verdicts too", NULL, NULL},
    {NULL, 0, CLI_ARG_NONE, NULL, NULL, NULL, NULL}};

/* The rulebook, as installed (TACHYON_DATADIR, cli.h). */
#define RULES_PATH TACHYON_DATADIR "/RULES.md"

static const char epilog[] =
    "FILE is a Tachyon binary log or a JSONL export (schema v0 or the\n"
    "pre-release v1 dialect), told apart by content; \"-\" reads stdin.\n"
    "Whole-file gzip, zstd, xz and bzip2 compression is removed first.\n"
    "\n"
    /* clang-format off */
    "Each problem is reported once, with its rule id (see --list-rules or\n"
    RULES_PATH "):\n"
    /* clang-format on */
    "  tachyon-validate: FILE:LINE: RULE: message       (JSONL)\n"
    "  tachyon-validate: FILE: byte N: RULE: message    (binary)\n"
    "\n"
    "Exit status: 0 all files valid, 1 a file is invalid, 2 usage or I/O\n"
    "trouble.\n";

static const cli_spec spec = {
    "tachyon-validate",
    "[OPTIONS] FILE...",
    "Check Tachyon binary logs and JSONL exports for every format rule.",
    options,
    &opts.files,
    epilog};

/* cli_main's callback: the tool proper. */
static int run(void *ctx)
{
    return run_validate(ctx);
}

int main(int argc, char **argv)
{
    int code = cli_main(&spec, argc, argv, &opts.quiet, run, &opts);
    cli_list_free(&opts.files);
    return code;
}
