/* SPDX-License-Identifier: MIT */
/*
 * diff.h - tachyon-diff's modules: option checks and the run (run.c),
 * loading each side into a flat profile (load.c), joining and judging the
 * rows (compare.c), one figure of a row and its tests (figure.c), each
 * side's runs kept apart (runs.c), the statistics (stats.c), the output buffer
 * (out.c) and one file per output format (out_*.c).
 */
#ifndef TACHYON_DIFF_H
#define TACHYON_DIFF_H

#include <stdio.h>
#include <string.h>

#include "advise.h"
#include "cli.h"

/* The command line, as parsed (strings borrowed from argv). */
typedef struct diff_options {
    cli_list operands;   /* BASE NEW */
    cli_list base, new_; /* --base FILE, --new FILE (repeatable) */
    cli_list rewrite, include, exclude;
    const char *key, *normalize, *metric, *format, *color, *output;
    const char *min_delta, *min_samples, *alpha, *fail_on, *top;
    cli_reader_args reader;
    int force, quiet, verbose;
    cli_input_limits limits; /* --max-input-size, --max-input-ratio */
} diff_options;

typedef enum { NORM_SHARE, NORM_TIME, NORM_NONE } diff_norm;
typedef enum { M_SELF = 0, M_CUM = 1 } diff_metric;
typedef enum {
    FMT_TABLE,
    FMT_JSON,
    FMT_MARKDOWN,
    FMT_CSV,
    FMT_FOLDED,
    FMT_SVG, /* differential flame graphs (out_flame.c) */
    FMT_HTML
} diff_format;

/* The formats drawn from call paths: binary logs on both sides. */
static inline bool diff_format_stacks(diff_format f)
{
    return f == FMT_FOLDED || f == FMT_SVG || f == FMT_HTML;
}

/* Verdicts, in the order the summary lists them. */
typedef enum {
    V_REGRESSED,
    V_IMPROVED,
    V_UNCHANGED,
    V_INCONCLUSIVE,
    V_COUNT
} diff_verdict;

/* Which test gave a p-value. */
typedef enum { T_NONE, T_Z, T_FISHER, T_BINOM, T_NORMAL, T_WELCH } diff_test;

/* The checked settings. */
typedef struct diff_settings {
    tfmt_flat_key key;
    diff_norm norm, norm_requested;
    diff_metric metric;
    diff_format format;
    double min_delta, alpha, fail_on; /* fail_on < 0: no gate */
    uint64_t min_samples;
    size_t top; /* 0: all rows */
    bool color;
    tfmt_bin_options bin; /* --max-threads; no callbacks */
    const diff_options *opts;
} diff_settings;

/* One key's counts in one run. */
typedef struct diff_counts {
    uint64_t self, cum, cum_frames;
} diff_counts;

/*
 * One run of a side: one input file, kept apart from the side's other
 * runs (runs mode: both sides have several), so the tests can see how
 * much a figure moves from run to run. Rows are those of the side's
 * flat, which sums every run.
 */
typedef struct diff_run {
    uint64_t samples;    /* thread-samples of this run */
    double ticks;        /* sampling ticks; 0: no measured duration */
    diff_counts *counts; /* [0, rows): this run's counts per flat row;
                               rows first seen in later runs are 0 here */
    size_t rows;
} diff_run;

/* One side: its files and the flat profile they add up to. */
typedef struct diff_side {
    const char *name; /* "base" or "new" */
    const cli_list *files;
    tfmt_flat *flat;
    diff_run *runs;         /* runs mode: one per file, else NULL */
    size_t n_runs;          /* runs mode: files->count, else 0 */
    double denom;           /* the normalization denominator (summed) */
    const char *jsonl_file; /* its first JSONL file (no stacks), or NULL */
    bool failed;            /* loading failed: the error to report */
    tfmt_error fail;
    const char *fail_file;
    bool fail_jsonl; /* met reading a JSONL export (rule ids) */
} diff_side;

/*
 * One figure (self or cumulative) of one row, as the outputs see it:
 * computed on demand by diff_figure from the two flats (rows keep only
 * what sorting and verdicts need, so a million rows stay small).
 */
typedef struct diff_fig {
    uint64_t base, new_;             /* summed over the runs */
    double base_pct, new_pct, delta; /* percent (runs mode: the mean
                                           of the per-run percents);
                                           delta in points */
    size_t base_runs, new_runs;      /* runs behind each side */
    double base_sd, new_sd;          /* per-run standard deviation of
                                           the percent; NaN: one run */
    double se, df;                   /* standard error of delta (pp)
                                           and its degrees of freedom
                                           (INFINITY: normal); NaN: none */
    double p, q;                     /* NaN: not computed / not tested */
    double gate_p, gate_q;           /* one-sided test that delta >
                                           the gate; NaN: not tested */
    diff_test test;
    diff_verdict verdict;
} diff_fig;

#define DIFF_NONE UINT32_MAX

