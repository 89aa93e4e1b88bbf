/* SPDX-License-Identifier: MIT */
/*
 * import.h - the one way from a reader into a model (a profile, a Gecko
 * timeline, a flat profile). The import layer owns what every model
 * needs from a reader: the reader's string and frame tables mapped to the
 * model's ids (lazily, through callbacks in which the model interns, and
 * rewrites or drops names by its own filters), the samples or aggregates
 * handed on a batch at a time, the progress callback, and the error rule
 * of the whole library: the handle the caller called owns the error, so a
 * reader's error is copied into the model's error record (`err`), which
 * is where every failure of an import ends up. Never installed.
 */
#ifndef TFMT_IMPORT_H
#define TFMT_IMPORT_H

#include <tachyon/fmt_bin.h>
#include <tachyon/fmt_jsonl.h>

#include "internal.h"
#include "jsonl_internal.h"

/* Map entries: not mapped yet; mapped to nothing (the model dropped it). */
#define TFMT_IMPORT_UNSET (UINT32_MAX - 1)
#define TFMT_IMPORT_DROP UINT32_MAX

/* ---- binary logs (import_bin.c) ---- */

/*
 * A model's side of a binary import. Both callbacks record their failures
 * in the model's own error record and return its status.
 */
typedef struct tfmt_import_ops {
    /* Intern `len` bytes of a reader string; *out gets the model's id. */
    int (*string)(void *ctx, const char *s, size_t len, uint32_t *out);
    /*
     * Intern reader frame `index`, whose filename and funcname are model
     * string ids already; *out gets the model's id or TFMT_IMPORT_DROP.
     */
    int (*frame)(void *ctx, uint32_t index, const tfmt_frame *f, uint32_t *out);
} tfmt_import_ops;

typedef struct tfmt_import {
    tfmt_bin_reader *r;
    const tfmt_import_ops *ops;
    void *ctx;
    tfmt_error *err; /* the model's error record */
    const tfmt_allocator *alloc;
    uint32_t *smap; /* reader string -> model id, or UNSET */
    uint32_t *fmap; /* reader frame -> model id, DROP or UNSET */
    uint32_t nstrings, nframes;
    /* Fed every 4096 batches with the thread-samples read; may be NULL. */
    void (*progress)(void *ctx, uint64_t samples_read);
    void *progress_ctx;
} tfmt_import;

/*
 * Start importing `r` (borrowed) into the model behind `ops` and `ctx`;
 * failures go to `err`. The maps cover the reader's tables (whose sizes
 * the reader checked against its bytes) and start UNSET.
 */
int tfmt__import_open(tfmt_import *im, tfmt_bin_reader *r,
                      const tfmt_import_ops *ops, void *ctx,
                      const tfmt_allocator *a, tfmt_error *err);
void tfmt__import_close(tfmt_import *im);

/* The model's id of reader string `index`, interned on first use. */
int tfmt__import_string(tfmt_import *im, uint32_t index, uint32_t *out);

/*
 * The model's id of reader frame `index` (or TFMT_IMPORT_DROP), interned
 * on first use: filename, then funcname (the order of CPython's writer),
 * then the frame. The lookup is inlined: it runs for every frame of
 * every sample.
 */
int tfmt__import_frame_slow(tfmt_import *im, uint32_t index, uint32_t *out);
static inline int tfmt__import_frame(tfmt_import *im, uint32_t index,
                                     uint32_t *out)
{
    if (index < im->nframes && im->fmap[index] != TFMT_IMPORT_UNSET) {
        *out = im->fmap[index];
        return TFMT_OK;
    }
    return tfmt__import_frame_slow(im, index, out);
}

/* True when reader frame `index` has been mapped (to an id or DROP). */
static inline bool tfmt__import_mapped(const tfmt_import *im, uint32_t index)
{
    return index < im->nframes && im->fmap[index] != TFMT_IMPORT_UNSET;
}

/*
 * Map `n` reader frame indices past the table (the placeholders of a
 * slice, bin_slice.h) to model ids first, first + 1, ...
 */
int tfmt__import_placeholders(tfmt_import *im, uint32_t n, uint32_t first);

/*
 * Hand every remaining batch of samples to `fn` (a failure of fn ends the
 * import with its status, recorded by fn). Returns TFMT_OK at the reader's
 * clean end, else the negative status, with the reader's error copied to
 * `err` when the reader failed.
 */
