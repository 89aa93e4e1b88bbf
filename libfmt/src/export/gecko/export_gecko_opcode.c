/* SPDX-License-Identifier: MIT */
/*
 * export_gecko_opcode.c - GeckoCollector's opcode markers, as CPython
 * writes them when its collector is made with opcodes=True (`run --gecko
 * --opcodes`; its `replay` never asks for them). They are on when the
 * first input says it recorded opcodes (capture feature, fmt_model.h).
 *
 * Per thread, every counted sample with a stack carries its leaf frame's
 * (opcode, line, column, function, file); when that changes, the previous
 * state becomes one "Opcode" interval marker from the sample that opened
 * it to the one that changed it (none when its opcode was None), and the
 * states still open are closed at the last sample time, after every
 * thread-state marker, in the order they first opened. Names are the
 * input's Python version's (tfmt_opcode_name), as CPython's opcode_utils
 * takes its own interpreter's: "LOAD_ATTR_SLOT (LOAD_ATTR)" for a
 * specialised instruction, "<N>" for a byte the version does not name.
 */
#include <stdio.h>

#include "export_gecko.h"

#define OPNAME_MAX 64

/* opcode_utils.get_opcode_info and format_opcode for one marker. */
typedef struct opinfo {
    char name[OPNAME_MAX], base[OPNAME_MAX];
    char formatted[2 * OPNAME_MAX + 4];
    bool specialized;
} opinfo;

static void op_name(char *out, const gmarker *m, unsigned op)
{
    const char *n = tfmt_opcode_name(m->major, m->minor, op);
    if (n)
        snprintf(out, OPNAME_MAX, "%s", n);
    else
        snprintf(out, OPNAME_MAX, "<%u>", op);
}

static void op_info(opinfo *i, const gmarker *m)
{
    op_name(i->name, m, m->op);
    unsigned base = tfmt_opcode_base(m->major, m->minor, m->op);
    i->specialized = base != TFMT_NO_OPCODE && base != m->op;
    if (i->specialized) {
        op_name(i->base, m, base);
        snprintf(i->formatted, sizeof i->formatted, "%s (%s)", i->name,
                 i->base);
    } else {
        memcpy(i->base, i->name, sizeof i->base);
        memcpy(i->formatted, i->name, sizeof i->name);
    }
}

/* _add_opcode_interval_marker: the open state, ending at `end`. */
static int close_state(tfmt_gecko *g, gthread *t, uint64_t end)
{
    gmarker m = t->op;
    if (m.op == TFMT_NO_OPCODE)
        return TFMT_OK; /* opcode None: no marker */
    opinfo i;
    op_info(&i, &m);
    int rc = tfmt__gecko_string(g, i.formatted, strlen(i.formatted), &m.name);
    if (rc != TFMT_OK)
        return rc;
    m.end = end;
    return tfmt__gecko_put_marker(g, t, &m);
}

int tfmt__gecko_opcode_track(tfmt_gecko *g, gthread *t, uint32_t leaf,
                             uint64_t first)
{
    if (g->opcodes != 1)
        return TFMT_OK;
    const tfmt_frame *tf = &g->tab->frames[leaf];
    bool none = tf->lineno == TFMT_NO_LOCATION; /* location None */
    int64_t line = none ? G_NONE_LINE : tf->lineno;
    int32_t col = none || tf->column < 0 ? -1 : tf->column;
    if (t->op_open && t->op.op == tf->opcode && t->op.line == line &&
        t->op.col == col && t->op_fn == tf->funcname &&
        t->op_file == tf->filename)
        return TFMT_OK;
    int rc = TFMT_OK;
    if (t->op_open)
        rc = close_state(g, t, first);
    else
        t->op_serial = ++g->op_serials;
    if (rc != TFMT_OK)
        return rc;
    memset(&t->op, 0, sizeof t->op);
    t->op.state = G_OPCODE;
    t->op.start = first;
    t->op.op = tf->opcode;
    t->op.major = g->in_major;
    t->op.minor = g->in_minor;
    t->op.line = line;
    t->op.col = col;
    /* the function's name, interned when the stack was added */
    t->op.func = g->fname[leaf];
    t->op_fn = tf->funcname;
    t->op_file = tf->filename;
    t->op_open = true;
    return TFMT_OK;
}

