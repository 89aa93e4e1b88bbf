/* SPDX-License-Identifier: MIT */
/*
 * jsonl_unknown.c - the fast path for records of a type this reader does
 * not know. Readers must skip them (the schema's forward-compatibility
 * rule), but they still have to be valid JSON objects with a string
 * `type`, an integer `v` and a string `run_id`. This checks the line in
 * one pass without keeping anything but the envelope (the general path
 * checks, then reads, in two or three).
 *
 * As in jsonl_fast.c, only lines json-c reads the same way are accepted:
 * members in any order, `type`, `v` and `run_id` once each, other values
 * nested at most 16 deep, numbers without exponents (at most 18 digits
 * before and after the point), strings and names as the scanning
 * primitives take them. Anything else is declined and goes to the
 * general path, which then reports what is wrong.
 */
#include "jsonl_scan.h"

#define SKIP_DEPTH 16
#define NUM_DIGITS 18

static int skip_value(fparse *x, int depth);

/* A run of 1..NUM_DIGITS digits. */
static int digits(fparse *x)
{
    const char *s = x->p;
    while (x->p < x->end && *x->p >= '0' && *x->p <= '9')
        x->p++;
    return x->p > s && x->p - s <= NUM_DIGITS ? TFMT_OK : DECLINE;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)? ; a following letter declines later. */
static int skip_number(fparse *x)
{
    if (x->p < x->end && *x->p == '-')
        x->p++;
    const char *s = x->p;
    if (digits(x) != TFMT_OK || (*s == '0' && x->p - s > 1))
        return DECLINE;
    if (x->p < x->end && *x->p == '.') {
        x->p++;
        if (digits(x) != TFMT_OK)
            return DECLINE;
    }
    if (x->p < x->end && (*x->p == 'e' || *x->p == 'E'))
        return DECLINE;
    return TFMT_OK;
}

static int skip_literal(fparse *x, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(x->end - x->p) < n || memcmp(x->p, word, n) != 0)
        return DECLINE;
    x->p += n;
    return TFMT_OK;
}

/* '[' already consumed: values up to and including ']'. */
static int skip_array(fparse *x, int depth)
{
    if (expect(x, ']'))
        return TFMT_OK;
    do {
        if (skip_value(x, depth) != TFMT_OK)
            return DECLINE;
    } while (expect(x, ','));
    return expect(x, ']') ? TFMT_OK : DECLINE;
}

/* '{' already consumed: members up to and including '}'. */
static int skip_object(fparse *x, int depth)
{
    tfmt_str k;
    if (expect(x, '}'))
        return TFMT_OK;
    do {
        if (key(x, &k) != TFMT_OK || skip_value(x, depth) != TFMT_OK)
            return DECLINE;
    } while (expect(x, ','));
    return expect(x, '}') ? TFMT_OK : DECLINE;
}

/* Any JSON value, checked and dropped (its strings land in fast_text). */
static int skip_value(fparse *x, int depth)
{
    tfmt_str s;
    skip_ws(x);
    if (x->p >= x->end || depth > SKIP_DEPTH)
        return DECLINE;
    switch (*x->p) {
    case '"': return string_value(x, &s);
    case '{': x->p++; return skip_object(x, depth + 1);
    case '[': x->p++; return skip_array(x, depth + 1);
    case 't': return skip_literal(x, "true");
    case 'f': return skip_literal(x, "false");
    case 'n': return skip_literal(x, "null");
    default: return skip_number(x);
    }
}

/* `v`: an integer json-c reads as int64 (sign and 18 digits at most). */
static int int_value(fparse *x, int64_t *out)
{
    skip_ws(x);
    bool neg = x->p < x->end && *x->p == '-';
    if (neg)
        x->p++;
    uint64_t v;
    if (uint_value(x, 0, 999999999999999999u, &v) != TFMT_OK || (neg && v == 0))
        return DECLINE;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return TFMT_OK;
}

/* One member of the record: the envelope's three, or anything else. */
static int member(fparse *x, tfmt_str k, unsigned *seen)
{
    tfmt_jsonl_record *rec = &x->r->rec;
    if (key_is(k, "type"))
        return *seen & 1 ? DECLINE
                         : (*seen |= 1, string_value(x, &rec->type_name));
    if (key_is(k, "v"))
        return *seen & 2 ? DECLINE : (*seen |= 2, int_value(x, &rec->v));
    if (key_is(k, "run_id"))
        return *seen & 4 ? DECLINE
                         : (*seen |= 4, string_value(x, &rec->run_id));
    return skip_value(x, 1);
}

int tfmt__jsonl_fast_unknown(tfmt_jsonl_reader *r, const char *p, size_t n)
{
    fparse x = {r, p, p + n};
    tfmt_jsonl_record *rec = &r->rec;
    unsigned seen = 0;
    r->fast_text.len = 0;
    memset(rec, 0, sizeof *rec);
    rec->line = r->lines.line;
    if (!expect(&x, '{') || expect(&x, '}'))
        return DECLINE;
    do {
        tfmt_str k;
        if (key(&x, &k) != TFMT_OK || member(&x, k, &seen) != TFMT_OK)
            return DECLINE;
    } while (expect(&x, ','));
    if (!expect(&x, '}') || (skip_ws(&x), x.p != x.end) || seen != 7 ||
        tfmt__jsonl_known_type(rec->type_name))
        return DECLINE;
    rec->type = TFMT_JREC_UNKNOWN;
    tfmt__jsonl_unknown_type(r);
    return TFMT_OK;
}