typedef int (*tfmt_import_sample_fn)(void *ctx, const tfmt_sample *s);
int tfmt__import_samples(tfmt_import *im, tfmt_import_sample_fn fn, void *ctx);

/* ---- JSONL exports (import_jsonl.c) ---- */

/*
 * An id -> value map over JSONL ids, which are only trusted as numbers
 * (import_jsonl.c explains the two halves).
 */
typedef struct tfmt_jmap {
    const tfmt_allocator *alloc;
    size_t ident;               /* ids below it map to themselves (and
                                   nothing else is stored) */
    uint32_t *direct;           /* id -> value, TFMT_IMPORT_UNSET: absent */
    size_t ndirect, direct_cap; /* ids covered, room */
    tfmt_idset spill;           /* other ids -> their index in spill_ids */
    uint32_t *spill_ids;        /* spilled ids */
    uint32_t *spill_vals;       /* and their values */
    size_t spill_cap, spill_vcap;
    size_t n; /* ids stored */
} tfmt_jmap;

/* A frame as the aggregates need it: a frame record's fields. */
typedef struct tfmt_jimport_frame {
    uint32_t file, func;            /* string ids */
    int32_t line;                   /* 0: no line */
    int32_t end_line, col, end_col; /* TFMT_JSONL_ABSENT when absent */
    bool synthetic;                 /* the v1 dialect's `synthetic: true` */
    uint32_t model;                 /* model frame id, DROP, or UNSET */
} tfmt_jimport_frame;

/*
 * A model's side of a JSONL import. Each callback takes a batch of up to
 * TFMT_JIMPORT_BATCH items, so a model can overlap its memory waits
 * (prefetch a batch, then probe); each records its failures in the
 * model's error record, except TFMT_ENOMEM, which may come bare. Frames
 * are interned when agg entries first use them, or as they are defined
 * (tfmt_jimport.eager).
 */
#define TFMT_JIMPORT_BATCH 16
typedef struct tfmt_jimport_ops {
    /* Intern strings defined for the first time; out[j] their ids. */
    int (*strings)(void *ctx, const tfmt_jsonl_string *s, size_t n,
                   uint32_t *out);
    /*
     * Intern frames the aggregates use for the first time, whose file
     * and func are model string ids already; out[j] gets an id or
     * TFMT_IMPORT_DROP.
     */
    int (*frames)(void *ctx, const tfmt_jimport_frame *f, size_t n,
                  uint32_t *out);
    /* Add aggregate entries; frame[j] is entry j's model frame (or DROP). */
    int (*aggs)(void *ctx, const tfmt_jsonl_agg *e, const uint32_t *frame,
                size_t n);
} tfmt_jimport_ops;

typedef struct tfmt_jimport {
    tfmt_jsonl_reader *r;
    const tfmt_jimport_ops *ops;
    void *ctx;
    tfmt_error *err;        /* the model's error record */
    tfmt_jmap strs;         /* str_id -> model string id */
    tfmt_jmap frames;       /* frame_id -> model frame id (eager) or its
                               slot in fr (lazy) */
    tfmt_jimport_frame *fr; /* frame records kept (lazy) */
    size_t nfr, cap_fr;
    /*
     * Set by the model before running: frames go to the model as their
     * records define them (4 bytes kept per frame), not when an agg entry
     * first uses one (then a frame record is kept until then). The
     * reader's rules guarantee the strings a frame names come first.
     */
    bool eager;
    bool utf8_checked;      /* the strings of the record being imported
                               are valid UTF-8 (the reader checked them
                               as CPython decodes): no need to repair */
    uint64_t interval_us;   /* meta's sample_interval_usec */
    uint64_t samples_total; /* of the agg or end records (the reader's
                               rules keep them equal) */
} tfmt_jimport;

void tfmt__jimport_init(tfmt_jimport *im, tfmt_jsonl_reader *r,
                        const tfmt_jimport_ops *ops, void *ctx,
                        const tfmt_allocator *a, tfmt_error *err);
/*
 * Read every record of the reader to its end: string and frame records
 * define ids (the first definition of an id wins), agg records are handed
 * on. Returns TFMT_OK at a complete end, else the negative status with
 * `err` filled (the reader's own error, or a reference to an unknown id,
 * located at its line).
 */
int tfmt__jimport_run(tfmt_jimport *im);
void tfmt__jimport_free(tfmt_jimport *im);

#endif
