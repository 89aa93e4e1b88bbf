/* SPDX-License-Identifier: MIT */
/*
 * rows_reader.c - the ClickHouse rows reader handle (fmt_rows.h): lines
 * from the bounded splitter, each parsed into columns (rows_row.c), then
 * the rules across rows: a run's rows agree on its interval, mode and
 * start time, and no (run_id, row) pair repeats. A good row's frames are
 * interned (rows_tables.c) and handed out as a stack of frame indices.
 */
#include <stdarg.h>
#include <stdio.h>

#include "rows_internal.h"

#define ROWS_MAX_LINE_DEFAULT ((size_t)64 << 20)

int tfmt_rows_open(tfmt_rows_reader **out, tfmt_source *src,
                   const tfmt_rows_options *opts, tfmt_error *err)
{
    tfmt_rows_options o = TFMT_ROWS_OPTIONS_INIT;
    if (opts)
        o = *opts;
    if (!out || !src)
        return tfmt__error(err, TFMT_EINVAL, "invalid arguments");
    *out = NULL;
    tfmt_rows_reader *r = tfmt__calloc(o.alloc, 1, sizeof *r);
    if (!r)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    r->alloc = o.alloc;
    tfmt__rparsed_init(&r->parsed, o.alloc);
    tfmt__buf_init(&r->strtext, o.alloc);
    tfmt__idset_init(&r->string_set, o.alloc);
    tfmt__idset_init(&r->frame_set, o.alloc);
    tfmt__idset_init(&r->run_set, o.alloc);
    tfmt__idset_init(&r->recording_set, o.alloc);
    size_t max = o.max_line ? o.max_line : ROWS_MAX_LINE_DEFAULT;
    r->stack = tfmt__calloc(o.alloc, TFMT_MAX_DEPTH, sizeof *r->stack);
    if (!r->stack || tfmt__lines_init(&r->lines, src, o.alloc, max) < 0) {
        tfmt_rows_free(r);
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    }
    *out = r;
    return TFMT_OK;
}

void tfmt_rows_free(tfmt_rows_reader *r)
{
    if (!r)
        return;
    tfmt__lines_free(&r->lines, r->alloc);
    tfmt__rparsed_free(&r->parsed, r->alloc);
    tfmt__rows_tables_free(r);
    tfmt__free(r->alloc, r->stack);
    tfmt__free(r->alloc, r);
}

/* A bad row: located at the current line, the next call reads on. */
static int bad_row(tfmt_rows_reader *r, int code, int check, const char *fmt,
                   ...) TFMT_PRINTF(4, 5);
static int bad_row(tfmt_rows_reader *r, int code, int check, const char *fmt,
                   ...)
{
    va_list ap;
    memset(&r->err, 0, sizeof r->err);
    r->err.code = code;
    r->err.check = check;
    r->err.line = r->lines.line;
    va_start(ap, fmt);
    vsnprintf(r->err.msg, sizeof r->err.msg, fmt, ap);
    va_end(ap);
    return code;
}

/* A failure after which nothing more can be read. */
static int final(tfmt_rows_reader *r, int code)
{
    if (code == TFMT_ENOMEM)
        tfmt__error(&r->err, code, "out of memory");
    else if (code == TFMT_ELIMIT)
        tfmt__error(&r->err, code, "too many strings, frames or runs");
    r->err.line = r->lines.line;
    r->final = code;
    return code;
}

