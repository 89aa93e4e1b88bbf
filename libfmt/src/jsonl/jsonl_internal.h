/* SPDX-License-Identifier: MIT */
/*
 * jsonl_internal.h - private parts of the JSONL reader: the bounded line
 * splitter (jsonl_lines.c) and the reader handle shared by jsonl_reader.c
 * (lines -> JSON -> envelope) and jsonl_records.c (fields -> C structs).
 */
#ifndef TFMT_JSONL_INTERNAL_H
#define TFMT_JSONL_INTERNAL_H

#include <tachyon/fmt_jsonl.h>

#include "internal.h"

/* Splits a source into lines without holding more than one line. */
typedef struct tfmt_lines {
    tfmt_source *src;
    uint8_t *block; /* read buffer */
    size_t cap;
    size_t pos;
    size_t len;
    tfmt_buf carry; /* a line that spans reads, at most max_line */
    size_t max_line;
    uint64_t line; /* number of the line last returned */
    bool eof;
    bool skipping;   /* discarding the rest of an over-long line */
    bool no_newline; /* the line last returned ended at EOF */
    bool src_failed; /* the source failed (its error is final; a
                        TFMT_ELIMIT is then an input limit, not a
                        line too long) */
} tfmt_lines;

int tfmt__lines_init(tfmt_lines *l, tfmt_source *src, const tfmt_allocator *a,
                     size_t max_line);
void tfmt__lines_free(tfmt_lines *l, const tfmt_allocator *a);
/*
 * The next line, without its '\n', in [*ptr, *ptr + *len) (borrowed until
 * the next call). Returns TFMT_OK, TFMT_DONE at the end, TFMT_ELIMIT for a
 * line over max_line (the next call resumes after it) or TFMT_EIO.
 */
int tfmt__lines_next(tfmt_lines *l, const char **ptr, size_t *len,
                     tfmt_error *err);

/*
 * The state of the cross-record rules (jsonl_rules.c): what the records
 * read so far defined. Bounded by the ids the input defines (each costs
 * the input several bytes).
 */
typedef struct tfmt_jrules {
    tfmt_idbits strings, frames, agg;
    uint64_t records; /* well-formed records so far */
    bool saw_meta, saw_end, first_reported;
    int64_t v; /* the last meta record's version */
    bool have_total;
    uint64_t total_line; /* line of the first samples_total */
    bool dropped;        /* a line could not be read as a record */
    bool have_run_id;
    tfmt_buf run_id; /* the first record's run_id */
    tfmt_jsonl_info info;
    uint64_t self_sum; /* of every agg entry, saturating */
    bool entry_bad;    /* an agg entry broke a rule of its own */
    bool self_over;    /* TFMT_JCHK_SELF_SUM reported */
} tfmt_jrules;

struct tfmt_jsonl_reader {
    const tfmt_allocator *alloc;
    tfmt_jsonl_options opts;
    tfmt_lines lines;
    tfmt_jsonl_record rec;
    tfmt_jsonl_string *strings;
    size_t strings_cap;
    tfmt_jsonl_frame *frames;
    size_t frames_cap;
    tfmt_jsonl_agg *entries;
    size_t entries_cap;
    tfmt_buf fast_text;             /* the record's strings, decoded */
    tfmt_buf name_text, name_text2; /* member names with escapes */
    uint32_t *names_set;            /* unknown names seen (jsonl_names.c) */
    size_t names_cap;
    tfmt_jrules rules;
    tfmt_error err;
    bool saw_end;
    bool utf8_checked; /* the record's strings are valid UTF-8, as CPython
                          decodes it (jsonl_fast.c checked them) */
    int final;         /* nonzero: every later call returns it */
};

/*
 * Fill r->rec from the line p[0..n), a JSON object json-c accepts
 * (tfmt__jsyn_check said so). Returns TFMT_OK or a negative status with
 * r->err set (line included).
 */
int tfmt__jsonl_convert(tfmt_jsonl_reader *r, const char *p, size_t n);

/*
 * The member names of one object already noted as unknown
 * (jsonl_names.c): each is noted once, where it first appears. Names are
 * kept as their offsets in the object (a hash set on the reader, grown
 * with the names: a few bytes for each, each taking at least 6 bytes of
 * the line).
 */
typedef struct tfmt_jnames {
    tfmt_jsonl_reader *r;
    const char *base, *end; /* the object, the line's end */
    size_t n;               /* names stored */
} tfmt_jnames;
int tfmt__jnames_begin(tfmt_jnames *s, tfmt_jsonl_reader *r, const char *obj,
                       const char *end);
