/* SPDX-License-Identifier: MIT */
/*
 * options.c - tachyon-conv's option table (tools/common/cli.h) and the
 * values it fills; the letters follow tools/common/cli_letters.c.
 */
#include "conv.h"

conv_options conv_opts;

static const cli_option options[] = {
    {"to", 't', CLI_ARG_REQUIRED, &conv_opts.to,
     "output format (default: -o FILE's suffix, or jsonl)", "FORMAT",
     "jsonl|collapsed|bin|speedscope|gecko|pprof|svg|pstats|top|html|"
     "clickhouse|heatmap"},
    {"output", 'o', CLI_ARG_REQUIRED, &conv_opts.output,
     "write to FILE instead of stdout (heatmap: DIR)", "FILE", NULL},
    {"force", 'f', CLI_ARG_NONE, &conv_opts.force,
     "replace an existing output FILE", NULL, NULL},
    {"run-id", 0, CLI_ARG_REQUIRED, &conv_opts.run_id,
     "jsonl, clickhouse run id: 32 hex or 'random'", "HEX", NULL},
    {"compression", 'c', CLI_ARG_REQUIRED, &conv_opts.compression,
     "bin compression: none or zstd (default: input's)", "METHOD", "none|zstd"},
    {"title", 0, CLI_ARG_REQUIRED, &conv_opts.title,
     "svg, html: title of the flame graph", "TEXT", NULL},
    {"top", 'n', CLI_ARG_REQUIRED, &conv_opts.top,
     "top: rows per table (default 20; 0: all)", "N", NULL},
    {"per-thread", 0, CLI_ARG_NONE, &conv_opts.per_thread,
     "top: add a table per thread", NULL, NULL},
    {"include", 0, CLI_ARG_REPEATABLE, &conv_opts.include,
     "keep samples with a frame whose func or file matches", "REGEX", NULL},
    {"exclude", 0, CLI_ARG_REPEATABLE, &conv_opts.exclude,
     "drop samples with a frame whose func or file matches", "REGEX", NULL},
    {"drop", 0, CLI_ARG_REQUIRED, &conv_opts.drop,
     "--include/--exclude drop samples (default) or frames", "WHAT",
     "samples|frames"},
    {"rewrite", 0, CLI_ARG_REPEATABLE, &conv_opts.rewrite,
     "rewrite function and file names first ($1 = group 1)", "REGEX=>REPL",
     NULL},
    {"thread", 0, CLI_ARG_REPEATABLE, &conv_opts.threads,
     "keep only samples of thread TID (repeatable)", "TID", NULL},
    {"gil", 0, CLI_ARG_NONE, &conv_opts.gil,
     "keep only samples whose thread held the GIL", NULL, NULL},
    {"on-cpu", 0, CLI_ARG_NONE, &conv_opts.on_cpu,
     "keep only samples whose thread was on CPU", NULL, NULL},
    {"exception", 0, CLI_ARG_NONE, &conv_opts.exception,
     "keep only samples whose thread had an exception set", NULL, NULL},
    {"skip-idle", 0, CLI_ARG_NONE, &conv_opts.skip_idle,
     "drop samples off CPU without the GIL (as CPython)", NULL, NULL},
    {"collapse-recursion", 0, CLI_ARG_NONE, &conv_opts.collapse_recursion,
     "merge directly recursive frames of one function", NULL, NULL},
    {"no-lines", 0, CLI_ARG_NONE, &conv_opts.no_lines,
     "viewer formats: one frame per function (lines dropped)", NULL, NULL},
    {"pstats-compat", 0, CLI_ARG_NONE, &conv_opts.pstats_compat,
     "pstats for pstats.Stats of Python < 3.15 and snakeviz", NULL, NULL},
    {"label", 'l', CLI_ARG_REPEATABLE, &conv_opts.labels,
     "clickhouse: label each row (repeatable)", "KEY=VALUE", NULL},
    {"time", 0, CLI_ARG_REQUIRED, &conv_opts.time,
     "clickhouse: run time (default: input's mtime)", "UNIXSECONDS", NULL},
    {"source-root", 0, CLI_ARG_REQUIRED, &conv_opts.source_root,
     "heatmap: look for the sources below DIR too", "DIR", NULL},
    {"path-map", 0, CLI_ARG_REPEATABLE, &conv_opts.path_maps,
     "heatmap: sources recorded under FROM are under TO", "FROM=TO", NULL},
    {"jobs", 'j', CLI_ARG_REQUIRED, &conv_opts.jobs,
     "read a big log on N threads (default: one per CPU)", "N", NULL},
    CLI_INPUT_LIMIT_OPTIONS(conv_opts.limits),
    CLI_READER_OPTIONS(conv_opts.reader),
    {"quiet", 'q', CLI_ARG_NONE, &conv_opts.quiet,
     "do not print warnings or progress", NULL, NULL},
    {"verbose", 'v', CLI_ARG_NONE, &conv_opts.verbose,
     "print a summary of each input on stderr", NULL, NULL},
    {NULL, 0, CLI_ARG_NONE, NULL, NULL, NULL, NULL}};

/* The ClickHouse table's DDL, as installed (TACHYON_DATADIR, cli.h). */
#define DDL_PATH TACHYON_DATADIR "/clickhouse/tachyon_stacks.sql"

static const char epilog[] =
    "IN is a Tachyon binary log, a JSONL export or ClickHouse rows, whole\n"
    "or compressed (\"-\": stdin); several inputs are merged. The table\n"
    /* clang-format off */
    "ClickHouse rows come from: " DDL_PATH "\n"
    /* clang-format on */
    "\n"
    "Without --to, the name of -o FILE picks the format: .jsonl,\n"
    ".collapsed, .folded, .bin, .svg, .html, .pstats, .prof, .pb.gz,\n"
    ".pprof, .speedscope.json, .gecko.json (then .gz, .zst, .xz or .bz2\n"
    "compresses); else jsonl.\n"
    "\n"
    "Exit status: 0 success, 1 bad input, 2 usage or system trouble.\n"
    "See tachyon-conv(1).\n";

const cli_spec conv_spec = {"tachyon-conv",
                            "[OPTIONS] IN...",
                            "Convert Tachyon sample logs to JSONL, "
                            "collapsed, binary or viewer formats.",
                            options,
                            &conv_opts.inputs,
                            epilog};
