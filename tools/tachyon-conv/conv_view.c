/* SPDX-License-Identifier: MIT */
/*
 * conv_view.c - tachyon-conv's viewer formats (speedscope, gecko, pprof,
 * svg, pstats, top) and the sample filters every format shares: the
 * command line becomes one tfmt_profile_options (libfmt applies it), and
 * a per-input progress line is fed by the library's progress callback.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"

bool conv_filter_samples(const conv_options *o)
{
    return o->include.count || o->exclude.count || o->threads.count ||
           o->drop || o->gil || o->on_cpu || o->exception || o->skip_idle ||
           o->collapse_recursion;
}

bool conv_filter_any(const conv_options *o)
{
    return o->rewrite.count || conv_filter_samples(o);
}

bool conv_takes_jsonl(conv_format f)
{
    return f == CONV_JSONL || f == CONV_TOP || f == CONV_PSTATS ||
           f == CONV_HEATMAP;
}

static int parse_count(const char *s, const char *opt, unsigned long min,
                       unsigned long max, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
        return cli_usage("option '--%s' needs a count from %lu to %lu, "
                         "not '%s'",
                         opt, min, max, s);
    *out = (uint32_t)v;
    return CLI_EXIT_OK;
}

/* Options that only some formats take. */
int conv_view_check(const conv_options *o, conv_format f, conv_job *job)
{
    if (o->title && f != CONV_SVG && f != CONV_HTML)
        return cli_usage("option '--title' applies only to --to svg and "
                         "html");
    if ((o->top || o->per_thread) && f != CONV_TOP)
        return cli_usage("options '--top' and '--per-thread' apply only "
                         "to --to top");
    if (f == CONV_BIN && conv_filter_any(o))
        return cli_usage("filters do not apply to --to bin");
    if (o->no_lines && f < CONV_SPEEDSCOPE)
        return cli_usage("option '--no-lines' applies only to the viewer "
                         "formats (jsonl and collapsed are CPython's)");
    if (o->no_lines && f == CONV_HEATMAP)
        return cli_usage("option '--no-lines' does not apply to --to "
                         "heatmap, which shows lines");
    if ((o->source_root || o->path_maps.count) && f != CONV_HEATMAP)
        return cli_usage("options '--source-root' and '--path-map' apply "
                         "only to --to heatmap");
    for (size_t i = 0; i < o->path_maps.count; i++) {
        const char *m = o->path_maps.items[i], *eq = strchr(m, '=');
        if (!eq || eq == m)
            return cli_usage("option '--path-map' needs FROM=TO, not '%s'", m);
    }
    if (o->pstats_compat && f != CONV_PSTATS)
        return cli_usage("option '--pstats-compat' applies only to --to "
                         "pstats");
    if (o->drop && !o->include.count && !o->exclude.count)
        return cli_usage("option '--drop' needs --include or --exclude");
    int code =
        o->jobs ? parse_count(o->jobs, "jobs", 1, 64, &job->jobs) : CLI_EXIT_OK;
    if (code == CLI_EXIT_OK && o->top)
        code = parse_count(o->top, "top", 0, 1000000, &job->top_n);
    /* --top 0: every row, as in tachyon-diff (the library's 0 is 20) */
    if (code == CLI_EXIT_OK && o->top && job->top_n == 0)
        job->top_n = UINT32_MAX;
    return code;
}

static int add_rules(tfmt_match *m, tfmt_match_kind kind, const cli_list *l,
                     const char *opt)
{
    for (size_t i = 0; i < l->count; i++) {
        tfmt_error err;
        memset(&err, 0, sizeof err);
        int rc = tfmt_match_add(m, kind, l->items[i], &err);
        if (rc == TFMT_ENOMEM)
            return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
        if (rc < 0)
            return cli_usage("option '--%s': %s", opt, err.msg);
    }
    return CLI_EXIT_OK;
}

static int parse_threads(conv_filter *f, const cli_list *l)
{
    if (!l->count)
        return CLI_EXIT_OK;
    f->tids = calloc(l->count, sizeof *f->tids);
    if (!f->tids)
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    for (size_t i = 0; i < l->count; i++) {
        const char *s = l->items[i];
        char *end;
        errno = 0;
        f->tids[i] = strtoull(s, &end, 0);
        if (errno || end == s || *end || s[0] == '-')
            return cli_usage("option '--thread' needs a thread id, not "
                             "'%s'",
                             s);
    }
    f->popts.thread_ids = f->tids;
    f->popts.nthread_ids = l->count;
    return CLI_EXIT_OK;
}