/*
 * Add the name at `name` (decoded: k). Returns 1 when it is new, 0 when
 * the object had it before, or TFMT_ENOMEM.
 */
int tfmt__jnames_add(tfmt_jnames *s, const char *name, tfmt_str k);

/*
 * Parse the line p[0..n) as one of the bulk record types into r->rec,
 * in the shapes CPython writes. Returns TFMT_OK, 1 when the line is not
 * in a shape it recognizes (the caller then reads it the general way,
 * tfmt__jsonl_parse_line; r->rec and the entry arrays may have been
 * overwritten), or TFMT_ENOMEM.
 */
int tfmt__jsonl_fast(tfmt_jsonl_reader *r, const char *p, size_t n);

/*
 * The same for a record of a type the reader does not know (called by
 * tfmt__jsonl_fast when the bulk types decline): a valid JSON object with
 * a string `type`, an integer `v` and a string `run_id`; the record gets
 * type TFMT_JREC_UNKNOWN and the note json-c's path would give. Returns
 * TFMT_OK or 1 (declined).
 */
int tfmt__jsonl_fast_unknown(tfmt_jsonl_reader *r, const char *p, size_t n);

/* Whether `name` is one of the record types the reader knows. */
bool tfmt__jsonl_known_type(tfmt_str name);

/* The note for a record of an unknown type (r->rec.type_name). */
void tfmt__jsonl_unknown_type(tfmt_jsonl_reader *r);

/*
 * Read the line p[0..n) whatever it holds: check it as JSON
 * (tfmt__jsyn_check) and convert it into r->rec (tfmt__jsonl_convert),
 * or fail with json-c's verdict. Memory: the decoded strings (at most the
 * line), entry arrays (a fraction of it) and names (jsonl_names.c).
 */
int tfmt__jsonl_parse_line(tfmt_jsonl_reader *r, const char *p, size_t n);

/*
 * json-c's verdict on a line (jsonl_syntax.c): its json_tokener_error
 * code (the order of json_tokener_errors, whose descriptions the messages
 * quote) and where it stopped, as json-c 0.16 gives them with
 * JSON_TOKENER_STRICT, JSON_TOKENER_VALIDATE_UTF8 and 32 levels.
 */
enum {
    TFMT_JSYN_OK,
    TFMT_JSYN_CONTINUE, /* the line ended inside a value */
    TFMT_JSYN_EDEPTH,
    TFMT_JSYN_EEOF,
    TFMT_JSYN_EUNEXPECTED,
    TFMT_JSYN_ENULL,
    TFMT_JSYN_EBOOLEAN,
    TFMT_JSYN_ENUMBER,
    TFMT_JSYN_EARRAY_SEP,
    TFMT_JSYN_EKEY_NAME,
    TFMT_JSYN_EKEY_SEP,
    TFMT_JSYN_EVALUE_SEP,
    TFMT_JSYN_ESTRING,
    TFMT_JSYN_ECOMMENT,
    TFMT_JSYN_EUTF8
};
/* The kind of value a line holds when it parses. */
enum {
    TFMT_JSYN_TOP_OBJECT,
    TFMT_JSYN_TOP_ARRAY,
    TFMT_JSYN_TOP_SCALAR,
    TFMT_JSYN_TOP_NULL /* json-c returns no object for a bare null */
};
typedef struct tfmt_jsyn {
    int code;   /* TFMT_JSYN_OK or an error */
    size_t end; /* offset json-c stopped at (its parse end) */
    int top;    /* TFMT_JSYN_TOP_*, when code is TFMT_JSYN_OK */
} tfmt_jsyn;
void tfmt__jsyn_check(const char *p, size_t n, tfmt_jsyn *out);
/* json-c's description of a code ("unexpected character", ...). */
const char *tfmt__jsyn_desc(int code);

/* The cross-record rules (jsonl_rules.c). */
void tfmt__jrules_init(tfmt_jrules *s, const tfmt_allocator *a);
void tfmt__jrules_free(tfmt_jrules *s);
/*
 * Check r->rec against the records before it. Returns TFMT_OK (findings,
 * if any, went to on_finding), TFMT_ESCHEMA with r->err set (the first
 * error, without on_finding) or TFMT_ENOMEM.
 */
int tfmt__jrules_record(tfmt_jsonl_reader *r);
/* At a complete end: frames without an agg entry (on_finding only). */
void tfmt__jrules_end(tfmt_jsonl_reader *r);

/* Report a note through the options' callback, if any. */
void tfmt__jsonl_note(tfmt_jsonl_reader *r, tfmt_jsonl_note kind,
                      const char *fmt, ...) TFMT_PRINTF(3, 4);

#endif
