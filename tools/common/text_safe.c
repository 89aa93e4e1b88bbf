/* SPDX-License-Identifier: MIT */
/*
 * text_safe.c - visible escapes for the bytes of a name a terminal would
 * act on (text_safe.h): the library's TFMT_TEXT_PLAIN style
 * (tfmt_text_escape), so the tools and the library's text outputs escape
 * a name the same way, from one place.
 */
#include "text_safe.h"

#include <stdint.h>
#include <string.h>

#include <tachyon/fmt_text.h>

size_t cli_escape_text(char *out, size_t cap, const char *s, size_t len)
{
    return tfmt_text_escape(out, cap, s, len, TFMT_TEXT_PLAIN);
}

const char *cli_escape(char *buf, size_t cap, const char *s)
{
    size_t len = s ? strlen(s) : 0;
    if (cli_escape_text(buf, cap, s ? s : "", len) < cap || cap < 4)
        return buf;
    /* Cut: make room for "..." at a character boundary. */
    cli_escape_text(buf, cap - 3, s, len);
    strcat(buf, "...");
    return buf;
}

/* Where to end a piece of at most `max` of the `n` bytes at `p` so that
 * no UTF-8 sequence is split: before the lead byte of the sequence the
 * cut would fall in (a sequence has at most 3 continuation bytes). */
static size_t piece_end(const uint8_t *p, size_t n, size_t max)
{
    if (n <= max)
        return n;
    size_t end = max;
    for (int k = 0; k < 3 && end > 1 && (p[end] & 0xc0) == 0x80; k++)
        end--;
    return end;
}

int cli_escape_fputs(const char *s, FILE *f)
{
    const uint8_t *p = (const uint8_t *)s;
    size_t n = strlen(s);
    /* 256 bytes a piece; an escape is at most 6 bytes for 2 */
    char out[256 * CLI_ESCAPE_GROWTH + 1];
    while (n > 0) {
        size_t take = piece_end(p, n, 256);
        size_t len = cli_escape_text(out, sizeof out, (const char *)p, take);
        if (fwrite(out, 1, len, f) != len)
            return EOF;
        p += take;
        n -= take;
    }
    return 0;
}

bool cli_text_is_inert(const char *s, size_t len)
{
    /* every escape is longer than what it replaces */
    return cli_escape_text(NULL, 0, s, len) == len;
}
