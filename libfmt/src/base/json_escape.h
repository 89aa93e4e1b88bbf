/* SPDX-License-Identifier: MIT */
/*
 * json_escape.h - UTF-8 repair and JSON string escaping that reproduce
 * CPython byte for byte: bytes.decode("utf-8", "replace") and
 * json.dumps(..., ensure_ascii=True).
 */
#ifndef TFMT_JSON_ESCAPE_H
#define TFMT_JSON_ESCAPE_H

#include "internal.h"

/*
 * Length of the valid UTF-8 sequence starting at s[0] (1..4), or 0 when
 * s[0] starts no valid sequence; then *bad gets the length of the maximal
 * invalid subpart (1..3) that Python replaces with one U+FFFD.
 */
size_t tfmt__utf8_seq(const uint8_t *s, size_t n, size_t *bad);

/* True when [s, s+n) is valid UTF-8 (no surrogates, no overlongs). */
bool tfmt__utf8_valid(const char *s, size_t n);

/*
 * Append [s, s+n) to `out` with every maximal invalid subpart replaced by
 * U+FFFD (EF BF BD), as Python's "replace" error handler does.
 */
int tfmt__utf8_repair(tfmt_buf *out, const char *s, size_t n);

/*
 * Append [s, s+n) as a JSON string literal, quotes included, escaped as
 * Python's json.dumps with ensure_ascii=True: \" \\ \n \r \t \b \f, other
 * controls and DEL as \u00xx, non-ASCII as lowercase \uxxxx (surrogate
 * pairs above U+FFFF). Invalid UTF-8 is escaped as U+FFFD.
 */
int tfmt__json_put_string(tfmt_buf *out, const char *s, size_t n);

/* The same at o, which has room for n * 6 + 2 bytes; returns the end. */
char *tfmt__json_put_raw(char *o, const char *s, size_t n);

#endif
