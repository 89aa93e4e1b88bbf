/* SPDX-License-Identifier: MIT */
/*
 * jsonl_records.c - converts one line json-c accepts into a
 * tfmt_jsonl_record: the envelope (type, v, run_id), then the fields of
 * the known types, each type-checked before it is read and range-checked
 * (json-c clamps out-of-range integers, so the clamp values themselves
 * are refused). Ids of the pre-release dialect (v 1) are made 0-based.
 *
 * The line is read in place (jsonl_text.h): an object's members are
 * looked up in one pass over it, and a member the record does not use is
 * stepped over, never built, so a line costs a small multiple of its
 * length whatever it holds. Everything a caller sees (fields, errors and
 * their order, notes) is what json-c's tree gave before; the differential
 * tests (unit.jsonl_general, fuzz_jsonl_general) keep it so.
 */
#include <stdio.h>

#include "jsonl_text.h"

/* Where a field is: record type, optional array name and index. */
typedef struct field_ctx {
    tfmt_jsonl_reader *r;
    const char *end; /* of the line */
    const char *rtype;
    const char *array; /* NULL: top level */
    size_t index;
    bool one_based; /* dialect v 1 ids */
} field_ctx;

/*
 * An object's members of the names a conversion asks for, found in one
 * pass: the last member of a name wins, as in json-c. Names are looked up
 * by the strings of these lists only.
 */
#define MAX_NAMES 16
typedef struct jobj {
    const char *p;             /* the '{' */
    const char *const *names;  /* NULL-terminated, at most MAX_NAMES */
    const char *at[MAX_NAMES]; /* each name's value, NULL when absent */
} jobj;

static bool str_is(tfmt_str s, const char *name)
{
    size_t n = strlen(name);
    return s.len == n && memcmp(s.ptr, name, n) == 0;
}

