/* SPDX-License-Identifier: MIT */
/*
 * out_csv.c - --format csv: one header line, then one line per row with
 * every figure (RFC 4180 quoting; empty cells for figures that could not
 * be computed). Later columns come last, so the column numbers of the
 * older ones stay put: the signed sample-count deltas, then the runs a
 * side and each figure's per-run spread, standard error, degrees of
 * freedom and gate test.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

/*
 * A text cell: RFC 4180 quoting, names as inert text, and a leading ' in
 * a cell that starts with = + - @ so a spreadsheet shows it as text
 * (fmt_text.h's CSV style).
 */
static void csv_str(diff_out *o, const char *s, size_t n)
{
    diff_out_text(o, s, n, TFMT_TEXT_CSV);
}

/* A number, or an empty cell when it is not finite. */
static void csv_num(diff_out *o, double v, int prec)
{
    if (isfinite(v))
        diff_out_num(o, v, prec);
}

static void figure(diff_out *o, const diff_fig *f)
{
    diff_out_lit(o, ",");
    diff_out_u64(o, f->base);
    diff_out_lit(o, ",");
    diff_out_u64(o, f->new_);
    diff_out_lit(o, ",");
    csv_num(o, f->base_pct, 6);
    diff_out_lit(o, ",");
    csv_num(o, f->new_pct, 6);
    diff_out_lit(o, ",");
    csv_num(o, f->delta, 6);
    diff_out_lit(o, ",");
    csv_num(o, f->p, -6);
    diff_out_lit(o, ",");
    csv_num(o, f->q, -6);
    diff_out_lit(o, ",");
    diff_out_str(o, diff_test_name(f->test));
    diff_out_lit(o, ",");
    diff_out_str(o, diff_verdict_name(f->verdict));
}

/* The spread and gate cells of one figure (appended at the end). */
static void figure_runs(diff_out *o, const diff_fig *f)
{
    diff_out_lit(o, ",");
    csv_num(o, f->base_sd, 6);
    diff_out_lit(o, ",");
    csv_num(o, f->new_sd, 6);
    diff_out_lit(o, ",");
    csv_num(o, f->se, 6);
    diff_out_lit(o, ",");
    csv_num(o, f->df, -6);
    diff_out_lit(o, ",");
    csv_num(o, f->gate_p, -6);
    diff_out_lit(o, ",");
    csv_num(o, f->gate_q, -6);
}

/* The key, file, func and line cells. */
static void row_key(diff_out *o, const diff_ctx *c, const diff_row *r)
{
    tfmt_flat_row k;
    char small[4096];
    size_t n;
    diff_row_key(c, r, &k);
    char *key = diff_key_full(c, r, small, sizeof small, &n);
    csv_str(o, key, n);
    if (key != small)
        free(key);
    diff_out_lit(o, ",");
    csv_str(o, k.file.ptr, k.file.len);
    diff_out_lit(o, ",");
    csv_str(o, k.func.ptr, k.func.len);
    diff_out_lit(o, ",");
    if (k.line >= 0)
        diff_out_i64(o, k.line);
}

static void row(diff_out *o, const diff_ctx *c, const diff_row *r)
{
    row_key(o, c, r);
    diff_out_lit(o, ",");
    diff_out_str(o, diff_row_status(r));
    diff_out_lit(o, ",");
    diff_out_str(o, diff_verdict_name(r->verdict[c->set->metric]));
    diff_fig f[2];
    diff_figure(c, r, M_SELF, &f[0]);
    figure(o, &f[0]);
    diff_figure(c, r, M_CUM, &f[1]);
    figure(o, &f[1]);
    diff_out_lit(o, ",");
    diff_out_delta(o, f[0].base, f[0].new_);
    diff_out_lit(o, ",");
    diff_out_delta(o, f[1].base, f[1].new_);
    diff_out_lit(o, ",");
    diff_out_u64(o, f[0].base_runs);
    diff_out_lit(o, ",");
    diff_out_u64(o, f[0].new_runs);
    figure_runs(o, &f[0]);
    figure_runs(o, &f[1]);
    diff_out_lit(o, "\n");
}

void diff_write_csv(diff_out *o, const diff_ctx *c)
{
    static const char *const fig[] = {"self", "cum"};
    diff_out_printf(o, "key,file,func,line,status,verdict");
    for (int i = 0; i < 2; i++)
        diff_out_printf(o,
                        ",%s_base,%s_new,%s_base_pct,%s_new_pct,"
                        "%s_delta_pp,%s_p,%s_q,%s_test,%s_verdict",
                        fig[i], fig[i], fig[i], fig[i], fig[i], fig[i], fig[i],
                        fig[i], fig[i]);
    diff_out_printf(o, ",self_delta_samples,cum_delta_samples,base_runs,"
                       "new_runs");
    for (int i = 0; i < 2; i++)
        diff_out_printf(o,
                        ",%s_base_sd_pp,%s_new_sd_pp,%s_se_pp,%s_df,"
                        "%s_gate_p,%s_gate_q",
                        fig[i], fig[i], fig[i], fig[i], fig[i], fig[i]);
    diff_out_printf(o, "\n");
    size_t shown = diff_shown(c, c->res.n);
    for (size_t i = 0; i < shown; i++)
        row(o, c, diff_sorted(&c->res, i));
}
