/* SPDX-License-Identifier: MIT */
/*
 * bin_slice.h - a binary log's sample region cut into parts that threads
 * decode side by side (profile_par.c uses them). Never installed.
 *
 * The records of one thread are deltas of that thread's previous stack,
 * so a part cannot be decoded alone. It takes two passes over the parts:
 *
 * 1. Scan (bin_scan.c): the parts are scanned one after the other from
 *    the region's start, each record by record without decoding stacks,
 *    up to the first record at or after the part's nominal end, which
 *    is where the next part starts. A scan yields the threads that first
 *    show up in its part and, per thread, how the part changes the depth
 *    of the thread's stack (a function of the depth at the part's start).
 * 2. Decode (bin_slice.c): each part is read by a slice, a reader whose
 *    threads start with the depth the scans composed. The frames a part
 *    inherits are unknown while it is decoded: a slice fills them with
 *    placeholder frame indices (from the frame count up), which the
 *    caller resolves, in order, from the part before.
 *
 * Anything odd (a record that does not parse, a scan that misses the next
 * part, a note a reader would give) makes the caller read the file whole,
 * so errors and notes are always exactly those of tfmt_bin_next.
 */
#ifndef TFMT_BIN_SLICE_H
#define TFMT_BIN_SLICE_H

#include <tachyon/fmt_bin.h>

#include "internal.h"

/* Bytes of the sample region (0 when it is compressed: no parts). */
uint64_t tfmt__bin_region_size(const tfmt_bin_reader *r);

/*
 * What a part does to one thread's depth d: `konst` ? b : max(0, d - a) +
 * b (every composition of the records' changes has this form).
 */
typedef struct tfmt_bin_xfer {
    uint64_t tid;
    uint32_t interp;
    bool konst;
    uint32_t a, b;
} tfmt_bin_xfer;

static inline uint32_t tfmt__bin_xfer_apply(const tfmt_bin_xfer *x, uint32_t d)
{
    if (x->konst)
        return x->b;
    return (d > x->a ? d - x->a : 0) + x->b;
}

/* One part's scan: its threads in order of first appearance. */
typedef struct tfmt_bin_scan {
    const tfmt_allocator *alloc;
    tfmt_bin_xfer *threads;
    size_t nthreads, cap;
    tfmt_tidmap map;
    uint64_t end; /* where the records scanned end: the next part */
} tfmt_bin_scan;

/*
 * Scan the records from region offset `from` (a record's start) while
 * they start before `until`: TFMT_OK when they parse, else a negative
 * status (the scan is then of no use; no error text is kept). Thread-safe
 * for distinct scans.
 */
int tfmt__bin_scan(tfmt_bin_reader *r, uint64_t from, uint64_t until,
                   tfmt_bin_scan *out);
void tfmt__bin_scan_free(tfmt_bin_scan *s);

/* A thread a slice starts with: its stack `depth` placeholders deep. */
typedef struct tfmt_bin_seed {
    uint64_t tid;
    uint32_t interp;
    uint32_t depth;
} tfmt_bin_seed;

/*
 * A reader of region [from, to) of `parent` (whose tables and source it
 * borrows: free it first), its threads seeded in order: thread i is
 * seeds[i], with stack entries (root first) placeholders numbered on from
 * the frame count, seed by seed, and a timestamp of 0; threads new in the
 * part get the next indices. Its samples are those of tfmt_bin_next.
 */
int tfmt__bin_slice_open(tfmt_bin_reader **out, tfmt_bin_reader *parent,
                         uint64_t from, uint64_t to, const tfmt_bin_seed *seeds,
                         size_t nseeds, tfmt_error *err);

/* A note or a timestamp only the whole file can judge came up. */
bool tfmt__bin_slice_odd(const tfmt_bin_reader *r);

/* Threads the reader knows, and thread i's current state. */
size_t tfmt__bin_threads(const tfmt_bin_reader *r);
void tfmt__bin_thread_state(const tfmt_bin_reader *r, size_t i,
                            const uint32_t **stack, uint32_t *depth,
                            uint64_t *ts);

/* The whole file was read by slices: the reader reports their count. */
void tfmt__bin_read_by_slices(tfmt_bin_reader *r, uint64_t samples);

#endif
