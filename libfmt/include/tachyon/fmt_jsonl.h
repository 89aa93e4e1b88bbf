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
 * required fields, JSON types and ranges). Cross-record rules (order, id
 * uniqueness, references, totals) are left to the caller (tachyon-validate).
 *
 * Ownership: a record and every pointer in it are borrowed until the next
 * tfmt_jsonl_next or tfmt_jsonl_free on the same reader.
 */
#ifndef TACHYON_FMT_JSONL_H
#define TACHYON_FMT_JSONL_H

#include "fmt_model.h"
#include "fmt_io.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tfmt_jsonl_reader tfmt_jsonl_reader;

/* Record types. Append-only. */
typedef enum {
    TFMT_JREC_UNKNOWN = 0,      /* a type this reader does not know */
    TFMT_JREC_META = 1,
    TFMT_JREC_STRINGS = 2,      /* string_table (v0) or str_def (v1) */
    TFMT_JREC_FRAMES = 3,       /* frame_table (v0) or frame_def (v1) */
    TFMT_JREC_AGG = 4,
    TFMT_JREC_END = 5
} tfmt_jsonl_type;

/*
 * The checks the reader makes on each line, reported in tfmt_error.check so
 * a validator can give each a stable rule id. Append-only.
 */
typedef enum {
    TFMT_JCHK_NONE = 0,
    TFMT_JCHK_LINE_LENGTH = 1,  /* line longer than max_line (ELIMIT) */
    TFMT_JCHK_SYNTAX = 2,       /* not valid JSON (EFORMAT) */
    TFMT_JCHK_NOT_OBJECT = 3,   /* valid JSON but not an object (EFORMAT) */
    TFMT_JCHK_ENVELOPE = 4,     /* type, v or run_id missing or mistyped */
    TFMT_JCHK_VERSION = 5,      /* unsupported v for a known type */
    TFMT_JCHK_MISSING = 6,      /* required field missing */
    TFMT_JCHK_TYPE = 7,         /* field of the wrong JSON type */
    TFMT_JCHK_RANGE = 8,        /* number out of range or bad value */
    TFMT_JCHK_INCOMPLETE = 9,   /* input ended without an end record */
    TFMT_JCHK_INPUT = 10        /* the source failed: corrupt or truncated
                                   compression (EFORMAT/ETRUNC), EIO */
} tfmt_jsonl_check;

/* Findings that are not errors, reported through on_note. */
typedef enum {
    TFMT_JNOTE_UNKNOWN_TYPE = 1,    /* record of an unknown type skipped */
    TFMT_JNOTE_UNKNOWN_FIELD = 2,   /* unknown field ignored */
    TFMT_JNOTE_NO_NEWLINE = 3       /* last line has no terminating \n */
} tfmt_jsonl_note;

/* `where` holds the line and a one-line message; borrowed for the call. */
typedef void (*tfmt_jsonl_note_fn)(void *ctx, tfmt_jsonl_note kind,
                                   const tfmt_error *where);

/* Field "not present" value for the optional integer fields below. */
#define TFMT_JSONL_ABSENT (-1)

/* One string_table / str_def entry. */
typedef struct tfmt_jsonl_string {
    uint32_t id;                /* 0-based in both dialects */
    tfmt_str value;             /* UTF-8, may contain NUL bytes */
} tfmt_jsonl_string;

/* One frame_table / frame_def entry. Ids 0-based in both dialects. */
typedef struct tfmt_jsonl_frame {
    uint32_t id;
    uint32_t path_str_id;
    uint32_t func_str_id;
    int32_t line;               /* 0: no line (synthetic frame) */
    int32_t end_line;           /* TFMT_JSONL_ABSENT when not present */
    int32_t col;                /* TFMT_JSONL_ABSENT when not present */
    int32_t end_col;            /* TFMT_JSONL_ABSENT when not present */
    bool synthetic;             /* dialect v1 `synthetic: true` */
} tfmt_jsonl_frame;