static bool hex32(const tfmt_buf *b)
{
    if (b->len != 32)
        return false;
    for (size_t i = 0; i < 32; i++) {
        char c = b->data[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    }
    return true;
}

/* "" is unknown, a name its mode, digits a mode number. */
static bool parse_mode(const tfmt_buf *b, int *out)
{
    *out = TFMT_MODE_UNKNOWN;
    if (b->len == 0)
        return true;
    for (int m = 0; m < 64; m++) {
        const char *name = tfmt_mode_name(m);
        if (name && strlen(name) == b->len &&
            memcmp(name, b->data, b->len) == 0) {
            *out = m;
            return true;
        }
    }
    int v = 0;
    for (size_t i = 0; i < b->len; i++) {
        if (b->data[i] < '0' || b->data[i] > '9' || i >= 4)
            return false;
        v = v * 10 + (b->data[i] - '0');
    }
    *out = v;
    return true;
}

/* The run of the parsed row, checked against its first row. */
static int row_run(tfmt_rows_reader *r, int mode, uint32_t *out)
{
    const tfmt_rparsed *p = &r->parsed;
    bool created;
    int rc = tfmt__rows_run(r, p->run_id.data, r->lines.line, out, &created);
    if (rc != TFMT_OK)
        return final(r, rc);
    tfmt_rows_run *run = &r->runs[*out];
    if (created) {
        run->interval_us = p->interval_us;
        run->start_time_us = p->start_time_us;
        run->mode = mode;
        run->run_id_version = (unsigned)p->run_id_version;
        rc = tfmt__rows_twin(r, *out);
        return rc == TFMT_OK ? TFMT_OK : final(r, rc);
    }
    const char *what =
        run->interval_us != p->interval_us         ? "interval_us"
        : run->start_time_us != p->start_time_us   ? "start_time_us"
        : run->mode != mode                        ? "mode"
        : run->run_id_version != p->run_id_version ? "run_id_version"
                                                   : NULL;
    if (what)
        return bad_row(r, TFMT_ESCHEMA, TFMT_ROWS_CHECK_RUN,
                       "column '%s' differs from the run's first row "
                       "(line %llu)",
                       what, (unsigned long long)run->first_line);
    return TFMT_OK;
}

/* Intern the parsed frames into r->stack, root first. */
static int row_stack(tfmt_rows_reader *r)
{
    const tfmt_rparsed *p = &r->parsed;
    size_t n = tfmt__rparsed_depth(p);
    for (size_t i = 0; i < n; i++) {
        const tfmt_rstrs *fs = &p->strs[TFMT_RF_FILE];
        const tfmt_rstrs *gs = &p->strs[TFMT_RF_FUNC];
        tfmt_frame f = {0,
                        0,
                        0,
                        TFMT_NO_LOCATION,
                        TFMT_NO_LOCATION,
                        TFMT_NO_LOCATION,
                        TFMT_NO_OPCODE};
        int rc = tfmt__rows_intern_string(r, fs->text.data + fs->off[i],
                                          fs->len[i], &f.filename);
        if (rc == TFMT_OK)
            rc = tfmt__rows_intern_string(r, gs->text.data + gs->off[i],
                                          gs->len[i], &f.funcname);
        const tfmt_rints *v = p->ints;
        f.lineno = (int32_t)v[TFMT_RF_LINE].v[i];
        if (v[TFMT_RF_END_LINE].n)
            f.end_lineno = (int32_t)v[TFMT_RF_END_LINE].v[i];
        if (v[TFMT_RF_COL].n)
            f.column = (int32_t)v[TFMT_RF_COL].v[i];
        if (v[TFMT_RF_END_COL].n)
            f.end_column = (int32_t)v[TFMT_RF_END_COL].v[i];
        if (v[TFMT_RF_OPCODE].n)
            f.opcode = (uint8_t)v[TFMT_RF_OPCODE].v[i];
        if (rc == TFMT_OK)
            rc = tfmt__rows_intern_frame(r, &f, &r->stack[i]);
        if (rc != TFMT_OK)
            return final(r, rc);
    }
    r->row.stack = r->stack;
    r->row.depth = (uint32_t)n;
    return TFMT_OK;
}

/*
 * The rules across rows, then the row handed out; *skip when the row is
 * an identical copy of one read before (counted in its run's copies).
 */
static int accept(tfmt_rows_reader *r, bool *skip)
{
    const tfmt_rparsed *p = &r->parsed;
    int mode;
    uint32_t run;
    tfmt_rcopy copy;
    if (!hex32(&p->run_id))
        return bad_row(r, TFMT_ESCHEMA, TFMT_ROWS_CHECK_RANGE,
                       "column 'run_id': not 32 lowercase hex digits");
    if (!parse_mode(&p->mode, &mode))
        return bad_row(r, TFMT_ESCHEMA, TFMT_ROWS_CHECK_RANGE,
                       "column 'mode': unknown profiling mode");
    int rc = row_run(r, mode, &run);
    if (rc != TFMT_OK)
        return rc;
    tfmt_rows_run *rr = &r->runs[run];
    if (rr->samples > UINT64_MAX - p->count)
        return bad_row(r, TFMT_ESCHEMA, TFMT_ROWS_CHECK_RANGE,
                       "the run's sample count overflows 64 bits");
    if (tfmt__rows_seen(r, run, (uint32_t)p->row, r->line_hash, &copy) !=
        TFMT_OK)
        return final(r, TFMT_ENOMEM);
    *skip = copy == TFMT_RCOPY_SAME;
    if (*skip) {
        rr->copies++;
        return TFMT_OK;
    }
    if (copy == TFMT_RCOPY_OTHER)
        return bad_row(r, TFMT_ESCHEMA, TFMT_ROWS_CHECK_DUPLICATE,
                       "row %llu of run %.32s comes twice with different "
                       "columns (the run was loaded twice, with other "
                       "labels or time?)",
                       (unsigned long long)p->row, rr->run_id);
    rc = row_stack(r);
    if (rc != TFMT_OK)
        return rc;
    rr->rows++;
    rr->samples += p->count;
    r->row.line = r->lines.line;
    r->row.run = run;
    r->row.row = (uint32_t)p->row;
    r->row.thread_id = p->thread_id;
    r->row.interpreter_id = (uint32_t)p->interpreter_id;
    r->row.status = (uint8_t)p->status;
    r->row.count = p->count;
    return TFMT_OK;
}

static bool blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
            return false;
    return true;
}

