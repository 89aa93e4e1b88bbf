/* SPDX-License-Identifier: MIT */
/*
 * jsonl_fast.c - a direct parser for the bulk records of schema v0
 * (string_table, frame_table, agg), which make up nearly all of a JSONL
 * export, in the shapes CPython writes them: it reads the line once and
 * fills the record in place, field names compared as literals where
 * CPython's separators put them.
 *
 * It is a recognizer, not a second JSON parser: it accepts only a line
 * that is valid JSON, a record of one of those types with `type` first and
 * `v` 0, every field known, present once, of its type and in its range.
 * Anything else (whitespace aside) is declined, and the line goes to the
 * general path (jsonl_syntax.c, then jsonl_records.c), so errors, notes
 * and unusual but valid records are handled in one place only; what it
 * accepts reads as json-c reads it (fuzz_jsonl_fast). A declined line
 * costs its partial scan: lines that decline are rare (meta, end, other
 * dialects, files written by other tools with unknown fields).
 *
 * Strings are decoded into r->fast_text, NUL-terminated like json-c's.
 * The buffer is sized for the line before parsing (a decoded string is
 * never longer than its quoted form), so its pointers stay valid.
 */
#include "jsonl_scan.h"

/*
 * Members of an object, up to and including '}': `member` reads the value
 * of the member named `k` and sets its bit in *seen (a bit seen twice, or
 * an unknown name, declines).
 */
typedef int (*member_fn)(fparse *x, tfmt_str k, void *out, unsigned *seen);

static int object(fparse *x, member_fn member, void *out, unsigned *seen)
{
    if (!expect(x, '{'))
        return DECLINE;
    if (expect(x, '}'))
        return TFMT_OK;
    do {
        tfmt_str k;
        if (key(x, &k) != TFMT_OK || member(x, k, out, seen) != TFMT_OK)
            return DECLINE;
    } while (expect(x, ','));
    return expect(x, '}') ? TFMT_OK : DECLINE;
}

/* Set bit `bit` of *seen; false if it was already set. */
static bool first_time(unsigned *seen, unsigned bit)
{
    if (*seen & bit)
        return false;
    *seen |= bit;
    return true;
}

static int string_member(fparse *x, tfmt_str k, void *out, unsigned *seen)
{
    tfmt_jsonl_string *s = out;
    if (key_is(k, "str_id") && first_time(seen, 1))
        return id_value(x, &s->id);
    if (key_is(k, "value") && first_time(seen, 2))
        return string_value(x, &s->value);
    return DECLINE;
}

static int frame_member(fparse *x, tfmt_str k, void *out, unsigned *seen)
{
    tfmt_jsonl_frame *f = out;
    if (key_is(k, "frame_id") && first_time(seen, 1))
        return id_value(x, &f->id);
    if (key_is(k, "path_str_id") && first_time(seen, 2))
        return id_value(x, &f->path_str_id);
    if (key_is(k, "func_str_id") && first_time(seen, 4))
        return id_value(x, &f->func_str_id);
    if (key_is(k, "line") && first_time(seen, 8))
        return loc_value(x, 0, &f->line);
    if (key_is(k, "end_line") && first_time(seen, 16))
        return loc_value(x, 1, &f->end_line);
    if (key_is(k, "col") && first_time(seen, 32))
        return loc_value(x, 0, &f->col);
    if (key_is(k, "end_col") && first_time(seen, 64))
        return loc_value(x, 0, &f->end_col);
    return DECLINE;
}

static int agg_member(fparse *x, tfmt_str k, void *out, unsigned *seen)
{
    tfmt_jsonl_agg *a = out;
    if (key_is(k, "frame_id") && first_time(seen, 1))
        return id_value(x, &a->frame_id);
    if (key_is(k, "self") && first_time(seen, 2))
        return uint_value(x, 0, UINT64_MAX - 1, &a->self);
    if (key_is(k, "cumulative") && first_time(seen, 4))
        return uint_value(x, 0, UINT64_MAX - 1, &a->cumulative);
    return DECLINE;
}

/* The array of one record type's entries, with what each one needs. */
typedef struct entries {
    void **arr;
    size_t *cap;
    size_t elem;
    size_t *n;
    member_fn member;
    unsigned required; /* bits every entry must have seen */
    void (*init)(void *entry);
    bool (*canon)(fparse *x, void *entry); /* CPython's exact form */
} entries;

static void frame_init(void *entry)
{
    tfmt_jsonl_frame *f = entry;
    f->end_line = f->col = f->end_col = TFMT_JSONL_ABSENT;
    f->synthetic = false;
}

/* ---- entries exactly as CPython writes them ---- */

