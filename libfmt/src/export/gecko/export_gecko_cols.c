/* SPDX-License-Identifier: MIT */
/*
 * export_gecko_cols.c - a Gecko thread's "samples" and "markers" objects:
 * one pass over the thread's spooled records per JSON column. These carry
 * nearly every byte of an export, so each value is written in place:
 * times as milliseconds spelled from the integer microseconds
 * (tfmt__pyrepr_millis), marker durations (a difference of two such
 * floats, as CPython computes it) with the shortest repr, and counters
 * with tfmt__put_uint. Constant columns are filled without a pass.
 */
#include "export_gecko.h"

/* Room for one value of any column, separator included (a marker's
   "data": 1 + 48 + TFMT_PYREPR_MAX + 40, see marker_data). */
#define VALUE_MAX 160
/* A thread's stream read at once for its columns: at most this much. */
#define WHOLE_MAX (1u << 20)

enum { M_DATA, M_NAME, M_START, M_END, M_PHASE, M_CATEGORY, M_NCOLS };

typedef struct colctx {
    gwriter *w;
    int which; /* column being written */
    bool first;
    uint64_t prev; /* decoder state (see gsample) */
    bool whole;    /* the stream is all in w->whole */
    /* a marker's "data" object: prefix per state, then the tid suffix */
    char type[G_NSTATES][48];
    size_t typelen[G_NSTATES];
    char tid[40];
    size_t tidlen;
} colctx;

/* A timestamp as the JSON's milliseconds: repr(gecko_ms(ts)). */
static char *put_ms(char *p, const tfmt_gecko *g, uint64_t ts)
{
    uint64_t n = ts >= g->base_us ? ts - g->base_us : g->base_us - ts;
    if (n < (uint64_t)TFMT_PYREPR_MILLIS_MAX) {
        int64_t d = ts >= g->base_us ? (int64_t)n : -(int64_t)n;
        return p + tfmt__pyrepr_millis(d, p);
    }
    return tfmt__json_float(p, gecko_ms(g, ts));
}

/* Room for one value and its separator; returns where the value goes. */
static char *value_start(colctx *c)
{
    char *p = gw_room(c->w, VALUE_MAX);
    if (!p)
        return NULL;
    *p = ',';
    p += !c->first;
    c->first = false;
    return p;
}

static int sample_values(void *ctx, const uint8_t *d, size_t len)
{
    colctx *c = ctx;
    for (const uint8_t *end = d + len; d < end;) {
        gsample s;
        if (!gsample_decode(&d, end, &s, &c->prev))
            return TFMT_EIO;
        uint32_t stack = 0;
        int rc =
            c->which == 0 ? tfmt__gecko_local(c->w, s.stack, &stack) : TFMT_OK;
        char *p = rc == TFMT_OK ? value_start(c) : NULL;
        if (!p)
            return rc ? rc : TFMT_ENOMEM;
        p = c->which == 0 ? tfmt__put_uint(p, stack) : put_ms(p, c->w->g, s.ts);
        rc = gw_done(c->w, p);
        if (rc != TFMT_OK)
            return rc;
    }
    return TFMT_OK;
}

/* {"type":"HasGIL","duration":1.015,"tid":123} */
static char *marker_data(colctx *c, char *p, const gmarker *m)
{
    const tfmt_gecko *g = c->w->g;
    /* whole buffers, a fixed size the compiler copies inline; the value
       has room for them (VALUE_MAX) and the tail is overwritten */
    memcpy(p, c->type[m->state], sizeof c->type[0]);
    p += c->typelen[m->state];
    p = tfmt__json_float(p, gecko_ms(g, m->end) - gecko_ms(g, m->start));
    memcpy(p, c->tid, sizeof c->tid);
    return p + c->tidlen;
}

static char *marker_value(colctx *c, char *p, const gmarker *m)
{
    const tfmt_gecko *g = c->w->g;
    switch (c->which) {
    case M_DATA: return marker_data(c, p, m);
    case M_NAME: return tfmt__put_uint(p, m->name);
    case M_START: return put_ms(p, g, m->start);
    case M_END: return put_ms(p, g, m->end);
    default:
        return tfmt__put_uint(p, m->state == G_OPCODE
                                     ? G_CAT_OPCODES
                                     : tfmt__gecko_state_cat[m->state]);
    }
}

static int marker_values(void *ctx, const uint8_t *d, size_t len)
{
    colctx *c = ctx;
    for (const uint8_t *end = d + len; d < end;) {
        gmarker m;
        if (!gmarker_decode(&d, end, &m, &c->prev))
            return TFMT_EIO;
        char *p = value_start(c);
        if (!p)
            return TFMT_ENOMEM;
        int rc;
        if (c->which == M_DATA && m.state == G_OPCODE) {
            /* its strings have no bound: written through the buffer */
            rc = gw_done(c->w, p);
            if (rc == TFMT_OK)
                rc = tfmt__gecko_put_opcode_data(c->w, &m);
            if (rc != TFMT_OK)
                return rc;
            continue;
        }
        rc = gw_done(c->w, marker_value(c, p, &m));
        if (rc != TFMT_OK)
            return rc;
    }
    return TFMT_OK;
}

/*
 * Read `st` once for all its columns when it is small (most threads'
 * streams, with many threads), else once per column.
 */
