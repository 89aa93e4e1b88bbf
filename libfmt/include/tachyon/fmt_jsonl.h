/* SPDX-License-Identifier: MIT */
/*
 * tachyon/fmt_jsonl.h - a streaming reader for CPython's JSONL profile
 * export: schema v0 (`meta`, `string_table`, `frame_table`, `agg`, `end`)
 * and the earlier pre-release dialect (`"v":1`, `str_def` / `frame_def`
 * with `defs`, 1-based ids, `synthetic`).
 *
 * The reader delivers one plain-C record per line, dispatching on `type`.
 * Memory is bounded by the longest line (a configurable maximum). Ids of the
 * pre-release dialect are converted to 0-based, so every record a caller
 * sees uses schema v0 numbering. Following the schema's forward-compatibility
 * rules, unknown record types and unknown fields are accepted (reported
 * through the note callback). A file without an `end` record is incomplete:
 * the reader returns TFMT_ETRUNC at its end.
 *
 * The reader checks each line on its own (JSON syntax, the record envelope,
 * required fields, JSON types and ranges) and every record against the
 * ones before it: the cross-record rules of schemas/RULES.md (meta first
 * and once, one run_id and one dialect, nothing after end, ids defined
 * once and before use, equal samples_total, self <= cumulative <=
 * samples_total). This rulebook is the one every reader of the library
 * and every tool applies; each check has its rule id (tfmt_jsonl_rule).
 *
 * Ownership: a record and every pointer in it are borrowed until the next
 * tfmt_jsonl_next or tfmt_jsonl_free on the same reader.
 */
#ifndef TACHYON_FMT_JSONL_H
#define TACHYON_FMT_JSONL_H

#include "fmt_model.h"
#include "fmt_io.h"

/*
 * The one-line reason every tool gives when what it was asked for needs
 * stacks and an input is a JSONL export (CPython's export has per-frame
 * aggregates only): "tool: FILE: " TFMT_JSONL_NO_STACKS.
 */
#define TFMT_JSONL_NO_STACKS "the export has no stacks; a binary log is needed"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tfmt_jsonl_reader tfmt_jsonl_reader;

/* Record types. Append-only. */
typedef enum {
    TFMT_JREC_UNKNOWN = 0, /* a type this reader does not know */
    TFMT_JREC_META = 1,
    TFMT_JREC_STRINGS = 2, /* string_table (v0) or str_def (v1) */
    TFMT_JREC_FRAMES = 3,  /* frame_table (v0) or frame_def (v1) */
    TFMT_JREC_AGG = 4,
    TFMT_JREC_END = 5
} tfmt_jsonl_type;

/*
 * The checks the reader makes on each line, reported in tfmt_error.check so
 * a validator can give each a stable rule id. Append-only.
 */
typedef enum {
    TFMT_JCHK_NONE = 0,
    TFMT_JCHK_LINE_LENGTH = 1, /* line longer than max_line (ELIMIT) */
    TFMT_JCHK_SYNTAX = 2,      /* not valid JSON (EFORMAT) */
    TFMT_JCHK_NOT_OBJECT = 3,  /* valid JSON but not an object (EFORMAT) */
    TFMT_JCHK_ENVELOPE = 4,    /* type, v or run_id missing or mistyped */
    TFMT_JCHK_VERSION = 5,     /* unsupported v for a known type */
    TFMT_JCHK_MISSING = 6,     /* required field missing */
    TFMT_JCHK_TYPE = 7,        /* field of the wrong JSON type */
    TFMT_JCHK_RANGE = 8,       /* number out of range or bad value */
    TFMT_JCHK_INCOMPLETE = 9,  /* input ended without an end record */
    TFMT_JCHK_INPUT = 10,      /* the source failed: corrupt or truncated
                                  compression (EFORMAT/ETRUNC), EIO */
    /* Cross-record rules (ESCHEMA unless marked as warnings). */
    TFMT_JCHK_META_FIRST = 11,  /* the first record is not meta */
    TFMT_JCHK_META_DUP = 12,    /* a second meta record */
    TFMT_JCHK_END_DUP = 13,     /* a second end record */
    TFMT_JCHK_AFTER_END = 14,   /* a record after the end record */
    TFMT_JCHK_RUN_ID = 15,      /* run_id differs from the first record's */
    TFMT_JCHK_DIALECT = 16,     /* record v differs from meta's */
    TFMT_JCHK_STR_DUP = 17,     /* a str_id defined twice */
    TFMT_JCHK_FRAME_DUP = 18,   /* a frame_id defined twice */
    TFMT_JCHK_STR_REF = 19,     /* a frame names a string not defined on an
                                   earlier line */
    TFMT_JCHK_FRAME_REF = 20,   /* an agg entry names a frame not defined on
                                   an earlier line */
    TFMT_JCHK_AGG_DUP = 21,     /* a frame listed twice in agg entries */
    TFMT_JCHK_TOTAL = 22,       /* samples_total differs between records */
    TFMT_JCHK_SELF_CUM = 23,    /* an entry with self > cumulative */
    TFMT_JCHK_CUM_TOTAL = 24,   /* an entry with cumulative > samples_total */
    TFMT_JCHK_NO_AGG = 25,      /* warning: a frame without an agg entry */
    TFMT_JCHK_RUN_ID_FORM = 26, /* warning: run_id not 32 lowercase hex */
    TFMT_JCHK_SELF_SUM = 27,    /* the entries' self counts add up to more
                                   than samples_total */
    TFMT_JCHK_INPUT_LIMIT = 28  /* the source grew past its limits
                                   (tfmt_source_set_limits; ELIMIT) */
} tfmt_jsonl_check;

