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
        if (n - i >= 8) { /* ASCII eight bytes at a time */
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (!(w & 0x8080808080808080u)) {
                i += 8;
                continue;
            }
        }
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

/*
 * The class of every byte: 0 copied as is, 1 a short escape (\" \\ \n \r
 * \t \b \f), 2 \u00xx (the other controls and DEL: Python escapes all
 * outside ' '..'~'), 3 the start of a non-ASCII sequence.
 */
/* clang-format off */
static const uint8_t byte_class[256] = {
    2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 1, 1, 2, 2, /* 0x00 */
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, /* 0x10 */
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x20 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x30 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x40 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* 0x50 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x60 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, /* 0x70 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* 0x80 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* 0x90 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* 0xa0 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* 0xb0 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* 0xc0 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* 0xd0 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* 0xe0 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* 0xf0 */
};
/* clang-format on */

#define ONES 0x0101010101010101u
#define HIGHS 0x8080808080808080u

/*
 * Whether none of the 8 bytes in w needs escaping: no byte below 0x20,
 * none from 0x7f up, no '"' and no '\\' (the classic "has a byte less
 * than" and "has a zero byte" tests; exact as to whether there is one).
 */
static bool plain8(uint64_t w)
{
    uint64_t low = (w - ONES * 0x20) & ~w;
    uint64_t high = (w + ONES * 0x01) | w;
    uint64_t q = w ^ (ONES * '"'), b = w ^ (ONES * '\\');
    uint64_t quote = (q - ONES) & ~q, bslash = (b - ONES) & ~b;
    return !((low | high | quote | bslash) & HIGHS);
}

char *tfmt__json_put_raw(char *o, const char *s, size_t n)
{
    const uint8_t *p = (const uint8_t *)s;
    *o++ = '"';
    size_t i = 0;
    while (i < n) {
        if (n - i >= 8) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (plain8(w)) {
                memcpy(o, &w, 8);
                o += 8;
                i += 8;
                continue;
            }
        }
        uint8_t c = p[i];
        uint8_t k = byte_class[c];
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
    return o;
}

int tfmt__json_put_string(tfmt_buf *out, const char *s, size_t n)
{
    /* Worst case: every byte becomes a 6-byte escape, plus the quotes. */
    if (n > (SIZE_MAX - 2) / 6 || tfmt__buf_reserve(out, n * 6 + 2))
        return TFMT_ENOMEM;
    char *o = tfmt__json_put_raw(out->data + out->len, s, n);
    out->len = (size_t)(o - out->data);
    return TFMT_OK;
}
