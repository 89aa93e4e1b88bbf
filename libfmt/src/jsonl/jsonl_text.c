/* SPDX-License-Identifier: MIT */
/*
 * jsonl_text.c - values in a line json-c accepts, read in place
 * (jsonl_text.h). jsonl_records.c turns a record into C structs through
 * these, so a line costs what its text costs: nothing is built for a
 * member nobody asks for, however large or deep.
 */
#include "jsonl_text.h"

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* Past the closing quote of the string or name at p (its quote at *p). */
static const char *skip_quoted(const char *p, const char *end)
{
    char q = *p++;
    while (p < end) {
        char c = *p++;
        if (c == q)
            return p;
        if (c == '\\' && p < end)
            p++;
    }
    return end;
}

/* Past a container: its strings skipped whole, brackets counted. */
static const char *skip_container(const char *p, const char *end)
{
    size_t depth = 0;
    while (p < end) {
        char c = *p;
        if (c == '"' || c == '\'') {
            p = skip_quoted(p, end);
            continue;
        }
        p++;
        if (c == '{' || c == '[')
            depth++;
        else if ((c == '}' || c == ']') && --depth == 0)
            return p;
    }
    return end;
}

/* Past a number or a literal. */
static const char *skip_atom(const char *p, const char *end)
{
    while (p < end && *p != ',' && *p != ']' && *p != '}' && *p != ' ' &&
           *p != '\t' && *p != '\n' && *p != '\r')
        p++;
    return p;
}

const char *tfmt__jv_skip(const char *p, const char *end)
{
    if (p >= end)
        return end;
    if (*p == '"')
        p = skip_quoted(p, end);
    else if (*p == '{' || *p == '[')
        p = skip_container(p, end);
    else
        p = skip_atom(p, end);
    return skip_ws(p, end);
}

const char *tfmt__jv_kind_name(int kind)
{
    static const char *const names[] = {
        "null", "boolean", "number", "integer", "object", "array", "string"};
    if (kind < 0 || kind > TFMT_JV_STRING)
        return "value";
    return names[kind];
}

int tfmt__jv_kind(const char *p, const char *end)
{
    if (p >= end)
        return TFMT_JV_NULL;
    switch (*p) {
    case '{': return TFMT_JV_OBJECT;
    case '[': return TFMT_JV_ARRAY;
    case '"': return TFMT_JV_STRING;
    case 't':
    case 'f': return TFMT_JV_BOOLEAN;
    case 'n': return TFMT_JV_NULL;
    default: break;
    }
    /* NaN, Infinity, -Infinity and numbers with a fraction or exponent
     * are doubles to json-c. */
    const char *e = skip_atom(p, end);
    for (const char *q = p; q < e; q++)
        if (*q == '.' || *q == 'e' || *q == 'E' || *q == 'I' || *q == 'N')
            return TFMT_JV_NUMBER;
    return TFMT_JV_INTEGER;
}

void tfmt__jv_iter(tfmt_jiter *it, const char *p, const char *end)
{
    it->end = end;
    it->p = p < end ? skip_ws(p + 1, end) : end;
}

bool tfmt__jv_next_member(tfmt_jiter *it, const char **name, const char **value)
{
    const char *p = it->p, *end = it->end;
    if (p >= end || (*p != '"' && *p != '\''))
        return false;
    *name = p;
    p = skip_ws(skip_quoted(p, end), end);
    if (p < end && *p == ':')
        p = skip_ws(p + 1, end);
    *value = p;
    p = tfmt__jv_skip(p, end);
    if (p < end && *p == ',')
        p = skip_ws(p + 1, end);
    it->p = p;
    return true;
}

bool tfmt__jv_next_elem(tfmt_jiter *it, const char **value)
{
    const char *p = it->p, *end = it->end;
    if (p >= end || *p == ']')
        return false;
    *value = p;
    p = tfmt__jv_skip(p, end);
    if (p < end && *p == ',')
        p = skip_ws(p + 1, end);
    it->p = p;
    return true;
}

/* ---- strings ---- */

static const unsigned char replacement[3] = {0xef, 0xbf, 0xbd};

