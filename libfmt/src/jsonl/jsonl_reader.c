/* SPDX-License-Identifier: MIT */
/*
 * jsonl_reader.c - the JSONL record iterator: lines from jsonl_lines.c go
 * first to jsonl_fast.c, which reads the bulk record types directly; any
 * other line is parsed with json-c (strict, UTF-8 validated, one object per
 * line), its envelope (type, v, run_id) is checked here and the rest of
 * the record is converted by jsonl_records.c. Only one line's JSON tree is
 * alive at once.
 */
#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>

#include "jsonl_internal.h"

/* JSON nesting allowed on a line; records need 3, new fields get room. */
#define JSONL_MAX_DEPTH 32

const char *tfmt_jsonl_type_name(tfmt_jsonl_type type)
{
    switch (type) {
    case TFMT_JREC_META: return "meta";
    case TFMT_JREC_STRINGS: return "string_table";
    case TFMT_JREC_FRAMES: return "frame_table";
    case TFMT_JREC_AGG: return "agg";
    case TFMT_JREC_END: return "end";
    default: return "unknown";
    }
}

static size_t clamp_max_line(size_t n)
{
    if (n == 0)
        return TFMT_JSONL_MAX_LINE_DEFAULT;
    return n > TFMT_JSONL_MAX_LINE_LIMIT ? TFMT_JSONL_MAX_LINE_LIMIT : n;
}

