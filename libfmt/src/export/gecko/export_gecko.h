/*
 * export_gecko.h - internals of the Gecko (Firefox Profiler) export, a
 * replay of CPython's GeckoCollector: collection (export_gecko.c), the
 * thread-state markers (export_gecko_state.c), spooled per-thread record
 * streams (export_gecko_spool.c) and the JSON writer
 * (export_gecko_write.c).
 */
#ifndef TFMT_EXPORT_GECKO_H
#define TFMT_EXPORT_GECKO_H

#include <stdio.h>

#include "export_internal.h"
#include "profile_filter.h"

#define G_NONE_LINE INT64_MIN     /* Python None as a line number */

/* Categories (GECKO_CATEGORIES indices). */
enum { G_CAT_PYTHON = 1, G_CAT_NATIVE = 2, G_CAT_GC = 3, G_CAT_GIL = 4,
       G_CAT_CPU = 5, G_CAT_CODE = 6, G_CAT_EXC = 8 };

/* Interval states, in the order _finalize_markers closes them. */
enum { G_HAS_GIL, G_NO_GIL, G_ON_CPU, G_OFF_CPU, G_PY_CODE, G_NATIVE_CODE,
       G_GIL_WAIT, G_GC, G_EXC, G_NO_EXC, G_NSTATES };

/* ---- a growable record stream, spooled to a shared temporary file ---- */
typedef struct gblock {
    uint64_t off;
    uint32_t len;
} gblock;

typedef struct gstream {
    tfmt_buf tail;              /* records not yet spooled */
    gblock *blocks;
    size_t nblocks, capblocks;
    uint64_t count;             /* records in the stream */
} gstream;

typedef struct gspool {
    const tfmt_allocator *alloc;
    FILE *file;                 /* NULL until the first block is spooled */
    uint64_t size;
    tfmt_buf rd;                /* read-back buffer */
} gspool;

int tfmt__gspool_append(gspool *s, gstream *st, const void *rec, size_t n);
/* Call fn(ctx, record) for each record of `n` bytes, in order. */
int tfmt__gspool_each(gspool *s, gstream *st, size_t n,
                      int (*fn)(void *ctx, const void *rec), void *ctx);
void tfmt__gstream_free(const tfmt_allocator *a, gstream *st);
void tfmt__gspool_free(gspool *s);

/* Records. */
typedef struct gsample {
    uint32_t stack;
    double time;
} gsample;

typedef struct gmarker {
    uint32_t name;              /* global string index */
    uint32_t state;             /* G_* */
    double start, end;
} gmarker;

/* ---- per-thread tables ---- */
typedef struct gfunc {
    uint32_t file, func;        /* tab string ids (key) */
    uint32_t name, fname;       /* global strings; fname TFMT_NO_ID: null */
    uint32_t resource;
    int64_t line;               /* lineNumber; G_NONE_LINE: null */
    bool py;
} gfunc;

typedef struct gframe {
    uint32_t func;
    int64_t line;               /* key line; G_NONE_LINE: None */
    int32_t col;                /* -1: None */
} gframe;

typedef struct gstack {
    uint32_t frame, prefix;     /* prefix TFMT_NO_ID: null */
    uint8_t cat;
} gstack;

typedef struct gres {
    uint32_t file;              /* tab string id (key) */
    uint32_t name;              /* global string */
} gres;

typedef struct gthread {
    uint64_t tid;
    bool main, initialized;
    bool open[G_NSTATES];       /* state interval started */
    double start[G_NSTATES];
    gfunc *funcs;
    size_t nfuncs, capfuncs;
    gframe *frames;
    size_t nframes, capframes;
    gstack *stacks;
    size_t nstacks, capstacks;
    gres *res;
    size_t nres, capres;
    tfmt_idset func_set, frame_set, stack_set, res_set;
    uint32_t *tabframe;         /* tab frame id -> frame index */
    size_t captabframe;
    uint32_t *last_tab;         /* the last stack added: tab frames */
    uint32_t *last_stack;       /* ... and its stack index per depth */
    uint32_t last_depth;
    size_t caplast;
    gstream samples, markers;
} gthread;

struct tfmt_gecko {
    const tfmt_allocator *alloc;
    tfmt_error err;
    tfmt_profile *tab;          /* string/frame interning and filters */
    /* global string array */
    tfmt_buf strbuf;
    tfmt_pstring *strs;
    size_t nstrs, capstrs;
    tfmt_idset str_set;
    /* threads in first-seen order */
    gthread *threads;
    size_t nthreads, capthreads;
    tfmt_idset thread_set;
    gspool spool;
    /* collector state */
    bool have_base;
    uint64_t base_us;
    uint64_t sample_count;
    double last_time, interval, start_ms;
    uint32_t *stackbuf;         /* a filtered stack */
    size_t capstackbuf;
    uint8_t *gc;                /* per tab frame: 0 unknown, 1 no, 2 <GC> */
    size_t capgc;
};

int tfmt__gecko_nomem(tfmt_gecko *g);
int tfmt__gecko_string(tfmt_gecko *g, const char *s, size_t len,
                       uint32_t *out);
/* Track the state transitions of one collect() call (markers). */
int tfmt__gecko_track(tfmt_gecko *g, gthread *t, uint8_t status,
                      bool has_gc, double first);
int tfmt__gecko_finalize(tfmt_gecko *g);
/* The stack index of a root-first stack of tab frames. */
int tfmt__gecko_stack(tfmt_gecko *g, gthread *t, const uint32_t *stack,
                      uint32_t depth, uint32_t *out);

#endif
