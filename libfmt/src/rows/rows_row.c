/* SPDX-License-Identifier: MIT */
/*
 * rows_row.c - one JSONEachRow line as the columns of a stack row: each
 * known column parsed and checked against its ClickHouse type (integers
 * as numbers or quoted strings, within the type's range), unknown columns
 * skipped, required ones present, the frames.* arrays of one length and
 * at most TFMT_MAX_DEPTH long. What the values mean across rows (runs,
 * duplicates) is rows_reader.c's business.
 */
#include <stdio.h>

#include "rows_internal.h"

typedef enum {
    C_RUN_ID,
    C_RUN_ID_VERSION,
    C_ROW,
    C_STACK_HASH,
    C_TIME,
    C_LABEL_KEYS,
    C_LABEL_VALUES,
    C_PYTHON,
    C_MODE,
    C_START_TIME,
    C_INTERVAL,
    C_THREAD_ID,
    C_INTERP,
    C_STATUS,
    C_FILE,
    C_FUNC,
    C_LINE,
    C_END_LINE,
    C_COLUMN,
    C_END_COLUMN,
    C_OPCODE,
    C_COUNT,
    NCOLUMNS
} column;

typedef enum { T_STRING, T_UINT, T_TIME, T_STRINGS, T_INTS } ctype;

static const struct {
    const char *name;
    ctype type;
    int64_t min;
    uint64_t max;
} columns[NCOLUMNS] = {
    [C_RUN_ID] = {"run_id", T_STRING, 0, 0},
    [C_RUN_ID_VERSION] = {"run_id_version", T_UINT, 0, UINT8_MAX},
    [C_ROW] = {"row", T_UINT, 0, UINT32_MAX},
    [C_STACK_HASH] = {"stack_hash", T_UINT, 0, UINT64_MAX},
    [C_TIME] = {"time", T_TIME, 0, UINT32_MAX},
    [C_LABEL_KEYS] = {"labels.key", T_STRINGS, 0, 0},
    [C_LABEL_VALUES] = {"labels.value", T_STRINGS, 0, 0},
    [C_PYTHON] = {"python", T_STRING, 0, 0},
    [C_MODE] = {"mode", T_STRING, 0, 0},
    [C_START_TIME] = {"start_time_us", T_UINT, 0, UINT64_MAX},
    [C_INTERVAL] = {"interval_us", T_UINT, 0, UINT64_MAX},
    [C_THREAD_ID] = {"thread_id", T_UINT, 0, UINT64_MAX},
    [C_INTERP] = {"interpreter_id", T_UINT, 0, UINT32_MAX},
    [C_STATUS] = {"status", T_UINT, 0, UINT8_MAX},
    [C_FILE] = {"frames.file", T_STRINGS, 0, 0},
    [C_FUNC] = {"frames.function", T_STRINGS, 0, 0},
    [C_LINE] = {"frames.line", T_INTS, INT32_MIN, INT32_MAX},
    [C_END_LINE] = {"frames.end_line", T_INTS, INT32_MIN, INT32_MAX},
    [C_COLUMN] = {"frames.column", T_INTS, INT32_MIN, INT32_MAX},
    [C_END_COLUMN] = {"frames.end_column", T_INTS, INT32_MIN, INT32_MAX},
    [C_OPCODE] = {"frames.opcode", T_INTS, 0, UINT8_MAX},
    [C_COUNT] = {"count", T_UINT, 1, UINT64_MAX},
};

#define REQUIRED                                                               \
    ((1u << C_RUN_ID) | (1u << C_ROW) | (1u << C_THREAD_ID) |                  \
     (1u << C_STATUS) | (1u << C_FILE) | (1u << C_FUNC) | (1u << C_LINE) |     \
     (1u << C_COUNT))

/* Message context: the column a failure is about. */
typedef struct pctx {
    tfmt_rparsed *r;
    const tfmt_allocator *a;
    tfmt_rcur *c;
    char *msg;
    size_t cap;
    column col;
} pctx;

