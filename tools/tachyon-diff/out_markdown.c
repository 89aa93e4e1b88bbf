/* SPDX-License-Identifier: MIT */
/*
 * out_markdown.c - --format markdown: a compact pull-request comment. A
 * headline with the verdict counts and the gate, one line on what was
 * compared, a table of the rows that did not stay unchanged (top N), and
 * a footnote on the method.
 */
#include <stdlib.h>
#include <string.h>

#include "diff.h"

/*
 * A markdown table cell's code span: the name as inert text in markdown
 * style (fmt_text.h), so a newline, a pipe or a backquote in a name can
 * neither end the row or the span nor start a heading or an HTML comment
 * that would hide the rest of the comment.
 */
static void cell_code(diff_out *o, const char *s, size_t n)
{
    diff_out_write(o, "`", 1);
    diff_out_text(o, s, n, TFMT_TEXT_MARKDOWN);
    diff_out_write(o, "`", 1);
}

static void headline(diff_out *o, const diff_ctx *c)
{
    const diff_result *r = &c->res;
    diff_out_printf(o, "### tachyon-diff: %zu regressed, %zu improved",
                    r->counts[V_REGRESSED], r->counts[V_IMPROVED]);
    if (c->set->fail_on >= 0)
        diff_out_printf(o, " \xe2\x80\x94 gate (> %.2f pp) **%s**",
                        c->set->fail_on, r->tripped ? "failed" : "passed");
    if (c->runs_mode)
        diff_out_printf(o, " \xe2\x80\x94 %zu vs %zu runs", c->base.n_runs,
                        c->new_.n_runs);
    else
        diff_out_printf(o, " \xe2\x80\x94 single runs: sampling noise "
                           "only, not run-to-run variation");
    const tfmt_flat_info *b = tfmt_flat_get_info(c->base.flat);
    const tfmt_flat_info *n = tfmt_flat_get_info(c->new_.flat);
    diff_out_printf(o,
                    "\n\nBase %llu samples, new %llu samples; key `%s`, "
                    "normalize `%s`, metric `%s`; %zu keys: %zu unchanged, "
                    "%zu inconclusive, %zu new, %zu vanished.\n\n",
                    (unsigned long long)b->samples,
                    (unsigned long long)n->samples, diff_key_name(c->set->key),
                    diff_norm_name(c->set->norm),
                    c->set->metric == M_SELF ? "self" : "cumulative", r->n,
                    r->counts[V_UNCHANGED], r->counts[V_INCONCLUSIVE], r->n_new,
                    r->n_vanished);
    if (c->cum_per_frame)
        diff_out_printf(o, "Cumulative figures are JSONL's per-frame sums "
                           "(an input has no stacks).\n\n");
}

static void row(diff_out *o, const diff_ctx *c, const diff_row *r)
{
    diff_fig figs[2];
    diff_figure(c, r, M_SELF, &figs[0]);
    diff_figure(c, r, M_CUM, &figs[1]);
    const diff_fig *f = &figs[c->set->metric];
    char small[1024], a[32], b[32], ds[32], dc[32], p[32], sb[32], sn[32];
    size_t klen;
    char *key = diff_key_full(c, r, small, sizeof small, &klen);
    diff_fmt_num(a, sizeof a, f->base_pct, 2);
    diff_fmt_num(b, sizeof b, f->new_pct, 2);
    diff_fmt_delta(ds, sizeof ds, figs[M_SELF].delta, 2);
    diff_fmt_delta(dc, sizeof dc, figs[M_CUM].delta, 2);
    if (!diff_fmt_num(p, sizeof p, f->p, -3))
        strcpy(p, "-");
    if (!diff_fmt_num(sb, sizeof sb, f->base_sd, 2) ||
        !diff_fmt_num(sn, sizeof sn, f->new_sd, 2)) {
        strcpy(sb, "-");
        sn[0] = '\0';
    }
    diff_out_printf(o, "| %s%s | ", diff_verdict_name(f->verdict),
                    r->bi == DIFF_NONE   ? " (new)"
                    : r->ni == DIFF_NONE ? " (gone)"
                                         : "");
    cell_code(o, key, klen);
    if (key != small)
        free(key);
    diff_out_printf(o,
                    " | %s%% | %s%% | %s | %s | %s | %s | %zu+%zu | %s%s%s "
                    "|\n",
                    a, b, ds, dc, p, diff_test_name(f->test), f->base_runs,
                    f->new_runs, sb, sn[0] ? " / " : "", sn);
}

/* How the rows were judged, and what the gate means. */
static void footnote(diff_out *o, const diff_ctx *c)
{
    const diff_settings *s = c->set;
    if (c->runs_mode)
        diff_out_printf(o, "\n<sub>Student's t per row on the per-run "
                           "percents (between-run variance pooled over both "
                           "sides), ");
    else
        diff_out_printf(o, "\n<sub>Two-sided tests per row on sampling "
                           "noise only (repeat the runs for a trustworthy "
                           "gate), ");
    diff_out_printf(o,
                    "Benjamini-Hochberg q < %g; changes under %g pp or "
                    "with fewer than %llu samples are not judged.",
                    s->alpha, s->min_delta, (unsigned long long)s->min_samples);
    if (s->fail_on >= 0)
        diff_out_printf(o,
                        " The gate fails when a regression is "
                        "significantly above %g pp (one-sided, family-wise "
                        "error at most %g).",
                        s->fail_on, s->alpha);
    diff_out_printf(o, "</sub>\n");
}

void diff_write_markdown(diff_out *o, const diff_ctx *c)
{
    const diff_result *res = &c->res;
    int m = c->set->metric;
    size_t limit = diff_shown(c, res->n), shown = 0, changed = 0;
    headline(o, c);
    for (size_t i = 0; i < res->n; i++)
        changed += res->rows[i].verdict[m] != V_UNCHANGED;
    if (changed == 0) {
        diff_out_printf(o,
                        "No row changed by %g percentage points or "
                        "more.\n",
                        c->set->min_delta);
    } else {
        diff_out_printf(o,
                        "| verdict | key | %s base | %s new | "
                        "\xce\x94 self (pp) | \xce\x94 cum (pp) | p | test "
                        "| runs | sd (pp) |\n"
                        "|---|---|--:|--:|--:|--:|--:|---|--:|--:|\n",
                        m == M_SELF ? "self" : "cum",
                        m == M_SELF ? "self" : "cum");
        for (size_t i = 0; i < res->n && shown < limit; i++) {
            const diff_row *r = diff_sorted(res, i);
            if (r->verdict[m] == V_UNCHANGED)
                continue;
            row(o, c, r);
            shown++;
        }
        if (shown < changed)
            diff_out_printf(o, "\n%zu more changed rows not shown.\n",
                            changed - shown);
    }
    footnote(o, c);
}
