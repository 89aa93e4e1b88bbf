/* SPDX-License-Identifier: MIT */
/*
 * tachyon-diff - compare two profiles key by key: self and cumulative
 * shares, their deltas, a significance test per row, verdicts, and a
 * regression gate for CI.
 *
 * main() only parses the command line and hands over to run_diff().
 */
#include "diff.h"

static diff_options opts;

static const cli_option options[] = {
    {"base", 0, CLI_ARG_REPEATABLE, &opts.base,
     "a base run (repeatable: several runs)", "FILE", NULL},
    {"new", 0, CLI_ARG_REPEATABLE, &opts.new_,
     "a new run (repeatable: several runs)", "FILE", NULL},
    {"key", 'k', CLI_ARG_REQUIRED, &opts.key,
     "func, file:func (default) or file:func:line", "KEY",
     "func|file:func|file:func:line"},
    {"rewrite", 0, CLI_ARG_REPEATABLE, &opts.rewrite,
     "rewrite file/function names first (PCRE2)", "'REGEX=>REPL'", NULL},
    {"include", 0, CLI_ARG_REPEATABLE, &opts.include,
     "report only frames whose file or func matches", "REGEX", NULL},
    {"exclude", 0, CLI_ARG_REPEATABLE, &opts.exclude,
     "do not report frames whose file or func matches", "REGEX", NULL},
    {"normalize", 'n', CLI_ARG_REQUIRED, &opts.normalize,
     "share (default), time or none; see below", "MODE", "share|time|none"},
    {"metric", 'm', CLI_ARG_REQUIRED, &opts.metric,
     "self (default) or cumulative: sort, verdict, gate", "METRIC",
     "self|cumulative"},
    {"min-delta", 0, CLI_ARG_REQUIRED, &opts.min_delta,
     "changes under PP points are unchanged (0.5)", "PP", NULL},
    {"min-samples", 0, CLI_ARG_REQUIRED, &opts.min_samples,
     "fewer base+new samples: inconclusive (5)", "N", NULL},
    {"alpha", 0, CLI_ARG_REQUIRED, &opts.alpha,
     "false discovery rate of the verdicts (0.05)", "Q", NULL},
    {"fail-on-regression", 0, CLI_ARG_REQUIRED, &opts.fail_on,
     "exit 1 if a row regressed significantly > PP", "PP", NULL},
    {"top", 0, CLI_ARG_REQUIRED, &opts.top,
     "show N rows (table, markdown: 20; 0: all)", "N", NULL},
    {"format", 'F', CLI_ARG_REQUIRED, &opts.format,
     "table, json, markdown, csv, collapsed-diff, svg, html", "FORMAT",
     "table|json|markdown|csv|collapsed-diff|svg|html"},
    {"color", 0, CLI_ARG_REQUIRED, &opts.color,
     "auto (honours NO_COLOR), always, never", "WHEN", "auto|always|never"},
    {"output", 'o', CLI_ARG_REQUIRED, &opts.output,
     "write to FILE instead of stdout", "FILE", NULL},
    CLI_READER_OPTIONS(opts.reader),
    {"force", 'f', CLI_ARG_NONE, &opts.force, "replace an existing output FILE",
     NULL, NULL},
    CLI_INPUT_LIMIT_OPTIONS(opts.limits),
    {"quiet", 'q', CLI_ARG_NONE, &opts.quiet, "do not print warnings", NULL,
     NULL},
    {"verbose", 'v', CLI_ARG_NONE, &opts.verbose,
     "print phase timings and sizes on stderr", NULL, NULL},
    {NULL, 0, CLI_ARG_NONE, NULL, NULL, NULL, NULL}};

static const char epilog[] =
    "BASE and NEW are Tachyon binary logs or JSONL exports (either\n"
    "dialect), optionally compressed; the format is recognized by content.\n"
    "\n"
    "Normalization: share compares each key's percentage of its side's\n"
    "samples; time its percentage of the run's sampling ticks (measured\n"
    "duration / interval; binary logs with a statistics block only); none\n"
    "compares raw counts, shown as percentages of the base total.\n"
    "\n"
    "With several runs a side (--base and --new repeated), the runs are\n"
    "kept apart: each row gets Student's t test on the per-run percents,\n"
    "so run-to-run variation counts. With one run on a side, the tests\n"
    "(two-proportion z, Fisher's exact for small counts; exact or normal\n"
    "binomial for time and none) see sampling noise only, and a warning\n"
    "says so. Verdicts: regressed, improved, unchanged or inconclusive,\n"
    "with Benjamini-Hochberg false discovery rate control. The gate\n"
    "trips only on a regression significantly larger than PP (one-sided\n"
    "test against PP; false alarms at most --alpha over all rows).\n"
    "\n"
    "svg and html draw a differential flame graph of NEW (its call paths,\n"
    "from binary logs on both sides): each box coloured by its key's\n"
    "verdict on --metric, hover for both sides' figures; html adds the\n"
    "keys that did not stay unchanged.\n"
    "\n"
    "Exit status: 0 success (also when rows regressed, unless the gate\n"
    "trips), 1 --fail-on-regression tripped or an input is malformed, 2\n"
    "usage or system trouble (a missing file, I/O, memory).\n";

static const cli_spec spec = {
    "tachyon-diff",
    "[OPTIONS] BASE NEW",
    "Compare two profiles and judge which functions regressed.",
    options,
    &opts.operands,
    epilog};

static void free_lists(void)
{
    cli_list_free(&opts.operands);
    cli_list_free(&opts.base);
    cli_list_free(&opts.new_);
    cli_list_free(&opts.rewrite);
    cli_list_free(&opts.include);
    cli_list_free(&opts.exclude);
}

/* cli_main's callback: the tool proper. */
static int run(void *ctx)
{
    return run_diff(ctx);
}

int main(int argc, char **argv)
{
    int code = cli_main(&spec, argc, argv, &opts.quiet, run, &opts);
    free_lists();
    return code;
}