static int col_fail(pctx *x, int check, const char *what)
{
    snprintf(x->msg, x->cap, "column '%s': %s", columns[x->col].name, what);
    x->c->msg = x->msg;
    x->c->check = check;
    return TFMT_EFORMAT;
}

/* Redo a cursor failure as a message naming the column. */
static int col_rc(pctx *x, int rc)
{
    if (rc != TFMT_EFORMAT)
        return rc;
    return col_fail(x, x->c->check, x->c->msg);
}

void tfmt__rparsed_init(tfmt_rparsed *r, const tfmt_allocator *a)
{
    memset(r, 0, sizeof *r);
    tfmt__buf_init(&r->run_id, a);
    tfmt__buf_init(&r->mode, a);
    tfmt__buf_init(&r->scratch, a);
    for (int i = 0; i < TFMT_RF_NSTR; i++)
        tfmt__buf_init(&r->strs[i].text, a);
    tfmt__buf_init(&r->labels.text, a);
}

void tfmt__rparsed_free(tfmt_rparsed *r, const tfmt_allocator *a)
{
    tfmt__buf_free(&r->run_id);
    tfmt__buf_free(&r->mode);
    tfmt__buf_free(&r->scratch);
    for (int i = 0; i < TFMT_RF_NSTR; i++) {
        tfmt__buf_free(&r->strs[i].text);
        tfmt__free(a, r->strs[i].off);
        tfmt__free(a, r->strs[i].len);
    }
    for (int i = 0; i < TFMT_RF_NINT; i++)
        tfmt__free(a, r->ints[i].v);
    tfmt__buf_free(&r->labels.text);
    tfmt__free(a, r->labels.off);
    tfmt__free(a, r->labels.len);
}

static void reset(tfmt_rparsed *r)
{
    r->seen = 0;
    r->run_id.len = r->mode.len = 0;
    r->row = r->thread_id = r->interpreter_id = r->status = r->count = 0;
    r->interval_us = r->start_time_us = 0;
    r->run_id_version = 1; /* rows of tachyon 0.1 have no such column */
    for (int i = 0; i < TFMT_RF_NSTR; i++)
        r->strs[i].n = r->strs[i].text.len = 0;
    for (int i = 0; i < TFMT_RF_NINT; i++)
        r->ints[i].n = 0;
}

static int uint_value(pctx *x, uint64_t *out)
{
    bool neg;
    uint64_t v;
    int rc = tfmt__rows_integer(x->c, &neg, &v);
    if (rc != TFMT_OK)
        return col_rc(x, rc);
    if ((neg && v != 0) || v > columns[x->col].max ||
        v < (uint64_t)columns[x->col].min)
        return col_fail(x, TFMT_ROWS_CHECK_RANGE, "value out of range");
    *out = v;
    return TFMT_OK;
}

static int int_value(pctx *x, int64_t *out)
{
    bool neg;
    uint64_t v;
    int rc = tfmt__rows_integer(x->c, &neg, &v);
    if (rc != TFMT_OK)
        return col_rc(x, rc);
    int64_t min = columns[x->col].min;
    uint64_t lim = !neg      ? columns[x->col].max
                   : min < 0 ? (uint64_t)(-(min + 1)) + 1
                             : 0;
    if (v > lim)
        return col_fail(x, TFMT_ROWS_CHECK_RANGE, "value out of range");
    *out = neg ? -(int64_t)(v - 1) - 1 : (int64_t)v;
    return TFMT_OK;
}

/* Array elements: a callback per element, at most `limit` of them. */
typedef int (*elem_fn)(pctx *x, void *arr);

