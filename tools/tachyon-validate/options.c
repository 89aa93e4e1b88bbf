/* SPDX-License-Identifier: MIT */
/*
 * options.c - tachyon-validate's option table (tools/common/cli.h) and the
 * values it fills; the letters follow tools/common/cli_letters.c.
 */
#include "validate.h"

tv_options tv_opts;

static const cli_option options[] = {
    {"format", 'F', CLI_ARG_REQUIRED, &tv_opts.format,
     "text (default), json, junit or github", "FORMAT",
     "text|json|junit|github"},
    {"output", 'o', CLI_ARG_REQUIRED, &tv_opts.output,
     "write the report to FILE instead of stderr/stdout", "FILE", NULL},
    {"force", 'f', CLI_ARG_NONE, &tv_opts.force,
     "replace an existing output FILE", NULL, NULL},
    {"strict", 's', CLI_ARG_NONE, &tv_opts.strict, "treat warnings as errors",
     NULL, NULL},
    {"max-errors", 0, CLI_ARG_REQUIRED, &tv_opts.max_errors,
     "stop a file after N errors (default 100; 0: all)", "N", NULL},
    {"max-line", 0, CLI_ARG_REQUIRED, &tv_opts.max_line,
     "longest JSONL line accepted (default 67108864)", "BYTES", NULL},
    CLI_INPUT_LIMIT_OPTIONS(tv_opts.limits),
    CLI_READER_OPTIONS(tv_opts.reader),
    {"list-rules", 0, CLI_ARG_NONE, &tv_opts.list_rules,
     "print every rule id with its severity and exit", NULL, NULL},
    {"quiet", 'q', CLI_ARG_NONE, &tv_opts.quiet, "do not print warnings", NULL,
     NULL},
    {"verbose", 'v', CLI_ARG_NONE, &tv_opts.verbose,
     "print notes (unknown types, fields) and verdicts too", NULL, NULL},
    {NULL, 0, CLI_ARG_NONE, NULL, NULL, NULL, NULL}};

/* The rulebook, as installed (TACHYON_DATADIR, cli.h). */
#define RULES_PATH TACHYON_DATADIR "/RULES.md"

static const char epilog[] =
    "FILE is a Tachyon binary log, a JSONL export or ClickHouse rows, whole\n"
    "or compressed (\"-\": stdin). Each problem is one line with its rule\n"
    "id:  tachyon-validate: FILE:LINE: RULE: message\n"
    /* clang-format off */
    "The rules: --list-rules, or " RULES_PATH ".\n"
    /* clang-format on */
    "\n"
    "Exit status: 0 all files valid, 1 a file is invalid, 2 usage or\n"
    "system trouble.\n"
    "See tachyon-validate(1).\n";

const cli_spec tv_spec = {
    "tachyon-validate",
    "[OPTIONS] FILE...",
    "Check Tachyon binary logs and JSONL exports for every format rule.",
    options,
    &tv_opts.files,
    epilog};
