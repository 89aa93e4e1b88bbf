/* SPDX-License-Identifier: MIT */
/*
 * export_clickhouse.c - a profile as rows of the ClickHouse table in
 * schemas/clickhouse/tachyon_stacks.sql, one JSONEachRow line per
 * (thread, status, stack) with its count.
 *
 * Rows come in the order their (thread, stack) first got a sample
 * (tfmt__pfirst, the same with a tree per thread or thread leaves),
 * numbered from 0 in `row`: (run_id, row) identifies a row,
 * so a run loaded twice shows as repeated pairs, and ORDER BY run_id, row
 * replays a run in CPython's first-seen order (what collapsed and JSONL
 * outputs number by). Strings are written as UTF-8 with only quotes,
 * backslashes and control characters escaped, which every ClickHouse
 * version reads back byte for byte.
 */
#include <stdlib.h>

#include "export_internal.h"

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

typedef struct chctx {
    tfmt_profile *p;
    tfmt_sink *sink;
    const tfmt_clickhouse_run *run;
    tfmt_buf out;
    tfmt_buf head;  /* the run's columns, the same in every row */
    uint32_t *path; /* a leaf's frames, root first */
    size_t cap;
} chctx;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * FNV_PRIME;
    return h;
}

static uint64_t fnv_i32(uint64_t h, int32_t v)
{
    unsigned char b[4];
    tfmt__store32(b, (uint32_t)v);
    return fnv(h, b, sizeof b);
}

/*
 * stack_hash: FNV-1a 64 over each frame root first: file, a 0 byte,
 * function, a 0 byte, then line, end line, column and end column as
 * 4-byte little-endian integers and the opcode byte (the schema file
 * states the same rule).
 */
static uint64_t stack_hash(const tfmt_profile *p, const uint32_t *path,
                           uint32_t depth)
{
    static const unsigned char zero = 0;
    uint64_t h = FNV_OFFSET;
    for (uint32_t i = 0; i < depth; i++) {
        const tfmt_frame *f = &p->frames[path[i]];
        tfmt_str file = tfmt__profile_str(p, f->filename);
        tfmt_str func = tfmt__profile_str(p, f->funcname);
        h = fnv(fnv(h, file.ptr, file.len), &zero, 1);
        h = fnv(fnv(h, func.ptr, func.len), &zero, 1);
        h = fnv_i32(fnv_i32(h, f->lineno), f->end_lineno);
        h = fnv_i32(fnv_i32(h, f->column), f->end_column);
        h = fnv(h, &f->opcode, 1);
    }
    return h;
}

/* A JSON string as ClickHouse reads it: UTF-8 kept, controls escaped. */
static int put_string(tfmt_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    int rc = tfmt__buf_putc(b, '"');
    size_t run = 0;
    for (size_t i = 0; i < n && rc == TFMT_OK; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        rc = tfmt__buf_put(b, s + run, i - run);
        run = i + 1;
        char esc[6] = {'\\', (char)c, 0, 0, 0, 0};
        size_t len = 2;
        if (c == '\n' || c == '\t' || c == '\r' || c == '\b' || c == '\f') {
            esc[1] = c == '\n'   ? 'n'
                     : c == '\t' ? 't'
                     : c == '\r' ? 'r'
                     : c == '\b' ? 'b'
                                 : 'f';
        } else if (c < 0x20) {
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            len = 6;
        }
        if (rc == TFMT_OK)
            rc = tfmt__buf_put(b, esc, len);
    }
    if (rc == TFMT_OK)
        rc = tfmt__buf_put(b, s + run, n - run);
    return rc == TFMT_OK ? tfmt__buf_putc(b, '"') : rc;
}

/* put_string after repairing invalid UTF-8 (labels come from users). */
static int put_text(tfmt_buf *b, tfmt_buf *scratch, const char *s)
{
    size_t n = strlen(s);
    if (tfmt__utf8_valid(s, n))
        return put_string(b, s, n);
    scratch->len = 0;
    int rc = tfmt__utf8_repair(scratch, s, n);
    return rc == TFMT_OK ? put_string(b, scratch->data, scratch->len) : rc;
}