static int array(pctx *x, void *arr, elem_fn fn, size_t limit)
{
    size_t n = 0;
    int rc = tfmt__rows_expect(x->c, '[', "expected an array");
    if (rc != TFMT_OK)
        return col_fail(x, TFMT_ROWS_CHECK_TYPE, "expected an array");
    tfmt__rows_ws(x->c);
    if (x->c->p < x->c->end && *x->c->p == ']') {
        x->c->p++;
        return TFMT_OK;
    }
    for (;;) {
        if (++n > limit)
            return col_fail(x, TFMT_ROWS_CHECK_FRAMES,
                            "more than 256 "
                            "elements");
        tfmt__rows_ws(x->c);
        rc = fn(x, arr);
        if (rc == TFMT_OK)
            tfmt__rows_ws(x->c);
        if (rc != TFMT_OK)
            return rc;
        if (x->c->p < x->c->end && *x->c->p == ']') {
            x->c->p++;
            return TFMT_OK;
        }
        rc = tfmt__rows_expect(x->c, ',',
                               "invalid JSON: expected ',' or "
                               "']' in an array");
        if (rc != TFMT_OK)
            return col_rc(x, rc);
    }
}

static int string_elem(pctx *x, void *arr)
{
    tfmt_rstrs *s = arr;
    if (s->n == s->cap) {
        size_t cap = s->cap;
        if (tfmt__grow(x->a, (void **)&s->off, &cap, s->n + 1,
                       sizeof *s->off) != TFMT_OK ||
            tfmt__grow(x->a, (void **)&s->len, &s->cap, s->n + 1,
                       sizeof *s->len) != TFMT_OK)
            return TFMT_ENOMEM;
    }
    size_t off = s->text.len;
    int rc = tfmt__rows_string(x->c, &s->text);
    if (rc != TFMT_OK)
        return col_rc(x, rc);
    s->off[s->n] = off;
    s->len[s->n++] = s->text.len - off;
    return TFMT_OK;
}

static int int_elem(pctx *x, void *arr)
{
    tfmt_rints *v = arr;
    if (tfmt__grow(x->a, (void **)&v->v, &v->cap, v->n + 1, sizeof *v->v) !=
        TFMT_OK)
        return TFMT_ENOMEM;
    return int_value(x, &v->v[v->n++]);
}

/* Where an array column goes; labels are checked and dropped. */
static int array_column(pctx *x)
{
    tfmt_rparsed *r = x->r;
    if (columns[x->col].type == T_INTS)
        return array(x, &r->ints[x->col - C_LINE], int_elem, TFMT_MAX_DEPTH);
    if (x->col == C_FILE || x->col == C_FUNC)
        return array(x, &r->strs[x->col - C_FILE], string_elem, TFMT_MAX_DEPTH);
    /* Labels: an array of strings, of any length. */
    int rc = array(x, &r->labels, string_elem, SIZE_MAX);
    r->labels.n = r->labels.text.len = 0;
    return rc;
}

static uint64_t *uint_target(tfmt_rparsed *r, column col)
{
    switch (col) {
    case C_ROW: return &r->row;
    case C_RUN_ID_VERSION: return &r->run_id_version;
    case C_START_TIME: return &r->start_time_us;
    case C_INTERVAL: return &r->interval_us;
    case C_THREAD_ID: return &r->thread_id;
    case C_INTERP: return &r->interpreter_id;
    case C_STATUS: return &r->status;
    case C_COUNT: return &r->count;
    default: return &r->stack_hash;
    }
}

static int value(pctx *x)
{
    tfmt_rparsed *r = x->r;
    tfmt__rows_ws(x->c);
    switch (columns[x->col].type) {
    case T_STRING: {
        tfmt_buf *out = x->col == C_RUN_ID ? &r->run_id
                        : x->col == C_MODE ? &r->mode
                                           : &r->scratch;
        out->len = 0;
        return col_rc(x, tfmt__rows_string(x->c, out));
    }
    case T_UINT: return uint_value(x, uint_target(r, x->col));
    case T_TIME: {
        /* DateTime: "YYYY-MM-DD hh:mm:ss" in the server's time zone, or
           Unix seconds; not needed for a profile, so only its type is. */
        uint64_t ignored;
        if (x->c->p < x->c->end && *x->c->p == '"')
            return col_rc(x, tfmt__rows_string(x->c, NULL));
        return uint_value(x, &ignored);
    }
    default: return array_column(x);
    }
}

