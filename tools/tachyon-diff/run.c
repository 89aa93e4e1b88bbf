/* SPDX-License-Identifier: MIT */
/*
 * run.c - check the options, load both sides, compare, write the chosen
 * format and apply the gate.
 */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diff.h"

static bool parse_num(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v < 0)
        return false;
    *out = v;
    return true;
}

static bool parse_count(const char *s, uint64_t *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno)
        return false;
    *out = v;
    return true;
}

static int numbers(diff_settings *s, const diff_options *o)
{
    uint64_t top = 0;
    if (o->min_delta && !parse_num(o->min_delta, &s->min_delta))
        return cli_usage("invalid --min-delta '%s'", o->min_delta);
    if (o->min_samples && !parse_count(o->min_samples, &s->min_samples))
        return cli_usage("invalid --min-samples '%s'", o->min_samples);
    if (o->alpha && (!parse_num(o->alpha, &s->alpha) || s->alpha > 1))
        return cli_usage("invalid --alpha '%s' (0..1)", o->alpha);
    if (o->fail_on && !parse_num(o->fail_on, &s->fail_on))
        return cli_usage("invalid --fail-on-regression '%s'", o->fail_on);
    if (o->top && (!parse_count(o->top, &top) || top > SIZE_MAX))
        return cli_usage("invalid --top '%s'", o->top);
    if (o->top)
        s->top = (size_t)top;
    return CLI_EXIT_OK;
}

static diff_format format_of(const char *f)
{
    if (!f || !strcmp(f, "table"))
        return FMT_TABLE;
    if (!strcmp(f, "json"))
        return FMT_JSON;
    if (!strcmp(f, "markdown"))
        return FMT_MARKDOWN;
    if (!strcmp(f, "svg"))
        return FMT_SVG;
    if (!strcmp(f, "html"))
        return FMT_HTML;
    return !strcmp(f, "csv") ? FMT_CSV : FMT_FOLDED;
}

static bool want_color(const diff_options *o)
{
    if (o->color && !strcmp(o->color, "always"))
        return true;
    if (o->color && !strcmp(o->color, "never"))
        return false;
    const char *nc = getenv("NO_COLOR");
    bool to_stdout = !o->output || !strcmp(o->output, "-");
    return to_stdout && !(nc && *nc) && isatty(STDOUT_FILENO);
}

static int settings(diff_settings *s, const diff_options *o)
{
    memset(s, 0, sizeof *s);
    s->opts = o;
    s->key = !o->key || !strcmp(o->key, "file:func") ? TFMT_FLAT_KEY_FILE_FUNC
             : !strcmp(o->key, "func")               ? TFMT_FLAT_KEY_FUNC
                                       : TFMT_FLAT_KEY_FILE_FUNC_LINE;
    s->norm = !o->normalize || !strcmp(o->normalize, "share") ? NORM_SHARE
              : !strcmp(o->normalize, "time")                 ? NORM_TIME
                                                              : NORM_NONE;
    s->norm_requested = s->norm;
    s->metric = o->metric && !strcmp(o->metric, "cumulative") ? M_CUM : M_SELF;
    s->format = format_of(o->format);
    s->min_delta = 0.5;
    s->min_samples = 5;
    s->alpha = 0.05;
    s->fail_on = -1;
    if (s->format == FMT_TABLE || s->format == FMT_MARKDOWN)
        s->top = 20;
    s->color = s->format == FMT_TABLE && want_color(o);
    int code = cli_input_limits_set(&o->limits);
    if (code == CLI_EXIT_OK)
        code = cli_reader_options(&o->reader, &s->bin);
    return code != CLI_EXIT_OK ? code : numbers(s, o);
}

/* Positional operands fill the sides --base/--new did not give. */
static int sides(diff_ctx *c, const diff_options *o)
{
    const cli_list *ops = &o->operands;
    size_t need = (o->base.count == 0) + (o->new_.count == 0);
    if (ops->count != need && need == 0)
        return cli_usage("unexpected operand '%s' with --base and --new",
                         ops->items[0]);
    if (ops->count != need)
        return cli_usage("expected a BASE and a NEW profile");
    static cli_list b, n;
    b = o->base;
    n = o->new_;
    size_t k = 0;
    if (!b.count)
        b = (cli_list){&ops->items[k++], 1, 1};
    if (!n.count)
        n = (cli_list){&ops->items[k], 1, 1};
    c->base = (diff_side){.name = "base", .files = &b};
    c->new_ = (diff_side){.name = "new", .files = &n};
    /* collapsed-diff has no tests: its sides are summed, as ever */
    c->runs_mode = b.count >= 2 && n.count >= 2 && c->set->format != FMT_FOLDED;
    if (c->runs_mode &&
        (diff_runs_begin(&c->base) < 0 || diff_runs_begin(&c->new_) < 0))
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    return CLI_EXIT_OK;
}