static void put(tfmt_buf *b, const void *p, size_t n)
{
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void put_cp(tfmt_buf *b, uint32_t cp)
{
    unsigned char o[4];
    size_t n;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        n = 1;
    } else if (cp < 0x800) {
        o[0] = (unsigned char)(0xc0 | cp >> 6);
        o[1] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        o[0] = (unsigned char)(0xe0 | cp >> 12);
        o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
        o[2] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        o[0] = (unsigned char)(0xf0 | (cp >> 18 & 0x07));
        o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
        o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
        o[3] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    put(b, o, n);
}

static uint32_t hex4(const char *p, const char *end)
{
    uint32_t v = 0;
    for (int i = 0; i < 4 && p + i < end; i++) {
        unsigned char c = (unsigned char)p[i];
        unsigned d =
            c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
        v = v << 4 | (d & 15);
    }
    return v;
}

static char unescape(char e)
{
    switch (e) {
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return e; /* '"', '\\', '/' */
    }
}

/*
 * A \u escape's code point (p after the "\u"), with json-c's surrogate
 * rules: a high surrogate waits in *high for a low one; what breaks a
 * pair, and a lone low surrogate, become U+FFFD.
 */
static void unicode(tfmt_buf *b, uint32_t ucs, uint32_t *high)
{
    bool is_low = (ucs & 0xfc00) == 0xdc00;
    if (*high) {
        if (is_low)
            ucs = (((*high & 0x3ff) << 10) + (ucs & 0x3ff)) + 0x10000;
        else
            put(b, replacement, 3);
        *high = 0;
        is_low = false;
    }
    if ((ucs & 0xfc00) == 0xd800)
        *high = ucs;
    else if (is_low)
        put(b, replacement, 3);
    else
        put_cp(b, ucs);
}

/* Decode the string or name at p (its quote at *p) onto b. */
static void decode(const char *p, const char *end, tfmt_buf *b)
{
    char q = *p++;
    uint32_t high = 0;
    while (p < end) {
        char c = *p;
        if (high && c != '\\') {
            put(b, replacement, 3); /* no "\u" after a high surrogate */
            high = 0;
        }
        if (c == q)
            break;
        if (c != '\\') {
            const char *run = p;
            while (p < end && *p != q && *p != '\\')
                p++;
            put(b, run, (size_t)(p - run));
            continue;
        }
        char e = p + 1 < end ? p[1] : q;
        p += 2;
        if (high && e != 'u') {
            put(b, replacement, 3);
            high = 0;
        }
        if (e != 'u') {
            char u = unescape(e);
            put(b, &u, 1);
            continue;
        }
        unicode(b, hex4(p, end), &high);
        p += 4;
    }
}

void tfmt__jv_string(const char *p, const char *end, tfmt_buf *b, tfmt_str *out)
{
    size_t start = b->len;
    if (p < end)
        decode(p, end, b);
    out->ptr = b->data + start;
    out->len = b->len - start;
    b->data[b->len++] = '\0';
}

int tfmt__jv_name(const char *name, const char *end, tfmt_buf *scratch,
                  tfmt_str *out)
{
    const char *close = skip_quoted(name, end);
    size_t raw = (size_t)(close - name);
    raw = raw >= 2 ? raw - 2 : 0;
    if (!memchr(name + 1, '\\', raw)) {
        out->ptr = name + 1;
        out->len = raw;
        return TFMT_OK;
    }
    scratch->len = 0;
    if (tfmt__buf_reserve(scratch, raw + 1) < 0)
        return TFMT_ENOMEM;
    decode(name, end, scratch);
    const char *nul = memchr(scratch->data, '\0', scratch->len);
    out->ptr = scratch->data;
    out->len = nul ? (size_t)(nul - scratch->data) : scratch->len;
    return TFMT_OK;
}

/* ---- numbers and literals ---- */

void tfmt__jv_int(const char *p, const char *end, int64_t *s, uint64_t *u)
{
    bool neg = p < end && *p == '-';
    uint64_t v = 0;
    bool over = false;
    for (p += neg; p < end && *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        over |= v > (UINT64_MAX - d) / 10;
        v = v * 10 + d;
    }
    if (neg) {
        /* strtoll: clamped to INT64_MIN below it */
        bool big = over || v > (uint64_t)INT64_MAX + 1;
        *s = big || v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
        *u = 0;
        return;
    }
    *u = over ? UINT64_MAX : v; /* strtoull: clamped */
    *s = *u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)*u;
}

bool tfmt__jv_bool(const char *p)
{
    return *p == 't';
}
