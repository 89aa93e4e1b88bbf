/* SPDX-License-Identifier: MIT */
/*
 * tachyon/fmt_text.h - names from a profile as inert text.
 *
 * A profile names its functions and files with whatever bytes its writer
 * chose: a newline that starts a forged line in a report, an escape
 * sequence a terminal obeys, a character XML cannot carry. Every text
 * output of the library and of the tachyon tools passes such names
 * through tfmt_text_escape, in the style of the place they go:
 *
 *   TFMT_TEXT_PLAIN     a terminal table, a message on stderr, a log
 *                       line: C0 controls, DEL and invalid UTF-8 bytes
 *                       become \n, \r, \t or \xNN; C1 controls, U+2028,
 *                       U+2029 and the bidirectional controls (U+061C,
 *                       U+200E, U+200F, U+202A..U+202E, U+2066..U+2069)
 *                       become \uNNNN. Everything else, the backslash
 *                       included, is kept, so the text reads as it was.
 *   TFMT_TEXT_MARKDOWN  the inside of a code span in a markdown table
 *                       cell: as PLAIN, but a line feed or carriage
 *                       return becomes a space, | becomes \| and a
 *                       backquote a quote ('), so the span and the row
 *                       hold whatever the name is (no HTML entities:
 *                       `<module>` stays readable in the span).
 *   TFMT_TEXT_CSV       one whole CSV field (RFC 4180): as PLAIN, then
 *                       quoted when it holds a comma or a double quote
 *                       (doubled inside), and a field that starts with
 *                       =, +, - or @ gets a leading ' and quotes, so a
 *                       spreadsheet shows it as text instead of running
 *                       it as a formula.
 *   TFMT_TEXT_XML       XML (and HTML) text or a double-quoted attribute
 *                       value: & < > " as entities, line feed and
 *                       carriage return as &#10; and &#13; (the same
 *                       characters to a parser, but the name stays on
 *                       its line of the document), and every code point
 *                       that is not an XML 1.0 character (C0 controls but
 *                       tab; U+FFFE; U+FFFF) and every invalid UTF-8
 *                       sequence as U+FFFD.
 *
 * Nothing is allocated; the function is pure and thread-safe.
 */
#ifndef TACHYON_FMT_TEXT_H
#define TACHYON_FMT_TEXT_H

#include "fmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tfmt_text_style {
    TFMT_TEXT_PLAIN = 0,
    TFMT_TEXT_MARKDOWN = 1,
    TFMT_TEXT_CSV = 2,
    TFMT_TEXT_XML = 3
} tfmt_text_style;

/*
 * Escape the `n` bytes at `s` (any bytes, NUL included) in `style` into
 * `out`, which holds `cap` bytes, and end them with a NUL when cap > 0.
 * Returns the length of the whole escaped text without the NUL, as
 * snprintf does: when that is `cap` or more, `out` holds the longest
 * prefix of whole characters and escapes that fits (never half an
 * escape), and a caller can retry with a buffer of the returned length
 * plus one. `out` may be NULL when `cap` is 0 (a length query).
 */
TFMT_API size_t tfmt_text_escape(char *out, size_t cap, const char *s, size_t n,
                                 tfmt_text_style style);

#ifdef __cplusplus
}
#endif
#endif
