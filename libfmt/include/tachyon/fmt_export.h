/* SPDX-License-Identifier: MIT */
/*
 * tachyon/fmt_export.h - viewer formats: speedscope, pprof, pstats, a
 * flame graph SVG or HTML page, a "top" table and CPython's line heatmap
 * from an aggregated profile, and the Firefox Profiler (Gecko) timeline
 * streamed from binary logs.
 *
 * Aggregated exports depend only on the profile's content: threads are
 * ordered by (thread id, interpreter id), frames by (file, function, line,
 * columns, opcode), so profiles merged from several inputs in any order
 * export byte for byte the same. Memory is bounded by unique frames and
 * call paths.
 */
#ifndef TACHYON_FMT_EXPORT_H
#define TACHYON_FMT_EXPORT_H

#include "fmt_profile.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TFMT_EXPORT_OPTIONS_VERSION 1
typedef struct tfmt_export_options {
    unsigned version;  /* TFMT_EXPORT_OPTIONS_VERSION */
    const char *title; /* svg, html: NULL for "Flame Graph" */
    uint32_t top_n;    /* top: rows per table, 0 for 20 */
    bool per_thread;   /* top: one more table per thread */
    bool gzip;         /* pprof: gzip the message (its file form) */
} tfmt_export_options;
/* A braced initializer, which clang-format takes for a block. */
/* clang-format off */
#define TFMT_EXPORT_OPTIONS_INIT \
    {TFMT_EXPORT_OPTIONS_VERSION, NULL, 0, false, true}
/* clang-format on */

/*
 * speedscope's file format: one "sampled" profile per thread over a shared
 * frame table; each unique stack is one sample weighted by its count, in
 * microseconds (count x interval). `opts` may be NULL.
 */
TFMT_API int tfmt_profile_write_speedscope(tfmt_profile *p, tfmt_sink *sink,
                                           const tfmt_export_options *opts);

/*
 * pprof's profile.proto: sample types samples/count and wall/microseconds,
 * one function per (name, file), one location per (function, line), a
 * "thread_id" label per sample; gzipped when opts->gzip.
 */
TFMT_API int tfmt_profile_write_pprof(tfmt_profile *p, tfmt_sink *sink,
                                      const tfmt_export_options *opts);

/*
 * The marshal file CPython's PstatsCollector writes: {(file, line, func):
 * (direct, cumulative, tottime, cumtime, {caller: count})} plus the
 * ("__sampled__",) marker. Equal to CPython's when both are loaded.
 */
TFMT_API int tfmt_profile_write_pstats(tfmt_profile *p, tfmt_sink *sink);

/*
 * The same statistics for pstats.Stats before Python 3.15 and the tools
 * built on it (snakeviz): no ("__sampled__",) marker, and each caller's
 * value is cProfile's tuple (calls, primitive calls, tottime, cumtime) =
 * (count, count, the callee's self samples under that caller x interval,
 * count x interval) instead of the bare count.
 */
TFMT_API int tfmt_profile_write_pstats_compat(tfmt_profile *p, tfmt_sink *sink);

/*
 * A self-contained interactive flame graph SVG (hover, click to zoom,
 * regex search; no network needed), all threads under one root.
 */
TFMT_API int tfmt_profile_write_svg(tfmt_profile *p, tfmt_sink *sink,
                                    const tfmt_export_options *opts);

/*
 * One self-contained HTML page: the flame graph SVG above the "top"
 * tables (whole profile and per thread); opts->title titles both.
 */
TFMT_API int tfmt_profile_write_html(tfmt_profile *p, tfmt_sink *sink,
                                     const tfmt_export_options *opts);

/*
 * A plain-text table of the hottest functions (file, function) by self
 * and cumulative share; with opts->per_thread one more table per thread.
 */
TFMT_API int tfmt_profile_write_top(tfmt_profile *p, tfmt_sink *sink,
                                    const tfmt_export_options *opts);

