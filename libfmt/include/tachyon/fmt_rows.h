/* SPDX-License-Identifier: MIT */
/*
 * tachyon/fmt_rows.h - ClickHouse query results as profiles: the
 * JSONEachRow output of `SELECT * FROM tachyon_stacks [WHERE ...]` (the
 * table of schemas/clickhouse/tachyon_stacks.sql, which
 * tfmt_profile_write_clickhouse fills), read row by row.
 *
 * Each line is one JSON object: a (run, thread, status, stack) with its
 * sample count. 64-bit integers may be numbers or quoted decimal strings
 * (ClickHouse quotes them by default); columns the reader does not know
 * are skipped, so SELECT * of a table with added columns still reads.
 * Required: run_id, row, thread_id, status, frames.file, frames.function,
 * frames.line and count; the others default (interval_us 0, mode unknown,
 * end lines and columns -1, opcode 255, ...). Rows of several runs may
 * come in any order; a profile built from them sums every run.
 *
 * The reader checks every row on its own (JSON syntax, types, ranges,
 * equal lengths of the frames.* arrays, at most TFMT_MAX_DEPTH frames) and
 * across rows: the rows of one run agree on its interval, mode, start time
 * and run id version. A (run_id, row) pair that comes again with the very
 * same bytes (the run was loaded twice) is skipped and counted in its
 * run's `copies`, so the run is read once; the same pair with other bytes
 * is an error (TFMT_ROWS_CHECK_DUPLICATE). A run whose start time (not
 * 0), interval and mode equal an earlier run's, with a run id of another
 * version or both chosen (version 0), names it in `twin`: maybe one
 * recording loaded under two run ids (by tachyon 0.1 and 0.2, or with
 * --run-id random twice), which the reader cannot merge but a tool can
 * warn of. (A derived id is the same for the same log, so two ids of one
 * derived version are two logs.)
 * An error is located by line (tfmt_error.line) and names its check
 * (tfmt_error.check, a tfmt_rows_check); the next call of tfmt_rows_next
 * goes on with the next line, so a checker can report every bad row.
 *
 * Memory: one line at a time (at most max_line bytes), the unique strings
 * and frames, the runs, and 32 bytes per row for the duplicate check.
 */
#ifndef TACHYON_FMT_ROWS_H
#define TACHYON_FMT_ROWS_H

#include "fmt_model.h"
#include "fmt_io.h"

/*
 * The one-line reason every tool gives when what it was asked for needs
 * a timeline (a binary log's sample order and timestamps) and an input is
 * a query result: "tool: FILE: " TFMT_ROWS_NO_TIMESTAMPS.
 */
#define TFMT_ROWS_NO_TIMESTAMPS                                                \
    "ClickHouse rows have no timestamps; a binary log is needed"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tfmt_rows_reader tfmt_rows_reader;

/* What a row error broke (tfmt_error.check). Append-only. */
typedef enum {
    TFMT_ROWS_CHECK_NONE = 0,
    TFMT_ROWS_CHECK_LINE = 1,     /* line longer than max_line */
    TFMT_ROWS_CHECK_JSON = 2,     /* not one JSON object */
    TFMT_ROWS_CHECK_MISSING = 3,  /* a required column is absent */
    TFMT_ROWS_CHECK_TYPE = 4,     /* a column of the wrong JSON type */
    TFMT_ROWS_CHECK_RANGE = 5,    /* a value out of its column's range */
    TFMT_ROWS_CHECK_FRAMES = 6,   /* frames.* arrays of unequal length,
                                       or deeper than TFMT_MAX_DEPTH */
    TFMT_ROWS_CHECK_RUN = 7,      /* run columns differ within a run */
    TFMT_ROWS_CHECK_DUPLICATE = 8 /* (run_id, row) seen before with
                                     other columns */
} tfmt_rows_check;

