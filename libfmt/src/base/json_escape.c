/* SPDX-License-Identifier: MIT */
/*
 * json_escape.c - UTF-8 repair (Python's "replace" decoding) and JSON string
 * escaping (Python's json.dumps with ensure_ascii=True), byte for byte.
 */
#include "json_escape.h"

static const char hexdig[] = "0123456789abcdef";

size_t tfmt__utf8_seq(const uint8_t *s, size_t n, size_t *bad)
{
    /* The Unicode "maximal subpart" rule, which CPython's decoder follows:
     * a truncated but so far valid sequence is one error, a bad byte ends
     * the subpart before it. */
    uint8_t c = s[0];
    uint8_t lo = 0x80, hi = 0xbf;
    size_t need;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        need = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        need = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else {
        *bad = 1;
        return 0;
    }
    size_t i = 1;
    while (i < need && i < n && s[i] >= lo && s[i] <= hi) {
        lo = 0x80;
        hi = 0xbf;
        i++;
    }
    if (i == need)
        return need;
    *bad = i;
    return 0;
}

bool tfmt__utf8_valid(const char *s, size_t n)
{
    const uint8_t *p = (const uint8_t *)s;
    size_t i = 0;
    while (i < n) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t bad;
        size_t len = tfmt__utf8_seq(p + i, n - i, &bad);
        if (!len)
            return false;
        i += len;
    }
    return true;
}

int tfmt__utf8_repair(tfmt_buf *out, const char *s, size_t n)
{
    const uint8_t *p = (const uint8_t *)s;
    size_t i = 0;
    while (i < n) {
        size_t start = i;
        size_t bad = 0;
        while (i < n) {
            size_t len = p[i] < 0x80 ? 1 : tfmt__utf8_seq(p + i, n - i, &bad);
            if (!len)
                break;
            i += len;
        }
        if (tfmt__buf_put(out, p + start, i - start) != TFMT_OK)
            return TFMT_ENOMEM;
        if (i < n) {
            if (tfmt__buf_put(out, "\xef\xbf\xbd", 3) != TFMT_OK)
                return TFMT_ENOMEM;
            i += bad;
        }
    }
    return TFMT_OK;
}

/* 0: copy as is; 1: short escape; 2: \u00xx; 3: non-ASCII. */
static uint8_t ascii_class(uint8_t c)
{
    if (c >= 0x80)
        return 3;
    if (c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' ||
        c == '\b' || c == '\f')
        return 1;
    /* Python escapes everything outside ' '..'~', DEL included. */
    return (c < 0x20 || c == 0x7f) ? 2 : 0;
}

static char *put_u4(char *o, uint32_t u)
{
    *o++ = '\\';
    *o++ = 'u';
    *o++ = hexdig[(u >> 12) & 15];
    *o++ = hexdig[(u >> 8) & 15];
    *o++ = hexdig[(u >> 4) & 15];
    *o++ = hexdig[u & 15];
    return o;
}

static char short_escape(uint8_t c)
{
    switch (c) {
    case '\n': return 'n';
    case '\r': return 'r';
    case '\t': return 't';
    case '\b': return 'b';
    case '\f': return 'f';
    default: return (char)c;
    }
}

/* Decode one code point at p (valid or not) and write its escape. */
static char *escape_multibyte(char *o, const uint8_t *p, size_t n, size_t *used)
{
    size_t bad = 0;
    size_t len = tfmt__utf8_seq(p, n, &bad);
    if (!len) {
        *used = bad;
        return put_u4(o, 0xfffd);
    }
    uint32_t cp;
    if (len == 2)
        cp = ((uint32_t)(p[0] & 0x1f) << 6) | (p[1] & 0x3f);
    else if (len == 3)
        cp = ((uint32_t)(p[0] & 0x0f) << 12) | ((uint32_t)(p[1] & 0x3f) << 6) |
             (p[2] & 0x3f);
    else
        cp = ((uint32_t)(p[0] & 0x07) << 18) | ((uint32_t)(p[1] & 0x3f) << 12) |
             ((uint32_t)(p[2] & 0x3f) << 6) | (p[3] & 0x3f);
    *used = len;
    if (cp < 0x10000)
        return put_u4(o, cp);
    cp -= 0x10000;
    o = put_u4(o, 0xd800 | (cp >> 10));
    return put_u4(o, 0xdc00 | (cp & 0x3ff));
}

int tfmt__json_put_string(tfmt_buf *out, const char *s, size_t n)
{
    /* Worst case: every byte becomes a 6-byte escape, plus the quotes. */
    if (n > (SIZE_MAX - 2) / 6 || tfmt__buf_reserve(out, n * 6 + 2))
        return TFMT_ENOMEM;
    const uint8_t *p = (const uint8_t *)s;
    char *o = out->data + out->len;
    *o++ = '"';
    size_t i = 0;
    while (i < n) {
        uint8_t c = p[i];
        uint8_t k = ascii_class(c);
        if (k == 0) {
            *o++ = (char)c;
            i++;
        } else if (k == 1) {
            *o++ = '\\';
            *o++ = short_escape(c);
            i++;
        } else if (k == 2) {
            o = put_u4(o, c);
            i++;
        } else {
            size_t used;
            o = escape_multibyte(o, p + i, n - i, &used);
            i += used;
        }
    }
    *o++ = '"';
    out->len = (size_t)(o - out->data);
    return TFMT_OK;
}