/* ---- ClickHouse rows ---- */

/* The columns a run shares in every row (tfmt_profile_write_clickhouse). */
#define TFMT_CLICKHOUSE_RUN_VERSION 2
typedef struct tfmt_clickhouse_run {
    unsigned version;                /* TFMT_CLICKHOUSE_RUN_VERSION */
    const char *run_id;              /* 32 lowercase hex digits */
    const char *const *label_keys;   /* nlabels NUL-terminated strings */
    const char *const *label_values; /* (invalid UTF-8 is repaired) */
    size_t nlabels;
    uint32_t time;      /* wall-clock time, Unix seconds */
    const char *python; /* "3.15.0", or NULL / "" */
    /* version 2: */
    unsigned run_id_version; /* how run_id was made: TFMT_RUN_ID_VERSION,
                                or 0 for an id the user chose (version
                                1 callers: 1) */
} tfmt_clickhouse_run;
/* A braced initializer, which clang-format takes for a block. */
/* clang-format off */
#define TFMT_CLICKHOUSE_RUN_INIT \
    {TFMT_CLICKHOUSE_RUN_VERSION, NULL, NULL, NULL, 0, 0, NULL, \
     TFMT_RUN_ID_VERSION}
/* clang-format on */

/*
 * Rows of the table in schemas/clickhouse/tachyon_stacks.sql in
 * ClickHouse's JSONEachRow format: one line per (thread, status, stack)
 * with its count, in the order the stacks first got a sample, `row`
 * numbering them from 0. Status is kept apart only when `p` was built with
 * split_status (else every row says 0). Interval, mode and start time are
 * the profile's. Query results of the table read back with
 * tfmt_rows_open (fmt_rows.h).
 */
TFMT_API int tfmt_profile_write_clickhouse(tfmt_profile *p, tfmt_sink *sink,
                                           const tfmt_clickhouse_run *run);

/* ---- CPython's line heatmap: a directory of pages ---- */

/*
 * What CPython 3.15's `--heatmap` writes: index.html (the files by kind
 * and folder, hottest first) and one page per source file with every
 * line's self and total samples and heat colour, and, when the log has
 * opcodes, each line's instructions (named in the log's Python version)
 * and their column spans, with links to callers and callees. Pages are
 * self-contained HTML and need no script. The caller opens a sink per
 * page, reads the sources (tfmt_heatmap_source) and writes the index
 * last, so it can mark the pages whose source was missing. The heatmap
 * borrows the profile, which must outlive it; memory is bounded by its
 * frames and call paths.
 */
typedef struct tfmt_heatmap tfmt_heatmap;

#define TFMT_HEATMAP_OPTIONS_VERSION 1
typedef struct tfmt_heatmap_options {
    unsigned version;          /* TFMT_HEATMAP_OPTIONS_VERSION */
    uint8_t python_version[3]; /* names the opcodes; 0.0.0: the version
                                  of the profile's first binary log */
} tfmt_heatmap_options;
/* A braced initializer, which clang-format takes for a block. */
/* clang-format off */
#define TFMT_HEATMAP_OPTIONS_INIT {TFMT_HEATMAP_OPTIONS_VERSION, {0, 0, 0}}
/* clang-format on */

/* One page's source file, as the caller found it. */
typedef struct tfmt_heatmap_source {
    const char *text; /* its bytes; NULL: not available */
    size_t len;
    const char *origin; /* where it was read, when not at the
                           recorded path (shown); may be NULL */
    const char *note;   /* text NULL: why (shown); may be NULL */
} tfmt_heatmap_source;

/*
 * Build the heatmap of `p` (`opts` may be NULL). Returns TFMT_OK, or
 * TFMT_ENOMEM with tfmt_profile_error(p) filled.
 */
TFMT_API int tfmt_heatmap_new(tfmt_heatmap **out, tfmt_profile *p,
                              const tfmt_heatmap_options *opts);

