/* SPDX-License-Identifier: MIT */
/*
 * tachyon/fmt_profile.h - an aggregated profile: its own string and frame
 * tables plus a call tree of sample weights, per thread, and the
 * per-frame totals of JSONL exports (which have no stacks).
 *
 * Memory is bounded by the unique strings, frames, threads and call paths,
 * never by the number of samples. Samples from several readers can be added
 * to one profile (their tables are merged by content). Exporters turn the
 * tree into CPython's JSONL (schema v0) and collapsed-stack outputs.
 */
#ifndef TACHYON_FMT_PROFILE_H
#define TACHYON_FMT_PROFILE_H

#include "fmt_model.h"
#include "fmt_io.h"
#include "fmt_bin.h"
#include "fmt_rows.h"
#include "fmt_jsonl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tfmt_profile tfmt_profile;

/* Which samples are counted. */
#define TFMT_PROFILE_OPTIONS_VERSION 4
typedef struct tfmt_profile_options {
    unsigned version;            /* TFMT_PROFILE_OPTIONS_VERSION */
    const tfmt_allocator *alloc; /* NULL: libc */
    bool skip_idle;              /* CPython's skip_idle: drop samples
                                    without HAS_GIL or ON_CPU */
    /* Filters (profile_filter.c); zero values filter nothing. Samples
       are counted only when every test passes. */
    const uint64_t *thread_ids; /* keep only these thread ids */
    size_t nthread_ids;         /* 0: every thread */
    uint8_t status_all;         /* keep samples with all these bits */
    uint8_t status_none;        /* ... and none of these */
    struct tfmt_match *rules;   /* rewrites and excludes (borrowed) */
    struct tfmt_match *focus;   /* includes (borrowed) */
    bool drop_frames;           /* include/exclude drop the frames
                                   (else whole samples, see below) */
    bool collapse_recursion;    /* runs of frames with the same file
                                   and function keep the innermost */
    /* Called now and then while an input is read, with the thread-samples
       read so far from it (tfmt_bin_samples_read); NULL: none. */
    void (*progress)(void *ctx, uint64_t samples_read);
    void *progress_ctx;
    /* Viewer options (never set for CPython's own formats: jsonl,
       collapsed, pstats stay byte for byte CPython's). */
    bool no_lines;       /* one frame per (file, function): line,
                            columns and opcode dropped */
    bool mark_truncated; /* a stack at the 256-frame cap gets a
                            "<truncated>" frame at its root */
    bool timeline;       /* also keep each thread's samples in
                            time order (speedscope), spooled to
                            a temporary file */
    /* Version 2: keep samples of different status apart (one tree per
       thread and status byte), as tfmt_profile_write_clickhouse needs. */
    bool split_status;
    /* Version 3: one call tree for all threads (threads are still counted,
       with their samples), for the writers whose output does not tell
       threads apart: jsonl, pstats, the heatmap, top without per_thread
       and speedscope with a timeline. Memory then follows the distinct
       stacks, not the distinct (thread, stack) pairs. The writers that
       split by thread refuse such a profile (TFMT_EINVAL) unless it also
       has thread_leaves. */
    bool shared_tree;
    /* Version 4: with shared_tree, also count each thread's samples per
       stack (a stack one thread ran alone costs nothing more; one that
       several threads ran, 16 bytes per thread and some index), from
       which collapsed, clickhouse, speedscope, pprof, svg, html and top
       per_thread rebuild what they need of one thread at a time, to the
       same bytes: memory then follows the distinct stacks, not every
       thread's tree. */
    bool thread_leaves;
} tfmt_profile_options;
/*
 * Name filters. Every frame's file and function names are first rewritten
 * by the REWRITE rules of `rules`. A frame "is excluded" when an EXCLUDE
 * rule of `rules` matches its file or function name, and "is included"
 * when `focus` has no rules or one of its INCLUDE rules matches.
 * drop_frames false (pprof's focus/ignore): a sample is dropped when one of
 * its frames is excluded, or when none is included. drop_frames true
 * (pprof's hide/show): excluded and not-included frames are removed from
 * the stack, the sample is kept (dropped only when no frame is left).
 */
/*
 * mark_truncated: CPython's writer keeps the 256 innermost frames of a
 * deeper stack and marks nothing, so a stack of exactly TFMT_MAX_DEPTH
 * frames may have lost its outer frames. The marker is a synthetic frame
 * in CPython's own convention for them (like <GC> and <native>): file
 * "~", function "<truncated>", no location. Filters see only the real
 * frames; the marker is added after them.
 */
/* A braced initializer, which clang-format takes for a block. */
/* clang-format off */
#define TFMT_PROFILE_OPTIONS_INIT \
    {TFMT_PROFILE_OPTIONS_VERSION, NULL, false, NULL, 0, 0, 0, NULL, NULL, \
     false, false, NULL, NULL, false, false, false, false, false, false}
/* clang-format on */

/* `opts` may be NULL. */
TFMT_API int tfmt_profile_new(tfmt_profile **out,
                              const tfmt_profile_options *opts);

