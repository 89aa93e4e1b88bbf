/* SPDX-License-Identifier: MIT */
/*
 * tachyon-conv - convert Tachyon binary sample logs (and JSONL exports,
 * where their per-frame totals suffice) to CPython's JSONL export,
 * collapsed stacks, the newest binary layout, or a viewer's format
 * (speedscope, Firefox Profiler, pprof, flame graph SVG, pstats, top).
 *
 * main() only parses the command line and hands over to run_conv().
 */
#include "conv.h"

static conv_options opts;

static const cli_option options[] = {
    {"to", 't', CLI_ARG_REQUIRED, &opts.to,
     "output format (default jsonl; see below)", "FORMAT",
     "jsonl|collapsed|bin|speedscope|gecko|pprof|svg|pstats|top|html|"
     "clickhouse|heatmap"},
    {"output", 'o', CLI_ARG_REQUIRED, &opts.output,
     "write to FILE instead of stdout (heatmap: DIR)", "FILE", NULL},
    {"force", 'f', CLI_ARG_NONE, &opts.force, "replace an existing output FILE",
     NULL, NULL},
    {"run-id", 0, CLI_ARG_REQUIRED, &opts.run_id,
     "jsonl, clickhouse run id: 32 hex or 'random'", "HEX", NULL},
    {"compression", 'c', CLI_ARG_REQUIRED, &opts.compression,
     "bin compression: none or zstd (default: input's)", "METHOD", "none|zstd"},
    {"title", 0, CLI_ARG_REQUIRED, &opts.title,
     "svg, html: title of the flame graph", "TEXT", NULL},
    {"top", 'n', CLI_ARG_REQUIRED, &opts.top,
     "top: rows per table (default 20)", "N", NULL},
    {"per-thread", 0, CLI_ARG_NONE, &opts.per_thread,
     "top: add a table per thread", NULL, NULL},
    {"include", 0, CLI_ARG_REPEATABLE, &opts.include,
     "keep samples with a frame whose func or file matches", "REGEX", NULL},
    {"exclude", 0, CLI_ARG_REPEATABLE, &opts.exclude,
     "drop samples with a frame whose func or file matches", "REGEX", NULL},
    {"drop", 0, CLI_ARG_REQUIRED, &opts.drop,
     "--include/--exclude drop samples (default) or frames", "WHAT",
     "samples|frames"},
    {"rewrite", 0, CLI_ARG_REPEATABLE, &opts.rewrite,
     "rewrite function and file names first ($1 = group 1)", "REGEX=>REPL",
     NULL},
    {"thread", 0, CLI_ARG_REPEATABLE, &opts.threads,
     "keep only samples of thread TID (repeatable)", "TID", NULL},
    {"gil", 0, CLI_ARG_NONE, &opts.gil,
     "keep only samples whose thread held the GIL", NULL, NULL},
    {"on-cpu", 0, CLI_ARG_NONE, &opts.on_cpu,
     "keep only samples whose thread was on CPU", NULL, NULL},
    {"exception", 0, CLI_ARG_NONE, &opts.exception,
     "keep only samples whose thread had an exception set", NULL, NULL},
    {"skip-idle", 0, CLI_ARG_NONE, &opts.skip_idle,
     "drop samples off CPU without the GIL (as CPython)", NULL, NULL},
    {"collapse-recursion", 0, CLI_ARG_NONE, &opts.collapse_recursion,
     "merge directly recursive frames of one function", NULL, NULL},
    {"no-lines", 0, CLI_ARG_NONE, &opts.no_lines,
     "viewer formats: one frame per function (lines dropped)", NULL, NULL},
    {"pstats-compat", 0, CLI_ARG_NONE, &opts.pstats_compat,
     "pstats for pstats.Stats of Python < 3.15 and snakeviz", NULL, NULL},
    {"label", 'l', CLI_ARG_REPEATABLE, &opts.labels,
     "clickhouse: label each row (repeatable)", "KEY=VALUE", NULL},
    {"time", 0, CLI_ARG_REQUIRED, &opts.time,
     "clickhouse: run time (default: input's mtime)", "UNIXSECONDS", NULL},
    {"source-root", 0, CLI_ARG_REQUIRED, &opts.source_root,
     "heatmap: look for the sources below DIR too", "DIR", NULL},
    {"path-map", 0, CLI_ARG_REPEATABLE, &opts.path_maps,
     "heatmap: sources recorded under FROM are under TO", "FROM=TO", NULL},
    {"jobs", 'j', CLI_ARG_REQUIRED, &opts.jobs,
     "read a big log on N threads (default: one per CPU)", "N", NULL},
    CLI_INPUT_LIMIT_OPTIONS(opts.limits),
    CLI_READER_OPTIONS(opts.reader),
    {"quiet", 'q', CLI_ARG_NONE, &opts.quiet,
     "do not print warnings or progress", NULL, NULL},
    {"verbose", 'v', CLI_ARG_NONE, &opts.verbose,
     "print a summary of each input on stderr", NULL, NULL},
    {NULL, 0, CLI_ARG_NONE, NULL, NULL, NULL, NULL}};