/* Number of file pages (0 when no sample had a source line). */
TFMT_API size_t tfmt_heatmap_pages(const tfmt_heatmap *h);

/* Page i's file path as recorded (valid UTF-8), hottest first. */
TFMT_API tfmt_str tfmt_heatmap_path(const tfmt_heatmap *h, size_t i);

/*
 * Page i's file name ("file_0000.html"; "index.html" for i at or past the
 * page count), valid until the next call on `h`.
 */
TFMT_API const char *tfmt_heatmap_page(tfmt_heatmap *h, size_t i);

/* True when some frame had an opcode (pages then show instructions). */
TFMT_API bool tfmt_heatmap_has_opcodes(const tfmt_heatmap *h);

/*
 * Write page i to `sink` with its source `src` (NULL: not available).
 * Returns TFMT_OK or a negative status with tfmt_heatmap_error(h) filled
 * (a sink's failure copied there). Does not finish the sink.
 */
TFMT_API int tfmt_heatmap_write_page(tfmt_heatmap *h, size_t i,
                                     const tfmt_heatmap_source *src,
                                     tfmt_sink *sink);

/* Write index.html (after the pages, to mark missing sources). */
TFMT_API int tfmt_heatmap_write_index(tfmt_heatmap *h, tfmt_sink *sink);

/* The error behind the last negative status of a heatmap function. */
TFMT_API const tfmt_error *tfmt_heatmap_error(const tfmt_heatmap *h);

TFMT_API void tfmt_heatmap_free(tfmt_heatmap *h);

/* ---- Firefox Profiler ("gecko"), a timeline ---- */

/*
 * The processed profile CPython's GeckoCollector writes on replay (format
 * version 32, preprocessed 57), every sample with its time and the
 * thread-state interval markers. Samples and markers are spooled to an
 * unlinked temporary file, so memory stays bounded by the unique stacks;
 * the output is proportional to the samples. Fields that depend on the
 * converting machine are filled as CPython would (startTime, platform,
 * CPU count, pid of this process). When the first input says it recorded
 * opcodes (TFMT_CAPTURE_OPCODES), the collector is the one CPython makes
 * for `--gecko --opcodes`: it adds the Opcode marker schema and an
 * "Opcode" interval marker per run of one leaf instruction, named from
 * the input's Python version (tfmt_opcode_name); CPython's own replay
 * never asks for them.
 */
typedef struct tfmt_gecko tfmt_gecko;

/*
 * `filter` (may be NULL) must outlive the builder (see fmt_profile.h).
 * Samples of threads not in filter->thread_ids are ignored entirely; the
 * status filters, skip_idle and name filters drop samples only, while the
 * thread-state markers still follow every sample of a kept thread (as
 * CPython's skip_idle does).
 */
TFMT_API int tfmt_gecko_new(tfmt_gecko **out,
                            const tfmt_profile_options *filter);

/*
 * Replay every remaining sample of `r` (several inputs follow each other
 * on one timeline, relative to the first input's first sample). Returns
 * TFMT_OK, or a negative status with tfmt_gecko_error(g) filled (the
 * reader's error, copied, when reading failed).
 */
TFMT_API int tfmt_gecko_add_bin(tfmt_gecko *g, tfmt_bin_reader *r);

/*
 * Write the profile. Returns TFMT_OK, or a negative status with
 * tfmt_gecko_error(g) filled (a failure of the sink copied there).
 */
TFMT_API int tfmt_gecko_write(tfmt_gecko *g, tfmt_sink *sink);

/* What the filters saw (fmt_profile.h); kept: the samples drawn. */
TFMT_API void tfmt_gecko_filter_report(const tfmt_gecko *g,
                                       tfmt_filter_report *out);

/* The error behind the last negative status of a timeline function. */
TFMT_API const tfmt_error *tfmt_gecko_error(const tfmt_gecko *g);

TFMT_API void tfmt_gecko_free(tfmt_gecko *g);

#ifdef __cplusplus
}
#endif
#endif
