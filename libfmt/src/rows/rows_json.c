/* SPDX-License-Identifier: MIT */
/*
 * rows_json.c - the JSON a JSONEachRow line is made of, scanned in place:
 * strings (every escape, surrogate pairs joined; raw bytes above 0x7f
 * kept as they are, for the profile repairs invalid UTF-8 as Python
 * decodes it), integers as numbers or quoted decimal strings, and any
 * other value skipped. Strict JSON otherwise: a raw control character, a
 * leading zero or a lone surrogate is an error.
 */
#include "rows_internal.h"

#define SKIP_DEPTH 64

static int fail(tfmt_rcur *c, int check, const char *msg)
{
    c->check = check;
    c->msg = msg;
    return TFMT_EFORMAT;
}

static int syntax(tfmt_rcur *c, const char *msg)
{
    return fail(c, TFMT_ROWS_CHECK_JSON, msg);
}

void tfmt__rows_ws(tfmt_rcur *c)
{
    while (c->p < c->end &&
           (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
        c->p++;
}

int tfmt__rows_expect(tfmt_rcur *c, char ch, const char *msg)
{
    tfmt__rows_ws(c);
    if (c->p >= c->end || *c->p != ch)
        return syntax(c, msg);
    c->p++;
    return TFMT_OK;
}

static int hex4(tfmt_rcur *c, uint32_t *out)
{
    uint32_t v = 0;
    if (c->end - c->p < 4)
        return syntax(c, "invalid JSON: short \\u escape");
    for (int i = 0; i < 4; i++) {
        char h = *c->p++;
        uint32_t d = h >= '0' && h <= '9'   ? (uint32_t)(h - '0')
                     : h >= 'a' && h <= 'f' ? (uint32_t)(h - 'a' + 10)
                     : h >= 'A' && h <= 'F' ? (uint32_t)(h - 'A' + 10)
                                            : 16;
        if (d == 16)
            return syntax(c, "invalid JSON: bad \\u escape");
        v = v << 4 | d;
    }
    *out = v;
    return TFMT_OK;
}

static int put_utf8(tfmt_buf *out, uint32_t cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xc0 | cp >> 6);
        b[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xe0 | cp >> 12);
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        b[0] = (char)(0xf0 | cp >> 18);
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    return out ? tfmt__buf_put(out, b, n) : TFMT_OK;
}

/* \uXXXX at c->p (after the backslash and 'u'), pairs joined. */
static int unicode(tfmt_rcur *c, tfmt_buf *out)
{
    uint32_t cp, lo;
    int rc = hex4(c, &cp);
    if (rc != TFMT_OK)
        return rc;
    if (cp >= 0xdc00 && cp < 0xe000)
        return syntax(c, "invalid JSON: lone surrogate in \\u escape");
    if (cp >= 0xd800 && cp < 0xdc00) {
        if (c->end - c->p < 2 || c->p[0] != '\\' || c->p[1] != 'u')
            return syntax(c, "invalid JSON: lone surrogate in \\u escape");
        c->p += 2;
        rc = hex4(c, &lo);
        if (rc != TFMT_OK)
            return rc;
        if (lo < 0xdc00 || lo >= 0xe000)
            return syntax(c, "invalid JSON: lone surrogate in \\u escape");
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
    return put_utf8(out, cp);
}

static int escape(tfmt_rcur *c, tfmt_buf *out)
{
    if (c->p >= c->end)
        return syntax(c, "invalid JSON: unterminated string");
    char e = *c->p++;
    const char *from = "\"\\/bfnrt";
    const char *to = "\"\\/\b\f\n\r\t";
    const char *hit = e ? strchr(from, e) : NULL;
    if (hit)
        return out ? tfmt__buf_putc(out, to[hit - from]) : TFMT_OK;
    if (e == 'u')
        return unicode(c, out);
    return syntax(c, "invalid JSON: unknown escape in string");
}

int tfmt__rows_string(tfmt_rcur *c, tfmt_buf *out)
{
    if (c->p >= c->end || *c->p != '"')
        return fail(c, TFMT_ROWS_CHECK_TYPE, "expected a string");
    c->p++;
    for (;;) {
        const char *run = c->p;
        while (c->p < c->end && *c->p != '"' && *c->p != '\\' &&
               (unsigned char)*c->p >= 0x20)
            c->p++;
        if (out && tfmt__buf_put(out, run, (size_t)(c->p - run)) != TFMT_OK)
            return TFMT_ENOMEM;
        if (c->p >= c->end)
            return syntax(c, "invalid JSON: unterminated string");
        char ch = *c->p++;
        if (ch == '"')
            return TFMT_OK;
        if (ch != '\\')
            return syntax(c, "invalid JSON: control character in string");
        int rc = escape(c, out);
        if (rc != TFMT_OK)
            return rc;
    }
}

/* Digits of a JSON integer at c->p: no leading zeros, no fraction. */
static int digits(tfmt_rcur *c, uint64_t *mag)
{
    const char *start = c->p;
    uint64_t v = 0;
    bool big = false;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        unsigned d = (unsigned)(*c->p++ - '0');
        if (v > (UINT64_MAX - d) / 10)
            big = true;
        else
            v = v * 10 + d;
    }
    if (c->p == start)
        return fail(c, TFMT_ROWS_CHECK_TYPE, "expected an integer");
    if (*start == '0' && c->p - start > 1)
        return syntax(c, "invalid JSON: number with a leading zero");
    if (c->p < c->end && (*c->p == '.' || *c->p == 'e' || *c->p == 'E'))
        return fail(c, TFMT_ROWS_CHECK_TYPE, "expected an integer");
    if (big)
        return fail(c, TFMT_ROWS_CHECK_RANGE, "integer out of range");
    *mag = v;
    return TFMT_OK;
}

int tfmt__rows_integer(tfmt_rcur *c, bool *neg, uint64_t *mag)
{
    bool quoted = c->p < c->end && *c->p == '"';
    c->p += quoted;
    *neg = c->p < c->end && *c->p == '-';
    c->p += *neg;
    int rc = digits(c, mag);
    if (rc != TFMT_OK)
        return rc;
    if (quoted && (c->p >= c->end || *c->p++ != '"'))
        return fail(c, TFMT_ROWS_CHECK_TYPE, "expected an integer");
    return TFMT_OK;
}

static int skip_literal(tfmt_rcur *c)
{
    static const char *const words[] = {"true", "false", "null"};
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if ((size_t)(c->end - c->p) >= n && memcmp(c->p, words[i], n) == 0) {
            c->p += n;
            return TFMT_OK;
        }
    }
    return syntax(c, "invalid JSON: unexpected character");
}