int tfmt_jsonl_open(tfmt_jsonl_reader **out, tfmt_source *src,
                    const tfmt_jsonl_options *opts, tfmt_error *err)
{
    static const tfmt_jsonl_options defaults = TFMT_JSONL_OPTIONS_INIT;
    *out = NULL;
    if (!src)
        return tfmt__error(err, TFMT_EINVAL, "no source");
    if (!opts)
        opts = &defaults;
    tfmt_jsonl_reader *r = tfmt__calloc(opts->alloc, 1, sizeof *r);
    if (!r)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    r->alloc = opts->alloc;
    /* A version 1 caller's struct ends before on_finding. */
    memcpy(&r->opts, opts,
           opts->version >= 2 ? sizeof *opts
                              : offsetof(tfmt_jsonl_options, on_finding));
    tfmt__jrules_init(&r->rules, r->alloc);
    r->opts.max_line = clamp_max_line(opts->max_line);
    tfmt__buf_init(&r->fast_text, r->alloc);
    r->tok = json_tokener_new_ex(JSONL_MAX_DEPTH);
    if (!r->tok ||
        tfmt__lines_init(&r->lines, src, r->alloc, r->opts.max_line) < 0) {
        tfmt_jsonl_free(r);
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    }
    if (opts->head_len > r->lines.cap) {
        tfmt_jsonl_free(r);
        return tfmt__error(err, TFMT_EINVAL, "head longer than %zu bytes",
                           r->lines.cap);
    }
    if (opts->head_len) {
        memcpy(r->lines.block, opts->head, opts->head_len);
        r->lines.len = opts->head_len;
    }
    r->opts.head = NULL;
    json_tokener_set_flags(r->tok,
                           JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    *out = r;
    return TFMT_OK;
}

void tfmt_jsonl_free(tfmt_jsonl_reader *r)
{
    if (!r)
        return;
    if (r->obj)
        json_object_put(r->obj);
    if (r->tok)
        json_tokener_free(r->tok);
    tfmt__lines_free(&r->lines, r->alloc);
    tfmt__free(r->alloc, r->strings);
    tfmt__free(r->alloc, r->frames);
    tfmt__free(r->alloc, r->entries);
    tfmt__buf_free(&r->fast_text);
    tfmt__jrules_free(&r->rules);
    tfmt__free(r->alloc, r);
}

const tfmt_error *tfmt_jsonl_error(const tfmt_jsonl_reader *r)
{
    return &r->err;
}

uint64_t tfmt_jsonl_lines(const tfmt_jsonl_reader *r)
{
    return r->lines.line;
}

const tfmt_jsonl_info *tfmt_jsonl_get_info(const tfmt_jsonl_reader *r)
{
    return &r->rules.info;
}

void tfmt__jsonl_note(tfmt_jsonl_reader *r, tfmt_jsonl_note kind,
                      const char *fmt, ...)
{
    if (!r->opts.on_note)
        return;
    tfmt_error where;
    memset(&where, 0, sizeof where);
    where.line = r->lines.line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(where.msg, sizeof where.msg, fmt, ap);
    va_end(ap);
    r->opts.on_note(r->opts.note_ctx, kind, &where);
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
static int parse_line(tfmt_jsonl_reader *r, const char *p, size_t n)
{
    json_tokener_reset(r->tok);
    json_object *o = json_tokener_parse_ex(r->tok, p, (int)n);
    enum json_tokener_error jerr = json_tokener_get_error(r->tok);
    size_t end = json_tokener_get_parse_end(r->tok);
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
    r->obj = o;
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

int tfmt__jsonl_parse_json(tfmt_jsonl_reader *r, const char *p, size_t n)
{
    if (r->obj) {
        json_object_put(r->obj);
        r->obj = NULL;
    }
    int rc = parse_line(r, p, n);
    if (rc == TFMT_OK)
        rc = tfmt__jsonl_convert(r, r->obj);
    return rc;
}

/* End of input: complete only if an end record was seen. */
static int at_end(tfmt_jsonl_reader *r)
{
    if (r->saw_end) {
        r->final = TFMT_DONE;
        tfmt__jrules_end(r);
        return TFMT_DONE;
    }
    tfmt__error(&r->err, TFMT_ETRUNC, "incomplete file: no end record");
    r->err.line = r->lines.line;
    r->err.check = TFMT_JCHK_INCOMPLETE;
    r->final = TFMT_ETRUNC;
    return TFMT_ETRUNC;
}

/*
 * The source itself failed (I/O, corrupt or truncated compression): the
 * error is final, located at the line being read.
 */
static int source_failed(tfmt_jsonl_reader *r, int rc)
{
    r->err.line = r->lines.line + 1;
    r->err.check = rc == TFMT_ELIMIT ? TFMT_JCHK_INPUT_LIMIT : TFMT_JCHK_INPUT;
    r->final = rc;
    return rc;
}

/* Record a failure; decide whether the reader can go on after it. */
static int fail(tfmt_jsonl_reader *r, int rc)
{
    if (rc == TFMT_ELIMIT)
        r->err.check = TFMT_JCHK_LINE_LENGTH;
    bool local = rc == TFMT_EFORMAT || rc == TFMT_ESCHEMA ||
                 rc == TFMT_EVERSION || rc == TFMT_ELIMIT;
    if (!r->opts.keep_going || !local)
        r->final = rc;
    r->rules.dropped = true;
    return rc;
}

static int next_record(tfmt_jsonl_reader *r, const tfmt_jsonl_record **out)
{
    if (r->obj) {
        json_object_put(r->obj);
        r->obj = NULL;
    }
    const char *p = NULL;
    size_t n = 0;
    int rc = tfmt__lines_next(&r->lines, &p, &n, &r->err);
    if (rc == TFMT_DONE)
        return at_end(r);
    if (rc < 0 && (rc != TFMT_ELIMIT || r->lines.src_failed))
        return source_failed(r, rc);
    if (rc == TFMT_OK && r->lines.no_newline)
        tfmt__jsonl_note(r, TFMT_JNOTE_NO_NEWLINE, "no newline at end of file");
    if (rc == TFMT_OK)
        rc = tfmt__jsonl_fast(r, p, n);
    if (rc == 1)
        rc = tfmt__jsonl_parse_json(r, p, n);
    if (rc == TFMT_ENOMEM)
        tfmt__error(&r->err, rc, "out of memory");
    if (rc < 0)
        return fail(r, rc);
    /* The record is well formed; now against the records before it. */
    rc = tfmt__jrules_record(r);
    if (rc == TFMT_ENOMEM)
        tfmt__error(&r->err, rc, "out of memory");
    if (rc < 0) {
        r->final = rc;
        return rc;
    }
    *out = &r->rec;
    return TFMT_OK;
}

int tfmt_jsonl_next(tfmt_jsonl_reader *r, const tfmt_jsonl_record **out)
{
    *out = NULL;
    if (r->final)
        return r->final;
    int rc = next_record(r, out);
    /* A record broke a rule: a full check finds every other one. The
     * source's failures (corrupt compression, its limits) are not the
     * records'. */
    int check = r->err.check;
    if (rc < 0 && check != TFMT_JCHK_NONE && check != TFMT_JCHK_INPUT &&
        check != TFMT_JCHK_INPUT_LIMIT)
        tfmt__error_hint_check(&r->err);
    return rc;
}
