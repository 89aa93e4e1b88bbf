/* SPDX-License-Identifier: MIT */
/*
 * out_json.c - --format json: the settings, both sides' totals, the
 * summary and every figure of every row (or the top N), for scripts.
 * Percentages (and spreads, in points) have 6 decimals, p, q and degrees
 * of freedom 6 significant digits; a figure that could not be computed
 * is null. Per row "runs":[base,new]; per figure the per-run "spread"
 * (null with one run on a side) and the "gate" test (null untested).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

static void str_list(diff_out *o, const char *name, const cli_list *l)
{
    diff_out_printf(o, "\"%s\":[", name);
    for (size_t i = 0; i < l->count; i++) {
        if (i)
            diff_out_write(o, ",", 1);
        diff_out_json_str(o, l->items[i], strlen(l->items[i]));
    }
    diff_out_write(o, "]", 1);
}

static void settings(diff_out *o, const diff_ctx *c)
{
    const diff_settings *s = c->set;
    diff_out_printf(o,
                    "\"settings\":{\"key\":\"%s\",\"normalize\":\"%s\","
                    "\"normalize_requested\":\"%s\",\"metric\":\"%s\","
                    "\"min_delta_pp\":",
                    diff_key_name(s->key), diff_norm_name(s->norm),
                    diff_norm_name(s->norm_requested),
                    s->metric == M_SELF ? "self" : "cumulative");
    diff_out_num(o, s->min_delta, -6);
    diff_out_printf(o, ",\"min_samples\":%llu,\"alpha\":",
                    (unsigned long long)s->min_samples);
    diff_out_num(o, s->alpha, -6);
    diff_out_printf(o, ",\"fail_on_regression_pp\":");
    diff_out_num(o, s->fail_on >= 0 ? s->fail_on : NAN, -6);
    diff_out_printf(o,
                    ",\"top\":%zu,\"cumulative\":\"%s\","
                    "\"between_runs\":%s,",
                    s->top, c->cum_per_frame ? "per-frame" : "per-stack",
                    c->runs_mode ? "true" : "false");
    str_list(o, "rewrite", &s->opts->rewrite);
    diff_out_write(o, ",", 1);
    str_list(o, "include", &s->opts->include);
    diff_out_write(o, ",", 1);
    str_list(o, "exclude", &s->opts->exclude);
    diff_out_printf(o, "}");
}

static void side(diff_out *o, const diff_side *s)
{
    const tfmt_flat_info *in = tfmt_flat_get_info(s->flat);
    diff_out_printf(o, "\"%s\":{", s->name);
    str_list(o, "files", s->files);
    diff_out_printf(o, ",\"samples\":%llu,\"keys\":%zu,\"interval_us\":",
                    (unsigned long long)in->samples, tfmt_flat_count(s->flat));
    if (in->interval_us)
        diff_out_printf(o, "%llu", (unsigned long long)in->interval_us);
    else
        diff_out_printf(o, "null");
    diff_out_printf(o, ",\"duration_s\":");
    diff_out_num(o, in->has_duration ? in->duration_s : NAN, -10);
    diff_out_printf(o, ",\"ticks\":");
    diff_out_num(o, in->has_duration ? in->ticks : NAN, -10);
    diff_out_printf(o, ",\"denominator\":");
    diff_out_num(o, s->denom, -10);
    diff_out_printf(o, ",\"exact_cumulative\":%s}",
                    in->exact_cumulative ? "true" : "false");
}

static void summary(diff_out *o, const diff_ctx *c)
{
    const diff_result *r = &c->res;
    diff_out_printf(o, "\"summary\":{\"keys\":%zu", r->n);
    for (int v = 0; v < V_COUNT; v++)
        diff_out_printf(o, ",\"%s\":%zu", diff_verdict_name(v), r->counts[v]);
    diff_out_printf(o, ",\"new\":%zu,\"vanished\":%zu,\"gate\":", r->n_new,
                    r->n_vanished);
    if (c->set->fail_on < 0)
        diff_out_printf(o, "null}");
    else
        diff_out_printf(o, "{\"threshold_pp\":%g,\"tripped\":%s}}",
                        c->set->fail_on, r->tripped ? "true" : "false");
}

/* The sample counts and shares of one figure ("name":{...). */
static void figure_shares(diff_out *o, const char *name, const diff_fig *f)
{
    diff_out_lit(o, "\"");
    diff_out_str(o, name);
    diff_out_lit(o, "\":{\"base\":");
    diff_out_u64(o, f->base);
    diff_out_lit(o, ",\"new\":");
    diff_out_u64(o, f->new_);
    diff_out_lit(o, ",\"delta_samples\":");
    diff_out_delta(o, f->base, f->new_);
    diff_out_lit(o, ",\"base_pct\":");
    diff_out_num(o, f->base_pct, 6);
    diff_out_lit(o, ",\"new_pct\":");
    diff_out_num(o, f->new_pct, 6);
    diff_out_lit(o, ",\"delta_pp\":");
    diff_out_num(o, f->delta, 6);
    diff_out_lit(o, ",\"relative_pct\":");
    diff_out_num(o, f->base_pct > 0 ? 100 * f->delta / f->base_pct : NAN, 6);
}