int tfmt__gecko_opcode_finalize(tfmt_gecko *g)
{
    if (g->op_serials == 0)
        return TFMT_OK;
    /* thread index + 1 by opening order (0: none) */
    uint32_t *order = tfmt__calloc(g->alloc, g->op_serials, sizeof *order);
    if (!order)
        return tfmt__gecko_nomem(g);
    for (size_t i = 0; i < g->nthreads; i++)
        if (g->threads[i]->op_open)
            order[g->threads[i]->op_serial - 1] = (uint32_t)i + 1;
    int rc = TFMT_OK;
    for (uint32_t k = 0; k < g->op_serials && rc == TFMT_OK; k++) {
        if (!order[k])
            continue;
        gthread *t = g->threads[order[k] - 1];
        rc = close_state(g, t, g->last_ts);
        t->op_open = false;
    }
    tfmt__free(g->alloc, order);
    return rc;
}

static int put_int_or_null(tfmt_buf *b, bool null, long long v)
{
    return null ? tfmt__buf_puts(b, "null") : tfmt__buf_printf(b, "%lld", v);
}

/*
 * {"type":"Opcode","opcode":N,"opname":...,"base_opname":...,
 *  "is_specialized":B,"line":L,"column":C,"function":F,"duration":D}
 */
int tfmt__gecko_put_opcode_data(gwriter *w, const gmarker *m)
{
    const tfmt_gecko *g = w->g;
    tfmt_buf *b = &w->b;
    opinfo i;
    op_info(&i, m);
    int rc = tfmt__buf_printf(b,
                              "{\"type\":\"Opcode\",\"opcode\":%u,"
                              "\"opname\":",
                              (unsigned)m->op);
    rc |= tfmt__json_put_string(b, i.formatted, strlen(i.formatted));
    rc |= tfmt__buf_puts(b, ",\"base_opname\":");
    rc |= tfmt__json_put_string(b, i.base, strlen(i.base));
    rc |= tfmt__buf_puts(b, i.specialized ? ",\"is_specialized\":true"
                                          : ",\"is_specialized\":false");
    rc |= tfmt__buf_puts(b, ",\"line\":");
    rc |= put_int_or_null(b, m->line == G_NONE_LINE, (long long)m->line);
    rc |= tfmt__buf_puts(b, ",\"column\":");
    rc |= put_int_or_null(b, m->col < 0, m->col);
    rc |= tfmt__buf_puts(b, ",\"function\":");
    rc |= tfmt__json_put_string(b, g->strbuf.data + g->strs[m->func].off,
                                g->strs[m->func].len);
    rc |= tfmt__buf_puts(b, ",\"duration\":");
    if (rc != TFMT_OK)
        return TFMT_ENOMEM;
    char *p = gw_room(w, 40);
    if (!p)
        return TFMT_ENOMEM;
    p = tfmt__json_float(p, gecko_ms(g, m->end) - gecko_ms(g, m->start));
    *p++ = '}';
    return gw_done(w, p);
}

/* _build_marker_schema */
const char *tfmt__gecko_marker_schema(const tfmt_gecko *g)
{
    if (g->opcodes != 1)
        return "[]";
    return "[{\"name\":\"Opcode\",\"display\":[\"marker-table\","
           "\"marker-chart\"],\"tooltipLabel\":\"{marker.data.opname}\","
           "\"tableLabel\":\"{marker.data.opname} at line "
           "{marker.data.line}\",\"chartLabel\":\"{marker.data.opname}\","
           "\"fields\":[{\"key\":\"opname\",\"label\":\"Opcode\","
           "\"format\":\"string\",\"searchable\":true},"
           "{\"key\":\"base_opname\",\"label\":\"Base Opcode\","
           "\"format\":\"string\"},{\"key\":\"is_specialized\","
           "\"label\":\"Specialized\",\"format\":\"string\"},"
           "{\"key\":\"line\",\"label\":\"Line\",\"format\":\"integer\"},"
           "{\"key\":\"column\",\"label\":\"Column\",\"format\":"
           "\"integer\"},{\"key\":\"function\",\"label\":\"Function\","
           "\"format\":\"string\"},{\"key\":\"duration\",\"label\":"
           "\"Duration\",\"format\":\"duration\"}]}]";
}