typedef struct diff_row {
    uint32_t bi, ni;    /* row index in each flat, DIFF_NONE: absent */
    double change;      /* |delta| of the chosen metric (sort key) */
    double q[2];        /* M_SELF, M_CUM: BH q-value, NaN untested */
    uint8_t verdict[2]; /* diff_verdict per figure */
} diff_row;

typedef struct diff_result {
    double *gate_q;  /* with a gate: per row, BH q-value of the
                               gate's one-sided test on the chosen
                               metric; NaN untested. Else NULL */
    diff_row *rows;  /* in join order (base keys in the order
                               they were read, then new-only keys) */
    uint32_t *order; /* row indices sorted by |delta| of the
                               chosen metric, ties in join order */
    size_t n;
    size_t counts[V_COUNT]; /* of the chosen metric */
    size_t n_new, n_vanished;
    bool tripped; /* the gate */
} diff_result;

/* Everything an output needs. */
typedef struct diff_ctx {
    const diff_settings *set;
    diff_side base, new_;
    diff_result res;
    bool cum_per_frame; /* a side has no stacks: both sides use
                               JSONL's per-frame cumulative */
    bool runs_mode;     /* both sides have several runs: per-run
                               tests (runs.c) */
} diff_ctx;

/* options.c: the option table and what it fills. */
extern diff_options diff_opts;
extern const cli_spec diff_spec;

/* run.c */
int run_diff(const diff_options *opts);

/*
 * load.c: fill side->flat from its files; returns an exit code. Errors
 * are kept in the side (thread-safe) and printed by diff_load_report.
 */
int diff_load(diff_side *side, const diff_settings *set, tfmt_match *m);
int diff_load_report(const diff_side *side);

/*
 * runs.c: keep the runs of a side apart. diff_runs_begin before its
 * first file and diff_runs_take after each (both return 0, or -1 out of
 * memory) snapshot the flat's running totals; diff_runs_finish turns the
 * snapshots into each run's own counts; diff_runs_free releases them.
 */
int diff_runs_begin(diff_side *side);
int diff_runs_take(diff_side *side, size_t run);
void diff_runs_finish(diff_side *side);
void diff_runs_free(diff_side *side);

/* An estimate of one figure's change and its uncertainty. */
typedef struct diff_est {
    uint64_t base, new_; /* summed counts */
    double base_pct, new_pct, delta;
    double base_sd, new_sd; /* NaN: one run */
    double se, df;          /* NaN se: nothing to test */
} diff_est;
/*
 * Figure `m` of row `r` in runs mode: the mean of the per-run percents
 * on each side, their standard deviations, and the standard error of
 * the difference (each side's between-run variance of the mean, floored
 * at its sampling variance) with Welch-Satterthwaite degrees of freedom.
 */
void diff_runs_estimate(const diff_ctx *c, const diff_row *r, int m,
                        diff_est *out);

/* figure.c: figure `m` (M_SELF or M_CUM) of row `r`. */
void diff_figure(const diff_ctx *c, const diff_row *r, int m, diff_fig *out);
/*
 * Its counts and percents (summed, or per-run means in runs mode) and, in
 * runs mode, the spread and standard error; with one run on a side `se`
 * stays NaN until diff_gate_p or diff_figure needs it.
 */
void diff_estimate(const diff_ctx *c, const diff_row *r, int m, diff_est *out);
/* The two-sided p-value of the verdict's test, and which test it was. */
double diff_p_value(const diff_ctx *c, const diff_est *e, diff_test *test);
/* The gate's one-sided p-value of "delta <= PP" (NaN: no spread). */
double diff_gate_p(const diff_ctx *c, diff_est *e);
/* A gate is set and `m` is the metric it watches. */
bool diff_gated(const diff_ctx *c, int m);

/* compare.c */
int diff_compare(diff_ctx *c);
void diff_result_free(diff_result *r);
const char *diff_verdict_name(diff_verdict v);
const char *diff_test_name(diff_test t);
const char *diff_norm_name(diff_norm n);
const char *diff_key_name(tfmt_flat_key k);
/* The flat row behind `r` (from base when present, else new). */
void diff_row_key(const diff_ctx *c, const diff_row *r, tfmt_flat_row *out);
/*
 * "file:func" / "func" / "file:func:line" into buf (cap > 0 bytes,
 * truncated, NUL-terminated); returns the length of the whole text, as
 * snprintf does. Names may hold NUL bytes: use the length.
 */
size_t diff_key_text(const diff_ctx *c, const diff_row *r, char *buf,
                     size_t cap);
/*
 * The whole key text: in `small` when it fits, else in a malloc'd buffer
 * the caller frees (when it is not `small`). *len is its length.
 */
char *diff_key_full(const diff_ctx *c, const diff_row *r, char *small,
                    size_t cap, size_t *len);

/*
 * order.c: *order = the indices of rows[0..n) sorted by change (largest
 * first; -1, no figure, last), ties in row order. Returns 0, or -1 out of
 * memory.
 */
int diff_sort_order(const diff_row *rows, size_t n, uint32_t **order);