static int gather(colctx *c, gstream *st)
{
    int rc = tfmt__spool_gather(&c->w->g->spool, st, WHOLE_MAX, &c->w->whole);
    c->whole = rc == 1;
    return rc < 0 ? rc : TFMT_OK;
}

/* `"key":[...]` (after a comma unless first) from one pass over `st`. */
static int column(colctx *c, const char *key, bool comma, gstream *st,
                  int (*fn)(void *, const uint8_t *, size_t))
{
    int rc = tfmt__buf_puts(&c->w->b, comma ? ",\"" : "\"");
    rc |= tfmt__buf_puts(&c->w->b, key);
    rc |= tfmt__buf_puts(&c->w->b, "\":[");
    c->first = true;
    c->prev = 0;
    if (rc == TFMT_OK && c->whole) {
        /* An empty stream gathers to no buffer at all. */
        if (c->w->whole.len)
            rc = fn(c, (const uint8_t *)c->w->whole.data, c->w->whole.len);
    } else if (rc == TFMT_OK)
        rc = tfmt__spool_each(&c->w->g->spool, st, fn, c);
    return rc ? rc : tfmt__buf_putc(&c->w->b, ']');
}

int tfmt__gwriter_length(gwriter *w, uint64_t n, const char *close)
{
    char *p = gw_room(w, 48);
    if (!p)
        return TFMT_ENOMEM;
    memcpy(p, ",\"length\":", 10);
    p = tfmt__put_uint(p + 10, n);
    size_t k = strlen(close);
    memcpy(p, close, k);
    return gw_done(w, p + k);
}

int tfmt__gecko_put_samples(gwriter *w)
{
    colctx c;
    c.w = w;
    gstream *st = &w->t->samples;
    int rc = gather(&c, st);
    if (rc == TFMT_OK)
        rc = tfmt__buf_puts(&w->b, "\"samples\":{");
    for (c.which = 0; c.which < 2 && rc == TFMT_OK; c.which++)
        rc = column(&c, c.which ? "time" : "stack", c.which != 0, st,
                    sample_values);
    if (rc == TFMT_OK)
        rc = tfmt__buf_puts(&w->b, ",\"eventDelay\":[");
    if (rc == TFMT_OK)
        rc = tfmt__gwriter_repeat(w, "null", st->count);
    if (rc == TFMT_OK)
        rc = tfmt__buf_puts(&w->b, "],\"weight\":null,"
                                   "\"weightType\":\"samples\"");
    return rc ? rc : tfmt__gwriter_length(w, st->count, "},");
}

/* The per-state "data" prefixes and the thread's tid suffix. */
static void marker_pieces(colctx *c)
{
    for (int s = 0; s < G_NSTATES; s++) {
        char *p = c->type[s];
        memcpy(p, "{\"type\":\"", 9);
        p += 9;
        for (const char *n = tfmt__gecko_state_name[s]; *n; n++)
            if (*n != ' ')
                *p++ = *n;
        memcpy(p, "\",\"duration\":", 13);
        c->typelen[s] = (size_t)(p + 13 - c->type[s]);
    }
    char *p = c->tid;
    memcpy(p, ",\"tid\":", 7);
    p = tfmt__put_uint(p + 7, c->w->t->tid);
    *p++ = '}';
    c->tidlen = (size_t)(p - c->tid);
}

int tfmt__gecko_put_markers(gwriter *w)
{
    static const char *const keys[M_NCOLS] = {"data",    "name",  "startTime",
                                              "endTime", "phase", "category"};
    colctx c;
    memset(&c, 0, sizeof c); /* marker_data copies whole buffers */
    c.w = w;
    marker_pieces(&c);
    gstream *st = &w->t->markers;
    int rc = gather(&c, st);
    if (rc == TFMT_OK)
        rc = tfmt__buf_puts(&w->b, "\"markers\":{");
    for (c.which = 0; c.which < M_NCOLS && rc == TFMT_OK; c.which++) {
        if (c.which != M_PHASE) {
            rc = column(&c, keys[c.which], c.which != 0, st, marker_values);
            continue;
        }
        rc = tfmt__buf_puts(&w->b, ",\"phase\":[");
        if (rc == TFMT_OK)
            rc = tfmt__gwriter_repeat(w, "1", st->count);
        if (rc == TFMT_OK)
            rc = tfmt__buf_putc(&w->b, ']');
    }
    return rc ? rc : tfmt__gwriter_length(w, st->count, "}}");
}

int tfmt__gwriter_repeat(gwriter *w, const char *item, uint64_t n)
{
    size_t len = strlen(item);
    char *p = n ? gw_room(w, len) : NULL;
    if (n && !p)
        return TFMT_ENOMEM;
    if (n) {
        memcpy(p, item, len);
        int rc = gw_done(w, p + len);
        if (rc != TFMT_OK)
            return rc;
        n--;
    }
    /* the rest in chunks of ",item", each chunk doubled into place */
    size_t unit = len + 1, per = 65536 / unit;
    while (n > 0) {
        size_t k = n < per ? (size_t)n : per, bytes = k * unit;
        p = gw_room(w, bytes);
        if (!p)
            return TFMT_ENOMEM;
        p[0] = ',';
        memcpy(p + 1, item, len);
        for (size_t have = unit; have < bytes; have *= 2)
            memcpy(p + have, p, bytes - have < have ? bytes - have : have);
        int rc = gw_done(w, p + bytes);
        if (rc != TFMT_OK)
            return rc;
        n -= k;
    }
    return TFMT_OK;
}