/*
 * One run on a side: the tests can only see sampling noise, and the
 * gate trusts a difference that the next run may not repeat.
 */
static void single_run_warning(const diff_ctx *c)
{
    size_t nb = c->base.files->count, nn = c->new_.files->count;
    if (c->runs_mode || c->set->format == FMT_FOLDED)
        return;
    cli_warn("%s: the tests measure sampling noise only, not run-to-run "
             "variation; give each side several runs (--base/--new "
             "repeated) for a trustworthy gate",
             nb == 1 && nn == 1 ? "one run a side"
             : nb == 1          ? "one base run"
                                : "one new run");
}

/* Compile every --rewrite, --include and --exclude, in that order. */
static int rules(tfmt_match **out, const diff_options *o)
{
    static const struct {
        tfmt_match_kind kind;
        const char *name;
        size_t off;
    } lists[] = {
        {TFMT_MATCH_REWRITE, "--rewrite", offsetof(diff_options, rewrite)},
        {TFMT_MATCH_INCLUDE, "--include", offsetof(diff_options, include)},
        {TFMT_MATCH_EXCLUDE, "--exclude", offsetof(diff_options, exclude)},
    };
    if (tfmt_match_new(out, NULL) < 0)
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    for (size_t i = 0; i < 3; i++) {
        const cli_list *l = (const void *)((const char *)o + lists[i].off);
        for (size_t j = 0; j < l->count; j++) {
            tfmt_error err;
            memset(&err, 0, sizeof err);
            int rc = tfmt_match_add(*out, lists[i].kind, l->items[j], &err);
            if (rc == TFMT_ENOMEM)
                return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
            if (rc < 0)
                return cli_usage("%s: %s", lists[i].name, err.msg);
        }
    }
    return CLI_EXIT_OK;
}

/* Pick the denominators; `time` falls back to `share` when it must. */
static void denominators(diff_ctx *c, diff_settings *s)
{
    const tfmt_flat_info *b = tfmt_flat_get_info(c->base.flat);
    const tfmt_flat_info *n = tfmt_flat_get_info(c->new_.flat);
    if (s->norm == NORM_TIME && !(b->has_duration && n->has_duration)) {
        cli_warn("--normalize time: the %s profile has no measured duration "
                 "(JSONL has none; binary logs need a statistics block); "
                 "using share",
                 b->has_duration ? "new" : "base");
        s->norm = NORM_SHARE;
    }
    c->base.denom = s->norm == NORM_TIME ? b->ticks : (double)b->samples;
    c->new_.denom = s->norm == NORM_TIME   ? n->ticks
                    : s->norm == NORM_NONE ? (double)b->samples
                                           : (double)n->samples;
}

/* A format drawn from call paths needs binary logs on both sides. */
static int check_stacks(const diff_ctx *c)
{
    const diff_side *sides[2] = {&c->base, &c->new_};
    if (!diff_format_stacks(c->set->format))
        return CLI_EXIT_OK;
    for (int i = 0; i < 2; i++)
        if (sides[i]->jsonl_file)
            return cli_file_fail(CLI_EXIT_TROUBLE,
                                 cli_input_name(sides[i]->jsonl_file), "%s",
                                 TFMT_JSONL_NO_STACKS);
    return CLI_EXIT_OK;
}