/* The ClickHouse table's DDL, as installed (TACHYON_DATADIR, cli.h). */
#define DDL_PATH TACHYON_DATADIR "/clickhouse/tachyon_stacks.sql"

static const char epilog[] =
    "IN is a Tachyon binary log, a JSONL export (schema v0 or the\n"
    "pre-release dialect) or ClickHouse rows (the JSONEachRow result of\n"
    "SELECT * FROM tachyon_stacks, runs summed; not for bin and gecko);\n"
    "\"-\" reads stdin; compressed as a whole with gzip, zstd, xz or bzip2\n"
    "or not. Several inputs are merged into one profile (counts summed);\n"
    "bin takes exactly one. speedscope, pprof, svg, html, pstats and top\n"
    "give the same bytes in any input order; jsonl and collapsed number\n"
    "and break ties by first appearance, as CPython does; gecko is a\n"
    "timeline that follows the inputs in order.\n"
    "\n"
    "A JSONL export has no stacks, only per-frame totals: it converts to\n"
    "jsonl (schema v0; the run id is kept), top, pstats (without callers)\n"
    "and heatmap (without callers, callees or opcodes), merged with binary\n"
    "logs or not; of the filters only --rewrite applies to it.\n"
    "\n"
    "Formats: jsonl and collapsed (CPython's, byte for byte), bin (newest\n"
    "binary layout), speedscope (speedscope.app JSON), gecko (Firefox\n"
    "Profiler, as CPython's --gecko), pprof (gzipped profile.proto), svg\n"
    "(interactive flame graph, no network needed), pstats (CPython 3.15's\n"
    "marshal file, for pstats.SampledStats), top (table of the hottest\n"
    "functions), html (the flame graph and the top tables on one page),\n"
    /* clang-format off */
    "clickhouse (JSONEachRow rows for the table tachyon_stacks of\n"
    DDL_PATH ":\n"
    /* clang-format on */
    "one row per thread, status and stack, each input its own run), heatmap\n"
    "(CPython's line heatmap: -o DIR gets index.html and a page per source\n"
    "file).\n"
    "\n"
    "--pstats-compat (alone, it means --to pstats) writes the same figures\n"
    "for pstats.Stats of Python 3.8 to 3.14 and snakeviz: without 3.15's\n"
    "(\"__sampled__\",) marker, each caller as cProfile's (calls, calls,\n"
    "tottime, cumtime) tuple.\n"
    "\n"
    "heatmap reads each file's source at its recorded path, as rewritten by\n"
    "each --path-map FROM=TO whose FROM starts it, and below --source-root\n"
    "DIR (the whole path, then without its leading folders); only *.py and\n"
    "*.pyw files are read. DIR must not exist or be empty; --force replaces\n"
    "a directory that holds only a heatmap's files.\n"
    "\n"
    "Filters apply to every format but bin, in this order: --thread and the\n"
    "status flags drop whole samples; --rewrite renames; --include and\n"
    "--exclude then drop whole samples (--drop samples: kept when a frame\n"
    "matches an include and none an exclude) or only the frames (--drop\n"
    "frames: non-matching includes and matching excludes are cut out of the\n"
    "stack); --collapse-recursion last. Patterns are PCRE2, unanchored.\n"
    "A filter that finds nothing warns (the exit status stays 0): a --thread\n"
    "no sample has, a status flag no sample has, an --include or --exclude\n"
    "that matched no frame, filters that kept none of the samples read.\n"
    "\n"
    "In speedscope, gecko, pprof, svg and html, a stack at the binary\n"
    "format's 256-frame cap (its outer frames may be lost) starts with a\n"
    "synthetic \"<truncated>\" frame; jsonl, collapsed and pstats stay\n"
    "CPython's. --no-lines merges the lines of each function (viewer\n"
    "formats only).\n"
    "\n"
    "Threads (-j): an uncompressed binary log of 64 MiB or more is read on\n"
    "one thread per CPU by default, any size with -j N (N > 1), one thread\n"
    "with -j 1. The output is the same bytes either way. Logs read whole\n"
    "anyway: compressed ones, and every log for bin, gecko, speedscope,\n"
    "clickhouse or with a filter (they need the samples in order).\n"
    "\n"
    "Without --run-id, the JSONL run id is a hash of every byte of the\n"
    "input, so the same input always gives the same output; with several\n"
    "inputs it is a hash of their run ids in command-line order.\n"
    "\n"
    "Exit status: 0 success, 1 bad input data, 2 usage or I/O trouble.\n";

static const cli_spec spec = {"tachyon-conv",
                              "[OPTIONS] IN...",
                              "Convert Tachyon sample logs to JSONL, "
                              "collapsed, binary or viewer formats.",
                              options,
                              &opts.inputs,
                              epilog};

/* cli_main's callback: the tool proper. */
static int run(void *ctx)
{
    return run_conv(ctx);
}

int main(int argc, char **argv)
{
    int code = cli_main(&spec, argc, argv, &opts.quiet, run, &opts);
    cli_list_free(&opts.inputs);
    cli_list_free(&opts.include);
    cli_list_free(&opts.exclude);
    cli_list_free(&opts.rewrite);
    cli_list_free(&opts.threads);
    cli_list_free(&opts.labels);
    cli_list_free(&opts.path_maps);
    return code;
}
