/* SPDX-License-Identifier: MIT */
/*
 * conv_bin.c - --to bin: re-encode one binary log in the newest layout,
 * keeping every sample, timestamp, status and the statistics block. The
 * writer patches its header last, so the sink is seekable (a pipe is
 * spooled by the sink); the output appears only after a complete copy.
 */
#include <string.h>

#include "conv.h"

/* Writer settings: the input's header, the chosen compression. */
static void writer_options(tfmt_bin_writer_options *wo, const tfmt_info *info,
                           int compression)
{
    tfmt_bin_writer_options init = TFMT_BIN_WRITER_OPTIONS_INIT;

    *wo = init;
    wo->start_time_us = info->start_time_us;
    wo->sample_interval_us = info->sample_interval_us;
    memcpy(wo->python_version, info->python_version, sizeof wo->python_version);
    wo->config = info->config;
    wo->compression =
        compression >= 0 ? (uint32_t)compression : info->compression;
}

/*
 * Report a failed tfmt_bin_copy or finish. The writer holds the error
 * (its own, its sink's or its reader's, copied); the reader's own error
 * only tells which file to name: a bad input is bad data, anything on the
 * output side is trouble.
 */
static int report_copy(const conv_input *in, tfmt_bin_writer *w,
                       const conv_job *job)
{
    const tfmt_error *e = tfmt_bin_writer_error(w);

    if (tfmt_bin_error(in->reader)->code < 0)
        return cli_report(cli_input_name(in->path), e);
    cli_report(cli_output_name(job->opts->output), e);
    return CLI_EXIT_TROUBLE;
}

/* Copy `in` into the already opened `sink`. */
static int copy_into(const conv_input *in, tfmt_sink *sink, const conv_job *job)
{
    tfmt_bin_writer_options wo;
    tfmt_bin_writer *w = NULL;
    tfmt_error err;
    int rc;
    int code = CLI_EXIT_OK;

    memset(&err, 0, sizeof err);
    writer_options(&wo, tfmt_bin_info(in->reader), job->compression);
    rc = tfmt_bin_writer_open(&w, sink, &wo, &err);
    if (rc < 0) {
        cli_report(cli_output_name(job->opts->output), &err);
        return CLI_EXIT_TROUBLE;
    }
    rc = tfmt_bin_copy(in->reader, w);
    if (rc >= 0)
        rc = tfmt_bin_writer_finish(w);
    if (rc < 0)
        code = report_copy(in, w, job);
    else
        code = conv_sink_finish(sink, job);
    tfmt_bin_writer_free(w);
    return code;
}

int conv_bin(const conv_job *job)
{
    conv_input in;
    tfmt_sink *sink = NULL;
    int code = conv_input_open(&in, job->opts->inputs.items[0], job);

    if (code != CLI_EXIT_OK)
        return code;
    if (job->opts->verbose)
        conv_summary(&in);
    code = conv_sink_open(&sink, job, TFMT_SINK_SEEKABLE);
    if (code == CLI_EXIT_OK)
        code = copy_into(&in, sink, job);
    cli_sink_free(sink);
    conv_input_close(&in);
    return code;
}