/* A number of any form: -?digits, fraction, exponent. */
static int skip_number(tfmt_rcur *c)
{
    const char *start = c->p;
    c->p += *c->p == '-';
    while (c->p < c->end &&
           ((*c->p >= '0' && *c->p <= '9') || *c->p == '.' || *c->p == 'e' ||
            *c->p == 'E' || *c->p == '+' || *c->p == '-'))
        c->p++;
    return c->p - start > (start[0] == '-') ? TFMT_OK
                                            : syntax(c, "invalid JSON: bad "
                                                        "number");
}

static int skip_in(tfmt_rcur *c, int depth);

/* The elements of an array or the members of an object at c->p. */
static int skip_container(tfmt_rcur *c, int depth)
{
    char close = *c->p++ == '[' ? ']' : '}';
    tfmt__rows_ws(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        return TFMT_OK;
    }
    for (;;) {
        int rc = TFMT_OK;
        tfmt__rows_ws(c);
        if (close == '}') {
            rc = c->p < c->end && *c->p == '"'
                     ? tfmt__rows_string(c, NULL)
                     : syntax(c, "invalid JSON: expected a member name");
            if (rc == TFMT_OK)
                rc = tfmt__rows_expect(c, ':', "invalid JSON: expected ':'");
        }
        if (rc == TFMT_OK)
            rc = skip_in(c, depth + 1);
        if (rc != TFMT_OK)
            return rc;
        tfmt__rows_ws(c);
        if (c->p < c->end && *c->p == close) {
            c->p++;
            return TFMT_OK;
        }
        rc = tfmt__rows_expect(c, ',',
                               "invalid JSON: expected ',' or the "
                               "end of an array or object");
        if (rc != TFMT_OK)
            return rc;
    }
}

static int skip_in(tfmt_rcur *c, int depth)
{
    tfmt__rows_ws(c);
    if (c->p >= c->end)
        return syntax(c, "invalid JSON: value expected");
    char ch = *c->p;
    if (ch == '"')
        return tfmt__rows_string(c, NULL);
    if (ch == '[' || ch == '{') {
        if (depth >= SKIP_DEPTH)
            return fail(c, TFMT_ROWS_CHECK_JSON, "JSON nested too deeply");
        return skip_container(c, depth);
    }
    if (ch == '-' || (ch >= '0' && ch <= '9'))
        return skip_number(c);
    return skip_literal(c);
}

int tfmt__rows_skip(tfmt_rcur *c)
{
    return skip_in(c, 0);
}
