/* SPDX-License-Identifier: MIT */
/*
 * export_gecko.h - internals of the Gecko (Firefox Profiler) export, a
 * replay of CPython's GeckoCollector: collection (export_gecko.c), the
 * thread-state markers (export_gecko_state.c), spooled per-thread record
 * streams (io/spool.c) and the JSON writer
 * (export_gecko_write.c).
 */
#ifndef TFMT_EXPORT_GECKO_H
#define TFMT_EXPORT_GECKO_H

#include <stdio.h>

#include "export_internal.h"
#include "profile_filter.h"
#include "spool.h"

/* A string of the export's table: its bytes in the table's buffer. */
typedef struct tfmt_pstring {
    uint64_t off;
    uint32_t len;
} tfmt_pstring;

#define G_NONE_LINE INT64_MIN /* Python None as a line number */

/* Categories (GECKO_CATEGORIES indices). */
enum {
    G_CAT_PYTHON = 1,
    G_CAT_NATIVE = 2,
    G_CAT_GC = 3,
    G_CAT_GIL = 4,
    G_CAT_CPU = 5,
    G_CAT_CODE = 6,
    G_CAT_OPCODES = 7,
    G_CAT_EXC = 8
};

/*
 * Interval states, in the order _finalize_markers closes them; an opcode
 * marker (export_gecko_opcode.c) is spooled as the pseudo-state G_OPCODE,
 * closed after all of them.
 */
enum {
    G_HAS_GIL,
    G_NO_GIL,
    G_ON_CPU,
    G_OFF_CPU,
    G_PY_CODE,
    G_NATIVE_CODE,
    G_GIL_WAIT,
    G_GC,
    G_EXC,
    G_NO_EXC,
    G_NSTATES
};
#define G_OPCODE G_NSTATES

/* Record streams spooled to a shared temporary file (io/spool.h). */
typedef tfmt_spool gspool;
typedef tfmt_sstream gstream;

/*
 * Records. Times stay the reader's microsecond timestamps until they are
 * written: the JSON's milliseconds are then spelled from integers, and
 * only marker durations need a float repr. Spooled, a record is varints:
 * a sample 2-4 bytes, a marker 5-8, with each time a zigzag delta from
 * the stream's previous record (wrapping, so any timestamps round-trip).
 */
typedef struct gsample {
    uint32_t stack;
    uint64_t ts;
} gsample;

typedef struct gmarker {
    uint32_t name;       /* global string index */
    uint32_t state;      /* G_* or G_OPCODE */
    uint64_t start, end; /* timestamps */
    /* G_OPCODE only: the leaf frame's opcode and where it ran */
    uint8_t op, major, minor; /* opcode byte, the input's Python */
    int64_t line;             /* G_NONE_LINE: None */
    int32_t col;              /* -1: None */
    uint32_t func;            /* global string index of the function */
} gmarker;

#define G_SAMPLE_MAX 15 /* bytes of a spooled record, at most */
#define G_MARKER_MAX 56

static inline uint64_t gzig(uint64_t d)
{
    return (d << 1) ^ (0 - (d >> 63));
}

static inline uint64_t gunzig(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
}

/* A varint, one and two bytes inline (ids and deltas mostly are). */
static inline size_t genc(uint8_t *out, uint64_t v)
{
    if (v < 0x80) {
        out[0] = (uint8_t)v;
        return 1;
    }
    if (v < 0x4000) {
        out[0] = (uint8_t)(v | 0x80);
        out[1] = (uint8_t)(v >> 7);
        return 2;
    }
    return tfmt__varint_encode(out, v);
}

static inline size_t gsample_encode(uint8_t *out, const gsample *r,
                                    uint64_t *prev)
{
    size_t n = genc(out, r->stack);
    n += genc(out + n, gzig(r->ts - *prev));
    *prev = r->ts;
    return n;
}

/* One varint of a record, one and two bytes inline; false: damaged. */
static inline bool gvarint(const uint8_t **pp, const uint8_t *end,
                           uint64_t *out)
{
    const uint8_t *p = *pp;
    if (p < end && !(p[0] & 0x80)) {
        *out = p[0];
        *pp = p + 1;
        return true;
    }
    if (end - p >= 2 && !(p[1] & 0x80)) {
        *out = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
        *pp = p + 2;
        return true;
    }
    return tfmt__varint_u64(pp, end, out) == 1;
}