/* One agg entry. */
typedef struct tfmt_jsonl_agg {
    uint32_t frame_id;          /* 0-based in both dialects */
    uint64_t self;
    uint64_t cumulative;
} tfmt_jsonl_agg;

/* One record (one line). Only the members of its type are meaningful. */
typedef struct tfmt_jsonl_record {
    tfmt_jsonl_type type;
    tfmt_str type_name;         /* the `type` string as written */
    uint64_t line;              /* 1-based physical line */
    int64_t v;                  /* record version: 0 schema v0, 1 pre-release */
    tfmt_str run_id;
    /* META */
    uint64_t sample_interval_usec;
    tfmt_str mode;              /* ptr NULL when absent */
    /* STRINGS */
    const tfmt_jsonl_string *strings;
    size_t n_strings;
    /* FRAMES */
    const tfmt_jsonl_frame *frames;
    size_t n_frames;
    /* AGG and END */
    tfmt_str kind;              /* AGG: "frame" */
    tfmt_str scope;             /* AGG: "final" */
    uint64_t samples_total;
    const tfmt_jsonl_agg *entries;
    size_t n_entries;
} tfmt_jsonl_record;

/* Default and hard limit of a line's length in bytes (without the \n). */
#define TFMT_JSONL_MAX_LINE_DEFAULT ((size_t)64 << 20)
#define TFMT_JSONL_MAX_LINE_LIMIT ((size_t)1 << 30)

#define TFMT_JSONL_OPTIONS_VERSION 1
typedef struct tfmt_jsonl_options {
    unsigned version;           /* TFMT_JSONL_OPTIONS_VERSION */
    const tfmt_allocator *alloc; /* NULL: libc */
    size_t max_line;            /* 0: TFMT_JSONL_MAX_LINE_DEFAULT; capped
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
} tfmt_jsonl_options;
#define TFMT_JSONL_OPTIONS_INIT \
    {TFMT_JSONL_OPTIONS_VERSION, NULL, 0, false, NULL, NULL, NULL, 0}

/*
 * Start reading JSONL from `src` (borrowed; it must outlive the reader).
 * `opts` may be NULL. Reads nothing yet. On failure returns a negative
 * status, fills `err` (may be NULL) and sets *out to NULL.
 */
TFMT_API int tfmt_jsonl_open(tfmt_jsonl_reader **out, tfmt_source *src,
                             const tfmt_jsonl_options *opts,
                             tfmt_error *err);

/*
 * Read the next record into *out (borrowed). Returns TFMT_OK; TFMT_DONE at
 * the end of a complete input (an `end` record was seen; records after it
 * are still delivered); or a negative status with tfmt_jsonl_error filled
 * (line, check, message): TFMT_ETRUNC at the end of an input without an
 * `end` record, TFMT_EFORMAT for bad JSON, TFMT_ESCHEMA / TFMT_EVERSION for
 * a record that breaks the schema, TFMT_ELIMIT for a line too long, or
 * TFMT_EIO / TFMT_ENOMEM. With keep_going, a line-local error can be
 * followed by another call; otherwise (and for EIO/ENOMEM/ETRUNC) the
 * reader keeps returning the same error.
 */
TFMT_API int tfmt_jsonl_next(tfmt_jsonl_reader *r,
                             const tfmt_jsonl_record **out);

/* The error behind the last negative status. Borrowed; never NULL. */
TFMT_API const tfmt_error *tfmt_jsonl_error(const tfmt_jsonl_reader *r);

/* Lines read so far. */
TFMT_API uint64_t tfmt_jsonl_lines(const tfmt_jsonl_reader *r);

/* "meta", "string_table", ... for a type; "unknown" for TFMT_JREC_UNKNOWN. */
TFMT_API const char *tfmt_jsonl_type_name(tfmt_jsonl_type type);

TFMT_API void tfmt_jsonl_free(tfmt_jsonl_reader *r);

#ifdef __cplusplus
}
#endif
#endif
