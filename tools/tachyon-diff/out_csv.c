/*
 * out_csv.c - --format csv: one header line, then one line per row with
 * every figure (RFC 4180 quoting; empty cells for figures that could not
 * be computed). The signed sample-count deltas come last, so the column
 * numbers of the older columns stay put.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

static void csv_str(diff_out *o, const char *s, size_t n)
{
    bool quote = false;
    for (size_t i = 0; i < n && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (!quote) {
        diff_out_write(o, s, n);
        return;
    }
    diff_out_write(o, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            diff_out_write(o, "\"", 1);
        diff_out_write(o, s + i, 1);
    }
    diff_out_write(o, "\"", 1);
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
    diff_fig f;
    diff_figure(c, r, M_SELF, &f);
    figure(o, &f);
    int64_t self_delta = (int64_t)(f.new_ - f.base);
    diff_figure(c, r, M_CUM, &f);
    figure(o, &f);
    diff_out_lit(o, ",");
    diff_out_i64(o, self_delta);
    diff_out_lit(o, ",");
    diff_out_i64(o, (int64_t)(f.new_ - f.base));
    diff_out_lit(o, "\n");
}

void diff_write_csv(diff_out *o, const diff_ctx *c)
{
    static const char *const fig[] = {"self", "cum"};
    diff_out_printf(o, "key,file,func,line,status,verdict");
    for (int i = 0; i < 2; i++)
        diff_out_printf(o, ",%s_base,%s_new,%s_base_pct,%s_new_pct,"
                        "%s_delta_pp,%s_p,%s_q,%s_test,%s_verdict", fig[i],
                        fig[i], fig[i], fig[i], fig[i], fig[i], fig[i],
                        fig[i], fig[i]);
    diff_out_printf(o, ",self_delta_samples,cum_delta_samples\n");
    size_t shown = diff_shown(c, c->res.n);
    for (size_t i = 0; i < shown; i++)
        row(o, c, diff_sorted(&c->res, i));
}
