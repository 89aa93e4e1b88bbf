/* SPDX-License-Identifier: MIT */
/*
 * jsonl_text.h - reading values out of a line that tfmt__jsyn_check
 * accepted, as json-c reads them (jsonl_text.c), without building
 * anything: a value is the position of its first character. Objects are
 * searched in place (the last member of a name wins, as in json-c, and a
 * name ends at its first NUL, as json-c keeps names as C strings);
 * strings are decoded as json-c decodes them; integers convert with
 * json-c's clamping. Every function stays within [p, end) even if the
 * text is not what the check accepts.
 */
#ifndef TFMT_JSONL_TEXT_H
#define TFMT_JSONL_TEXT_H

#include "jsonl_internal.h"

/* Value kinds, named as jsonl_records.c names them in messages. */
typedef enum {
    TFMT_JV_NULL,
    TFMT_JV_BOOLEAN,
    TFMT_JV_NUMBER, /* json-c's double: a '.', 'e' or 'E', NaN, Infinity */
    TFMT_JV_INTEGER,
    TFMT_JV_OBJECT,
    TFMT_JV_ARRAY,
    TFMT_JV_STRING
} tfmt_jv_kind;

/* "null", "boolean", "number", "integer", "object", "array", "string". */
const char *tfmt__jv_kind_name(int kind);

/* The kind of the value at p. */
int tfmt__jv_kind(const char *p, const char *end);

/* Past the value at p (and the whitespace after it). */
const char *tfmt__jv_skip(const char *p, const char *end);

/* Members of an object or elements of an array, in order. */
typedef struct tfmt_jiter {
    const char *p, *end;
} tfmt_jiter;

/* Start at the '{' or '[' at p. */
void tfmt__jv_iter(tfmt_jiter *it, const char *p, const char *end);
/* The next member: its name (at the quote) and value; false at the end. */
bool tfmt__jv_next_member(tfmt_jiter *it, const char **name,
                          const char **value);
/* The next element; false at the end. */
bool tfmt__jv_next_elem(tfmt_jiter *it, const char **value);

/*
 * A member name as json-c keeps it: decoded and cut at its first NUL. A
 * name without escapes points into the line; one with escapes is decoded
 * into `scratch` (reset first), which the name borrows until its next use.
 * Returns TFMT_OK or TFMT_ENOMEM.
 */
int tfmt__jv_name(const char *name, const char *end, tfmt_buf *scratch,
                  tfmt_str *out);

/*
 * The string at p decoded as json-c decodes it (escapes; a lone or
 * broken surrogate becomes U+FFFD; bytes copied as they are), appended to
 * b with a NUL after it; *out points into b. b must have room for the
 * string's length in the line plus one (never more is written), so that
 * earlier strings stay where they are.
 */
void tfmt__jv_string(const char *p, const char *end, tfmt_buf *b,
                     tfmt_str *out);

/*
 * An integer as json-c's json_object_get_int64 (*s) and
 * json_object_get_uint64 (*u) give it: out-of-range values clamped, a
 * negative value 0 as unsigned, an unsigned one past INT64_MAX
 * INT64_MAX as signed.
 */
void tfmt__jv_int(const char *p, const char *end, int64_t *s, uint64_t *u);

/* true or false. */
bool tfmt__jv_bool(const char *p);

#endif