static int index_object(field_ctx *c, jobj *o, const char *p,
                        const char *const *names)
{
    o->p = p;
    o->names = names;
    memset(o->at, 0, sizeof o->at);
    tfmt_jiter it;
    tfmt__jv_iter(&it, p, c->end);
    const char *name, *value;
    while (tfmt__jv_next_member(&it, &name, &value)) {
        tfmt_str k;
        if (tfmt__jv_name(name, c->end, &c->r->name_text, &k) < 0)
            return TFMT_ENOMEM;
        for (size_t i = 0; names[i]; i++) {
            if (str_is(k, names[i])) {
                o->at[i] = value;
                break;
            }
        }
    }
    return TFMT_OK;
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

static int no_memory(const field_ctx *c)
{
    return tfmt__error(&c->r->err, TFMT_ENOMEM, "out of memory");
}

/*
 * Find `key` (one of o's names) of kind `want`. Returns 1 when found, 0
 * when absent and optional, or a negative status.
 */
static int member(const field_ctx *c, const jobj *o, const char *key, int want,
                  bool required, const char **out)
{
    *out = NULL;
    size_t i = 0;
    while (o->names[i] && strcmp(o->names[i], key) != 0)
        i++;
    const char *v = o->at[i];
    if (!v) {
        if (!required)
            return 0;
        return field_error(c, TFMT_ESCHEMA, TFMT_JCHK_MISSING, key,
                           "missing required field");
    }
    int kind = tfmt__jv_kind(v, c->end);
    if (kind != want)
        return field_error(c, TFMT_ESCHEMA, TFMT_JCHK_TYPE, key,
                           "expected %s, got %s", tfmt__jv_kind_name(want),
                           tfmt__jv_kind_name(kind));
    *out = v;
    return 1;
}

/* An integer field within [min, max]. Returns 1, 0 (absent) or < 0. */
static int get_uint(const field_ctx *c, const jobj *o, const char *key,
                    bool required, uint64_t min, uint64_t max, uint64_t *out)
{
    const char *v;
    int rc = member(c, o, key, TFMT_JV_INTEGER, required, &v);
    if (rc <= 0)
        return rc;
    int64_t s;
    uint64_t u;
    tfmt__jv_int(v, c->end, &s, &u);
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
static int get_id(const field_ctx *c, const jobj *o, const char *key,
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
static int get_loc(const field_ctx *c, const jobj *o, const char *key,
                   bool required, uint64_t min, int32_t *out)
{
    uint64_t v = 0;
    int rc = get_uint(c, o, key, required, min, INT32_MAX, &v);
    if (rc < 0)
        return rc;
    *out = rc == 0 ? TFMT_JSONL_ABSENT : (int32_t)v;
    return TFMT_OK;
}

/* A string field, decoded into r->fast_text (room made for the line). */
static int get_str(const field_ctx *c, const jobj *o, const char *key,
                   bool required, tfmt_str *out)
{
    const char *v;
    int rc = member(c, o, key, TFMT_JV_STRING, required, &v);
    out->ptr = NULL;
    out->len = 0;
    if (rc <= 0)
        return rc;
    tfmt__jv_string(v, c->end, &c->r->fast_text, out);
    return 1;
}

/* ---- unknown fields ---- */

static bool is_known(tfmt_str k, const char *const *known)
{
    for (size_t i = 0; known[i]; i++)
        if (str_is(k, known[i]))
            return true;
    return false;
}

static void note_field(const field_ctx *c, tfmt_str k)
{
    /* Names end at their first NUL (json-c's C strings): printable as is. */
    int n = k.len < 64 ? (int)k.len : 64;
    if (c->array)
        tfmt__jsonl_note(c->r, TFMT_JNOTE_UNKNOWN_FIELD,
                         "%s: %s[%zu]: unknown field \"%.*s\" ignored",
                         c->rtype, c->array, c->index, n, k.ptr);
    else
        tfmt__jsonl_note(c->r, TFMT_JNOTE_UNKNOWN_FIELD,
                         "%s: unknown field \"%.*s\" ignored", c->rtype, n,
                         k.ptr);
}

/*
 * Note every member name of the object at p not in the NULL-terminated
 * list `known`, once each, in the order names first appear (json-c's
 * order: a name given twice keeps its first place).
 */
static int note_unknown(const field_ctx *c, const char *p,
                        const char *const *known)
{
    tfmt_jsonl_reader *r = c->r;
    if (!r->opts.on_note)
        return TFMT_OK;
    tfmt_jnames seen;
    int rc = tfmt__jnames_begin(&seen, r, p, c->end);
    tfmt_jiter it;
    tfmt__jv_iter(&it, p, c->end);
    const char *name, *value;
    while (rc == TFMT_OK && tfmt__jv_next_member(&it, &name, &value)) {
        tfmt_str k;
        rc = tfmt__jv_name(name, c->end, &r->name_text, &k);
        if (rc == TFMT_OK && !is_known(k, known))
            rc = tfmt__jnames_add(&seen, name, k);
        if (rc == 1) {
            note_field(c, k);
            rc = TFMT_OK;
        }
    }
    return rc < 0 ? no_memory(c) : TFMT_OK;
}

/* ---- arrays of entries ---- */

typedef int (*elem_fn)(field_ctx *c, const char *e, size_t i);

/*
 * Convert every object of the array `key` with `fn` into (*arr)[0..n).
 * The array grows one entry at a time, ahead of the entry's conversion:
 * entries that convert take at least 23 bytes of the line each, so it
 * stays within a multiple of the line whatever the array holds.
 */
static int each(field_ctx *c, const jobj *o, const char *key, void **arr,
                size_t *cap, size_t elem, size_t *n, elem_fn fn)
{
    const char *a;
    int rc = member(c, o, key, TFMT_JV_ARRAY, true, &a);
    if (rc < 0)
        return rc;
    c->array = key;
    tfmt_jiter it;
    tfmt__jv_iter(&it, a, c->end);
    const char *e;
    size_t i = 0;
    for (; tfmt__jv_next_elem(&it, &e); i++) {
        if (tfmt__grow(c->r->alloc, arr, cap, i + 1, elem) < 0)
            return no_memory(c);
        c->index = i;
        int kind = tfmt__jv_kind(e, c->end);
        if (kind != TFMT_JV_OBJECT)
            return field_error(c, TFMT_ESCHEMA, TFMT_JCHK_TYPE, NULL,
                               "expected object, got %s",
                               tfmt__jv_kind_name(kind));
        rc = fn(c, e, i);
        if (rc < 0)
            return rc;
    }
    c->array = NULL;
    *n = i;
    return TFMT_OK;
}

static int string_entry(field_ctx *c, const char *e, size_t i)
{
    static const char *const known[] = {"str_id", "value", NULL};
    jobj o;
    tfmt_jsonl_string *s = &c->r->strings[i];
    int rc = index_object(c, &o, e, known);
    if (rc >= 0)
        rc = get_id(c, &o, "str_id", &s->id);
    if (rc >= 0)
        rc = get_str(c, &o, "value", true, &s->value);
    if (rc >= 0)
        rc = note_unknown(c, e, known);
    return rc < 0 ? rc : TFMT_OK;
}

/* The location fields of a frame entry, in json-c's order. */
static int frame_fields(field_ctx *c, const jobj *o, tfmt_jsonl_frame *f)
{
    int rc = get_id(c, o, "frame_id", &f->id);
    if (rc >= 0)
        rc = get_id(c, o, "path_str_id", &f->path_str_id);
    if (rc >= 0)
        rc = get_id(c, o, "func_str_id", &f->func_str_id);
    if (rc >= 0)
        rc = get_loc(c, o, "line", true, 0, &f->line);
    if (rc >= 0)
        rc = get_loc(c, o, "end_line", false, 1, &f->end_line);
    if (rc >= 0)
        rc = get_loc(c, o, "col", false, 0, &f->col);
    if (rc >= 0)
        rc = get_loc(c, o, "end_col", false, 0, &f->end_col);
    return rc;
}

static int frame_entry(field_ctx *c, const char *e, size_t i)
{
    /* `synthetic` is known only in the v 1 dialect (last entry). */
    static const char *const known_v1[] = {
        "frame_id", "path_str_id", "func_str_id", "line", "end_line",
        "col",      "end_col",     "synthetic",   NULL};
    static const char *const known_v0[] = {
        "frame_id", "path_str_id", "func_str_id", "line",
        "end_line", "col",         "end_col",     NULL};
    tfmt_jsonl_frame *f = &c->r->frames[i];
    jobj o;
    int rc = index_object(c, &o, e, known_v1);
    if (rc >= 0)
        rc = frame_fields(c, &o, f);
    f->synthetic = false;
    const char *syn = NULL;
    if (rc >= 0 && c->one_based)
        rc = member(c, &o, "synthetic", TFMT_JV_BOOLEAN, false, &syn);
    if (syn)
        f->synthetic = tfmt__jv_bool(syn);
    if (rc >= 0)
        rc = note_unknown(c, e, c->one_based ? known_v1 : known_v0);
    return rc < 0 ? rc : TFMT_OK;
}

static int agg_entry(field_ctx *c, const char *e, size_t i)
{
    static const char *const known[] = {"frame_id", "self", "cumulative", NULL};
    tfmt_jsonl_agg *a = &c->r->entries[i];
    jobj o;
    int rc = index_object(c, &o, e, known);
    if (rc >= 0)
        rc = get_id(c, &o, "frame_id", &a->frame_id);
    if (rc >= 0)
        rc = get_uint(c, &o, "self", true, 0, UINT64_MAX - 1, &a->self);
    if (rc >= 0)
        rc = get_uint(c, &o, "cumulative", true, 0, UINT64_MAX - 1,
                      &a->cumulative);
    if (rc >= 0)
        rc = note_unknown(c, e, known);
    return rc < 0 ? rc : TFMT_OK;
}

/* ---- records ---- */

static int convert_meta(field_ctx *c, const jobj *o)
{
    static const char *const known[] = {
        "type", "v", "run_id", "sample_interval_usec", "mode", NULL};
    tfmt_jsonl_record *rec = &c->r->rec;
    int rc = get_uint(c, o, "sample_interval_usec", true, 0, UINT64_MAX - 1,
                      &rec->sample_interval_usec);
    if (rc >= 0)
        rc = get_str(c, o, "mode", false, &rec->mode);
    if (rc >= 0)
        rc = note_unknown(c, o->p, known);
    return rc < 0 ? rc : TFMT_OK;
}

static int convert_strings(field_ctx *c, const jobj *o, const char *key)
{
    const char *const known[] = {"type", "v", "run_id", key, NULL};
    tfmt_jsonl_reader *r = c->r;
    int rc = each(c, o, key, (void **)&r->strings, &r->strings_cap,
                  sizeof *r->strings, &r->rec.n_strings, string_entry);
    r->rec.strings = r->strings;
    if (rc >= 0)
        rc = note_unknown(c, o->p, known);
    return rc;
}

static int convert_frames(field_ctx *c, const jobj *o, const char *key)
{
    const char *const known[] = {"type", "v", "run_id", key, NULL};
    tfmt_jsonl_reader *r = c->r;
    int rc = each(c, o, key, (void **)&r->frames, &r->frames_cap,
                  sizeof *r->frames, &r->rec.n_frames, frame_entry);
    r->rec.frames = r->frames;
    if (rc >= 0)
        rc = note_unknown(c, o->p, known);
    return rc;
}

/* A string field that must hold exactly `want`. */
static int get_const(field_ctx *c, const jobj *o, const char *key,
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

static int convert_agg(field_ctx *c, const jobj *o)
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
        rc = note_unknown(c, o->p, known);
    return rc < 0 ? rc : TFMT_OK;
}

static int convert_end(field_ctx *c, const jobj *o)
{
    static const char *const known[] = {"type", "v", "run_id", "samples_total",
                                        NULL};
    int rc = get_uint(c, o, "samples_total", true, 0, UINT64_MAX - 1,
                      &c->r->rec.samples_total);
    if (rc >= 0)
        rc = note_unknown(c, o->p, known);
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
static int envelope(field_ctx *c, const jobj *o)
{
    tfmt_jsonl_record *rec = &c->r->rec;
    const char *v;
    int rc = get_str(c, o, "type", true, &rec->type_name);
    const struct rtype *t = rc < 0 ? NULL : find_rtype(rec->type_name);
    if (t)
        c->rtype = t->name;
    /* An end record makes the file complete even if it is unreadable. */
    if (t && t->type == TFMT_JREC_END)
        c->r->saw_end = true;
    if (rc >= 0)
        rc = member(c, o, "v", TFMT_JV_INTEGER, true, &v);
    if (rc >= 0) {
        uint64_t u;
        tfmt__jv_int(v, c->end, &rec->v, &u);
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

/* Every member name a record of any known type uses at its top level. */
static const char *const record_names[] = {
    "type", "v",       "run_id",        "sample_interval_usec",
    "mode", "strings", "frames",        "defs",
    "kind", "scope",   "samples_total", "entries",
    NULL};

int tfmt__jsonl_convert(tfmt_jsonl_reader *r, const char *p, size_t n)
{
    field_ctx c = {r, p + n, "record", NULL, 0, false};
    memset(&r->rec, 0, sizeof r->rec);
    r->rec.line = r->lines.line;
    r->fast_text.len = 0;
    if (tfmt__buf_reserve(&r->fast_text, n + 1) < 0)
        return no_memory(&c);
    const char *obj = p;
    while (obj < c.end && *obj != '{')
        obj++;
    jobj o;
    int rc = index_object(&c, &o, obj, record_names);
    if (rc < 0)
        return no_memory(&c);
    rc = envelope(&c, &o);
    if (rc < 0)
        return rc;
    c.one_based = r->rec.v == 1;
    const struct rtype *t = find_rtype(r->rec.type_name);
    switch (r->rec.type) {
    case TFMT_JREC_META: return convert_meta(&c, &o);
    case TFMT_JREC_STRINGS: return convert_strings(&c, &o, t->array);
    case TFMT_JREC_FRAMES: return convert_frames(&c, &o, t->array);
    case TFMT_JREC_AGG: return convert_agg(&c, &o);
    case TFMT_JREC_END: return convert_end(&c, &o);
    default: tfmt__jsonl_unknown_type(r); return TFMT_OK;
    }
}

bool tfmt__jsonl_known_type(tfmt_str name)
{
    return find_rtype(name) != NULL;
}

void tfmt__jsonl_unknown_type(tfmt_jsonl_reader *r)
{
    tfmt__jsonl_note(r, TFMT_JNOTE_UNKNOWN_TYPE,
                     "unknown record type \"%.64s\" ignored",
                     r->rec.type_name.ptr);
}