/* Read and check one row: TFMT_OK, TFMT_DONE or an error; *skip set. */
static int next_row(tfmt_rows_reader *r, bool *skip)
{
    const char *line;
    size_t n;
    int rc;
    *skip = false;
    do {
        rc = tfmt__lines_next(&r->lines, &line, &n, &r->err);
    } while (rc == TFMT_OK && blank(line, n));
    if (rc == TFMT_DONE)
        return TFMT_DONE;
    if (rc == TFMT_ELIMIT) {
        char msg[sizeof r->err.msg];
        memcpy(msg, r->err.msg, sizeof msg);
        return bad_row(r, rc, TFMT_ROWS_CHECK_LINE, "%s", msg);
    }
    if (rc < 0)
        return final(r, rc);
    tfmt_rcur c;
    char msg[200];
    rc = tfmt__rows_parse(&r->parsed, r->alloc, line, n, &c, msg, sizeof msg);
    if (rc == TFMT_ENOMEM)
        return final(r, rc);
    if (rc != TFMT_OK)
        return bad_row(r, TFMT_EFORMAT, c.check, "%s", c.msg);
    r->line_hash = tfmt__hash_bytes(line, n, 0x726f77);
    return accept(r, skip);
}

int tfmt_rows_next(tfmt_rows_reader *r, const tfmt_row **out)
{
    if (!r || !out)
        return TFMT_EINVAL;
    *out = NULL;
    if (r->final)
        return r->final;
    bool skip;
    int rc;
    do {
        rc = next_row(r, &skip);
    } while (rc == TFMT_OK && skip);
    if (rc == TFMT_OK)
        *out = &r->row;
    /* A row's check failed: the other rows may hold more problems. The
     * source's own failures (check 0) are no row's. */
    if (rc < 0 && r->err.check != 0)
        tfmt__error_hint_check(&r->err);
    return rc;
}

size_t tfmt_rows_run_count(const tfmt_rows_reader *r)
{
    return r->nruns;
}

const tfmt_rows_run *tfmt_rows_run_at(const tfmt_rows_reader *r, size_t i)
{
    return i < r->nruns ? &r->runs[i] : NULL;
}

size_t tfmt_rows_frame_count(const tfmt_rows_reader *r)
{
    return r->nframes;
}

const tfmt_frame *tfmt_rows_frame(const tfmt_rows_reader *r, uint32_t index)
{
    return index < r->nframes ? &r->frames[index] : NULL;
}

size_t tfmt_rows_string_count(const tfmt_rows_reader *r)
{
    return r->nstrings;
}

tfmt_str tfmt_rows_string(const tfmt_rows_reader *r, uint32_t index)
{
    tfmt_str s = {"", 0};
    if (index < r->nstrings) {
        s.ptr = r->strtext.data + r->strings[index].off;
        s.len = r->strings[index].len;
    }
    return s;
}

uint64_t tfmt_rows_lines(const tfmt_rows_reader *r)
{
    return r->lines.line;
}

const tfmt_error *tfmt_rows_error(const tfmt_rows_reader *r)
{
    return &r->err;
}
