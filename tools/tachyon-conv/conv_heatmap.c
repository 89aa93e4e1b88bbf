/* SPDX-License-Identifier: MIT */
/*
 * conv_heatmap.c - --to heatmap -o DIR: CPython's line heatmap, a page per
 * source file and index.html, written into a directory that appears whole
 * or not at all (outdir.h). Sources are looked up per page
 * (conv_source.c); pages whose source is missing say so, and one warning
 * counts them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "outdir.h"

/* What a heatmap directory holds: index.html and file_NNNN.html. */
bool conv_heatmap_entry(const char *name)
{
    if (strcmp(name, "index.html") == 0)
        return true;
    if (strncmp(name, "file_", 5) != 0)
        return false;
    size_t i = 5;
    while (name[i] >= '0' && name[i] <= '9')
        i++;
    return i >= 9 && strcmp(name + i, ".html") == 0;
}

/* Write `name` into the directory with `write`. */
static int write_one(tfmt_heatmap *h, cli_outdir *d, size_t page,
                     const tfmt_heatmap_source *src, bool index)
{
    const char *name = tfmt_heatmap_page(h, index ? SIZE_MAX : page);
    char *path = cli_outdir_file(d, name);
    if (!path)
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    tfmt_sink *sink = NULL;
    tfmt_error err;
    memset(&err, 0, sizeof err);
    int code = CLI_EXIT_OK;
    int rc = tfmt_sink_open(&sink, path, 0, NULL, &err);
    if (rc < 0)
        code = cli_report(d->path, &err);
    if (code == CLI_EXIT_OK) {
        rc = index ? tfmt_heatmap_write_index(h, sink)
                   : tfmt_heatmap_write_page(h, page, src, sink);
        if (rc < 0)
            code = cli_report(d->path, tfmt_heatmap_error(h));
        else if (tfmt_sink_finish(sink) < 0)
            code = cli_report(d->path, tfmt_sink_error(sink));
    }
    if (code != CLI_EXIT_OK && code != CLI_EXIT_TROUBLE)
        code = CLI_EXIT_TROUBLE; /* an output failure is trouble */
    tfmt_sink_free(sink);
    free(path);
    return code;
}

static int write_page(tfmt_heatmap *h, cli_outdir *d, const conv_job *job,
                      size_t i, size_t *missing)
{
    const conv_options *o = job->opts;
    conv_source_opts so = {o->source_root,
                           (const char *const *)o->path_maps.items,
                           o->path_maps.count, o->recorded_paths > 0};
    conv_source s;
    int code = conv_source_find(&s, &so, tfmt_heatmap_path(h, i));
    if (code != CLI_EXIT_OK)
        return code;
    tfmt_heatmap_source src = {s.text, s.len, s.origin, s.note};
    if (!s.text)
        ++*missing;
    code = write_one(h, d, i, &src, false);
    conv_source_free(&s);
    return code;
}

static int write_all(tfmt_heatmap *h, const conv_job *job)
{
    cli_outdir d;
    int code = cli_outdir_open(&d, job->opts->output, job->opts->force,
                               conv_heatmap_entry);
    size_t n = tfmt_heatmap_pages(h), missing = 0;
    for (size_t i = 0; i < n && code == CLI_EXIT_OK; i++)
        code = write_page(h, &d, job, i, &missing);
    if (code == CLI_EXIT_OK)
        code = write_one(h, &d, 0, NULL, true);
    if (code == CLI_EXIT_OK)
        code = cli_outdir_commit(&d);
    cli_outdir_free(&d);
    if (code == CLI_EXIT_OK && missing)
        cli_file_warn(job->opts->output,
                      "%zu of %zu source files not found (their pages say "
                      "so; see --source-root and --path-map)",
                      missing, n);
    return code;
}

int conv_heatmap(tfmt_profile *p, const conv_job *job)
{
    tfmt_heatmap *h = NULL;
    if (tfmt_heatmap_new(&h, p, NULL) < 0)
        return cli_report(cli_output_name(job->opts->output),
                          tfmt_profile_error(p));
    if (tfmt_heatmap_pages(h) == 0)
        cli_file_warn(job->opts->output, "no sample has a line in a source "
                                         "file: the heatmap lists no file");
    int code = write_all(h, job);
    tfmt_heatmap_free(h);
    return code;
}
