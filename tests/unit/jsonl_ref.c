/* SPDX-License-Identifier: MIT */
/*
 * jsonl_ref.c - the JSONL reader's general path as it was built on
 * json-c (a tree per line, then the fields read from the tree), kept as
 * the reference the in-place path (jsonl_syntax.c, jsonl_text.c,
 * jsonl_records.c) is held to: the same records, errors and notes for
 * every line (test_jsonl_general, fuzz_jsonl_general, fuzz_jsonl_fast).
 * The code is the library's before the change, unchanged but for names
 * and one fix (parse_line: nothing carried over from the line before).
 */
#include <json-c/json.h>
#include <stdio.h>

#include "jsonl_ref.h"

/* Where a field is: record type, optional array name and index. */
typedef struct field_ctx {
    tfmt_jsonl_reader *r;
    const char *rtype;
    const char *array; /* NULL: top level */
    size_t index;
    bool one_based; /* dialect v 1 ids */
} field_ctx;

static const char *json_kind(json_object *o)
{
    switch (json_object_get_type(o)) {
    case json_type_null: return "null";
    case json_type_boolean: return "boolean";
    case json_type_double: return "number";
    case json_type_int: return "integer";
    case json_type_object: return "object";
    case json_type_array: return "array";
    case json_type_string: return "string";
    default: return "value";
    }
}

/* Fail with "<type>: <path>: <problem>" located at the current line. */
static int field_error(const field_ctx *c, int code, int check, const char *key,
                       const char *fmt, ...) TFMT_PRINTF(5, 6);
static int field_error(const field_ctx *c, int code, int check, const char *key,
                       const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    tfmt_error *e = &c->r->err;
    if (c->array && key)
        tfmt__error(e, code, "%s: %s[%zu].%s: %s", c->rtype, c->array, c->index,
                    key, what);
    else if (c->array)
        tfmt__error(e, code, "%s: %s[%zu]: %s", c->rtype, c->array, c->index,
                    what);
    else
        tfmt__error(e, code, "%s: %s: %s", c->rtype, key, what);
    e->line = c->r->lines.line;
    e->check = check;
    return code;
}

/*
 * Find `key` of JSON type `want`. Returns 1 when found, 0 when absent and
 * optional, or a negative status.
 */
static int member(const field_ctx *c, json_object *o, const char *key,
                  json_type want, bool required, json_object **out)
{
    *out = NULL;
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v)) {
        if (!required)
            return 0;
        return field_error(c, TFMT_ESCHEMA, TFMT_JCHK_MISSING, key,
                           "missing required field");
    }
    if (!json_object_is_type(v, want)) {
        static const char *names[] = {
            [json_type_null] = "null",     [json_type_boolean] = "boolean",
            [json_type_double] = "number", [json_type_int] = "integer",
            [json_type_object] = "object", [json_type_array] = "array",
            [json_type_string] = "string"};
        return field_error(c, TFMT_ESCHEMA, TFMT_JCHK_TYPE, key,
                           "expected %s, got %s", names[want], json_kind(v));
    }
    *out = v;
    return 1;
}

/* An integer field within [min, max]. Returns 1, 0 (absent) or < 0. */
static int get_uint(const field_ctx *c, json_object *o, const char *key,
                    bool required, uint64_t min, uint64_t max, uint64_t *out)
{
    json_object *v;
    int rc = member(c, o, key, json_type_int, required, &v);
    if (rc <= 0)
        return rc;
    int64_t s = json_object_get_int64(v);
    uint64_t u = s < 0 ? 0 : json_object_get_uint64(v);
    if (s < 0 || u == UINT64_MAX || u < min || u > max) {
        if (s < 0 && s != INT64_MIN)
            return field_error(c, TFMT_ESCHEMA, TFMT_JCHK_RANGE, key,
                               "%lld is out of range (%llu..%llu)",
                               (long long)s, (unsigned long long)min,
                               (unsigned long long)max);
        if (s < 0 || u == UINT64_MAX)
            return field_error(c, TFMT_ESCHEMA, TFMT_JCHK_RANGE, key,
                               "integer is out of range (%llu..%llu)",
                               (unsigned long long)min,
                               (unsigned long long)max);
        return field_error(c, TFMT_ESCHEMA, TFMT_JCHK_RANGE, key,
                           "%llu is out of range (%llu..%llu)",
                           (unsigned long long)u, (unsigned long long)min,
                           (unsigned long long)max);
    }
    *out = u;
    return 1;
}