#define TFMT_ROWS_OPTIONS_VERSION 1
typedef struct tfmt_rows_options {
    unsigned version;            /* TFMT_ROWS_OPTIONS_VERSION */
    const tfmt_allocator *alloc; /* NULL: libc */
    size_t max_line;             /* 0: 64 MiB */
} tfmt_rows_options;
/* A braced initializer, which clang-format takes for a block. */
/* clang-format off */
#define TFMT_ROWS_OPTIONS_INIT                                                 \
    {                                                                          \
        TFMT_ROWS_OPTIONS_VERSION, NULL, 0                                     \
    }
/* clang-format on */

/* A run, as its first row describes it. */
typedef struct tfmt_rows_run {
    char run_id[33]; /* 32 lowercase hex digits */
    uint64_t interval_us;
    uint64_t start_time_us;
    int mode;            /* tfmt_mode; TFMT_MODE_UNKNOWN */
    uint64_t rows;       /* rows read so far */
    uint64_t samples;    /* their counts, summed */
    uint64_t first_line; /* line of its first row */
    /* Added in 0.2: */
    unsigned run_id_version; /* how run_id was made (TFMT_RUN_ID_VERSION
                                in fmt_bin.h: 0 chosen, 1 tachyon 0.1's
                                fingerprint, also when the column is
                                absent; 2 every byte of the log) */
    uint64_t copies;         /* rows skipped: identical copies of rows
                                read before (the run loaded again) */
    uint32_t twin;           /* 1 + index of an earlier run that may be
                                the same recording (see above), or 0 */
} tfmt_rows_run;

/* One row. Borrowed until the next tfmt_rows_next or tfmt_rows_free. */
typedef struct tfmt_row {
    uint64_t line; /* 1-based line number */
    uint32_t run;  /* index for tfmt_rows_run_at */
    uint32_t row;
    uint64_t thread_id;
    uint32_t interpreter_id;
    uint8_t status;        /* TFMT_STATUS_* bits */
    uint64_t count;        /* >= 1 */
    const uint32_t *stack; /* frame indices, ROOT FIRST */
    uint32_t depth;        /* may be 0 */
} tfmt_row;

/*
 * Open a reader on `src` (borrowed; nothing is read yet). `opts` may be
 * NULL. Returns TFMT_OK or TFMT_ENOMEM / TFMT_EINVAL with `err` filled
 * (err may be NULL).
 */
TFMT_API int tfmt_rows_open(tfmt_rows_reader **out, tfmt_source *src,
                            const tfmt_rows_options *opts, tfmt_error *err);

/*
 * The next row: TFMT_OK with *out set, TFMT_DONE at the end, or a
 * negative status with tfmt_rows_error filled. After TFMT_EFORMAT,
 * TFMT_ELIMIT or TFMT_ESCHEMA (a bad row) the next call reads on from the
 * next line; after TFMT_EIO or TFMT_ENOMEM every call fails again. Blank
 * lines are skipped.
 */
TFMT_API int tfmt_rows_next(tfmt_rows_reader *r, const tfmt_row **out);

/* Runs seen so far, in order of first appearance. */
TFMT_API size_t tfmt_rows_run_count(const tfmt_rows_reader *r);
TFMT_API const tfmt_rows_run *tfmt_rows_run_at(const tfmt_rows_reader *r,
                                               size_t i);

/*
 * The frame and string tables, growing as rows are read. A frame's
 * filename and funcname are indices for tfmt_rows_string.
 */
TFMT_API size_t tfmt_rows_frame_count(const tfmt_rows_reader *r);
TFMT_API const tfmt_frame *tfmt_rows_frame(const tfmt_rows_reader *r,
                                           uint32_t index);
TFMT_API size_t tfmt_rows_string_count(const tfmt_rows_reader *r);
TFMT_API tfmt_str tfmt_rows_string(const tfmt_rows_reader *r, uint32_t index);

/* Lines read so far (the last line's number). */
TFMT_API uint64_t tfmt_rows_lines(const tfmt_rows_reader *r);

/* The error behind the last negative status. */
TFMT_API const tfmt_error *tfmt_rows_error(const tfmt_rows_reader *r);

TFMT_API void tfmt_rows_free(tfmt_rows_reader *r);

#ifdef __cplusplus
}
#endif
#endif
