/* SPDX-License-Identifier: MIT */
/*
 * log_out.c - the recorder's log file. A regular file is written in
 * place (TFMT_SINK_IN_PLACE: created new with O_EXCL, or with --force as
 * a new file renamed over the old one, so a link there is replaced and
 * never written through), and made a valid log at every checkpoint, so a
 * killed recorder leaves a log behind (checkpoint.c). Stdout ("-") and
 * an existing FIFO or device go through the sink as any tool's output
 * does, written once at the end: no checkpoints there, and nothing is
 * ever read back from them.
 */
#include "log_out.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "record.h"
#include "text_safe.h"

/* stdout, or an existing path that is not a regular file or directory. */
static bool is_stream(const char *path)
{
    struct stat st;
    if (strcmp(path, "-") == 0)
        return true;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

int log_out_check(const rec_options *o, const char *path)
{
    struct stat st;
    char name[600];
    if (o->force || is_stream(path) || lstat(path, &st) != 0)
        return CLI_EXIT_OK;
    return cli_file_fail(CLI_EXIT_TROUBLE, cli_escape(name, sizeof name, path),
                         "file exists (use --force to replace it)");
}

/*
 * The interval each sample stands for: the time recorded over the ticks
 * taken. The header says it, so that every output's durations (samples x
 * interval in pprof, speedscope, pstats; timestamps in gecko) agree with
 * the clock even when the requested rate was not reached.
 */
static uint64_t achieved_interval_us(const sampler_result *r,
                                     uint64_t requested_us)
{
    if (r->attempts == 0 || r->end_ns <= r->start_ns)
        return requested_us;
    double us = (double)(r->end_ns - r->start_ns) / 1e3 / (double)r->attempts;
    return us < 1.0 ? 1 : (uint64_t)(us + 0.5);
}

/* The statistics and achieved interval as of `r`, set on the writer. */
static int set_figures(const rec_options *o, tfmt_bin_writer *w,
                       const sampler_result *r)
{
    tfmt_stats st;
    sampler_stats(r, &st);
    int rc = tfmt_bin_writer_set_interval(
        w, achieved_interval_us(r, (uint64_t)(1e6 / o->rate_hz + 0.5)));
    return rc == TFMT_OK ? tfmt_bin_writer_stats(w, &st) : rc;
}

static void writer_options(const rec_options *o, uint32_t hexversion,
                           uint64_t start_ns, tfmt_bin_writer_options *wo)
{
    wo->start_time_us = start_ns / 1000;
    wo->sample_interval_us = (uint64_t)(1e6 / o->rate_hz + 0.5);
    wo->python_version[0] = (uint8_t)(hexversion >> 24);
    wo->python_version[1] = (uint8_t)(hexversion >> 16);
    wo->python_version[2] = (uint8_t)(hexversion >> 8);
    wo->compression = o->zstd ? TFMT_COMPRESSION_ZSTD : TFMT_COMPRESSION_NONE;
    wo->config = rec_config_word(o);
}

int log_out_open(log_out *l, const rec_options *o, const char *path,
                 uint32_t hexversion, uint64_t start_ns)
{
    tfmt_error err;
    tfmt_bin_writer_options wo = TFMT_BIN_WRITER_OPTIONS_INIT;
    memset(l, 0, sizeof *l);
    l->path = path;
    l->cp.fd = -1;
    l->in_place = !is_stream(path);
    cli_escape(l->name, sizeof l->name, cli_output_name(path));
    writer_options(o, hexversion, start_ns, &wo);
    unsigned flags = TFMT_SINK_SEEKABLE | (o->force ? TFMT_SINK_FORCE : 0) |
                     (l->in_place ? TFMT_SINK_IN_PLACE : 0);
    int rc = tfmt_sink_open(&l->sink, path, flags, NULL, &err);
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_open(&l->w, l->sink, &wo, &err);
    if (rc != TFMT_OK)
        return cli_report(l->name, &err);
    if (l->in_place && checkpoint_open(&l->cp, path) != 0)
        return cli_file_fail(CLI_EXIT_TROUBLE, l->name,
                             "cannot read it back for checkpoints: %s",
                             strerror(errno));
    /* A valid (empty) log on disk from the start. */
    return log_out_checkpoint(l, o, NULL);
}

int log_out_checkpoint(log_out *l, const rec_options *o,
                       const sampler_result *r)
{
    char why[320], copy[640];
    if (!l->in_place)
        return CLI_EXIT_OK;
    int rc = r ? set_figures(o, l->w, r) : TFMT_OK;
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_checkpoint(l->w);
    if (rc != TFMT_OK)
        return cli_report(l->name, tfmt_bin_writer_error(l->w));
    if (tfmt_sink_sync(l->sink) != TFMT_OK)
        return cli_report(l->name, tfmt_sink_error(l->sink));
    if (checkpoint_save(&l->cp, why, sizeof why) != 0)
        return cli_file_fail(CLI_EXIT_TROUBLE,
                             cli_escape(copy, sizeof copy, l->cp.copy), "%s",
                             why);
    return CLI_EXIT_OK;
}

int log_out_finish(log_out *l, const rec_options *o, const sampler_result *r)
{
    int rc = set_figures(o, l->w, r);
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_finish(l->w);
    if (rc != TFMT_OK)
        return cli_report(l->name, tfmt_bin_writer_error(l->w));
    if (tfmt_sink_sync(l->sink) != TFMT_OK ||
        tfmt_sink_finish(l->sink) != TFMT_OK)
        return cli_report(l->name, tfmt_sink_error(l->sink));
    checkpoint_discard(&l->cp);
    return CLI_EXIT_OK;
}

void log_out_close(log_out *l)
{
    tfmt_bin_writer_free(l->w);
    tfmt_sink_free(l->sink);
    checkpoint_close(&l->cp);
    l->w = NULL;
    l->sink = NULL;
}
