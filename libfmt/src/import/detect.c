/* SPDX-License-Identifier: MIT */
/*
 * detect.c - tfmt_detect: which reader a source needs, from its first
 * bytes. The first four bytes decide the kind (they are what tools read
 * before this existed, so a corrupt compressed input still fails in the
 * same place); the JSONL dialect comes from the first line, scanned only
 * as far as the source already has it in hand.
 */
#include <tachyon/fmt_detect.h>

#include "io_internal.h"

#define MAGIC_LEN 4
#define LINE_MAX_SCAN 4096

bool tfmt_kind_is_jsonl(tfmt_kind kind)
{
    return kind == TFMT_KIND_JSONL || kind == TFMT_KIND_JSONL_V0 ||
           kind == TFMT_KIND_JSONL_V1;
}

const char *tfmt_kind_name(tfmt_kind kind)
{
    switch (kind) {
    case TFMT_KIND_EMPTY: return "empty input";
    case TFMT_KIND_TEXT: return "text";
    case TFMT_KIND_DATA: return "unknown data";
    case TFMT_KIND_BIN: return "binary log";
    case TFMT_KIND_JSONL: return "JSONL";
    case TFMT_KIND_JSONL_V0: return "JSONL (schema v0)";
    case TFMT_KIND_JSONL_V1: return "JSONL (pre-release dialect v1)";
    case TFMT_KIND_ROWS: return "ClickHouse rows (JSONEachRow)";
    default: return "unknown kind";
    }
}

int tfmt_detect_error(const tfmt_detection *d, tfmt_error *err)
{
    if (d->kind == TFMT_KIND_EMPTY)
        return tfmt__error(err, TFMT_EFORMAT, "file is empty");
    if (d->kind == TFMT_KIND_TEXT)
        return tfmt__error(err, TFMT_EFORMAT,
                           "not a Tachyon profile (neither a binary log nor "
                           "JSONL: first byte 0x%02x)",
                           d->head_len ? d->head[0] : 0);
    return TFMT_OK;
}

static bool blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* JSONL starts with '{' or blank space; the magic, or printable text. */
static tfmt_kind kind_of(const unsigned char *b, size_t n)
{
    if (n == 0)
        return TFMT_KIND_EMPTY;
    if (b[0] == '{' || blank(b[0]))
        return TFMT_KIND_JSONL;
    if (n == MAGIC_LEN &&
        (memcmp(b, "TACH", 4) == 0 || memcmp(b, "HCAT", 4) == 0))
        return TFMT_KIND_BIN;
    for (size_t i = 0; i < n; i++)
        if (b[i] < 0x20 || b[i] > 0x7e)
            return TFMT_KIND_DATA;
    return TFMT_KIND_TEXT;
}

/* ---- the first line's "v" ---- */

typedef struct scan {
    const char *p, *end;
} scan;

static void skip_blank(scan *s)
{
    while (s->p < s->end && blank((unsigned char)*s->p))
        s->p++;
}

/* Past a string whose opening quote is at s->p; false if it never ends. */
static bool skip_string(scan *s)
{
    for (s->p++; s->p < s->end; s->p++) {
        if (*s->p == '\\')
            s->p++;
        else if (*s->p == '"' || *s->p == '\n')
            break;
    }
    if (s->p >= s->end || *s->p != '"')
        return false;
    s->p++;
    return true;
}

/* Past one value (nested objects and arrays included). */
static bool skip_value(scan *s)
{
    int depth = 0;
    while (s->p < s->end && *s->p != '\n') {
        char c = *s->p;
        if (c == '"') {
            if (!skip_string(s))
                return false;
            continue;
        }
        if ((c == ',' || c == '}' || c == ']') && depth == 0)
            return true;
        depth += (c == '{' || c == '[') - (c == '}' || c == ']');
        s->p++;
    }
    return false;
}

static bool key_is(const char *key, const char *end, const char *name)
{
    size_t n = strlen(name);
    return (size_t)(end - key) == n + 2 && memcmp(key + 1, name, n) == 0;
}

/*
 * The kind of a first line holding an object: a dialect from "v": 0 or 1,
 * ClickHouse rows from a "stack_hash" member (the table's third column,
 * so within the scanned bytes) without a "type" member before it.
 */
static tfmt_kind dialect(const char *line, size_t n)
{
    scan s = {line, line + n};
    bool typed = false;
    skip_blank(&s);
    if (s.p >= s.end || *s.p != '{')
        return TFMT_KIND_JSONL;
    s.p++;
    for (;;) {
        skip_blank(&s);
        const char *key = s.p;
        if (s.p >= s.end || *s.p != '"' || !skip_string(&s))
            return TFMT_KIND_JSONL;
        bool is_v = s.p - key == 3 && key[1] == 'v';
        typed |= key_is(key, s.p, "type");
        if (!typed && key_is(key, s.p, "stack_hash"))
            return TFMT_KIND_ROWS;
        skip_blank(&s);
        if (s.p >= s.end || *s.p++ != ':')
            return TFMT_KIND_JSONL;
        skip_blank(&s);
        const char *val = s.p;
        if (!skip_value(&s))
            return TFMT_KIND_JSONL;
        if (is_v) {
            const char *end = s.p;
            while (end > val && blank((unsigned char)end[-1]))
                end--;
            if (end - val == 1 && (*val == '0' || *val == '1'))
                return *val == '0' ? TFMT_KIND_JSONL_V0 : TFMT_KIND_JSONL_V1;
            return TFMT_KIND_JSONL;
        }
        if (*s.p++ != ',')
            return TFMT_KIND_JSONL;
    }
}

int tfmt_detect(tfmt_source *src, tfmt_detection *out, tfmt_error *err)
{
    unsigned char magic[MAGIC_LEN];
    size_t n = 0;
    memset(out, 0, sizeof *out);
    int rc = tfmt__source_peek(src, magic, sizeof magic, true, &n, err);
    if (rc < 0)
        return rc;
    out->kind = kind_of(magic, n);
    /* More of the first line, as far as the source has it in hand. */
    char line[LINE_MAX_SCAN];
    size_t got = 0;
    if (tfmt__source_peek(src, line, sizeof line, false, &got, NULL) < 0)
        got = 0;
    if (got < n) {
        memcpy(line, magic, n);
        got = n;
    }
    const char *nl = memchr(line, '\n', got);
    /* A pipe may have delivered part of the first line only: JSON is
       text, so reading on (decoding) cannot fail where a reader would
       not; a failure leaves the bytes in hand. */
    size_t more = 0;
    if (out->kind == TFMT_KIND_JSONL && !nl && got < sizeof line &&
        tfmt__source_peek(src, line, sizeof line, true, &more, NULL) == 0 &&
        more > got) {
        got = more;
        nl = memchr(line, '\n', got);
    }
    out->head_len = got < TFMT_DETECT_HEAD ? got : TFMT_DETECT_HEAD;
    memcpy(out->head, line, out->head_len);
    if (out->kind == TFMT_KIND_JSONL)
        out->kind = dialect(line, nl ? (size_t)(nl - line) : got);
    return TFMT_OK;
}