/* Row `i` in output order. */
static inline const diff_row *diff_sorted(const diff_result *r, size_t i)
{
    return &r->rows[r->order[i]];
}
/*
 * Ask for transparent huge pages over a large block before it is first
 * touched (fewer page faults and TLB misses; advice only). The library's
 * own advice (libfmt/src/base/advise.c), compiled into this tool too.
 */
static inline void diff_advise_huge(void *p, size_t n)
{
    tfmt__advise_huge(p, n);
}

/* stats.c */
double diff_p_two_prop(uint64_t c1, double n1, uint64_t c2, double n2,
                       diff_test *test);
double diff_p_rate(uint64_t c1, double e1, uint64_t c2, double e2,
                   diff_test *test);
/* Benjamini-Hochberg q-values for p[0..n) into q. Returns 0 or -1. */
int diff_bh(const double *p, double *q, size_t n);
/*
 * Student's t upper tail P(T > t) with df degrees of freedom (df > 0;
 * INFINITY: the standard normal). NaN for NaN input.
 */
double diff_t_upper(double t, double df);
/* Two-sided p-value of t with df degrees of freedom. */
double diff_t_two_sided(double t, double df);
/*
 * Standard error (in points) of a percent difference from one run a
 * side, sampling noise only: binomial for share (count c of n), Poisson
 * for time and none (c over exposure d); each count gets one pseudo
 * sample (Agresti-Caffo), so zero counts are not certain. `binom`
 * selects the binomial form, where n is the samples and d the
 * denominator of the percent.
 */
double diff_se_sampling(uint64_t c1, double n1, double d1, uint64_t c2,
                        double n2, double d2, bool binom);

/* out.c: a buffered output going to a tfmt_sink (atomic for files). */
typedef struct diff_out {
    tfmt_sink *sink;
    char *buf;
    size_t len, cap;
    bool failed;
} diff_out;
int diff_out_open(diff_out *o, const diff_settings *set);
void diff_out_printf(diff_out *o, const char *fmt, ...) CLI_PRINTF(2, 3);
void diff_out_write(diff_out *o, const char *s, size_t n);
/* Flush and finish; returns an exit code. */
int diff_out_close(diff_out *o, const diff_settings *set);

/* out_*.c: each writes one format. */
void diff_write_table(diff_out *o, const diff_ctx *c);
void diff_write_json(diff_out *o, const diff_ctx *c);
void diff_write_markdown(diff_out *o, const diff_ctx *c);
void diff_write_csv(diff_out *o, const diff_ctx *c);
int diff_write_folded(diff_out *o, const diff_ctx *c);
/* out_flame.c: svg, or html (the graph and the changed keys). 0 or -1. */
int diff_write_flame(diff_out *o, const diff_ctx *c, bool html);

/* Helpers shared by the writers (out.c). */
void diff_out_json_str(diff_out *o, const char *s, size_t n);
bool diff_fmt_num(char *buf, size_t cap, double v, int prec);
void diff_fmt_delta(char *buf, size_t cap, double v, int prec);
void diff_out_num(diff_out *o, double v, int prec);
/*
 * Append n bytes: in line while they fit below the flush size (the rows
 * write ~50 short pieces each), else through diff_out_write.
 */
#define DIFF_OUT_FLUSH (64 * 1024)
static inline void diff_out_put(diff_out *o, const char *s, size_t n)
{
    if (o->len + n < o->cap && o->len + n < DIFF_OUT_FLUSH) {
        memcpy(o->buf + o->len, s, n);
        o->len += n;
        return;
    }
    diff_out_write(o, s, n);
}
/* Plain text, a C string, integers in decimal: no printf on hot rows. */
#define diff_out_lit(o, s) diff_out_put((o), "" s, sizeof(s) - 1)
void diff_out_str(diff_out *o, const char *s);
void diff_out_u64(diff_out *o, uint64_t v);
void diff_out_i64(diff_out *o, int64_t v);
/* new_ - base exactly, sign and all (counts near 2^64 do not wrap). */
void diff_out_delta(diff_out *o, uint64_t base, uint64_t new_);
/* "new", "vanished" or "both": which sides have the row. */
const char *diff_row_status(const diff_row *r);
/* Rows to show: the top N (setting) or all. */
size_t diff_shown(const diff_ctx *c, size_t n);

/*
 * fmtnum.c: what snprintf writes for "%.*f" (diff_fmt_fixed, prec
 * decimals) and "%.*g" (diff_fmt_general, sig digits), computed exactly
 * without printf, into buf (DIFF_FMT_CAP bytes, NUL-terminated). Returns
 * the length, or 0 for the values left to snprintf: not finite, |v| >=
 * 2^53, a precision over DIFF_FMT_MAX_PREC, %g's exponent style.
 */
#define DIFF_FMT_CAP 32
#define DIFF_FMT_MAX_PREC 19
size_t diff_fmt_fixed(char *buf, double v, int prec);
size_t diff_fmt_general(char *buf, double v, int sig);

#endif