/* An id field, converted to 0-based in the v 1 dialect. */
static int get_id(const field_ctx *c, json_object *o, const char *key,
                  uint32_t *out)
{
    uint64_t v = 0;
    uint64_t min = c->one_based ? 1 : 0;
    uint64_t max = c->one_based ? (uint64_t)UINT32_MAX + 1 : UINT32_MAX;
    int rc = get_uint(c, o, key, true, min, max, &v);
    if (rc < 0)
        return rc;
    *out = (uint32_t)(v - min);
    return TFMT_OK;
}

/* An optional int32 location field; TFMT_JSONL_ABSENT when missing. */
static int get_loc(const field_ctx *c, json_object *o, const char *key,
                   bool required, uint64_t min, int32_t *out)
{
    uint64_t v = 0;
    int rc = get_uint(c, o, key, required, min, INT32_MAX, &v);
    if (rc < 0)
        return rc;
    *out = rc == 0 ? TFMT_JSONL_ABSENT : (int32_t)v;
    return TFMT_OK;
}

static int get_str(const field_ctx *c, json_object *o, const char *key,
                   bool required, tfmt_str *out)
{
    json_object *v;
    int rc = member(c, o, key, json_type_string, required, &v);
    out->ptr = NULL;
    out->len = 0;
    if (rc <= 0)
        return rc;
    out->ptr = json_object_get_string(v);
    out->len = (size_t)json_object_get_string_len(v);
    return 1;
}

/* Note every key of `o` not in the NULL-terminated list `known`. */
static void note_unknown(const field_ctx *c, json_object *o,
                         const char *const *known)
{
    if (!c->r->opts.on_note)
        return;
    json_object_object_foreach(o, key, val)
    {
        (void)val;
        size_t i = 0;
        while (known[i] && strcmp(known[i], key) != 0)
            i++;
        if (known[i])
            continue;
        if (c->array)
            tfmt__jsonl_note(c->r, TFMT_JNOTE_UNKNOWN_FIELD,
                             "%s: %s[%zu]: unknown field \"%.64s\" ignored",
                             c->rtype, c->array, c->index, key);
        else
            tfmt__jsonl_note(c->r, TFMT_JNOTE_UNKNOWN_FIELD,
                             "%s: unknown field \"%.64s\" ignored", c->rtype,
                             key);
    }
}

typedef int (*elem_fn)(const field_ctx *c, json_object *e, size_t i);

/*
 * Convert every object of the array `key` with `fn` into (*arr)[0..n),
 * growing the array first (its length is bounded by the line's bytes).
 */
static int each(field_ctx *c, json_object *o, const char *key, void **arr,
                size_t *cap, size_t elem, size_t *n, elem_fn fn)
{
    json_object *a;
    int rc = member(c, o, key, json_type_array, true, &a);
    if (rc < 0)
        return rc;
    size_t len = json_object_array_length(a);
    if (tfmt__grow(c->r->alloc, arr, cap, len, elem) < 0)
        return tfmt__error(&c->r->err, TFMT_ENOMEM, "out of memory");
    c->array = key;
    for (size_t i = 0; i < len; i++) {
        json_object *e = json_object_array_get_idx(a, i);
        c->index = i;
        if (!json_object_is_type(e, json_type_object))
            return field_error(c, TFMT_ESCHEMA, TFMT_JCHK_TYPE, NULL,
                               "expected object, got %s", json_kind(e));
        rc = fn(c, e, i);
        if (rc < 0)
            return rc;
    }
    c->array = NULL;
    *n = len;
    return TFMT_OK;
}

static int string_entry(const field_ctx *c, json_object *e, size_t i)
{
    static const char *const known[] = {"str_id", "value", NULL};
    tfmt_jsonl_string *s = &c->r->strings[i];
    int rc = get_id(c, e, "str_id", &s->id);
    if (rc >= 0)
        rc = get_str(c, e, "value", true, &s->value);
    if (rc >= 0)
        note_unknown(c, e, known);
    return rc < 0 ? rc : TFMT_OK;
}

