/* SPDX-License-Identifier: MIT */
/*
 * options.c - tachyon-diff's option table (tools/common/cli.h) and the
 * values it fills; the letters follow tools/common/cli_letters.c.
 */
#include "diff.h"

diff_options diff_opts;

static const cli_option options[] = {
    {"base", 0, CLI_ARG_REPEATABLE, &diff_opts.base,
     "a base run (repeatable: several runs)", "FILE", NULL},
    {"new", 0, CLI_ARG_REPEATABLE, &diff_opts.new_,
     "a new run (repeatable: several runs)", "FILE", NULL},
    {"key", 'k', CLI_ARG_REQUIRED, &diff_opts.key,
     "func, file:func (default) or file:func:line", "KEY",
     "func|file:func|file:func:line"},
    {"rewrite", 0, CLI_ARG_REPEATABLE, &diff_opts.rewrite,
     "rewrite file/function names first (PCRE2)", "'REGEX=>REPL'", NULL},
    {"include", 0, CLI_ARG_REPEATABLE, &diff_opts.include,
     "report only frames whose file or func matches", "REGEX", NULL},
    {"exclude", 0, CLI_ARG_REPEATABLE, &diff_opts.exclude,
     "do not report frames whose file or func matches", "REGEX", NULL},
    {"normalize", 0, CLI_ARG_REQUIRED, &diff_opts.normalize,
     "share (default), time or none", "MODE", "share|time|none"},
    {"metric", 'm', CLI_ARG_REQUIRED, &diff_opts.metric,
     "self (default) or cumulative: sort, verdict, gate", "METRIC",
     "self|cumulative"},
    {"min-delta", 0, CLI_ARG_REQUIRED, &diff_opts.min_delta,
     "changes under PP points are unchanged (0.5)", "PP", NULL},
    {"min-samples", 0, CLI_ARG_REQUIRED, &diff_opts.min_samples,
     "fewer base+new samples: inconclusive (5)", "N", NULL},
    {"alpha", 0, CLI_ARG_REQUIRED, &diff_opts.alpha,
     "false discovery rate of the verdicts (0.05)", "Q", NULL},
    {"fail-on-regression", 0, CLI_ARG_REQUIRED, &diff_opts.fail_on,
     "exit 3 if a row regressed significantly > PP", "PP", NULL},
    {"top", 'n', CLI_ARG_REQUIRED, &diff_opts.top,
     "show N rows (table, markdown: 20; 0: all)", "N", NULL},
    {"format", 'F', CLI_ARG_REQUIRED, &diff_opts.format,
     "table, json, markdown, csv, collapsed-diff, svg, html", "FORMAT",
     "table|json|markdown|csv|collapsed-diff|svg|html"},
    {"color", 0, CLI_ARG_REQUIRED, &diff_opts.color,
     "auto (honours NO_COLOR), always, never", "WHEN", "auto|always|never"},
    {"output", 'o', CLI_ARG_REQUIRED, &diff_opts.output,
     "write to FILE instead of stdout", "FILE", NULL},
    CLI_READER_OPTIONS(diff_opts.reader),
    {"force", 'f', CLI_ARG_NONE, &diff_opts.force,
     "replace an existing output FILE", NULL, NULL},
    CLI_INPUT_LIMIT_OPTIONS(diff_opts.limits),
    {"quiet", 'q', CLI_ARG_NONE, &diff_opts.quiet, "do not print warnings",
     NULL, NULL},
    {"verbose", 'v', CLI_ARG_NONE, &diff_opts.verbose,
     "print phase timings and sizes on stderr", NULL, NULL},
    {NULL, 0, CLI_ARG_NONE, NULL, NULL, NULL, NULL}};

static const char epilog[] =
    "BASE and NEW are Tachyon binary logs, JSONL exports or ClickHouse\n"
    "rows, whole or compressed; --base and --new repeated give several\n"
    "runs a side, which the tests then keep apart.\n"
    "\n"
    "Exit status: 0 success (rows may have regressed), 1 bad input, 2\n"
    "usage or system trouble, 3 --fail-on-regression tripped.\n"
    "See tachyon-diff(1).\n";

const cli_spec diff_spec = {
    "tachyon-diff",
    "[OPTIONS] BASE NEW",
    "Compare two profiles and judge which functions regressed.",
    options,
    &diff_opts.operands,
    epilog};
