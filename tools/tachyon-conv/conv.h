/* SPDX-License-Identifier: MIT */
/*
 * conv.h - tachyon-conv's modules: option checks and dispatch (conv.c),
 * input and output plumbing (conv_io.c), text exports (conv_text.c),
 * binary re-encoding (conv_bin.c), the run id rule (run_id.c), and the
 * viewer formats with the sample filters (conv_view.c).
 */
#ifndef TACHYON_CONV_H
#define TACHYON_CONV_H

#include "cli.h"

typedef enum {
    CONV_JSONL,
    CONV_COLLAPSED,
    CONV_BIN,
    CONV_SPEEDSCOPE, /* viewer formats (conv_view.c) from here on */
    CONV_GECKO,
    CONV_PPROF,
    CONV_SVG,
    CONV_PSTATS,
    CONV_TOP,
    CONV_HTML,
    CONV_CLICKHOUSE, /* rows for ClickHouse, a run per input */
    CONV_HEATMAP     /* a directory (conv_heatmap.c) */
} conv_format;

/* The command line, as parsed (strings borrowed from argv). */
typedef struct conv_options {
    cli_list inputs;         /* IN... ("-" is stdin) */
    const char *to;          /* "jsonl" (default), "collapsed", "bin" */
    const char *output;      /* -o; NULL or "-" is stdout */
    const char *run_id;      /* 32 hex digits, "random" or NULL */
    const char *compression; /* "none", "zstd" or NULL (keep input's) */
    int force;
    int quiet;
    int verbose;
    /* viewer formats and filters (conv_view.c) */
    const char *title; /* --title (svg, html) */
    const char *top;   /* --top N (top) */
    const char *jobs;  /* --jobs N: threads for a big log */
    int per_thread;    /* --per-thread (top) */
    cli_list include, exclude, rewrite, threads;
    const char *drop; /* "samples" (default) or "frames" */
    int gil, on_cpu, exception, skip_idle, collapse_recursion;
    int no_lines;      /* --no-lines (viewer formats) */
    int pstats_compat; /* --pstats-compat: pstats for Python < 3.15 */
    /* --to clickhouse (conv_clickhouse.c) */
    cli_list labels;         /* KEY=VALUE */
    const char *time;        /* Unix seconds */
    const char *source_root; /* --source-root DIR (heatmap) */
    cli_list path_maps;      /* --path-map FROM=TO (heatmap) */
    cli_input_limits limits; /* --max-input-size, --max-input-ratio */
    cli_reader_args reader;  /* --max-threads */
} conv_options;

/* The filters of the command line, as profile options. */
typedef struct conv_filter {
    tfmt_profile_options popts;
    tfmt_match *rules, *focus;
    uint64_t *tids;
    cli_progress bar; /* per input, fed by popts.progress */
} conv_filter;

/* The checked job handed to the converters. */
typedef struct conv_job {
    const conv_options *opts;
    conv_format format;
    char run_id[33]; /* fixed run id, or "" for the default */
    int compression; /* tfmt_compression, or -1: keep input's */
    conv_filter *filter;
    uint32_t top_n;       /* --top, 0: default */
    uint32_t jobs;        /* --jobs, 0: one per CPU for big logs */
    tfmt_bin_options bin; /* --max-threads; no callbacks */
} conv_job;

/* An opened input: its source and its reader (one of the three). */
typedef struct conv_input {
    const char *path; /* as given ("-" for stdin) */
    tfmt_source *src;
    tfmt_kind kind;
    tfmt_bin_reader *reader;  /* a binary log, else NULL */
    tfmt_rows_reader *rows;   /* ClickHouse rows (a query result) */
    tfmt_jsonl_reader *jsonl; /* a JSONL export, else NULL */
} conv_input;

/* options.c: the option table and what it fills. */
extern conv_options conv_opts;
extern const cli_spec conv_spec;

/*
 * conv_name.c: the format the name of -o FILE stands for (its suffix,
 * after one of .gz, .zst, .xz, .bz2, which the sink compresses with), or
 * CONV_NAME_NONE (no such suffix; a directory), or CONV_NAME_JSON (a
 * bare .json: speedscope, gecko and clickhouse all write JSON).
 */
enum { CONV_NAME_NONE = -1, CONV_NAME_JSON = -2 };
int conv_format_of_name(const char *path);
/* The name of format `f` as --to spells it. */
const char *conv_format_name(conv_format f);
/*
 * The job's format: --to (or --pstats-compat), else the name of -o FILE,
 * else jsonl. Refuses a bare .json name without --to, and warns when the
 * name says another format than --to (which wins). Returns an exit code.
 */