/*
 * Stream every remaining sample of `r` into the profile. Returns TFMT_OK
 * when the reader reached its end cleanly, else a negative status with
 * tfmt_profile_error(p) filled: the reader's error, copied, when reading
 * failed, or the profile's own (TFMT_ENOMEM, a filter's TFMT_ELIMIT).
 * The first reader added sets the profile's interval and mode.
 */
TFMT_API int tfmt_profile_add_bin(tfmt_profile *p, tfmt_bin_reader *r);

/*
 * Add every remaining row of a ClickHouse query result (fmt_rows.h): each
 * row's count as that many samples of its thread, status and stack, every
 * run summed. The first row read sets the profile's interval, mode and
 * start time when no input did. Rows have no timestamps, so a profile
 * given rows keeps no timeline (opts.timeline is turned off, also for
 * binary logs added before or after). Returns TFMT_OK at the reader's
 * end, else a negative status with tfmt_profile_error(p) filled (the reader's
 * located error, copied, for a bad row: the first bad row ends the add).
 */
TFMT_API int tfmt_profile_add_rows(tfmt_profile *p, tfmt_rows_reader *r);

/*
 * Read every remaining record of JSONL export `r` (either dialect) and add
 * its per-frame totals: self adds up exactly, and so does cumulative per
 * frame; frames that a rewrite rule (or the pre-release dialect's
 * `synthetic` twins) merges have their cumulative counts summed (writers
 * cap a figure at the exports' samples). The export has no stacks and no
 * per-sample data: only the rewrite rules of the options apply, and a profile
 * whose options filter threads, statuses, idle samples, includes, excludes or
 * recursion refuses it (TFMT_EINVAL). The first input added sets the
 * profile's interval and mode. Returns TFMT_OK at the export's complete
 * end, else a negative status with tfmt_profile_error(p) filled (the
 * reader's error, copied: a broken rule of schemas/RULES.md names its
 * check).
 */
TFMT_API int tfmt_profile_add_jsonl(tfmt_profile *p, tfmt_jsonl_reader *r);

/*
 * True once a JSONL export was added: the profile then holds counts
 * without stacks, which only the writers of per-frame or per-function
 * figures accept (jsonl, pstats, top, the heatmap); the others refuse it with
 * TFMT_EINVAL and the message TFMT_JSONL_NO_STACKS (fmt_jsonl.h).
 */
TFMT_API bool tfmt_profile_has_jsonl(const tfmt_profile *p);

/* Thread-samples counted (empty stacks and skipped samples excluded). */
TFMT_API uint64_t tfmt_profile_samples(const tfmt_profile *p);

/*
 * What the inputs' samples showed the filters of the options, so a tool
 * can say why a filtered profile is empty. Counts are sample weights.
 */
typedef struct tfmt_filter_report {
    uint64_t read;           /* samples read with a non-empty stack */
    uint64_t passed;         /* of those, kept by the thread, status and
                                skip_idle tests (seen by the name
                                filters) */
    uint64_t kept;           /* of those, counted after every filter */
    uint8_t status_seen;     /* OR of the status bytes of all samples */
    bool include_matched;    /* an include rule matched a frame of a
                                sample the thread and status tests kept */
    bool exclude_matched;    /* the same for an exclude rule */
    const bool *thread_seen; /* per opts.thread_ids entry: a sample of
                                that thread was read (borrowed) */
} tfmt_filter_report;

/*
 * Threads tfmt_profile_add_bin may read a binary log on. 1 (the default):
 * the calling thread only. 0: one per CPU (sched_getaffinity) for an
 * uncompressed log of 64 MiB and more. n > 1: up to n for any
 * uncompressed log of at least 16 KiB. The profile is the same
 * either way, id for id. A log is read whole when it is compressed, when
 * the options need samples in order or filter them (timeline, filters,
 * split_status, a custom allocator), or when a reader would note or
 * reject something in it: errors and notes are always the whole-file
 * reader's.
 */
TFMT_API void tfmt_profile_set_threads(tfmt_profile *p, unsigned n);

/* The report of the samples added so far (binary logs and rows). */
TFMT_API void tfmt_profile_filter_report(const tfmt_profile *p,
                                         tfmt_filter_report *out);

/* Sample interval and mode of the profile (from the first input). */
TFMT_API uint64_t tfmt_profile_interval_us(const tfmt_profile *p);
TFMT_API int tfmt_profile_mode(const tfmt_profile *p);

/*
 * Write CPython's JSONL export (schema v0) byte for byte: meta,
 * string_table, frame_table and agg records in chunks of 256, then end.
 * `run_id` is 32 lowercase hex digits. This and every other writer of a
 * profile (fmt_export.h) returns TFMT_OK or a negative status with
 * tfmt_profile_error(p) filled (a failure of the sink copied there).
 */
TFMT_API int tfmt_profile_write_jsonl(tfmt_profile *p, tfmt_sink *sink,
                                      const char *run_id);

/* Write CPython's collapsed-stack output byte for byte. */
TFMT_API int tfmt_profile_write_collapsed(tfmt_profile *p, tfmt_sink *sink);

/* The error behind the last negative status of a profile function. */
TFMT_API const tfmt_error *tfmt_profile_error(const tfmt_profile *p);

TFMT_API void tfmt_profile_free(tfmt_profile *p);

#ifdef __cplusplus
}
#endif
#endif