/* {"p":..,"q":..} or null: the gate's one-sided test (NaN: untested). */
static void gate_test(diff_out *o, const diff_fig *f)
{
    if (isnan(f->gate_q)) {
        diff_out_lit(o, "null");
        return;
    }
    diff_out_lit(o, "{\"p\":");
    diff_out_num(o, f->gate_p, -6);
    diff_out_lit(o, ",\"q\":");
    diff_out_num(o, f->gate_q, -6);
    diff_out_lit(o, "}");
}

/* {"base_sd_pp":..,"new_sd_pp":..,"df":..} in runs mode, else null. */
static void spread(diff_out *o, const diff_fig *f)
{
    if (isnan(f->base_sd) && isnan(f->new_sd)) {
        diff_out_lit(o, "null");
        return;
    }
    diff_out_lit(o, "{\"base_sd_pp\":");
    diff_out_num(o, f->base_sd, 6);
    diff_out_lit(o, ",\"new_sd_pp\":");
    diff_out_num(o, f->new_sd, 6);
    diff_out_lit(o, ",\"df\":");
    diff_out_num(o, f->df, -6);
    diff_out_lit(o, "}");
}

/*
 * The test of one figure: p, q, the test's name, the standard error of
 * the change, the per-run spread and the gate's test; then the verdict
 * (...}).
 */
static void figure_test(diff_out *o, const diff_fig *f)
{
    diff_out_lit(o, ",\"p\":");
    diff_out_num(o, f->p, -6);
    diff_out_lit(o, ",\"q\":");
    diff_out_num(o, f->q, -6);
    diff_out_lit(o, ",\"test\":\"");
    diff_out_str(o, diff_test_name(f->test));
    diff_out_lit(o, "\",\"se_pp\":");
    diff_out_num(o, f->se, 6);
    diff_out_lit(o, ",\"spread\":");
    spread(o, f);
    diff_out_lit(o, ",\"gate\":");
    gate_test(o, f);
    diff_out_lit(o, ",\"verdict\":\"");
    diff_out_str(o, diff_verdict_name(f->verdict));
    diff_out_lit(o, "\"}");
}

static void figure(diff_out *o, const char *name, const diff_fig *f)
{
    figure_shares(o, name, f);
    figure_test(o, f);
}

/* The row's key, file, func and line ({...). */
static void row_key(diff_out *o, const diff_ctx *c, const diff_row *r)
{
    tfmt_flat_row k;
    char small[4096];
    size_t n;
    diff_row_key(c, r, &k);
    char *key = diff_key_full(c, r, small, sizeof small, &n);
    diff_out_lit(o, "{\"key\":");
    diff_out_json_str(o, key, n);
    if (key != small)
        free(key);
    diff_out_lit(o, ",\"file\":");
    if (c->set->key == TFMT_FLAT_KEY_FUNC)
        diff_out_lit(o, "null");
    else
        diff_out_json_str(o, k.file.ptr, k.file.len);
    diff_out_lit(o, ",\"func\":");
    diff_out_json_str(o, k.func.ptr, k.func.len);
    diff_out_lit(o, ",\"line\":");
    if (c->set->key == TFMT_FLAT_KEY_FILE_FUNC_LINE)
        diff_out_i64(o, k.line);
    else
        diff_out_lit(o, "null");
}

static void row(diff_out *o, const diff_ctx *c, const diff_row *r)
{
    row_key(o, c, r);
    diff_out_lit(o, ",\"status\":\"");
    diff_out_str(o, diff_row_status(r));
    diff_out_lit(o, "\",\"verdict\":\"");
    diff_out_str(o, diff_verdict_name(r->verdict[c->set->metric]));
    diff_out_lit(o, "\",\"runs\":[");
    diff_out_u64(o, c->base.files->count);
    diff_out_lit(o, ",");
    diff_out_u64(o, c->new_.files->count);
    diff_out_lit(o, "],");
    diff_fig f;
    diff_figure(c, r, M_SELF, &f);
    figure(o, "self", &f);
    diff_out_lit(o, ",");
    diff_figure(c, r, M_CUM, &f);
    figure(o, "cumulative", &f);
    diff_out_lit(o, "}");
}

void diff_write_json(diff_out *o, const diff_ctx *c)
{
    diff_out_printf(o, "{\"tool\":\"tachyon-diff\",\"report_version\":1,");
    settings(o, c);
    diff_out_write(o, ",", 1);
    side(o, &c->base);
    diff_out_write(o, ",", 1);
    side(o, &c->new_);
    diff_out_write(o, ",", 1);
    summary(o, c);
    diff_out_printf(o, ",\"rows\":[");
    size_t shown = diff_shown(c, c->res.n);
    for (size_t i = 0; i < shown; i++) {
        diff_out_write(o, i ? ",\n" : "\n", i ? 2 : 1);
        row(o, c, diff_sorted(&c->res, i));
    }
    diff_out_printf(o, "\n]}\n");
}