static int put_labels(tfmt_buf *b, const tfmt_clickhouse_run *run, bool values)
{
    tfmt_buf scratch;
    tfmt__buf_init(&scratch, b->alloc);
    int rc =
        tfmt__buf_puts(b, values ? ",\"labels.value\":[" : ",\"labels.key\":[");
    for (size_t i = 0; i < run->nlabels && rc == TFMT_OK; i++) {
        if (i > 0)
            rc = tfmt__buf_putc(b, ',');
        if (rc == TFMT_OK)
            rc = put_text(b, &scratch,
                          values ? run->label_values[i] : run->label_keys[i]);
    }
    tfmt__buf_free(&scratch);
    return rc == TFMT_OK ? tfmt__buf_putc(b, ']') : rc;
}

/* The columns between stack_hash and thread_id: one run, every row. */
static int run_columns(chctx *c)
{
    const tfmt_clickhouse_run *run = c->run;
    const tfmt_profile *p = c->p;
    tfmt_buf *b = &c->head;
    const char *mode = tfmt_mode_name(p->mode);
    unsigned idv = run->version >= 2 ? run->run_id_version : 1;
    int rc = tfmt__buf_puts(b, ",\"run_id_version\":");
    rc |= tfmt__buf_put_u64(b, idv);
    rc |= tfmt__buf_puts(b, ",\"time\":");
    rc |= tfmt__buf_put_u64(b, run->time);
    if (rc == TFMT_OK)
        rc = put_labels(b, run, false);
    if (rc == TFMT_OK)
        rc = put_labels(b, run, true);
    rc |= tfmt__buf_puts(b, ",\"python\":");
    rc |= put_string(b, run->python ? run->python : "",
                     run->python ? strlen(run->python) : 0);
    rc |= tfmt__buf_puts(b, ",\"mode\":");
    if (mode)
        rc |= put_string(b, mode, strlen(mode));
    else if (p->mode == TFMT_MODE_UNKNOWN)
        rc |= tfmt__buf_puts(b, "\"\"");
    else
        rc |= tfmt__buf_printf(b, "\"%d\"", p->mode);
    rc |= tfmt__buf_puts(b, ",\"start_time_us\":");
    rc |= tfmt__buf_put_u64(b, p->start_time_us);
    rc |= tfmt__buf_puts(b, ",\"interval_us\":");
    rc |= tfmt__buf_put_u64(b, p->interval_us);
    return rc ? TFMT_ENOMEM : TFMT_OK;
}

/* One Nested column of the frames: "frames.NAME":[...]. */
typedef enum {
    COL_FILE,
    COL_FUNC,
    COL_LINE,
    COL_END_LINE,
    COL_COL,
    COL_END_COL,
    COL_OPCODE,
    NCOLS
} fcol;

static int frame_column(chctx *c, fcol col, uint32_t depth)
{
    static const char *const names[NCOLS] = {
        ",\"frames.file\":[",   ",\"frames.function\":[",
        ",\"frames.line\":[",   ",\"frames.end_line\":[",
        ",\"frames.column\":[", ",\"frames.end_column\":[",
        ",\"frames.opcode\":["};
    const tfmt_profile *p = c->p;
    tfmt_buf *b = &c->out;
    int rc = tfmt__buf_puts(b, names[col]);
    for (uint32_t i = 0; i < depth && rc == TFMT_OK; i++) {
        const tfmt_frame *f = &p->frames[c->path[i]];
        tfmt_str s;
        if (i > 0)
            rc = tfmt__buf_putc(b, ',');
        switch (col) {
        case COL_FILE:
        case COL_FUNC:
            s = tfmt__profile_str(p,
                                  col == COL_FILE ? f->filename : f->funcname);
            rc |= put_string(b, s.ptr, s.len);
            break;
        case COL_LINE: rc |= tfmt__buf_put_i64(b, f->lineno); break;
        case COL_END_LINE: rc |= tfmt__buf_put_i64(b, f->end_lineno); break;
        case COL_COL: rc |= tfmt__buf_put_i64(b, f->column); break;
        case COL_END_COL: rc |= tfmt__buf_put_i64(b, f->end_column); break;
        default: rc |= tfmt__buf_put_u64(b, f->opcode); break;
        }
    }
    return rc ? TFMT_ENOMEM : tfmt__buf_putc(b, ']');
}