static void on_progress(void *ctx, uint64_t samples)
{
    cli_progress_update(&((conv_filter *)ctx)->bar, samples);
}

int conv_filter_build(conv_filter *f, const conv_options *o)
{
    tfmt_profile_options init = TFMT_PROFILE_OPTIONS_INIT;
    memset(f, 0, sizeof *f);
    f->popts = init;
    f->popts.skip_idle = o->skip_idle > 0;
    f->popts.status_all =
        (uint8_t)((o->gil ? TFMT_STATUS_HAS_GIL : 0) |
                  (o->on_cpu ? TFMT_STATUS_ON_CPU : 0) |
                  (o->exception ? TFMT_STATUS_HAS_EXCEPTION : 0));
    f->popts.drop_frames = o->drop && strcmp(o->drop, "frames") == 0;
    f->popts.collapse_recursion = o->collapse_recursion > 0;
    f->popts.progress = on_progress;
    f->popts.progress_ctx = f;
    if (tfmt_match_new(&f->rules, NULL) < 0 ||
        tfmt_match_new(&f->focus, NULL) < 0)
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    f->popts.rules = f->rules;
    f->popts.focus = f->focus;
    int code = add_rules(f->rules, TFMT_MATCH_REWRITE, &o->rewrite, "rewrite");
    if (code == CLI_EXIT_OK)
        code = add_rules(f->rules, TFMT_MATCH_EXCLUDE, &o->exclude, "exclude");
    if (code == CLI_EXIT_OK)
        code = add_rules(f->focus, TFMT_MATCH_INCLUDE, &o->include, "include");
    return code == CLI_EXIT_OK ? parse_threads(f, &o->threads) : code;
}

void conv_view_options(conv_filter *filter, const conv_options *o,
                       conv_format f)
{
    filter->popts.no_lines = o->no_lines > 0;
    filter->popts.timeline = f == CONV_SPEEDSCOPE;
    filter->popts.mark_truncated = f == CONV_SPEEDSCOPE || f == CONV_GECKO ||
                                   f == CONV_PPROF || f == CONV_SVG ||
                                   f == CONV_HTML;
    /* Outputs that do not tell threads apart need no tree per thread, nor
     * does speedscope's timeline (each run names its leaf): memory then
     * follows the distinct stacks, not (thread, stack). The writers that
     * split by thread rebuild what they need of one thread at a time from
     * (thread, stack) counts, as speedscope does without a timeline
     * (ClickHouse rows as input have no time order). */
    bool views = f == CONV_COLLAPSED || f == CONV_SVG || f == CONV_HTML ||
                 f == CONV_PPROF || f == CONV_SPEEDSCOPE || f == CONV_TOP ||
                 f == CONV_CLICKHOUSE;
    filter->popts.shared_tree =
        f == CONV_JSONL || f == CONV_PSTATS || f == CONV_HEATMAP || views;
    filter->popts.thread_leaves = views && (f != CONV_TOP || o->per_thread > 0);
}

/* A status filter that no sample's status byte allows. */
static void warn_status(const conv_options *o, uint8_t seen, const char *name,
                        const char *where)
{
    static const struct {
        size_t off;
        uint8_t bit;
        const char *what;
    } flags[] = {
        {offsetof(conv_options, gil), TFMT_STATUS_HAS_GIL,
         "--gil: no sample's thread held the GIL"},
        {offsetof(conv_options, on_cpu), TFMT_STATUS_ON_CPU,
         "--on-cpu: no sample's thread was on CPU"},
        {offsetof(conv_options, exception), TFMT_STATUS_HAS_EXCEPTION,
         "--exception: no sample's thread had an exception set"},
    };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        int on = *(const int *)((const char *)o + flags[i].off);
        if (on && !(seen & flags[i].bit))
            cli_file_warn(name, "%s %s", flags[i].what, where);
    }
}