int conv_format_choose(const conv_options *o, conv_format *out);

/* Check the options, then run the conversion. Returns an exit code. */
int run_conv(const conv_options *opts);

/*
 * conv_io.c: an input, refused with a message where the job cannot use
 * it: ClickHouse rows for bin and gecko (no timestamps), a JSONL export
 * where the format needs stacks or the filters need samples.
 */
int conv_input_open(conv_input *in, const char *path, const conv_job *job);
void conv_input_close(conv_input *in);
/* Stream the input into `p` (any reader); a tfmt status. */
int conv_input_add(conv_input *in, tfmt_profile *p);
/*
 * The input's run id, once it has been added: a binary log's
 * tfmt_bin_run_id (a pass over the file, so only when an id is wanted),
 * an export's run id (conv_run_id_of), or for rows the default run id
 * rule over the runs in the order they came (so a query result ordered
 * by run_id gets the run id of its logs merged in that order). Returns an
 * exit code, after a message on failure.
 */
int conv_input_run_id(conv_input *in, char out[33]);
int conv_sink_open(tfmt_sink **out, const conv_job *job, unsigned flags);
int conv_sink_finish(tfmt_sink *sink, const conv_job *job);
int conv_report_sink(const tfmt_sink *sink, const conv_job *job);
void conv_summary(const conv_input *in);
void conv_summary_rows(const conv_input *in);

/* The name of the only input (for messages), or NULL for several. */
const char *conv_only_input(const conv_options *o);

/* conv_text.c: --to jsonl and --to collapsed (several inputs merged). */
int conv_text(const conv_job *job);

/* conv_bin.c: --to bin (one input). */
int conv_bin(const conv_job *job);

/* conv_view.c */
int conv_filter_build(conv_filter *f, const conv_options *o);
void conv_filter_free(conv_filter *f);
/*
 * Warn where the filters found nothing to act on: a --thread absent from
 * the input, a status flag no sample has, an --include or --exclude that
 * matched no frame, and filters that kept no sample. `name` is the
 * input's name, or NULL for several inputs.
 */
void conv_filter_warn(const conv_options *o, const tfmt_filter_report *r,
                      const char *name);
bool conv_filter_any(const conv_options *o);
/* Any filter that needs samples (all but --rewrite). */
bool conv_filter_samples(const conv_options *o);
/* Formats whose figures a JSONL export's per-frame totals can give. */
bool conv_takes_jsonl(conv_format f);
int conv_view_check(const conv_options *o, conv_format f, conv_job *job);
/* The viewer-only profile options of format `f`: --no-lines, the
   "<truncated>" marker where the format draws stacks, and speedscope's
   timeline. */
void conv_view_options(conv_filter *filter, const conv_options *o,
                       conv_format f);
void conv_progress_begin(conv_filter *f, const conv_input *in);
void conv_progress_end(conv_filter *f);
/* Write `p` in a viewer format to `sink` (library status). */
int conv_view_write(tfmt_profile *p, const conv_job *job, tfmt_sink *sink);
/* --to gecko: a timeline, replayed input by input. */
int conv_gecko(const conv_job *job);

/* conv_clickhouse.c: --to clickhouse, and its option checks. */
int conv_clickhouse_check(const conv_options *o, conv_format f);
int conv_clickhouse(const conv_job *job);
/* conv_heatmap.c: --to heatmap -o DIR from the merged profile. */
int conv_heatmap(tfmt_profile *p, const conv_job *job);
/* The entries of a heatmap directory (index.html, file_NNNN.html). */
bool conv_heatmap_entry(const char *name);

/* conv_source.c: a heatmap page's source file, found or not. */
typedef struct conv_source {
    char *text; /* its bytes, NULL when not read */
    size_t len;
    char *origin;         /* where read, when not the recorded path */
    char note[640];       /* why not read */
    char tried_text[480]; /* the first paths tried */
    unsigned tried;
    bool more; /* more paths were tried */
} conv_source;
int conv_source_find(conv_source *out, const conv_options *o, tfmt_str path);
void conv_source_free(conv_source *s);

/* run_id.c */
int conv_run_id_parse(const char *arg, char out[33]);
void conv_run_id_default(char fingerprints[][33], size_t n, char out[33]);
/* A JSONL export's fingerprint: its run_id when it is 32 lowercase hex
 * digits (so a conversion keeps it), else a hash of it. */
void conv_run_id_of(tfmt_str run_id, char out[33]);

#endif