static int write_row(chctx *c, uint32_t row, uint32_t thread, uint32_t leaf,
                     uint64_t count)
{
    const tfmt_profile *p = c->p;
    const tfmt_pnode *n = &p->nodes[leaf];
    const tfmt_pthread *t = &p->threads[thread];
    if (n->depth > c->cap && tfmt__grow(p->alloc, (void **)&c->path, &c->cap,
                                        n->depth, sizeof *c->path) != TFMT_OK)
        return TFMT_ENOMEM;
    uint32_t depth = tfmt__profile_path(p, leaf, c->path, n->depth);
    tfmt_buf *b = &c->out;
    int rc = tfmt__buf_puts(b, "{\"run_id\":");
    rc |= put_string(b, c->run->run_id, strlen(c->run->run_id));
    rc |= tfmt__buf_puts(b, ",\"row\":");
    rc |= tfmt__buf_put_u64(b, row);
    rc |= tfmt__buf_puts(b, ",\"stack_hash\":");
    rc |= tfmt__buf_put_u64(b, stack_hash(p, c->path, depth));
    rc |= tfmt__buf_put(b, c->head.data, c->head.len);
    rc |= tfmt__buf_puts(b, ",\"thread_id\":");
    rc |= tfmt__buf_put_u64(b, t->thread_id);
    rc |= tfmt__buf_puts(b, ",\"interpreter_id\":");
    rc |= tfmt__buf_put_u64(b, t->interpreter_id);
    rc |= tfmt__buf_puts(b, ",\"status\":");
    rc |= tfmt__buf_put_u64(b, t->status);
    for (int col = 0; col < NCOLS && rc == TFMT_OK; col++)
        rc = frame_column(c, (fcol)col, depth);
    rc |= tfmt__buf_puts(b, ",\"count\":");
    rc |= tfmt__buf_put_u64(b, count);
    rc |= tfmt__buf_puts(b, "}\n");
    return rc ? TFMT_ENOMEM : TFMT_OK;
}

/* A row per (thread, stack) in the order it was first counted. */
static int write_rows(chctx *c)
{
    tfmt_pfirst it;
    int rc = run_columns(c);
    if (rc == TFMT_OK)
        rc = tfmt__pfirst_init(&it, c->p);
    if (rc != TFMT_OK)
        return rc;
    uint32_t thread, leaf, row = 0;
    uint64_t count;
    while ((rc = tfmt__pfirst_next(&it, &thread, &leaf, &count)) == TFMT_OK) {
        rc = write_row(c, row++, thread, leaf, count);
        if (rc == TFMT_OK)
            rc = tfmt__profile_flush(&c->out, c->sink, TFMT_EXPORT_FLUSH);
        if (rc != TFMT_OK)
            break;
    }
    tfmt__pfirst_free(&it);
    if (rc == TFMT_DONE)
        rc = tfmt__profile_flush(&c->out, c->sink, 0);
    if (rc == TFMT_EINVAL)
        return tfmt__error(&c->p->err, rc, "a counted stack of no thread");
    return rc;
}

int tfmt_profile_write_clickhouse(tfmt_profile *p, tfmt_sink *sink,
                                  const tfmt_clickhouse_run *run)
{
    if (!p || !sink || !run || !run->run_id ||
        (run->nlabels && (!run->label_keys || !run->label_values)))
        return p ? tfmt__error(&p->err, TFMT_EINVAL, "invalid arguments")
                 : TFMT_EINVAL;
    if (tfmt__xneed_views(p) != TFMT_OK)
        return TFMT_EINVAL;
    chctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.sink = sink;
    c.run = run;
    tfmt__buf_init(&c.out, p->alloc);
    tfmt__buf_init(&c.head, p->alloc);
    int rc = write_rows(&c);
    tfmt__buf_free(&c.out);
    tfmt__buf_free(&c.head);
    tfmt__free(p->alloc, c.path);
    return rc == TFMT_OK || rc == TFMT_EINVAL ? rc : tfmt__xfail(p, rc, sink);
}