void conv_filter_warn(const conv_options *o, const tfmt_filter_report *r,
                      const char *name)
{
    const char *where = name ? "in the input" : "in the inputs";
    for (size_t i = 0; i < o->threads.count; i++)
        if (!r->thread_seen[i])
            cli_file_warn(name, "--thread %s: no sample of this thread %s",
                          o->threads.items[i], where);
    warn_status(o, r->status_seen, name, where);
    if (r->passed && o->include.count && !r->include_matched)
        cli_file_warn(name, "--include: no frame matched, so no sample was "
                            "kept");
    if (r->passed && o->exclude.count && !r->exclude_matched)
        cli_file_warn(name, "--exclude: no frame matched (nothing dropped)");
    if (conv_filter_samples(o) && r->read && !r->kept)
        cli_file_warn(name,
                      "the filters kept none of the %llu samples read: "
                      "the output holds no samples",
                      (unsigned long long)r->read);
}

void conv_filter_free(conv_filter *f)
{
    tfmt_match_free(f->rules);
    tfmt_match_free(f->focus);
    free(f->tids);
    memset(f, 0, sizeof *f);
}

void conv_progress_begin(conv_filter *f, const conv_input *in)
{
    /* A query result's total is not known before it is read. */
    cli_progress_start(&f->bar, cli_input_name(in->path),
                       in->reader ? tfmt_bin_info(in->reader)->sample_count
                                  : 0);
}

void conv_progress_end(conv_filter *f)
{
    cli_progress_end(&f->bar);
}

/* pprof is gzipped on disk; a .gz output path is gzipped by the sink. */
static bool sink_gzips(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

int conv_view_write(tfmt_profile *p, const conv_job *job, tfmt_sink *sink)
{
    tfmt_export_options xo = TFMT_EXPORT_OPTIONS_INIT;
    xo.title = job->opts->title;
    xo.top_n = job->top_n;
    xo.per_thread = job->opts->per_thread > 0;
    xo.gzip = !sink_gzips(job->opts->output);
    switch (job->format) {
    case CONV_SPEEDSCOPE: return tfmt_profile_write_speedscope(p, sink, &xo);
    case CONV_PPROF: return tfmt_profile_write_pprof(p, sink, &xo);
    case CONV_SVG: return tfmt_profile_write_svg(p, sink, &xo);
    case CONV_PSTATS:
        return job->opts->pstats_compat
                   ? tfmt_profile_write_pstats_compat(p, sink)
                   : tfmt_profile_write_pstats(p, sink);
    case CONV_TOP: return tfmt_profile_write_top(p, sink, &xo);
    case CONV_HTML: return tfmt_profile_write_html(p, sink, &xo);
    default: return TFMT_EINVAL;
    }
}

/* ---- --to gecko ---- */

static int gecko_input(tfmt_gecko *g, const conv_job *job, size_t i)
{
    conv_input in;
    int code = conv_input_open(&in, job->opts->inputs.items[i], job);
    if (code != CLI_EXIT_OK)
        return code;
    if (job->opts->verbose)
        conv_summary(&in);
    conv_progress_begin(job->filter, &in);
    int rc = tfmt_gecko_add_bin(g, in.reader);
    conv_progress_end(job->filter);
    if (rc < 0)
        code = cli_report(cli_input_name(in.path), tfmt_gecko_error(g));
    conv_input_close(&in);
    return code;
}

static int gecko_output(tfmt_gecko *g, const conv_job *job)
{
    tfmt_sink *sink = NULL;
    int code = conv_sink_open(&sink, job, 0);
    if (code != CLI_EXIT_OK)
        return code;
    int rc = tfmt_gecko_write(g, sink);
    if (rc < 0)
        code =
            cli_report(cli_output_name(job->opts->output), tfmt_gecko_error(g));
    else
        code = conv_sink_finish(sink, job);
    cli_sink_free(sink);
    return code;
}

int conv_gecko(const conv_job *job)
{
    tfmt_gecko *g = NULL;
    if (tfmt_gecko_new(&g, &job->filter->popts) < 0)
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    int code = CLI_EXIT_OK;
    for (size_t i = 0; i < job->opts->inputs.count && !code; i++)
        code = gecko_input(g, job, i);
    if (code == CLI_EXIT_OK) {
        tfmt_filter_report r;
        tfmt_gecko_filter_report(g, &r);
        conv_filter_warn(job->opts, &r, conv_only_input(job->opts));
        code = gecko_output(g, job);
    }
    tfmt_gecko_free(g);
    return code;
}