/* false: the bytes are not a record (a damaged spool file) */
static inline bool gsample_decode(const uint8_t **pp, const uint8_t *end,
                                  gsample *r, uint64_t *prev)
{
    uint64_t stack, d;
    if (!gvarint(pp, end, &stack) || stack > UINT32_MAX ||
        !gvarint(pp, end, &d))
        return false;
    r->stack = (uint32_t)stack;
    r->ts = *prev += gunzig(d);
    return true;
}

static inline size_t gmarker_encode(uint8_t *out, const gmarker *r,
                                    uint64_t *prev)
{
    size_t n = genc(out, r->name);
    out[n++] = (uint8_t)r->state;
    n += genc(out + n, gzig(r->start - *prev));
    n += genc(out + n, gzig(r->end - r->start));
    *prev = r->start;
    if (r->state == G_OPCODE) {
        out[n++] = r->op;
        out[n++] = r->major;
        out[n++] = r->minor;
        n += tfmt__varint_encode(out + n, gzig((uint64_t)r->line));
        n += tfmt__varint_encode(out + n, (uint32_t)(r->col + 1));
        n += tfmt__varint_encode(out + n, r->func);
    }
    return n;
}

static inline bool gmarker_decode(const uint8_t **pp, const uint8_t *end,
                                  gmarker *r, uint64_t *prev)
{
    uint64_t name, d, len;
    if (!gvarint(pp, end, &name) || name > UINT32_MAX || *pp >= end ||
        **pp > G_OPCODE)
        return false;
    r->name = (uint32_t)name;
    r->state = *(*pp)++;
    if (!gvarint(pp, end, &d) || !gvarint(pp, end, &len))
        return false;
    r->start = *prev += gunzig(d);
    r->end = r->start + gunzig(len);
    if (r->state != G_OPCODE)
        return true;
    uint64_t line;
    uint32_t col;
    if (end - *pp < 3)
        return false;
    r->op = *(*pp)++;
    r->major = *(*pp)++;
    r->minor = *(*pp)++;
    if (tfmt__varint_u64(pp, end, &line) != 1 ||
        tfmt__varint_u32(pp, end, &col) != 1 ||
        tfmt__varint_u32(pp, end, &r->func) != 1)
        return false;
    r->line = (int64_t)gunzig(line);
    r->col = (int32_t)col - 1;
    return true;
}

/* ---- per-thread tables ---- */
typedef struct gfunc {
    uint32_t file, func;  /* tab string ids (key) */
    uint32_t name, fname; /* global strings; fname TFMT_NO_ID: null */
    uint32_t resource;
    int64_t line; /* lineNumber; G_NONE_LINE: null */
    bool py;
} gfunc;

typedef struct gframe {
    uint32_t func;
    int64_t line; /* key line; G_NONE_LINE: None */
    int32_t col;  /* -1: None */
} gframe;

typedef struct gstack {
    uint32_t frame, prefix; /* prefix TFMT_NO_ID: null */
    uint32_t child_frame;   /* the last child looked up under this */
    uint32_t child;         /* ... stack: a lookup that needs no table */
    uint8_t cat;
} gstack;

/*
 * A node of the collection's stack tree, shared by all threads: a tab
 * frame under a prefix node (TFMT_NO_ID: outermost). Samples are spooled
 * with their leaf node; a thread's own tables are made from them only
 * when it is written (tfmt__gecko_local), so at most one thread's tables
 * exist at a time.
 */
typedef struct gnode {
    uint32_t frame, prefix;
    uint32_t child_frame; /* the last child looked up under this */
    uint32_t child;       /* ... node: a lookup that needs no table */
} gnode;

typedef struct gres {
    uint32_t file; /* tab string id (key) */
    uint32_t name; /* global string */
} gres;

/* The tables of the thread being written (export_gecko_tables.c). */
typedef struct gtables {
    gfunc *funcs;
    size_t nfuncs, capfuncs;
    gframe *frames;
    size_t nframes, capframes;
    gstack *stacks;
    size_t nstacks, capstacks;
    gres *res;
    size_t nres, capres;
    tfmt_idset func_set, frame_set, stack_set, res_set;
    tfmt_tidmap tabframe;      /* tab frame id -> frame index (a cache) */
    uint32_t root_child_frame; /* gstack.child_frame of the root */
    uint32_t root_child;
} gtables;

