/* SPDX-License-Identifier: MIT */
/*
 * jsonl_scan.h - the scanning primitives of the JSONL fast paths
 * (jsonl_fast.c for the bulk record types, jsonl_unknown.c for records of
 * other types): whitespace, punctuation, strings decoded into
 * r->fast_text, plain member names and bounded integers. Each accepts only
 * what json-c would read the same way and otherwise returns DECLINE, so
 * the line goes to the general path (tfmt__jsonl_parse_line). Inline:
 * they run for every byte of a line.
 */
#ifndef TFMT_JSONL_SCAN_H
#define TFMT_JSONL_SCAN_H

#include "json_escape.h"
#include "jsonl_internal.h"

#define DECLINE 1

typedef struct fparse {
    tfmt_jsonl_reader *r;
    const char *p, *end;
} fparse;

static inline void skip_ws(fparse *x)
{
    while (x->p < x->end &&
           (*x->p == ' ' || *x->p == '\t' || *x->p == '\r' || *x->p == '\n'))
        x->p++;
}

/* Consume `c` after optional whitespace. */
static inline bool expect(fparse *x, char c)
{
    skip_ws(x);
    if (x->p >= x->end || *x->p != c)
        return false;
    x->p++;
    return true;
}

static inline int hex4(const char *p, const char *end, uint32_t *out)
{
    uint32_t v = 0;
    if (end - p < 4)
        return DECLINE;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        uint32_t d = c >= '0' && c <= '9'   ? (uint32_t)(c - '0')
                     : c >= 'a' && c <= 'f' ? (uint32_t)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (uint32_t)(c - 'A' + 10)
                                            : 16;
        if (d == 16)
            return DECLINE;
        v = v << 4 | d;
    }
    *out = v;
    return TFMT_OK;
}

/* A \u escape at x->p (after the backslash and 'u') as a code point. */
static inline int unicode_escape(fparse *x, uint32_t *cp)
{
    uint32_t hi, lo;
    if (hex4(x->p, x->end, &hi) != TFMT_OK)
        return DECLINE;
    x->p += 4;
    /* NUL and lone surrogates: the general path applies json-c's. */
    if (hi == 0 || (hi >= 0xdc00 && hi <= 0xdfff))
        return DECLINE;
    if (hi < 0xd800 || hi > 0xdbff) {
        *cp = hi;
        return TFMT_OK;
    }
    if (x->end - x->p < 6 || x->p[0] != '\\' || x->p[1] != 'u' ||
        hex4(x->p + 2, x->end, &lo) != TFMT_OK || lo < 0xdc00 || lo > 0xdfff)
        return DECLINE;
    x->p += 6;
    *cp = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
    return TFMT_OK;
}

static inline void put_utf8(tfmt_buf *b, uint32_t cp)
{
    char *o = b->data + b->len;
    if (cp < 0x80) {
        o[0] = (char)cp;
        b->len += 1;
    } else if (cp < 0x800) {
        o[0] = (char)(0xc0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3f));
        b->len += 2;
    } else if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        b->len += 3;
    } else {
        o[0] = (char)(0xf0 | cp >> 18);
        o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
        o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
        o[3] = (char)(0x80 | (cp & 0x3f));
        b->len += 4;
    }
}

/* One escape sequence at x->p (after the backslash), decoded into b. */
static inline int escape(fparse *x, tfmt_buf *b)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    if (x->p >= x->end)
        return DECLINE;
    char c = *x->p++;
    for (size_t i = 0; i < sizeof from - 1; i++) {
        if (c == from[i]) {
            b->data[b->len++] = to[i];
            return TFMT_OK;
        }
    }
    uint32_t cp;
    if (c != 'u' || unicode_escape(x, &cp) != TFMT_OK)
        return DECLINE;
    put_utf8(b, cp);
    return TFMT_OK;
}

/*
 * A string value: decoded, UTF-8 checked as strictly as CPython decodes,
 * copied into fast_text with a NUL. Control characters decline.
 */
static inline int string_value(fparse *x, tfmt_str *out)
{
    tfmt_buf *b = &x->r->fast_text;
    if (!expect(x, '"'))
        return DECLINE;
    size_t start = b->len;
    bool ascii = true;
    for (;;) {
        const char *run = x->p;
        while (x->p < x->end && (unsigned char)*x->p >= 0x20 && *x->p != '"' &&
               *x->p != '\\') {
            ascii &= (unsigned char)*x->p < 0x80;
            x->p++;
        }
        memcpy(b->data + b->len, run, (size_t)(x->p - run));
        b->len += (size_t)(x->p - run);
        if (x->p >= x->end || (unsigned char)*x->p < 0x20)
            return DECLINE;
        if (*x->p++ == '"')
            break;
        if (escape(x, b) != TFMT_OK)
            return DECLINE;
    }
    if (!ascii && !tfmt__utf8_valid(b->data + start, b->len - start))
        return DECLINE;
    out->ptr = b->data + start;
    out->len = b->len - start;
    b->data[b->len++] = '\0';
    return TFMT_OK;
}

/* A member name: plain ASCII only (known names need no escapes). */
static inline int key(fparse *x, tfmt_str *out)
{
    if (!expect(x, '"'))
        return DECLINE;
    const char *s = x->p;
    while (x->p < x->end && *x->p != '"' && *x->p != '\\' &&
           (unsigned char)*x->p >= 0x20 && (unsigned char)*x->p < 0x80)
        x->p++;
    if (x->p >= x->end || *x->p != '"')
        return DECLINE;
    out->ptr = s;
    out->len = (size_t)(x->p++ - s);
    return expect(x, ':') ? TFMT_OK : DECLINE;
}

static inline bool key_is(tfmt_str k, const char *name)
{
    return k.len == strlen(name) && memcmp(k.ptr, name, k.len) == 0;
}

/*
 * A non-negative integer within [min, max], written as JSON requires (no
 * sign, no leading zero, no fraction or exponent).
 */
static inline int uint_value(fparse *x, uint64_t min, uint64_t max,
                             uint64_t *out)
{
    skip_ws(x);
    const char *s = x->p;
    uint64_t v = 0;
    while (x->p < x->end && *x->p >= '0' && *x->p <= '9') {
        unsigned d = (unsigned)(*x->p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return DECLINE;
        v = v * 10 + d;
        x->p++;
    }
    if (x->p == s || (*s == '0' && x->p - s > 1) || v < min || v > max)
        return DECLINE;
    if (x->p < x->end && (*x->p == '.' || *x->p == 'e' || *x->p == 'E'))
        return DECLINE;
    *out = v;
    return TFMT_OK;
}

static inline int id_value(fparse *x, uint32_t *out)
{
    uint64_t v;
    if (uint_value(x, 0, UINT32_MAX, &v) != TFMT_OK)
        return DECLINE;
    *out = (uint32_t)v;
    return TFMT_OK;
}

static inline int loc_value(fparse *x, uint64_t min, int32_t *out)
{
    uint64_t v;
    if (uint_value(x, min, INT32_MAX, &v) != TFMT_OK)
        return DECLINE;
    *out = (int32_t)v;
    return TFMT_OK;
}

#endif
