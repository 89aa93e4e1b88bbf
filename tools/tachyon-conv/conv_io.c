/* SPDX-License-Identifier: MIT */
/*
 * conv_io.c - tachyon-conv's inputs and outputs: opening a source and its
 * reader (a binary log's, with reader notes shown as warnings; a JSONL
 * export's or a ClickHouse query result's where the output can take one),
 * opening and finishing the output sink, and turning library errors into
 * located messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"

/* Reader findings that do not stop the conversion become warnings. */
static void on_note(void *ctx, tfmt_note kind, const tfmt_error *where)
{
    (void)kind;
    cli_report_warning(cli_input_name(ctx), where);
}

/*
 * A JSONL export goes where its per-frame totals are enough (jsonl, top,
 * pstats, heatmap) and with no filter that needs samples; elsewhere one line
 * says why not. Returns an exit code.
 */
static int jsonl_usable(const conv_job *job, const char *name)
{
    const conv_options *o = job->opts;
    if (!conv_takes_jsonl(job->format))
        return cli_file_fail(CLI_EXIT_TROUBLE, name, "%s",
                             TFMT_JSONL_NO_STACKS);
    if (conv_filter_samples(o))
        return cli_file_fail(CLI_EXIT_TROUBLE, name,
                             "the export has no samples, only per-frame "
                             "totals: of the filters, only --rewrite "
                             "applies");
    if (o->per_thread)
        return cli_file_fail(CLI_EXIT_TROUBLE, name,
                             "the export has no threads; --per-thread "
                             "needs a binary log");
    return CLI_EXIT_OK;
}

/* The JSONL reader; the rulebook's first error ends the input. */
static int open_jsonl(conv_input *in, const conv_job *job)
{
    tfmt_jsonl_options jo = TFMT_JSONL_OPTIONS_INIT;
    tfmt_error err;
    const char *name = cli_input_name(in->path);
    int code = jsonl_usable(job, name);
    if (code != CLI_EXIT_OK)
        return code;
    jo.on_note = cli_jsonl_note;
    jo.note_ctx = (void *)in->path;
    if (tfmt_jsonl_open(&in->jsonl, in->src, &jo, &err) < 0)
        return cli_report(name, &err);
    return CLI_EXIT_OK;
}

int conv_input_open(conv_input *in, const char *path, const conv_job *job)
{
    tfmt_bin_options bopts = job->bin;
    tfmt_detection d;
    tfmt_error err;
    int rc;

    memset(in, 0, sizeof *in);
    in->path = path;
    bopts.on_note = on_note;
    bopts.note_ctx = (void *)path;
    rc = cli_open_input(path, &in->src, &d, &err);
    if (rc == TFMT_OK)
        rc = tfmt_detect_error(&d, &err); /* empty, or text */
    if (rc == TFMT_OK && tfmt_kind_is_jsonl(d.kind)) {
        in->kind = d.kind;
        int code = open_jsonl(in, job);
        if (code != CLI_EXIT_OK)
            conv_input_close(in);
        return code;
    }
    /* Query results have no timestamps: a timeline or a log needs them;
     * a fine input that cannot give what was asked is trouble (2). */
    bool rows_ok = job->format != CONV_BIN && job->format != CONV_GECKO;
    if (rc == TFMT_OK && d.kind == TFMT_KIND_ROWS && !rows_ok) {
        conv_input_close(in);
        return cli_file_fail(CLI_EXIT_TROUBLE, cli_input_name(path), "%s",
                             TFMT_ROWS_NO_TIMESTAMPS);
    }
    if (rc == TFMT_OK && d.kind == TFMT_KIND_ROWS)
        rc = tfmt_rows_open(&in->rows, in->src, NULL, &err);
    else if (rc == TFMT_OK)
        rc = tfmt_bin_open(&in->reader, in->src, &bopts, &err);
    if (rc < 0) {
        conv_input_close(in);
        return cli_report(cli_input_name(path), &err);
    }
    in->kind = d.kind;
    return CLI_EXIT_OK;
}

void conv_input_close(conv_input *in)
{
    tfmt_rows_free(in->rows);
    in->rows = NULL;
    tfmt_bin_free(in->reader);
    tfmt_jsonl_free(in->jsonl);
    tfmt_source_free(in->src);
    in->reader = NULL;
    in->jsonl = NULL;
    in->src = NULL;
}

int conv_input_add(conv_input *in, tfmt_profile *p)
{
    if (in->jsonl)
        return tfmt_profile_add_jsonl(p, in->jsonl);
    if (in->rows) {
        int rc = tfmt_profile_add_rows(p, in->rows);
        if (rc >= 0)
            cli_rows_warn(cli_input_name(in->path), in->rows);
        return rc;
    }
    return tfmt_profile_add_bin(p, in->reader);
}

/* The default run id of ClickHouse rows: the runs in the order they came. */
static int rows_run_id(const tfmt_rows_reader *rows, char out[33])
{
    size_t n = tfmt_rows_run_count(rows);
    char(*ids)[33] = calloc(n ? n : 1, sizeof *ids);
    if (!ids)
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    for (size_t i = 0; i < n; i++)
        memcpy(ids[i], tfmt_rows_run_at(rows, i)->run_id, 33);
    if (n == 0)
        memset(ids[0], '0', 32);
    conv_run_id_default(ids, n ? n : 1, out);
    free(ids);
    return CLI_EXIT_OK;
}

