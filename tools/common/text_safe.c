/* SPDX-License-Identifier: MIT */
/*
 * text_safe.c - visible escapes for the bytes of a name a terminal would
 * act on (text_safe.h). One character at a time: a well-formed UTF-8
 * sequence or a printable ASCII byte passes whole, anything else becomes
 * one escape, so the output never holds half a character or half an
 * escape, and a long input is cut between two of them.
 */
#include "text_safe.h"

#include <stdint.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at p (n bytes left) and its
 * code point, or 0 when the bytes there are not one (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_seq(const uint8_t *p, size_t n, uint32_t *cp)
{
    uint8_t b = p[0];
    size_t len = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    uint8_t lo = 0x80, hi = 0xbf; /* the allowed range of the 2nd byte */
    if (b < 0xc2 || b > 0xf4 || n < len)
        return 0;
    if (b == 0xe0)
        lo = 0xa0;
    else if (b == 0xed)
        hi = 0x9f;
    else if (b == 0xf0)
        lo = 0x90;
    else if (b == 0xf4)
        hi = 0x8f;
    if (p[1] < lo || p[1] > hi)
        return 0;
    uint32_t v = b & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (p[i] & 0x3f);
    }
    *cp = v;
    return len;
}

/*
 * The character at p: *used gets its byte count; returns the length of
 * its escape written to esc (at most 6 bytes + NUL), or 0 when it passes
 * as it is.
 */
static size_t escape_one(const uint8_t *p, size_t n, unsigned flags,
                         char esc[8], size_t *used)
{
    static const char hex[] = "0123456789abcdef";
    uint8_t b = p[0];
    uint32_t cp;
    *used = 1;
    if (b == '\\' && (flags & CLI_ESCAPE_BACKSLASH)) {
        memcpy(esc, "\\\\", 3);
        return 2;
    }
    if (b >= 0x20 && b < 0x7f)
        return 0;
    if (b == '\t' || b == '\n' || b == '\r') {
        esc[0] = '\\';
        esc[1] = b == '\t' ? 't' : b == '\n' ? 'n' : 'r';
        esc[2] = '\0';
        return 2;
    }
    size_t len = b >= 0x80 ? utf8_seq(p, n, &cp) : 0;
    if (len == 0) { /* a C0 control, DEL, or a byte that is not UTF-8 */
        esc[0] = '\\';
        esc[1] = 'x';
        esc[2] = hex[b >> 4];
        esc[3] = hex[b & 15];
        esc[4] = '\0';
        return 4;
    }
    *used = len;
    if (cp > 0x9f && cp != 0x2028 && cp != 0x2029)
        return 0;
    esc[0] = '\\';
    esc[1] = 'u';
    for (int i = 0; i < 4; i++)
        esc[2 + i] = hex[(cp >> (12 - 4 * i)) & 15];
    esc[6] = '\0';
    return 6;
}

size_t cli_escape_text(char *out, size_t cap, const char *s, size_t len,
                       unsigned flags)
{
    const uint8_t *p = (const uint8_t *)s;
    size_t need = 0, o = 0, used;
    bool full = cap == 0;
    char esc[8];
    for (size_t i = 0; i < len; i += used) {
        size_t e = escape_one(p + i, len - i, flags, esc, &used);
        const char *piece = e ? esc : s + i;
        size_t plen = e ? e : used;
        need += plen;
        if (!full && o + plen < cap) {
            memcpy(out + o, piece, plen);
            o += plen;
        } else {
            full = true;
        }
    }
    if (cap > 0)
        out[o] = '\0';
    return need;
}

const char *cli_escape(char *buf, size_t cap, const char *s)
{
    size_t len = s ? strlen(s) : 0;
    if (cli_escape_text(buf, cap, s ? s : "", len, 0) < cap || cap < 4)
        return buf;
    /* Cut: make room for "..." at a character boundary. */
    cli_escape_text(buf, cap - 3, s, len, 0);
    strcat(buf, "...");
    return buf;
}

int cli_escape_fputs(const char *s, FILE *f)
{
    const uint8_t *p = (const uint8_t *)s;
    size_t n = strlen(s), used;
    char esc[8];
    for (size_t i = 0; i < n; i += used) {
        size_t e = escape_one(p + i, n - i, 0, esc, &used);
        size_t wrote = e ? fwrite(esc, 1, e, f) : fwrite(s + i, 1, used, f);
        if (wrote != (e ? e : used))
            return EOF;
    }
    return 0;
}

bool cli_text_is_inert(const char *s, size_t len, unsigned flags)
{
    const uint8_t *p = (const uint8_t *)s;
    size_t used;
    char esc[8];
    for (size_t i = 0; i < len; i += used)
        if (escape_one(p + i, len - i, flags, esc, &used) != 0)
            return false;
    return true;
}
