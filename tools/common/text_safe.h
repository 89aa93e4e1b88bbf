/* SPDX-License-Identifier: MIT */
/*
 * text_safe.h - text from a profile or a process (function and file names,
 * source lines, paths) made inert before it reaches a terminal or a log.
 *
 * Names are data: a program under the recorder, or whoever wrote a
 * profile, chooses them, and a raw ESC, a C1 CSI or a bidi-breaking line
 * separator in one would be a command to the terminal showing it. Every
 * byte a terminal or a line-based reader could act on becomes a visible
 * escape:
 *
 *   TAB LF CR                       \t \n \r
 *   other C0 controls, DEL          \xHH           (\x1b, \x7f)
 *   C1 controls U+0080..U+009F      \u0080..\u009f (as UTF-8, C2 80..C2 9F)
 *   U+2028, U+2029, the bidi        \uNNNN
 *   controls (U+061C, U+200E/F,
 *   U+202A..E, U+2066..9)
 *   a byte that is not UTF-8        \xHH           (each byte of it)
 *
 * Everything else (printable ASCII, well-formed UTF-8) passes unchanged,
 * so ordinary names read as they are. A backslash stays as it is: the
 * text is for reading, not for parsing back (a name that itself contains
 * "\x1b" looks like an escaped ESC). This is libtachyonfmt's
 * TFMT_TEXT_PLAIN (tachyon/fmt_text.h), which the library's own text
 * outputs use: one definition for both.
 */
#ifndef TACHYON_TEXT_SAFE_H
#define TACHYON_TEXT_SAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Output bytes per input byte at most ("\x1b" from one byte), for sizing
 * a buffer that holds a whole escaped text: len * GROWTH + 1. */
#define CLI_ESCAPE_GROWTH 4

/*
 * Escape `len` bytes at `s` into `out` (`cap` bytes). The output is
 * NUL-terminated when cap > 0 and is cut only between whole characters
 * or escapes, never inside one. Returns the length the whole escaped text
 * needs, NUL excluded (as snprintf): the output is complete when that is
 * below `cap`. `s` may hold NUL bytes (escaped as \x00).
 */
size_t cli_escape_text(char *out, size_t cap, const char *s, size_t len);

/*
 * The NUL-terminated `s` escaped into `buf` (`cap` bytes, at least 4);
 * a text that does not fit ends in "...". Returns `buf`, for use as a
 * printf argument: cli_fail(..., "%s", cli_escape(b, sizeof b, name)).
 * NULL `s` gives "".
 */
const char *cli_escape(char *buf, size_t cap, const char *s);

/*
 * Write the NUL-terminated `s` to `f`, escaped, however long it is.
 * Returns 0, or EOF on a write error.
 */
int cli_escape_fputs(const char *s, FILE *f);

/* Whether `s` (`len` bytes) would come out of cli_escape_text unchanged. */
bool cli_text_is_inert(const char *s, size_t len);

#endif