/*
 * The stable rule id of a check ("TV102", "TV125", ...; schemas/RULES.md),
 * the same in every tool's messages; NULL for TFMT_JCHK_NONE or an unknown
 * value.
 */
TFMT_API const char *tfmt_jsonl_rule(int check);

/* Findings that are not errors, reported through on_note. */
typedef enum {
    TFMT_JNOTE_UNKNOWN_TYPE = 1,  /* record of an unknown type skipped */
    TFMT_JNOTE_UNKNOWN_FIELD = 2, /* unknown field ignored */
    TFMT_JNOTE_NO_NEWLINE = 3,    /* last line has no terminating \n */
    TFMT_JNOTE_WARNING = 4        /* a cross-record warning (where->check
                                     names it), when on_finding is not
                                     set */
} tfmt_jsonl_note;

/*
 * The rule id of a note ("TV130", "TV140", "TV141"; a warning's is its
 * check's, tfmt_jsonl_rule(where->check)), or NULL.
 */
TFMT_API const char *tfmt_jsonl_note_rule(int note);

/* `where` holds the line and a one-line message; borrowed for the call. */
typedef void (*tfmt_jsonl_note_fn)(void *ctx, tfmt_jsonl_note kind,
                                   const tfmt_error *where);

/*
 * A finding of the cross-record rules: `where` holds the line, the check
 * (tfmt_jsonl_check) and a one-line message; `where->code` is
 * TFMT_ESCHEMA for an error and TFMT_OK for a warning. Borrowed for the
 * call.
 */
typedef void (*tfmt_jsonl_finding_fn)(void *ctx, const tfmt_error *where);

/* Field "not present" value for the optional integer fields below. */
#define TFMT_JSONL_ABSENT (-1)

/* One string_table / str_def entry. */
typedef struct tfmt_jsonl_string {
    uint32_t id;    /* 0-based in both dialects */
    tfmt_str value; /* UTF-8, may contain NUL bytes */
} tfmt_jsonl_string;

/* One frame_table / frame_def entry. Ids 0-based in both dialects. */
typedef struct tfmt_jsonl_frame {
    uint32_t id;
    uint32_t path_str_id;
    uint32_t func_str_id;
    int32_t line;     /* 0: no line (synthetic frame) */
    int32_t end_line; /* TFMT_JSONL_ABSENT when not present */
    int32_t col;      /* TFMT_JSONL_ABSENT when not present */
    int32_t end_col;  /* TFMT_JSONL_ABSENT when not present */
    bool synthetic;   /* dialect v1 `synthetic: true` */
} tfmt_jsonl_frame;

/* One agg entry. */
typedef struct tfmt_jsonl_agg {
    uint32_t frame_id; /* 0-based in both dialects */
    uint64_t self;
    uint64_t cumulative;
} tfmt_jsonl_agg;

/* One record (one line). Only the members of its type are meaningful. */
typedef struct tfmt_jsonl_record {
    tfmt_jsonl_type type;
    tfmt_str type_name; /* the `type` string as written */
    uint64_t line;      /* 1-based physical line */
    int64_t v;          /* record version: 0 schema v0, 1 pre-release */
    tfmt_str run_id;
    /* META */
    uint64_t sample_interval_usec;
    tfmt_str mode; /* ptr NULL when absent */
    /* STRINGS */
    const tfmt_jsonl_string *strings;
    size_t n_strings;
    /* FRAMES */
    const tfmt_jsonl_frame *frames;
    size_t n_frames;
    /* AGG and END */
    tfmt_str kind;  /* AGG: "frame" */
    tfmt_str scope; /* AGG: "final" */
    uint64_t samples_total;
    const tfmt_jsonl_agg *entries;
    size_t n_entries;
} tfmt_jsonl_record;

/* Default and hard limit of a line's length in bytes (without the \n). */
#define TFMT_JSONL_MAX_LINE_DEFAULT ((size_t)64 << 20)
#define TFMT_JSONL_MAX_LINE_LIMIT ((size_t)1 << 30)

