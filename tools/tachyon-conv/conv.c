/* SPDX-License-Identifier: MIT */
/*
 * conv.c - tachyon-conv's option checks and dispatch. Every usage problem
 * is found here, before any input is read or output created.
 */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conv.h"
#include "outdir.h"

static conv_format parse_format(const char *to)
{
    static const char *const names[] = {
        "jsonl", "collapsed", "bin", "speedscope", "gecko",      "pprof",
        "svg",   "pstats",    "top", "html",       "clickhouse", "heatmap",
    };
    for (size_t i = 0; to && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(to, names[i]) == 0)
            return (conv_format)i;
    return CONV_JSONL;
}

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
        return cli_usage("--to bin takes exactly one input");
    return CLI_EXIT_OK;
}

/* Refuse binary data on a terminal and replacing a file without --force. */
static int check_output(const conv_options *o, conv_format f)
{
    struct stat st;

    if (f == CONV_HEATMAP)
        return is_stdout(o->output)
                   ? cli_usage("--to heatmap writes a directory: give -o DIR")
                   : cli_outdir_check(o->output, o->force, conv_heatmap_entry);
    if (is_stdout(o->output)) {
        if ((f == CONV_BIN || f == CONV_PPROF || f == CONV_PSTATS) &&
            isatty(STDOUT_FILENO))
            return cli_fail(CLI_EXIT_TROUBLE,
                            "refusing to write binary "
                            "output to a terminal (use -o FILE or a "
                            "redirection)");
        return CLI_EXIT_OK;
    }
    /* As the sink: /dev/stdout, /dev/null, FIFOs and such are written in
     * place; a directory or a block device is the sink's to refuse. */
    if (tfmt_sink_path_in_place(o->output) ||
        (stat(o->output, &st) == 0 && !S_ISREG(st.st_mode)))
        return CLI_EXIT_OK;
    if (!o->force && lstat(o->output, &st) == 0)
        return cli_file_fail(CLI_EXIT_TROUBLE, o->output,
                             "file exists (use --force to replace it)");
    return CLI_EXIT_OK;
}

int run_conv(const conv_options *o)
{
    conv_job job;
    int code;

    memset(&job, 0, sizeof job);
    job.opts = o;
    /* --pstats-compat alone means --to pstats */
    job.format = !o->to && o->pstats_compat ? CONV_PSTATS : parse_format(o->to);
    job.compression = -1;
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