typedef struct gthread {
    uint64_t tid;
    bool main, initialized;
    bool open[G_NSTATES];      /* state interval started */
    uint64_t start[G_NSTATES]; /* ... at this timestamp */
    uint32_t *last_tab;        /* the last stack added: tab frames */
    uint32_t *last_stack;      /* ... and its node per depth */
    uint32_t last_depth;
    size_t caplast;
    gstream samples, markers;
    /* the reader's last stack of this thread (export_gecko_view.c) */
    uint32_t *view; /* tab frames, root first */
    size_t capview;
    uint32_t view_depth;
    uint32_t view_gc;     /* first "<GC>" frame, UINT32_MAX: none */
    uint32_t view_input;  /* whose stack: input serial (0: none) */
    uint32_t view_thread; /* ... and the reader's thread index */
    bool last_is_view;    /* last_tab/last_depth are the view's */
    /* opcode_state: the leaf's (opcode, line, column, function, file) */
    bool op_open;
    uint32_t op_serial;      /* order of first opening (CPython's dict) */
    gmarker op;              /* the open interval, end unset */
    uint32_t op_file, op_fn; /* tab string ids (the key) */
} gthread;

struct tfmt_gecko {
    const tfmt_allocator *alloc;
    tfmt_error err;
    tfmt_profile *tab; /* string/frame interning and filters */
    /* global string array */
    tfmt_buf strbuf;
    tfmt_pstring *strs;
    size_t nstrs, capstrs;
    tfmt_idset str_set;
    /* threads in first-seen order, each allocated alone (an array of
     * structs would double a few hundred bytes a thread) */
    gthread **threads;
    size_t nthreads, capthreads;
    tfmt_idset thread_set;
    gspool spool;
    /* collector state */
    bool have_base;
    uint64_t base_us;
    uint64_t sample_count;
    uint64_t kept; /* samples drawn (the filter report's kept) */
    double interval, start_ms;
    uint64_t last_ts; /* the last batch's last timestamp */
    /* last_ts and sample_count when the current collect() call began */
    uint64_t call_last_ts, call_count;
    /* collect()'s interval, computed at the end from what it saw */
    bool iv_set;
    uint64_t iv_ts, iv_prev_ts, iv_count;
    uint32_t ninputs; /* inputs added (view_input serials) */
    int opcodes;      /* opcode markers: -1 not decided yet, 0 no, 1 yes */
    uint8_t in_major, in_minor;    /* the current input's Python version */
    uint32_t op_serials;           /* threads whose opcode state opened */
    uint32_t state_str[G_NSTATES]; /* marker names' string ids ... */
    uint16_t state_named;          /* ... interned: bit per state */
    uint32_t *stackbuf;            /* a filtered stack */
    size_t capstackbuf;
    uint8_t *gc; /* per tab frame: 0 unknown, 1 no, 2 <GC> */
    size_t capgc;
    /* the stack tree (export_gecko_tree.c) */
    gnode *nodes;
    size_t nnodes, capnodes;
    tfmt_idset node_set; /* node ids by hash of (frame, prefix) */
    uint32_t root_child_frame, root_child; /* gnode.child_* of the root */
    uint32_t *fname; /* per tab frame: global string of its function's
                        name once interned, else TFMT_NO_ID */
    size_t capfname;
};

/*
 * n / 1000 correctly rounded, as Python's int true division gives it,
 * negated when `neg`: for n of 2^53 or more, where (double)n is inexact.
 */
double tfmt__gecko_div1000(uint64_t n, bool neg);

/* Milliseconds after the first timestamp, as Python divides: d / 1000. */
static inline double gecko_ms(const tfmt_gecko *g, uint64_t ts)
{
    uint64_t n = ts >= g->base_us ? ts - g->base_us : g->base_us - ts;
    if (n < (UINT64_C(1) << 53)) /* exact as a double: one rounding */
        return ts >= g->base_us ? (double)n / 1000.0 : -(double)n / 1000.0;
    return tfmt__gecko_div1000(n, ts < g->base_us);
}

int tfmt__gecko_nomem(tfmt_gecko *g);
int tfmt__gecko_string(tfmt_gecko *g, const char *s, size_t len, uint32_t *out);
/* Each state's marker name ("Has GIL") and category (G_CAT_*). */
extern const char *const tfmt__gecko_state_name[G_NSTATES];
extern const uint8_t tfmt__gecko_state_cat[G_NSTATES];
/* Track the state transitions of one collect() call (markers). */
int tfmt__gecko_track(tfmt_gecko *g, gthread *t, uint8_t status, bool has_gc,
                      uint64_t first);
int tfmt__gecko_finalize(tfmt_gecko *g);
/*
 * The tree node of a root-first stack of tab frames, whose first `hint`
 * frames are known to equal the thread's last stack's; interns each new
 * function's strings as a thread's function table would have, when first
 * seen (export_gecko_tree.c).
 */
int tfmt__gecko_stack(tfmt_gecko *g, gthread *t, const uint32_t *stack,
                      uint32_t depth, uint32_t hint, uint32_t *out);