/*
 * CPython's json.dumps(separators=(",", ":")) writes every entry the same
 * way: these read such an entry with a literal comparison per name, and
 * return false (the caller then reads the entry again the general way)
 * at the first byte that differs. They accept only what the general
 * reader accepts too.
 */
static bool lit(fparse *x, const char *s, size_t n)
{
    if ((size_t)(x->end - x->p) < n || memcmp(x->p, s, n) != 0)
        return false;
    x->p += n;
    return true;
}
#define LIT(x, s) lit(x, s, sizeof(s) - 1)

/* Digits as JSON writes a non-negative integer, at most `max`. */
static bool digits(fparse *x, uint64_t max, uint64_t *out)
{
    const char *s = x->p;
    uint64_t v = 0;
    while (x->p < x->end && *x->p >= '0' && *x->p <= '9' && x->p - s < 19)
        v = v * 10 + (uint64_t)(*x->p++ - '0');
    if (x->p == s || (*s == '0' && x->p - s > 1) || v > max ||
        (x->p < x->end && *x->p >= '0' && *x->p <= '9'))
        return false;
    *out = v;
    return true;
}

static bool id_digits(fparse *x, uint32_t *out)
{
    uint64_t v;
    if (!digits(x, UINT32_MAX, &v))
        return false;
    *out = (uint32_t)v;
    return true;
}

static bool loc_digits(fparse *x, uint64_t min, int32_t *out)
{
    uint64_t v;
    if (!digits(x, INT32_MAX, &v) || v < min)
        return false;
    *out = (int32_t)v;
    return true;
}

static bool canon_agg(fparse *x, void *out)
{
    tfmt_jsonl_agg *a = out;
    return LIT(x, "{\"frame_id\":") && id_digits(x, &a->frame_id) &&
           LIT(x, ",\"self\":") && digits(x, UINT64_MAX - 1, &a->self) &&
           LIT(x, ",\"cumulative\":") &&
           digits(x, UINT64_MAX - 1, &a->cumulative) && LIT(x, "}");
}

static bool canon_string(fparse *x, void *out)
{
    tfmt_jsonl_string *s = out;
    size_t mark = x->r->fast_text.len;
    bool ok = LIT(x, "{\"str_id\":") && id_digits(x, &s->id) &&
              LIT(x, ",\"value\":") && string_value(x, &s->value) == TFMT_OK &&
              LIT(x, "}");
    if (!ok)
        x->r->fast_text.len = mark;
    return ok;
}

static bool canon_frame(fparse *x, void *out)
{
    tfmt_jsonl_frame *f = out;
    if (!(LIT(x, "{\"frame_id\":") && id_digits(x, &f->id) &&
          LIT(x, ",\"path_str_id\":") && id_digits(x, &f->path_str_id) &&
          LIT(x, ",\"func_str_id\":") && id_digits(x, &f->func_str_id) &&
          LIT(x, ",\"line\":") && loc_digits(x, 0, &f->line)))
        return false;
    if (LIT(x, ",\"end_line\":") && !loc_digits(x, 1, &f->end_line))
        return false;
    if (LIT(x, ",\"col\":") && !loc_digits(x, 0, &f->col))
        return false;
    if (LIT(x, ",\"end_col\":") && !loc_digits(x, 0, &f->end_col))
        return false;
    return LIT(x, "}");
}

/* One entry: CPython's exact form first, else the general reader. */
static int entry(fparse *x, const entries *e, void *out)
{
    const char *start = x->p;
    if (e->init)
        e->init(out);
    if (e->canon) {
        skip_ws(x);
        if (e->canon(x, out))
            return TFMT_OK;
        x->p = start;
        if (e->init)
            e->init(out);
    }
    unsigned seen = 0;
    if (object(x, e->member, out, &seen) != TFMT_OK ||
        (seen & e->required) != e->required)
        return DECLINE;
    return TFMT_OK;
}

static int array(fparse *x, const entries *e)
{
    *e->n = 0;
    if (!expect(x, '['))
        return DECLINE;
    if (expect(x, ']'))
        return TFMT_OK;
    do {
        if (*e->n >= *e->cap &&
            tfmt__grow(x->r->alloc, e->arr, e->cap, *e->n + 1, e->elem) < 0)
            return TFMT_ENOMEM;
        if (entry(x, e, (char *)*e->arr + *e->n * e->elem) != TFMT_OK)
            return DECLINE;
        ++*e->n;
    } while (expect(x, ','));
    return expect(x, ']') ? TFMT_OK : DECLINE;
}

static int payload(fparse *x, void **arr, size_t *cap, size_t elem, size_t *n,
                   member_fn member, unsigned required)
{
    entries e = {arr, cap, elem, n, member, required, NULL, NULL};
    if (member == frame_member) {
        e.init = frame_init;
        e.canon = canon_frame;
    } else if (member == string_member) {
        e.canon = canon_string;
    } else {
        e.canon = canon_agg;
    }
    return array(x, &e);
}