/* A member name, looked up among the columns; NCOLUMNS when unknown. */
static int member(pctx *x)
{
    tfmt_rparsed *r = x->r;
    r->scratch.len = 0;
    tfmt__rows_ws(x->c);
    if (x->c->p >= x->c->end || *x->c->p != '"') {
        x->c->msg = "invalid JSON: expected a member name";
        x->c->check = TFMT_ROWS_CHECK_JSON;
        return TFMT_EFORMAT;
    }
    int rc = tfmt__rows_string(x->c, &r->scratch);
    if (rc != TFMT_OK)
        return rc;
    x->col = NCOLUMNS;
    for (int i = 0; i < NCOLUMNS; i++)
        if (strlen(columns[i].name) == r->scratch.len &&
            memcmp(columns[i].name, r->scratch.data, r->scratch.len) == 0)
            x->col = (column)i;
    if (x->col != NCOLUMNS && (r->seen >> x->col & 1))
        return col_fail(x, TFMT_ROWS_CHECK_JSON, "given twice");
    return tfmt__rows_expect(x->c, ':', "invalid JSON: expected ':'");
}

static int members(pctx *x)
{
    tfmt__rows_ws(x->c);
    if (x->c->p < x->c->end && *x->c->p == '}') {
        x->c->p++;
        return TFMT_OK;
    }
    for (;;) {
        int rc = member(x);
        if (rc == TFMT_OK && x->col == NCOLUMNS)
            rc = tfmt__rows_skip(x->c);
        else if (rc == TFMT_OK)
            rc = value(x);
        if (rc != TFMT_OK)
            return rc;
        if (x->col != NCOLUMNS)
            x->r->seen |= 1ull << x->col;
        tfmt__rows_ws(x->c);
        if (x->c->p < x->c->end && *x->c->p == '}') {
            x->c->p++;
            return TFMT_OK;
        }
        rc = tfmt__rows_expect(x->c, ',',
                               "invalid JSON: expected ',' or "
                               "'}' after a column");
        if (rc != TFMT_OK)
            return rc;
    }
}

size_t tfmt__rparsed_depth(const tfmt_rparsed *r)
{
    return r->strs[TFMT_RF_FILE].n;
}

/* Required columns there, frames.* of one length. */
static int complete(pctx *x)
{
    tfmt_rparsed *r = x->r;
    for (int i = 0; i < NCOLUMNS; i++) {
        if ((REQUIRED >> i & 1) && !(r->seen >> i & 1)) {
            x->col = (column)i;
            return col_fail(x, TFMT_ROWS_CHECK_MISSING, "missing");
        }
    }
    size_t n = tfmt__rparsed_depth(r);
    for (int i = C_FUNC; i <= C_OPCODE; i++) {
        size_t len =
            i == C_FUNC ? r->strs[TFMT_RF_FUNC].n : r->ints[i - C_LINE].n;
        if ((r->seen >> i & 1) && len != n) {
            char what[96];
            snprintf(what, sizeof what,
                     "%zu elements, but frames.file has "
                     "%zu",
                     len, n);
            x->col = (column)i;
            return col_fail(x, TFMT_ROWS_CHECK_FRAMES, what);
        }
    }
    return TFMT_OK;
}

int tfmt__rows_parse(tfmt_rparsed *r, const tfmt_allocator *a, const char *p,
                     size_t n, tfmt_rcur *c, char *msg, size_t msg_cap)
{
    pctx x = {r, a, c, msg, msg_cap, NCOLUMNS};
    c->p = p;
    c->end = p + n;
    c->msg = NULL;
    c->check = 0;
    reset(r);
    int rc = tfmt__rows_expect(c, '{', "not a JSON object");
    if (rc == TFMT_OK)
        rc = members(&x);
    if (rc == TFMT_OK) {
        tfmt__rows_ws(c);
        if (c->p != c->end)
            rc = tfmt__rows_expect(c, '\n',
                                   "invalid JSON: text after the "
                                   "object");
    }
    return rc == TFMT_OK ? complete(&x) : rc;
}