void tfmt__gecko_tree_free(tfmt_gecko *g);

/* How an input's reader frames become tab frames. */
typedef struct gmapper {
    int (*map)(void *ctx, uint32_t reader_frame, uint32_t *out);
    void *ctx;
    uint32_t input; /* serial of the input, from 1 */
} gmapper;

/*
 * Bring the thread's view up to sample `s`: *unchanged gets how many of
 * its outermost frames were kept from the thread's previous sample of the
 * same reader thread (the rest is mapped again).
 */
int tfmt__gecko_view(tfmt_gecko *g, gthread *t, const tfmt_sample *s,
                     const gmapper *m, uint32_t *unchanged);
void tfmt__gecko_view_free(const tfmt_allocator *a, gthread *t);
/* Is tab frame f a "<GC>" frame; -1: out of memory. */
int tfmt__gecko_is_gc(tfmt_gecko *g, uint32_t f);
/* ---- a thread's tables, made as it is written (export_gecko_tables.c) ---- */
void tfmt__gecko_tables_init(gtables *t, const tfmt_allocator *a);
void tfmt__gecko_tables_free(const tfmt_allocator *a, gtables *t);
/* Spool one marker on the thread's stream. */
int tfmt__gecko_put_marker(tfmt_gecko *g, gthread *t, const gmarker *m);

/* ---- opcode markers (export_gecko_opcode.c) ---- */
/* After a counted sample with a stack: follow its leaf's opcode state. */
int tfmt__gecko_opcode_track(tfmt_gecko *g, gthread *t, uint32_t leaf,
                             uint64_t first);
/* Close every open opcode interval at the last sample time. */
int tfmt__gecko_opcode_finalize(tfmt_gecko *g);

/* The last batch's last time in ms (what CPython keeps as last_time). */
static inline double gecko_last_ms(const tfmt_gecko *g)
{
    return gecko_ms(g, g->last_ts);
}

/* ---- the JSON writer (export_gecko_write.c, export_gecko_cols.c) ---- */
typedef struct gwriter {
    tfmt_gecko *g;
    tfmt_sink *sink;
    tfmt_buf b;
    gthread *t;           /* thread being written */
    uint32_t serial;      /* ... its index + 1 */
    gtables tab;          /* ... its tables */
    uint32_t *loc;        /* per tree node: its stack in `tab` ... */
    uint32_t *loc_serial; /* ... when this is `serial` */
    tfmt_buf whole;       /* a small stream, read at once */
    uint32_t *chain;      /* tree nodes not mapped yet */
    size_t capchain;
    bool sink_failed;
} gwriter;

/*
 * The thread's stack index of tree node `node`, made (with its frames,
 * functions and resources) if new: in the order of the thread's samples,
 * the tables come out as CPython's collector made them.
 */
int tfmt__gecko_local(gwriter *w, uint32_t node, uint32_t *out);

/* Hand the buffer to the sink once it holds TFMT_EXPORT_FLUSH (all: now). */
int tfmt__gwriter_flush(gwriter *w, bool all);

/*
 * Values are written in place: room() makes `n` bytes of space at the end
 * of the buffer and returns where they start (NULL: out of memory), and
 * done() takes the end of what was written there, flushing when full.
 */
static inline char *gw_room(gwriter *w, size_t n)
{
    tfmt_buf *b = &w->b;
    if (b->cap - b->len < n && tfmt__buf_reserve(b, n) != TFMT_OK)
        return NULL;
    return b->data + b->len;
}

static inline int gw_done(gwriter *w, char *end)
{
    w->b.len = (size_t)(end - w->b.data);
    return w->b.len < TFMT_EXPORT_FLUSH ? TFMT_OK
                                        : tfmt__gwriter_flush(w, false);
}

/* `n` copies of `item` joined by commas. */
int tfmt__gwriter_repeat(gwriter *w, const char *item, uint64_t n);
/* `,"length":N` and `close` (at most 8 bytes), ending an object. */
int tfmt__gwriter_length(gwriter *w, uint64_t n, const char *close);

/* The thread's "samples" and "markers" objects, streamed from the spool. */
int tfmt__gecko_put_samples(gwriter *w);
int tfmt__gecko_put_markers(gwriter *w);
/* An opcode marker's "data" object (export_gecko_opcode.c). */
int tfmt__gecko_put_opcode_data(gwriter *w, const gmarker *m);
/* meta.markerSchema: the Opcode schema when opcode markers are on. */
const char *tfmt__gecko_marker_schema(const tfmt_gecko *g);

#endif