static int frame_entry(const field_ctx *c, json_object *e, size_t i)
{
    /* `synthetic` is known only in the v 1 dialect (last entry). */
    static const char *const known_v1[] = {
        "frame_id", "path_str_id", "func_str_id", "line", "end_line",
        "col",      "end_col",     "synthetic",   NULL};
    static const char *const known_v0[] = {
        "frame_id", "path_str_id", "func_str_id", "line",
        "end_line", "col",         "end_col",     NULL};
    tfmt_jsonl_frame *f = &c->r->frames[i];
    int rc = get_id(c, e, "frame_id", &f->id);
    if (rc >= 0)
        rc = get_id(c, e, "path_str_id", &f->path_str_id);
    if (rc >= 0)
        rc = get_id(c, e, "func_str_id", &f->func_str_id);
    if (rc >= 0)
        rc = get_loc(c, e, "line", true, 0, &f->line);
    if (rc >= 0)
        rc = get_loc(c, e, "end_line", false, 1, &f->end_line);
    if (rc >= 0)
        rc = get_loc(c, e, "col", false, 0, &f->col);
    if (rc >= 0)
        rc = get_loc(c, e, "end_col", false, 0, &f->end_col);
    f->synthetic = false;
    json_object *syn = NULL;
    if (rc >= 0 && c->one_based)
        rc = member(c, e, "synthetic", json_type_boolean, false, &syn);
    if (syn)
        f->synthetic = json_object_get_boolean(syn);
    if (rc >= 0)
        note_unknown(c, e, c->one_based ? known_v1 : known_v0);
    return rc < 0 ? rc : TFMT_OK;
}

static int agg_entry(const field_ctx *c, json_object *e, size_t i)
{
    static const char *const known[] = {"frame_id", "self", "cumulative", NULL};
    tfmt_jsonl_agg *a = &c->r->entries[i];
    int rc = get_id(c, e, "frame_id", &a->frame_id);
    if (rc >= 0)
        rc = get_uint(c, e, "self", true, 0, UINT64_MAX - 1, &a->self);
    if (rc >= 0)
        rc = get_uint(c, e, "cumulative", true, 0, UINT64_MAX - 1,
                      &a->cumulative);
    if (rc >= 0)
        note_unknown(c, e, known);
    return rc < 0 ? rc : TFMT_OK;
}

static int convert_meta(field_ctx *c, json_object *o)
{
    static const char *const known[] = {
        "type", "v", "run_id", "sample_interval_usec", "mode", NULL};
    tfmt_jsonl_record *rec = &c->r->rec;
    int rc = get_uint(c, o, "sample_interval_usec", true, 0, UINT64_MAX - 1,
                      &rec->sample_interval_usec);
    if (rc >= 0)
        rc = get_str(c, o, "mode", false, &rec->mode);
    if (rc >= 0)
        note_unknown(c, o, known);
    return rc < 0 ? rc : TFMT_OK;
}

static int convert_strings(field_ctx *c, json_object *o, const char *key)
{
    const char *const known[] = {"type", "v", "run_id", key, NULL};
    tfmt_jsonl_reader *r = c->r;
    int rc = each(c, o, key, (void **)&r->strings, &r->strings_cap,
                  sizeof *r->strings, &r->rec.n_strings, string_entry);
    r->rec.strings = r->strings;
    if (rc >= 0)
        note_unknown(c, o, known);
    return rc;
}

static int convert_frames(field_ctx *c, json_object *o, const char *key)
{
    const char *const known[] = {"type", "v", "run_id", key, NULL};
    tfmt_jsonl_reader *r = c->r;
    int rc = each(c, o, key, (void **)&r->frames, &r->frames_cap,
                  sizeof *r->frames, &r->rec.n_frames, frame_entry);
    r->rec.frames = r->frames;
    if (rc >= 0)
        note_unknown(c, o, known);
    return rc;
}