/* A string member that must hold exactly `want` (agg's kind and scope). */
static int const_value(fparse *x, const char *want, tfmt_str *out)
{
    if (string_value(x, out) != TFMT_OK || !key_is(*out, want))
        return DECLINE;
    return TFMT_OK;
}

/* The payload members of the record types handled here. */
static int type_member(fparse *x, tfmt_str k, unsigned *seen)
{
    tfmt_jsonl_reader *r = x->r;
    tfmt_jsonl_record *rec = &r->rec;
    switch (rec->type) {
    case TFMT_JREC_STRINGS:
        if (key_is(k, "strings") && first_time(seen, 4))
            return payload(x, (void **)&r->strings, &r->strings_cap,
                           sizeof *r->strings, &rec->n_strings, string_member,
                           1 | 2);
        break;
    case TFMT_JREC_FRAMES:
        if (key_is(k, "frames") && first_time(seen, 4))
            return payload(x, (void **)&r->frames, &r->frames_cap,
                           sizeof *r->frames, &rec->n_frames, frame_member,
                           1 | 2 | 4 | 8);
        break;
    default:
        if (key_is(k, "entries") && first_time(seen, 4))
            return payload(x, (void **)&r->entries, &r->entries_cap,
                           sizeof *r->entries, &rec->n_entries, agg_member,
                           1 | 2 | 4);
        if (key_is(k, "kind") && first_time(seen, 8))
            return const_value(x, "frame", &rec->kind);
        if (key_is(k, "scope") && first_time(seen, 16))
            return const_value(x, "final", &rec->scope);
        if (key_is(k, "samples_total") && first_time(seen, 32))
            return uint_value(x, 0, UINT64_MAX - 1, &rec->samples_total);
        break;
    }
    return DECLINE;
}

static int record_member(fparse *x, tfmt_str k, unsigned *seen)
{
    uint64_t v;
    if (key_is(k, "v") && first_time(seen, 1))
        return uint_value(x, 0, 0, &v); /* rec->v stays 0 */
    if (key_is(k, "run_id") && first_time(seen, 2))
        return string_value(x, &x->r->rec.run_id);
    return type_member(x, k, seen);
}

/* `{"type": "<one of ours>"`: which record this is, or DECLINE. */
static int record_type(fparse *x)
{
    tfmt_jsonl_record *rec = &x->r->rec;
    tfmt_str k;
    if (!expect(x, '{') || key(x, &k) != TFMT_OK || !key_is(k, "type") ||
        string_value(x, &rec->type_name) != TFMT_OK)
        return DECLINE;
    if (key_is(rec->type_name, "string_table"))
        rec->type = TFMT_JREC_STRINGS;
    else if (key_is(rec->type_name, "frame_table"))
        rec->type = TFMT_JREC_FRAMES;
    else if (key_is(rec->type_name, "agg"))
        rec->type = TFMT_JREC_AGG;
    else
        return DECLINE;
    return TFMT_OK;
}

/* A string_table, frame_table or agg record; DECLINE for anything else. */
static int bulk_record(tfmt_jsonl_reader *r, const char *p, size_t n)
{
    fparse x = {r, p, p + n};
    tfmt_jsonl_record *rec = &r->rec;
    r->fast_text.len = 0;
    if (tfmt__buf_reserve(&r->fast_text, n + 1) < 0)
        return TFMT_ENOMEM;
    memset(rec, 0, sizeof *rec);
    rec->line = r->lines.line;
    int rc = record_type(&x);
    unsigned seen = 0;
    while (rc == TFMT_OK && expect(&x, ',')) {
        tfmt_str k;
        rc = key(&x, &k);
        if (rc == TFMT_OK)
            rc = record_member(&x, k, &seen);
    }
    if (rc != TFMT_OK)
        return rc;
    unsigned required = rec->type == TFMT_JREC_AGG ? 63 : 7;
    if (!expect(&x, '}') || (skip_ws(&x), x.p != x.end) ||
        (seen & required) != required)
        return DECLINE;
    rec->strings = r->strings;
    rec->frames = r->frames;
    rec->entries = r->entries;
    return TFMT_OK;
}

int tfmt__jsonl_fast(tfmt_jsonl_reader *r, const char *p, size_t n)
{
    int rc = bulk_record(r, p, n);
    /* A line that starts as a bulk record is not of an unknown type. */
    if (rc == DECLINE && r->rec.type == TFMT_JREC_UNKNOWN)
        rc = tfmt__jsonl_fast_unknown(r, p, n);
    return rc;
}
