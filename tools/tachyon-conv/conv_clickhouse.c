/* SPDX-License-Identifier: MIT */
/*
 * conv_clickhouse.c - --to clickhouse: each input becomes one run of rows
 * for the ClickHouse table (schemas/clickhouse/tachyon_stacks.sql), in
 * JSONEachRow, so a directory of logs loads with one command. Inputs are
 * not merged (a merge is a query away), and each keeps its own run id:
 * its tfmt_bin_run_id (run_id_version 2; 0 with --run-id), as in
 * tachyon-conv's JSONL output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "conv.h"

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* A label key: a letter or '_', then letters, digits, '_', '.', '-'. */
static bool key_ok(const char *k, size_t n)
{
    if (n == 0 || n > 64 || !is_alpha(k[0]))
        return false;
    for (size_t i = 1; i < n; i++) {
        char c = k[i];
        if (!is_alpha(c) && !(c >= '0' && c <= '9') && c != '.' && c != '-')
            return false;
    }
    return true;
}

static int check_labels(const cli_list *l)
{
    for (size_t i = 0; i < l->count; i++) {
        const char *eq = strchr(l->items[i], '=');
        size_t n = eq ? (size_t)(eq - l->items[i]) : 0;
        if (!eq || !key_ok(l->items[i], n))
            return cli_usage("option '--label' needs KEY=VALUE with a key "
                             "of letters, digits, '_', '.' or '-', not "
                             "'%s'",
                             l->items[i]);
        for (size_t j = 0; j < i; j++)
            if (strncmp(l->items[j], l->items[i], n + 1) == 0)
                return cli_usage("option '--label': key '%.*s' given "
                                 "twice",
                                 (int)n, l->items[i]);
    }
    return CLI_EXIT_OK;
}

static bool parse_time(const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] < '0' || s[0] > '9' || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

int conv_clickhouse_check(const conv_options *o, conv_format f)
{
    uint32_t t;
    if (f != CONV_CLICKHOUSE) {
        if (o->labels.count || o->time)
            return cli_usage("options '--label' and '--time' apply only to "
                             "--to clickhouse");
        return CLI_EXIT_OK;
    }
    if (o->time && !parse_time(o->time, &t))
        return cli_usage("option '--time' needs Unix seconds (0 to "
                         "4294967295), not '%s'",
                         o->time);
    if (o->run_id && strcmp(o->run_id, "random") != 0 && o->inputs.count > 1)
        return cli_usage("a fixed --run-id takes exactly one input (each "
                         "input is its own run)");
    return check_labels(&o->labels);
}

/* The labels as the library takes them (keys and values split). */
typedef struct labels {
    char **keys;
    const char **values;
    size_t n;
} labels;

static int labels_build(labels *l, const cli_list *in)
{
    memset(l, 0, sizeof *l);
    l->keys = calloc(in->count + 1, sizeof *l->keys);
    l->values = calloc(in->count + 1, sizeof *l->values);
    if (!l->keys || !l->values)
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    for (size_t i = 0; i < in->count; i++) {
        const char *eq = strchr(in->items[i], '=');
        l->keys[i] = strndup(in->items[i], (size_t)(eq - in->items[i]));
        if (!l->keys[i])
            return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
        l->values[i] = eq + 1;
        l->n = i + 1;
    }
    return CLI_EXIT_OK;
}

static void labels_free(labels *l)
{
    for (size_t i = 0; l->keys && i < l->n; i++)
        free(l->keys[i]);
    free(l->keys);
    free(l->values);
}

/* --time, else the input file's modification time, else now. */
static uint32_t run_time(const conv_options *o, const char *path)
{
    struct stat st;
    uint32_t t = 0;
    if (o->time && parse_time(o->time, &t))
        return t;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && st.st_mtime > 0)
        return st.st_mtime > (time_t)UINT32_MAX ? UINT32_MAX
                                                : (uint32_t)st.st_mtime;
    time_t now = time(NULL);
    return now > 0 ? (uint32_t)now : 0;
}

/* The profile of one input: every sample, apart by status. */
static int load_input(tfmt_profile **out, const conv_job *job, const char *path,
                      char run_id[33], char python[16])
{
    conv_input in;
    tfmt_profile_options po = job->filter->popts;
    po.split_status = true;
    int code = conv_input_open(&in, path, job);
    if (code != CLI_EXIT_OK)
        return code;
    if (job->opts->verbose && in.reader)
        conv_summary(&in);
    if (tfmt_profile_new(out, &po) < 0) {
        conv_input_close(&in);
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    }
    python[0] = '\0';
    if (in.reader) {
        const tfmt_info *i = tfmt_bin_info(in.reader);
        snprintf(python, 16, "%u.%u.%u", i->python_version[0],
                 i->python_version[1], i->python_version[2]);
    }
    conv_progress_begin(job->filter, &in);
    int rc = conv_input_add(&in, *out);
    conv_progress_end(job->filter);
    if (rc == TFMT_ENOMEM && tfmt_profile_error(*out)->code != TFMT_ENOMEM)
        code = cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    else if (rc < 0)
        code = cli_report(cli_input_name(path), tfmt_profile_error(*out));
    if (code == CLI_EXIT_OK && !job->run_id[0])
        code = conv_input_run_id(&in, run_id);
    conv_input_close(&in);
    return code;
}

static int write_run(tfmt_sink *sink, const conv_job *job, const labels *l,
                     const char *path)
{
    tfmt_clickhouse_run run = TFMT_CLICKHOUSE_RUN_INIT;
    char run_id[33], python[16];
    tfmt_profile *p = NULL;
    run.run_id = run_id;
    run.label_keys = (const char *const *)l->keys;
    run.label_values = l->values;
    run.nlabels = l->n;
    run.python = python;
    run.time = run_time(job->opts, path);
    int code = load_input(&p, job, path, run_id, python);
    if (code == CLI_EXIT_OK) {
        tfmt_filter_report r;
        tfmt_profile_filter_report(p, &r);
        conv_filter_warn(job->opts, &r, cli_input_name(path));
    }
    if (code == CLI_EXIT_OK && job->opts->run_id) {
        code = conv_run_id_parse(job->opts->run_id, run_id);
        run.run_id_version = 0; /* chosen, not derived from the log */
    }
    if (code == CLI_EXIT_OK && tfmt_profile_write_clickhouse(p, sink, &run) < 0)
        code = cli_report(cli_output_name(job->opts->output),
                          tfmt_profile_error(p));
    tfmt_profile_free(p);
    return code;
}

int conv_clickhouse(const conv_job *job)
{
    const cli_list *inputs = &job->opts->inputs;
    tfmt_sink *sink = NULL;
    labels l;
    int code = labels_build(&l, &job->opts->labels);
    if (code == CLI_EXIT_OK)
        code = conv_sink_open(&sink, job, 0);
    for (size_t i = 0; i < inputs->count && code == CLI_EXIT_OK; i++)
        code = write_run(sink, job, &l, inputs->items[i]);
    if (code == CLI_EXIT_OK)
        code = conv_sink_finish(sink, job);
    tfmt_sink_free(sink);
    labels_free(&l);
    return code;
}