/* A string field that must hold exactly `want`. */
static int get_const(field_ctx *c, json_object *o, const char *key,
                     const char *want, tfmt_str *out)
{
    int rc = get_str(c, o, key, true, out);
    if (rc < 0)
        return rc;
    if (out->len != strlen(want) || memcmp(out->ptr, want, out->len) != 0)
        return field_error(c, TFMT_ESCHEMA, TFMT_JCHK_RANGE, key,
                           "expected \"%s\", got \"%.40s\"", want, out->ptr);
    return TFMT_OK;
}

static int convert_agg(field_ctx *c, json_object *o)
{
    static const char *const known[] = {"type",    "v",     "run_id",
                                        "kind",    "scope", "samples_total",
                                        "entries", NULL};
    tfmt_jsonl_reader *r = c->r;
    int rc = get_const(c, o, "kind", "frame", &r->rec.kind);
    if (rc >= 0)
        rc = get_const(c, o, "scope", "final", &r->rec.scope);
    if (rc >= 0)
        rc = get_uint(c, o, "samples_total", true, 0, UINT64_MAX - 1,
                      &r->rec.samples_total);
    if (rc >= 0)
        rc = each(c, o, "entries", (void **)&r->entries, &r->entries_cap,
                  sizeof *r->entries, &r->rec.n_entries, agg_entry);
    r->rec.entries = r->entries;
    if (rc >= 0)
        note_unknown(c, o, known);
    return rc < 0 ? rc : TFMT_OK;
}

static int convert_end(field_ctx *c, json_object *o)
{
    static const char *const known[] = {"type", "v", "run_id", "samples_total",
                                        NULL};
    int rc = get_uint(c, o, "samples_total", true, 0, UINT64_MAX - 1,
                      &c->r->rec.samples_total);
    if (rc >= 0)
        note_unknown(c, o, known);
    c->r->saw_end = true;
    return rc < 0 ? rc : TFMT_OK;
}

/* Known record types; `v` -1 means "0 or 1". */
static const struct rtype {
    const char *name;
    tfmt_jsonl_type type;
    int v;
    const char *array;
} rtypes[] = {
    {"meta", TFMT_JREC_META, -1, NULL},
    {"string_table", TFMT_JREC_STRINGS, 0, "strings"},
    {"frame_table", TFMT_JREC_FRAMES, 0, "frames"},
    {"agg", TFMT_JREC_AGG, -1, "entries"},
    {"end", TFMT_JREC_END, -1, NULL},
    {"str_def", TFMT_JREC_STRINGS, 1, "defs"},
    {"frame_def", TFMT_JREC_FRAMES, 1, "defs"},
};

static const struct rtype *find_rtype(tfmt_str name)
{
    for (size_t i = 0; i < sizeof rtypes / sizeof rtypes[0]; i++) {
        if (strlen(rtypes[i].name) == name.len &&
            memcmp(rtypes[i].name, name.ptr, name.len) == 0)
            return &rtypes[i];
    }
    return NULL;
}

/* type, v and run_id, present on every record of every type. */
static int envelope(field_ctx *c, json_object *o)
{
    tfmt_jsonl_record *rec = &c->r->rec;
    json_object *v;
    int rc = get_str(c, o, "type", true, &rec->type_name);
    const struct rtype *t = rc < 0 ? NULL : find_rtype(rec->type_name);
    if (t)
        c->rtype = t->name;
    /* An end record makes the file complete even if it is unreadable. */
    if (t && t->type == TFMT_JREC_END)
        c->r->saw_end = true;
    if (rc >= 0)
        rc = member(c, o, "v", json_type_int, true, &v);
    if (rc >= 0) {
        rec->v = json_object_get_int64(v);
        rc = get_str(c, o, "run_id", true, &rec->run_id);
    }
    if (rc < 0) {
        c->r->err.check = TFMT_JCHK_ENVELOPE;
        return rc;
    }
    if (!t) {
        rec->type = TFMT_JREC_UNKNOWN;
        return TFMT_OK;
    }
    rec->type = t->type;
    bool ok = t->v < 0 ? (rec->v == 0 || rec->v == 1) : rec->v == t->v;
    if (!ok)
        return field_error(c, TFMT_EVERSION, TFMT_JCHK_VERSION, "v",
                           "unsupported record version %lld",
                           (long long)rec->v);
    return TFMT_OK;
}