static int output(diff_ctx *c)
{
    const diff_settings *s = c->set;
    int code = check_stacks(c);
    if (code != CLI_EXIT_OK)
        return code;
    diff_out o;
    code = diff_out_open(&o, s);
    if (code != CLI_EXIT_OK)
        return code;
    switch (s->format) {
    case FMT_TABLE: diff_write_table(&o, c); break;
    case FMT_JSON: diff_write_json(&o, c); break;
    case FMT_MARKDOWN: diff_write_markdown(&o, c); break;
    case FMT_CSV: diff_write_csv(&o, c); break;
    case FMT_FOLDED:
        if (diff_write_folded(&o, c) < 0)
            o.failed = true;
        break;
    case FMT_SVG:
    case FMT_HTML:
        if (diff_write_flame(&o, c, s->format == FMT_HTML) < 0)
            o.failed = true;
        break;
    }
    return diff_out_close(&o, s);
}

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* -v: "phase: wall W s, cpu C s" on stderr (cpu: all threads). */
typedef struct stamp {
    double wall, cpu;
} stamp;

static stamp now(void)
{
    stamp s = {clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_PROCESS_CPUTIME_ID)};
    return s;
}

static void timing(const diff_settings *s, const char *what, stamp *t)
{
    stamp t1 = now();
    if (s->opts->verbose)
        fprintf(stderr, "%s: %s: wall %.3f s, cpu %.3f s\n", cli_program(),
                what, t1.wall - t->wall, t1.cpu - t->cpu);
    *t = t1;
}

typedef struct loader {
    diff_side *side;
    const diff_settings *set;
    tfmt_match *match;
    int code;
} loader;

static void *load_thread(void *arg)
{
    loader *l = arg;
    l->code = diff_load(l->side, l->set, l->match);
    return NULL;
}

/*
 * The two sides are independent: load base on a second thread while this
 * one loads new (each with its own rule set; tfmt_match is not
 * thread-safe). Without a thread, load one after the other.
 */
static int load_both(diff_ctx *c, const diff_settings *s, tfmt_match **m)
{
    loader lb = {&c->base, s, m[0], CLI_EXIT_OK};
    pthread_t th;
    bool threaded = pthread_create(&th, NULL, load_thread, &lb) == 0;
    if (!threaded)
        load_thread(&lb);
    diff_load(&c->new_, s, m[1]);
    if (threaded)
        pthread_join(th, NULL);
    int code = diff_load_report(&c->base);
    return code != CLI_EXIT_OK ? code : diff_load_report(&c->new_);
}

/* --include/--exclude that leave no row of profiles with samples. */
static void empty_warning(const diff_ctx *c, tfmt_match *m)
{
    const tfmt_flat_info *b = tfmt_flat_get_info(c->base.flat);
    const tfmt_flat_info *n = tfmt_flat_get_info(c->new_.flat);
    bool names = tfmt_match_count(m, TFMT_MATCH_INCLUDE) ||
                 tfmt_match_count(m, TFMT_MATCH_EXCLUDE);
    if (names && c->res.n == 0 && (b->samples || n->samples))
        cli_warn("--include/--exclude left nothing to report (base %llu "
                 "samples, new %llu): the report is empty",
                 (unsigned long long)b->samples,
                 (unsigned long long)n->samples);
}

static int run(diff_ctx *c, diff_settings *s, tfmt_match **m)
{
    stamp t = now();
    int code = load_both(c, s, m);
    timing(s, "load", &t);
    if (code != CLI_EXIT_OK)
        return code;
    denominators(c, s);
    single_run_warning(c);
    if (diff_compare(c) < 0)
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    timing(s, "compare", &t);
    empty_warning(c, m[0]);
    code = output(c);
    timing(s, "output", &t);
    if (code == CLI_EXIT_OK && c->res.tripped)
        code = CLI_EXIT_GATE;
    return code;
}

int run_diff(const diff_options *opts)
{
    diff_settings set;
    diff_ctx c;
    tfmt_match *m[2] = {NULL, NULL};
    memset(&c, 0, sizeof c);
    c.set = &set;
    int code = settings(&set, opts);
    if (code == CLI_EXIT_OK)
        code = sides(&c, opts);
    if (code == CLI_EXIT_OK)
        code = rules(&m[0], opts);
    if (code == CLI_EXIT_OK)
        code = rules(&m[1], opts);
    if (code == CLI_EXIT_OK)
        code = run(&c, &set, m);
    diff_result_free(&c.res);
    diff_runs_free(&c.base);
    diff_runs_free(&c.new_);
    tfmt_flat_free(c.base.flat);
    tfmt_flat_free(c.new_.flat);
    tfmt_match_free(m[0]);
    tfmt_match_free(m[1]);
    return code;
}
