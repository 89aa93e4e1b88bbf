/* SPDX-License-Identifier: MIT */
/*
 * conv.c - tachyon-conv's option checks and dispatch. Every usage problem
 * is found here, before any input is read or output created.
 */
#include <string.h>
#include <unistd.h>

#include "conv.h"
#include "outdir.h"

static bool is_stdout(const char *path)
{
    return !path || strcmp(path, "-") == 0;
}

/* Options that only make sense with some formats or input counts. */
static int check_combinations(const conv_options *o, conv_format f)
{
    size_t stdin_uses = 0;

    if (o->inputs.count == 0)
        return cli_usage("no input file (use '-' for stdin)");
    for (size_t i = 0; i < o->inputs.count; i++)
        stdin_uses += strcmp(o->inputs.items[i], "-") == 0;
    if (stdin_uses > 1)
        return cli_usage("'-' (stdin) given more than once");
    if (o->run_id && f != CONV_JSONL && f != CONV_CLICKHOUSE)
        return cli_usage("option '--run-id' applies only to --to jsonl and "
                         "clickhouse");
    if (o->compression && f != CONV_BIN)
        return cli_usage("option '--compression' applies only to --to bin");
    if (f == CONV_BIN && o->inputs.count > 1)
        return cli_usage("bin output takes exactly one input (a binary "
                         "log is one recording; other formats merge)");
    return CLI_EXIT_OK;
}

/* Refuse binary data on a terminal and replacing a file without --force. */
static int check_output(const conv_options *o, conv_format f)
{
    if (f == CONV_HEATMAP)
        return is_stdout(o->output)
                   ? cli_usage("--to heatmap writes a directory: give -o DIR")
                   : cli_outdir_check(o->output, o->force, conv_heatmap_entry);
    if (is_stdout(o->output) &&
        (f == CONV_BIN || f == CONV_PPROF || f == CONV_PSTATS) &&
        isatty(STDOUT_FILENO))
        return cli_fail(CLI_EXIT_TROUBLE, "refusing to write binary "
                                          "output to a terminal (use -o FILE "
                                          "or a redirection)");
    return cli_output_check(o->output, o->force > 0);
}

int run_conv(const conv_options *o)
{
    conv_job job;
    int code;

    memset(&job, 0, sizeof job);
    job.opts = o;
    job.compression = -1;
    code = conv_format_choose(o, &job.format);
    if (code == CLI_EXIT_OK)
        code = cli_input_limits_set(&o->limits);
    if (code == CLI_EXIT_OK)
        code = check_combinations(o, job.format);
    if (code == CLI_EXIT_OK && o->run_id)
        code = conv_run_id_parse(o->run_id, job.run_id);
    if (code == CLI_EXIT_OK)
        code = conv_view_check(o, job.format, &job);
    if (code == CLI_EXIT_OK)
        code = conv_clickhouse_check(o, job.format);
    if (code == CLI_EXIT_OK)
        code = cli_reader_options(&o->reader, &job.bin);
    if (code == CLI_EXIT_OK)
        code = check_output(o, job.format);
    if (code != CLI_EXIT_OK)
        return code;
    if (o->compression)
        job.compression = strcmp(o->compression, "zstd") == 0
                              ? TFMT_COMPRESSION_ZSTD
                              : TFMT_COMPRESSION_NONE;
    conv_filter filter;
    code = conv_filter_build(&filter, o);
    conv_view_options(&filter, o, job.format);
    job.filter = &filter;
    if (code == CLI_EXIT_OK)
        code = job.format == CONV_BIN          ? conv_bin(&job)
               : job.format == CONV_GECKO      ? conv_gecko(&job)
               : job.format == CONV_CLICKHOUSE ? conv_clickhouse(&job)
                                               : conv_text(&job);
    conv_filter_free(&filter);
    return code;
}