#define TFMT_JSONL_OPTIONS_VERSION 2
typedef struct tfmt_jsonl_options {
    unsigned version;            /* TFMT_JSONL_OPTIONS_VERSION */
    const tfmt_allocator *alloc; /* NULL: libc */
    size_t max_line;             /* 0: TFMT_JSONL_MAX_LINE_DEFAULT; capped
                                    at TFMT_JSONL_MAX_LINE_LIMIT */
    /*
     * Keep going after a line-local problem (JSON syntax, a schema rule, a
     * line too long): tfmt_jsonl_next returns the error, and the next call
     * continues with the following line. Without it every error is final.
     */
    bool keep_going;
    tfmt_jsonl_note_fn on_note; /* NULL: notes are dropped */
    void *note_ctx;
    /*
     * Bytes the caller already read from the source (to sniff its format),
     * read before the source's remaining bytes. Copied at open; at most
     * 64 KiB.
     */
    const void *head;
    size_t head_len;
    /* Version 2. */
    /*
     * The cross-record rules are always checked. Without on_finding, their
     * first error ends the input like any error (TFMT_ESCHEMA, final, also
     * with keep_going; tfmt_jsonl_error names the check) and warnings go
     * to on_note (TFMT_JNOTE_WARNING). With it, every finding, error or
     * warning, goes to on_finding and the reader goes on (tachyon-validate
     * reports them all); after a line that could not be read (keep_going),
     * findings that line may have caused (meta first, references, coverage) are
     * no longer reported.
     */
    tfmt_jsonl_finding_fn on_finding;
    void *finding_ctx;
} tfmt_jsonl_options;
/* A braced initializer, which clang-format takes for a block. */
/* clang-format off */
#define TFMT_JSONL_OPTIONS_INIT \
    {TFMT_JSONL_OPTIONS_VERSION, NULL, 0, false, NULL, NULL, NULL, 0, NULL, \
     NULL}
/* clang-format on */

/*
 * Start reading JSONL from `src` (borrowed; it must outlive the reader).
 * `opts` may be NULL. Reads nothing yet. On failure returns a negative
 * status, fills `err` (may be NULL) and sets *out to NULL.
 */
TFMT_API int tfmt_jsonl_open(tfmt_jsonl_reader **out, tfmt_source *src,
                             const tfmt_jsonl_options *opts, tfmt_error *err);

/*
 * Read the next record into *out (borrowed). Returns TFMT_OK; TFMT_DONE at
 * the end of a complete input (an `end` record was seen; records after it
 * are still delivered when on_finding takes the TV114 findings); or a
 * negative status with tfmt_jsonl_error filled (line, check, message):
 * TFMT_ETRUNC at the end of an input without an `end` record,
 * TFMT_EFORMAT for bad JSON, TFMT_ESCHEMA / TFMT_EVERSION for a record
 * that breaks the schema or a cross-record rule, TFMT_ELIMIT for a line
 * too long, or TFMT_EIO / TFMT_ENOMEM. With keep_going, a line-local error can
 * be followed by another call; otherwise (and for EIO/ENOMEM/ETRUNC) the reader
 * keeps returning the same error.
 */
TFMT_API int tfmt_jsonl_next(tfmt_jsonl_reader *r,
                             const tfmt_jsonl_record **out);

/* The error behind the last negative status. Borrowed; never NULL. */
TFMT_API const tfmt_error *tfmt_jsonl_error(const tfmt_jsonl_reader *r);

/* Lines read so far. */
TFMT_API uint64_t tfmt_jsonl_lines(const tfmt_jsonl_reader *r);

/* What the records read so far said about the whole export. */
typedef struct tfmt_jsonl_info {
    bool has_meta; /* a meta record was read */
    int64_t v;     /* its dialect: 0 schema v0, 1 pre-release */
    uint64_t sample_interval_usec;
    int mode;                          /* tfmt_mode of meta's "mode" (a name, or
                                          the decimal number CPython writes for
                                          others); TFMT_MODE_UNKNOWN when absent
                                          or neither */
    tfmt_str run_id;                   /* the first record's; borrowed until
                                          tfmt_jsonl_free */
    uint64_t samples_total;            /* of the first agg or end record */
    uint64_t strings, frames, entries; /* ids defined and agg entries */
} tfmt_jsonl_info;

/* Borrowed until tfmt_jsonl_free; never NULL. */
TFMT_API const tfmt_jsonl_info *tfmt_jsonl_get_info(const tfmt_jsonl_reader *r);

/* "meta", "string_table", ... for a type; "unknown" for TFMT_JREC_UNKNOWN. */
TFMT_API const char *tfmt_jsonl_type_name(tfmt_jsonl_type type);

TFMT_API void tfmt_jsonl_free(tfmt_jsonl_reader *r);

#ifdef __cplusplus
}
#endif
#endif