int conv_input_run_id(conv_input *in, char out[33])
{
    if (in->jsonl) {
        conv_run_id_of(tfmt_jsonl_get_info(in->jsonl)->run_id, out);
        return CLI_EXIT_OK;
    }
    if (in->rows)
        return rows_run_id(in->rows, out);
    if (tfmt_bin_run_id(in->reader, out) != TFMT_OK)
        return cli_report(cli_input_name(in->path), tfmt_bin_error(in->reader));
    return CLI_EXIT_OK;
}

const char *conv_only_input(const conv_options *o)
{
    return o->inputs.count == 1 ? cli_input_name(o->inputs.items[0]) : NULL;
}

static const char *sink_path(const conv_job *job)
{
    const char *p = job->opts->output;
    return (p && strcmp(p, "-") != 0) ? p : NULL;
}

int conv_sink_open(tfmt_sink **out, const conv_job *job, unsigned flags)
{
    tfmt_error err;
    int rc;

    memset(&err, 0, sizeof err);
    if (job->opts->force)
        flags |= TFMT_SINK_FORCE;
    rc = cli_sink_open(out, sink_path(job), flags, &err);
    if (rc < 0)
        return cli_report(cli_output_name(job->opts->output), &err);
    return CLI_EXIT_OK;
}

/* Output errors are always trouble (2), whatever their status. */
int conv_report_sink(const tfmt_sink *sink, const conv_job *job)
{
    const tfmt_error *e = tfmt_sink_error(sink);
    tfmt_error copy;

    memset(&copy, 0, sizeof copy);
    if (e)
        copy = *e;
    if (copy.code >= 0)
        copy.code = TFMT_EIO;
    cli_report(cli_output_name(job->opts->output), &copy);
    return CLI_EXIT_TROUBLE;
}

int conv_sink_finish(tfmt_sink *sink, const conv_job *job)
{
    if (tfmt_sink_finish(sink) < 0)
        return conv_report_sink(sink, job);
    return CLI_EXIT_OK;
}

/* "gzip file, " when the whole input was compressed, else "". */
static void file_compression(const tfmt_source *src, char *out, size_t cap)
{
    const char *name = tfmt_source_compression(src);

    out[0] = '\0';
    if (strcmp(name, "none") != 0)
        snprintf(out, cap, "%s file, ", name);
}

/* -v for a JSONL export, once read: what its records said. */
static void jsonl_summary(const conv_input *in)
{
    const tfmt_jsonl_info *i = tfmt_jsonl_get_info(in->jsonl);
    const char *mode = tfmt_mode_name(i->mode);
    char wrap[32];

    file_compression(in->src, wrap, sizeof wrap);
    cli_file_info(
        cli_input_name(in->path),
        "%s%s, %llu samples, %llu frames, %llu strings, "
        "interval %llu us, mode %s",
        wrap, tfmt_kind_name(in->kind), (unsigned long long)i->samples_total,
        (unsigned long long)i->frames, (unsigned long long)i->strings,
        (unsigned long long)i->sample_interval_usec, mode ? mode : "unknown");
}

/* -v: one line describing an input (a JSONL export once read). */
void conv_summary(const conv_input *in)
{
    if (in->jsonl) {
        jsonl_summary(in);
        return;
    }
    const tfmt_info *i = tfmt_bin_info(in->reader);
    const char *mode = tfmt_mode_name(i->mode);
    char wrap[32];

    file_compression(in->src, wrap, sizeof wrap);
    cli_file_info(
        cli_input_name(in->path),
        "%sPython %u.%u.%u log, %s header, %s, "
        "%llu samples, %u threads, %u frames, %u strings, "
        "interval %llu us, mode %s%s",
        wrap, i->python_version[0], i->python_version[1], i->python_version[2],
        i->layout == TFMT_LAYOUT_U32_COUNT ? "u32" : "u64",
        i->compression == TFMT_COMPRESSION_ZSTD ? "zstd" : "uncompressed",
        (unsigned long long)i->sample_count, i->thread_count, i->frame_count,
        i->string_count, (unsigned long long)i->sample_interval_us,
        mode ? mode : "unknown", i->stats.present ? ", statistics block" : "");
}

/* -v, after reading: what a query result held. */
void conv_summary_rows(const conv_input *in)
{
    char wrap[32];
    uint64_t rows = 0;
    size_t n = tfmt_rows_run_count(in->rows);
    for (size_t i = 0; i < n; i++)
        rows += tfmt_rows_run_at(in->rows, i)->rows;
    file_compression(in->src, wrap, sizeof wrap);
    cli_file_info(cli_input_name(in->path),
                  "%sClickHouse rows: %llu rows of %zu runs, %zu frames, "
                  "%zu strings",
                  wrap, (unsigned long long)rows, n,
                  tfmt_rows_frame_count(in->rows),
                  tfmt_rows_string_count(in->rows));
}
