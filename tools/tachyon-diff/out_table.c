/* SPDX-License-Identifier: MIT */
/*
 * out_table.c - the terminal table: a header saying what was compared and
 * how, the top rows by size of change (with the test, the runs and
 * their spread), and a summary line. Verdicts are
 * colored when stdout is a terminal (NO_COLOR and --color respected).
 */
#include <stdlib.h>
#include <string.h>

#include "diff.h"

static const char *const colors[] = {"\033[31m", "\033[32m", "\033[2m",
                                     "\033[33m"};

static void side_line(diff_out *o, const diff_side *s)
{
    const tfmt_flat_info *in = tfmt_flat_get_info(s->flat);
    if (s->files->count == 1) {
        const char *name = cli_input_name(s->files->items[0]);
        diff_out_printf(o, "%s: ", s->name);
        diff_out_text(o, name, strlen(name), TFMT_TEXT_PLAIN);
        diff_out_printf(o, " (%llu samples", (unsigned long long)in->samples);
    } else
        diff_out_printf(o, "%s: %zu files (%llu samples", s->name,
                        s->files->count, (unsigned long long)in->samples);
    if (in->has_duration)
        diff_out_printf(o, ", %.3f s", in->duration_s);
    diff_out_printf(o, ")\n");
}

static const char *unit(diff_norm n)
{
    return n == NORM_SHARE  ? "% of each side's samples"
           : n == NORM_TIME ? "% of each side's sampling ticks"
                            : "% of the base samples";
}

static void header(diff_out *o, const diff_ctx *c)
{
    const diff_settings *s = c->set;
    side_line(o, &c->base);
    side_line(o, &c->new_);
    diff_out_printf(o,
                    "key %s, normalize %s (%s), metric %s, "
                    "significance q < %g\n",
                    diff_key_name(s->key), diff_norm_name(s->norm),
                    unit(s->norm), s->metric == M_SELF ? "self" : "cumulative",
                    s->alpha);
    if (c->runs_mode)
        diff_out_printf(o, "runs kept apart: Student's t on the per-run "
                           "percents (between-run variance)\n");
    else
        diff_out_printf(o, "%s: the tests see sampling noise only\n",
                        c->base.files->count == 1 && c->new_.files->count == 1
                            ? "one run a side"
                            : "one run on a side (the other summed)");
    if (c->cum_per_frame)
        diff_out_printf(o, "cumulative: summed per frame as JSONL does (an "
                           "input has no stacks; recursion may count twice)\n");
    diff_out_printf(o,
                    "\n%-12s  %8s %8s %8s  %8s %8s %8s  %8s  %-6s %5s "
                    "%11s  %s\n",
                    "VERDICT", "SELF%", "new", "delta", "CUM%", "new", "delta",
                    "p", "TEST", "RUNS", "SD b/n", "KEY");
}

static void fig_cols(diff_out *o, const diff_fig *f)
{
    char a[32], b[32], d[32];
    diff_fmt_num(a, sizeof a, f->base_pct, 2);
    diff_fmt_num(b, sizeof b, f->new_pct, 2);
    diff_fmt_delta(d, sizeof d, f->delta, 2);
    diff_out_printf(o, "  %8s %8s %8s", a, b, d);
}

/* "5+5": the runs behind each side. */
static const char *runs_text(const diff_fig *f, char *buf, size_t cap)
{
    snprintf(buf, cap, "%zu+%zu", f->base_runs, f->new_runs);
    return buf;
}

/* "0.41/0.45": the per-run standard deviations (points), "-": one run. */
static const char *sd_text(const diff_fig *f, char *buf, size_t cap)
{
    char b[32], n[32];
    if (!diff_fmt_num(b, sizeof b, f->base_sd, 2) ||
        !diff_fmt_num(n, sizeof n, f->new_sd, 2))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%s/%s", b, n);
    return buf;
}

static void row(diff_out *o, const diff_ctx *c, const diff_row *r)
{
    diff_fig figs[2];
    diff_figure(c, r, M_SELF, &figs[0]);
    diff_figure(c, r, M_CUM, &figs[1]);
    const diff_fig *f = &figs[c->set->metric];
    char small[1024], p[32], rn[48], sd[80];
    const char *v = diff_verdict_name(f->verdict);
    if (c->set->color)
        diff_out_printf(o, "%s%-12s\033[0m", colors[f->verdict], v);
    else
        diff_out_printf(o, "%-12s", v);
    fig_cols(o, &figs[M_SELF]);
    fig_cols(o, &figs[M_CUM]);
    if (!diff_fmt_num(p, sizeof p, f->p, -3))
        strcpy(p, "-");
    diff_out_printf(o, "  %8.8s  %-6s %5s %11s  ", p, diff_test_name(f->test),
                    runs_text(f, rn, sizeof rn), sd_text(f, sd, sizeof sd));
    /* the key as inert text: a newline or an escape sequence in a name
     * neither forges a row nor reaches the terminal */
    size_t klen;
    char *key = diff_key_full(c, r, small, sizeof small, &klen);
    diff_out_text(o, key, klen, TFMT_TEXT_PLAIN);
    if (key != small)
        free(key);
    diff_out_printf(o, "%s\n",
                    r->bi == DIFF_NONE   ? " [new]"
                    : r->ni == DIFF_NONE ? " [gone]"
                                         : "");
}

void diff_write_table(diff_out *o, const diff_ctx *c)
{
    const diff_result *res = &c->res;
    size_t shown = diff_shown(c, res->n);
    header(o, c);
    for (size_t i = 0; i < shown; i++)
        row(o, c, diff_sorted(res, i));
    if (shown < res->n)
        diff_out_printf(o, "(%zu of %zu keys shown; --top 0 shows all)\n",
                        shown, res->n);
    diff_out_printf(o,
                    "\n%zu regressed, %zu improved, %zu unchanged, "
                    "%zu inconclusive; %zu new, %zu vanished keys\n",
                    res->counts[V_REGRESSED], res->counts[V_IMPROVED],
                    res->counts[V_UNCHANGED], res->counts[V_INCONCLUSIVE],
                    res->n_new, res->n_vanished);
    if (c->set->fail_on >= 0)
        diff_out_printf(o,
                        "gate: a %s regression significantly above %.2f "
                        "points: %s\n",
                        c->set->metric == M_SELF ? "self" : "cumulative",
                        c->set->fail_on, res->tripped ? "FAILED" : "passed");
}