static int ref_convert(tfmt_jsonl_reader *r, json_object *o)
{
    field_ctx c = {r, "record", NULL, 0, false};
    memset(&r->rec, 0, sizeof r->rec);
    r->rec.line = r->lines.line;
    int rc = envelope(&c, o);
    if (rc < 0)
        return rc;
    c.one_based = r->rec.v == 1;
    const struct rtype *t = find_rtype(r->rec.type_name);
    switch (r->rec.type) {
    case TFMT_JREC_META: return convert_meta(&c, o);
    case TFMT_JREC_STRINGS: return convert_strings(&c, o, t->array);
    case TFMT_JREC_FRAMES: return convert_frames(&c, o, t->array);
    case TFMT_JREC_AGG: return convert_agg(&c, o);
    case TFMT_JREC_END: return convert_end(&c, o);
    default: tfmt__jsonl_unknown_type(r); return TFMT_OK;
    }
}

/* Locate a line-local error and record it; returns `code`. */
static int line_error(tfmt_jsonl_reader *r, int code, int check,
                      const char *msg)
{
    tfmt__error(&r->err, code, "%s", msg);
    r->err.line = r->lines.line;
    r->err.check = check;
    return code;
}

/* Only spaces, tabs and carriage returns (an empty line). */
static bool is_blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
            return false;
    }
    return true;
}

/* Parse one line into r->obj; a JSON object is required. */
static int parse_line(jref *j, tfmt_jsonl_reader *r, const char *p, size_t n)
{
    json_tokener_reset(j->tok);
    /*
     * json_tokener_reset leaves a pending high surrogate of the line
     * before (one that ended or failed right after "\ud800"), which then
     * spoilt the first \u escape of the next line json-c read. The
     * library no longer carries anything from line to line; neither does
     * the reference.
     */
    j->tok->high_surrogate = 0;
    json_object *o = json_tokener_parse_ex(j->tok, p, (int)n);
    enum json_tokener_error jerr = json_tokener_get_error(j->tok);
    size_t end = json_tokener_get_parse_end(j->tok);
    if (!o) {
        if (jerr == json_tokener_continue && is_blank(p, n))
            return line_error(r, TFMT_EFORMAT, TFMT_JCHK_NOT_OBJECT,
                              "empty line, expected a JSON object");
        if (jerr == json_tokener_continue)
            return line_error(r, TFMT_EFORMAT, TFMT_JCHK_SYNTAX,
                              "invalid JSON: unexpected end of line");
        tfmt__error(&r->err, TFMT_EFORMAT, "invalid JSON at column %zu: %s",
                    end + 1, json_tokener_error_desc(jerr));
        r->err.line = r->lines.line;
        r->err.check = TFMT_JCHK_SYNTAX;
        return TFMT_EFORMAT;
    }
    j->obj = o;
    if (end != n) {
        tfmt__error(&r->err, TFMT_EFORMAT, "invalid JSON at column %zu: %s",
                    end + 1, "unexpected data after the object");
        r->err.line = r->lines.line;
        r->err.check = TFMT_JCHK_SYNTAX;
        return TFMT_EFORMAT;
    }
    if (!json_object_is_type(o, json_type_object))
        return line_error(r, TFMT_EFORMAT, TFMT_JCHK_NOT_OBJECT,
                          json_object_is_type(o, json_type_array)
                              ? "expected a JSON object, got an array"
                              : "expected a JSON object, got a scalar");
    return TFMT_OK;
}

int jref_init(jref *j)
{
    j->obj = NULL;
    j->tok = json_tokener_new_ex(32);
    if (!j->tok)
        return -1;
    json_tokener_set_flags(j->tok,
                           JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    return 0;
}

void jref_free(jref *j)
{
    if (j->obj)
        json_object_put(j->obj);
    j->obj = NULL;
    if (j->tok)
        json_tokener_free(j->tok);
    j->tok = NULL;
}

int jref_parse_line(jref *j, tfmt_jsonl_reader *r, const char *p, size_t n)
{
    if (j->obj) {
        json_object_put(j->obj);
        j->obj = NULL;
    }
    int rc = parse_line(j, r, p, n);
    if (rc == TFMT_OK)
        rc = ref_convert(r, j->obj);
    return rc;
}
