/* SPDX-License-Identifier: MIT */
/*
 * rows_internal.h - private parts of the ClickHouse rows reader: a JSON
 * scanner for one line (rows_json.c), the columns of a row as parsed
 * (rows_row.c), the reader's tables of strings, frames, runs and seen
 * rows (rows_tables.c) and the reader handle (rows_reader.c). Lines come
 * from the JSONL layer's bounded splitter. Never installed.
 */
#ifndef TFMT_ROWS_INTERNAL_H
#define TFMT_ROWS_INTERNAL_H

#include <tachyon/fmt_rows.h>

#include "jsonl_internal.h"

/* ---- one line of JSON (rows_json.c) ---- */

/*
 * A cursor over one line. On failure a function returns TFMT_EFORMAT (or
 * TFMT_ENOMEM) and leaves a static message and a tfmt_rows_check in the
 * cursor.
 */
typedef struct tfmt_rcur {
    const char *p, *end;
    const char *msg;
    int check;
} tfmt_rcur;

void tfmt__rows_ws(tfmt_rcur *c);
/* Consume `ch` (after blank space) or fail with `msg`. */
int tfmt__rows_expect(tfmt_rcur *c, char ch, const char *msg);
/* Decode the JSON string at c->p, appending its bytes to `out` (NULL:
   check it only). */
int tfmt__rows_string(tfmt_rcur *c, tfmt_buf *out);
/*
 * An integer written as a JSON number or as a quoted decimal string (as
 * ClickHouse writes 64-bit integers): *neg and *mag its sign and size.
 */
int tfmt__rows_integer(tfmt_rcur *c, bool *neg, uint64_t *mag);
/* Skip any JSON value (nested at most 64 deep). */
int tfmt__rows_skip(tfmt_rcur *c);

/* ---- a row's columns (rows_row.c) ---- */

/* A frames.* or labels.* string array: bytes in `text`, spans in `span`. */
typedef struct tfmt_rstrs {
    tfmt_buf text;
    size_t *off, *len;
    size_t n, cap;
} tfmt_rstrs;

typedef struct tfmt_rints {
    int64_t *v;
    size_t n, cap;
} tfmt_rints;

enum { TFMT_RF_FILE, TFMT_RF_FUNC, TFMT_RF_NSTR };
enum {
    TFMT_RF_LINE,
    TFMT_RF_END_LINE,
    TFMT_RF_COL,
    TFMT_RF_END_COL,
    TFMT_RF_OPCODE,
    TFMT_RF_NINT
};

typedef struct tfmt_rparsed {
    uint64_t seen; /* bit per column id (rows_row.c) */
    tfmt_buf run_id, mode, scratch;
    uint64_t row, thread_id, interpreter_id, status, count;
    uint64_t interval_us, start_time_us, stack_hash, run_id_version;
    tfmt_rstrs strs[TFMT_RF_NSTR];
    tfmt_rstrs labels; /* checked, then dropped */
    tfmt_rints ints[TFMT_RF_NINT];
} tfmt_rparsed;

void tfmt__rparsed_init(tfmt_rparsed *r, const tfmt_allocator *a);
void tfmt__rparsed_free(tfmt_rparsed *r, const tfmt_allocator *a);
/*
 * Parse line p[0..n) into `r`: every known column type- and
 * range-checked, required columns present, frames.* of one length.
 * Returns TFMT_OK, TFMT_ENOMEM, or TFMT_EFORMAT with c->msg / c->check.
 */
int tfmt__rows_parse(tfmt_rparsed *r, const tfmt_allocator *a, const char *p,
                     size_t n, tfmt_rcur *c, char *msg, size_t msg_cap);
/* The frame count of a parsed row (the length of frames.file). */
size_t tfmt__rparsed_depth(const tfmt_rparsed *r);

/* ---- the reader ---- */

/* A (run, row) seen: the pair + 1 (0: empty slot), its line's hash. */
typedef struct tfmt_rseen {
    uint64_t key, content;
} tfmt_rseen;

typedef struct tfmt_rstring {
    uint64_t off;
    uint32_t len;
} tfmt_rstring;

struct tfmt_rows_reader {
    const tfmt_allocator *alloc;
    tfmt_lines lines;
    tfmt_error err;
    int final; /* nonzero: every later call returns it */
    tfmt_rparsed parsed;
    tfmt_row row;
    uint32_t *stack; /* the current row's frames */

    tfmt_buf strtext; /* unique strings, back to back */
    tfmt_rstring *strings;
    size_t nstrings, capstrings;
    tfmt_idset string_set;
    tfmt_frame *frames;
    size_t nframes, capframes;
    tfmt_idset frame_set;
    tfmt_rows_run *runs;
    size_t nruns, capruns;
    tfmt_idset run_set;
    tfmt_idset recording_set; /* runs by start time, interval, mode */
    tfmt_rseen *seen;
    size_t seen_cap, seen_count;
    uint64_t line_hash; /* the current line's bytes */
};

/* rows_tables.c: intern into the reader's tables (TFMT_ENOMEM/ELIMIT). */
int tfmt__rows_intern_string(tfmt_rows_reader *r, const char *s, size_t len,
                             uint32_t *out);
int tfmt__rows_intern_frame(tfmt_rows_reader *r, const tfmt_frame *f,
                            uint32_t *out);
/* The run of `run_id` (32 bytes), created at `line` when new. */
int tfmt__rows_run(tfmt_rows_reader *r, const char *run_id, uint64_t line,
                   uint32_t *out, bool *created);
/* What a (run, row) pair is: new, a copy of its first line, or not. */
typedef enum {
    TFMT_RCOPY_NEW,
    TFMT_RCOPY_SAME, /* the same bytes as its first line: a double load */
    TFMT_RCOPY_OTHER /* the pair again with other content */
} tfmt_rcopy;
/* Record (run, row) with the hash of its line's bytes. */
int tfmt__rows_seen(tfmt_rows_reader *r, uint32_t run, uint32_t row,
                    uint64_t content, tfmt_rcopy *out);
/* Set runs[run].twin to an earlier run of the same recording, if any. */
int tfmt__rows_twin(tfmt_rows_reader *r, uint32_t run);
void tfmt__rows_tables_free(tfmt_rows_reader *r);

#endif
