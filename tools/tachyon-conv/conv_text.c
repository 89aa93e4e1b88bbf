/* SPDX-License-Identifier: MIT */
/*
 * conv_text.c - --to jsonl, collapsed and the aggregated viewer formats:
 * every input is streamed into one aggregated profile (through the
 * command line's filters): a binary log's samples, a query result's rows,
 * or a JSONL export's per-frame totals (for the formats those can give).
 * The profile is then exported through a sink, opened only after all
 * inputs were read, so bad input never creates or touches an output.
 */
#include <stdlib.h>
#include <string.h>

#include "conv.h"

/*
 * A merged profile keeps the first input's interval and mode; say so when
 * a later input disagrees.
 */
static void check_compatible(tfmt_profile *p, const conv_input *in,
                             uint64_t interval_us, int mode_id)
{
    const char *name = cli_input_name(in->path);
    const char *mode = tfmt_mode_name(mode_id);
    const char *first = tfmt_mode_name(tfmt_profile_mode(p));

    if (interval_us != tfmt_profile_interval_us(p))
        cli_file_warn(name,
                      "sample interval %llu us differs from the first "
                      "input's %llu us, which the output keeps",
                      (unsigned long long)interval_us,
                      (unsigned long long)tfmt_profile_interval_us(p));
    if (mode_id != tfmt_profile_mode(p))
        cli_file_warn(name,
                      "profiling mode %s differs from the first "
                      "input's %s, which the output keeps",
                      mode ? mode : "unknown", first ? first : "unknown");
}

/*
 * What is known of an input before it is read (a binary log's header) is
 * said before; what an export or a query result held, after.
 */
static void before_add(tfmt_profile *p, const conv_job *job,
                       const conv_input *in, size_t index)
{
    if (!in->reader)
        return;
    const tfmt_info *i = tfmt_bin_info(in->reader);
    if (job->opts->verbose)
        conv_summary(in);
    if (index > 0)
        check_compatible(p, in, i->sample_interval_us, i->mode);
}

static void after_add(tfmt_profile *p, const conv_job *job,
                      const conv_input *in, size_t index)
{
    if (in->rows && job->opts->verbose)
        conv_summary_rows(in);
    if (!in->jsonl)
        return;
    const tfmt_jsonl_info *i = tfmt_jsonl_get_info(in->jsonl);
    if (job->opts->verbose)
        conv_summary(in);
    if (index > 0)
        check_compatible(p, in, i->sample_interval_usec, i->mode);
    if (job->format == CONV_PSTATS)
        cli_file_warn(cli_input_name(in->path),
                      "the export has no stacks: pstats gets no callers "
                      "from it");
}

/* Read one input into `p`; its run id to `run_id` unless NULL. */
static int add_input(tfmt_profile *p, const conv_job *job, size_t index,
                     char *run_id)
{
    const char *path = job->opts->inputs.items[index];
    conv_input in;
    int code = conv_input_open(&in, path, job);

    if (code != CLI_EXIT_OK)
        return code;
    before_add(p, job, &in, index);
    conv_progress_begin(job->filter, &in);
    int rc = conv_input_add(&in, p);
    conv_progress_end(job->filter);
    if (rc == TFMT_ENOMEM && tfmt_profile_error(p)->code != TFMT_ENOMEM)
        code = cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    else if (rc < 0 && in.jsonl)
        code = cli_report_jsonl(cli_input_name(path), tfmt_profile_error(p));
    else if (rc < 0)
        code = cli_report(cli_input_name(path), tfmt_profile_error(p));
    if (code == CLI_EXIT_OK)
        after_add(p, job, &in, index);
    if (code == CLI_EXIT_OK && run_id)
        code = conv_input_run_id(&in, run_id);
    conv_input_close(&in);
    return code;
}

/*
 * Add every input; the progress line counts each input's samples. With
 * `run_ids`, each input's run id too (only JSONL output without --run-id
 * needs them: a binary log's costs a pass over the file).
 */
static int add_inputs(tfmt_profile *p, const conv_job *job, char (*run_ids)[33])
{
    const cli_list *inputs = &job->opts->inputs;
    int code = CLI_EXIT_OK;

    for (size_t i = 0; i < inputs->count && code == CLI_EXIT_OK; i++)
        code = add_input(p, job, i, run_ids ? run_ids[i] : NULL);
    return code;
}

/* Export `p` in the job's format to the job's output. */
static int export_profile(tfmt_profile *p, const conv_job *job,
                          const char *run_id)
{
    tfmt_sink *sink = NULL;
    int code = conv_sink_open(&sink, job, 0);
    int rc;

    if (code != CLI_EXIT_OK)
        return code;
    if (job->format == CONV_JSONL)
        rc = tfmt_profile_write_jsonl(p, sink, run_id);
    else if (job->format == CONV_COLLAPSED)
        rc = tfmt_profile_write_collapsed(p, sink);
    else
        rc = conv_view_write(p, job, sink);
    if (rc < 0)
        code = cli_report(cli_output_name(job->opts->output),
                          tfmt_profile_error(p));
    else
        code = conv_sink_finish(sink, job);
    cli_sink_free(sink);
    return code;
}

int conv_text(const conv_job *job)
{
    size_t n = job->opts->inputs.count;
    bool need_ids = job->format == CONV_JSONL && !job->run_id[0];
    char(*run_ids)[33] = need_ids ? calloc(n, sizeof *run_ids) : NULL;
    tfmt_profile *p = NULL;
    char run_id[33];
    int code = CLI_EXIT_OK;

    if ((need_ids && !run_ids) || tfmt_profile_new(&p, &job->filter->popts) < 0)
        code = cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    if (code == CLI_EXIT_OK) {
        tfmt_profile_set_threads(p, job->jobs);
        code = add_inputs(p, job, run_ids);
    }
    if (code == CLI_EXIT_OK) {
        tfmt_filter_report r;
        tfmt_profile_filter_report(p, &r);
        conv_filter_warn(job->opts, &r, conv_only_input(job->opts));
    }
    if (code == CLI_EXIT_OK && job->format == CONV_HEATMAP) {
        code = conv_heatmap(p, job);
    } else if (code == CLI_EXIT_OK) {
        if (run_ids)
            conv_run_id_default(run_ids, n, run_id);
        else
            memcpy(run_id, job->run_id, sizeof run_id);
        code = export_profile(p, job, run_id);
    }
    tfmt_profile_free(p);
    free(run_ids);
    return code;
}
