/* SPDX-License-Identifier: MIT */
/*
 * bin_copy.h - the state of a copy (tfmt_bin_copy), shared by bin_copy.c,
 * which copies tfmt_sample batches as the reader gives them, and
 * bin_copy_fast.c, which copies the common records straight from the
 * reader's window.
 */
#ifndef TFMT_BIN_COPY_H
#define TFMT_BIN_COPY_H

#include "bin_internal.h"
#include "bin_writer.h"

typedef struct copier {
    tfmt_bin_reader *r;
    tfmt_bin_writer *w;
    uint32_t *map; /* reader frame -> writer frame, lazy */
    uint32_t nframes;
    uint32_t base; /* writer frames that predate the copy */
    uint32_t *wt;  /* reader thread -> writer thread, or
                      UINT32_MAX before its first sample */
    size_t nwt, capwt;
    bool pending;        /* the last batch was a REPEAT of: */
    uint32_t pending_ti; /* (a writer thread index) */
    uint32_t fresh[TFMT_MAX_DEPTH];
} copier;

/* Map reader frame `index` into c->map (the first time it is seen). */
int tfmt__copy_map_frame(copier *c, uint32_t index);

/*
 * Map the frames at [keep, depth) of the root-first reader stack into
 * c->fresh (writer ids), interning unseen ones innermost first (CPython's
 * order; the frames before `keep` were mapped with an earlier sample).
 */
static inline int tfmt__copy_map_tail(copier *c, const uint32_t *stack,
                                      uint32_t depth, uint32_t keep)
{
    for (uint32_t i = depth; i-- > keep;) {
        uint32_t idx = stack[i];
        if (idx >= c->nframes || c->map[idx] == UINT32_MAX) {
            int rc = tfmt__copy_map_frame(c, idx);
            if (rc != TFMT_OK)
                return rc;
        }
        c->fresh[i - keep] = c->map[idx];
    }
    return TFMT_OK;
}

/*
 * The source wrote each REPEAT record at the moment it appears in the
 * file. Write the copy's group there too: before a batch of writer thread
 * `ti` (a REPEAT one if `repeat`), once a REPEAT batch of one thread is
 * followed by anything but more REPEATs of that thread (two adjacent
 * records of one thread were split by the 16 KiB rule, which the writer
 * re-applies by itself).
 */
static inline int tfmt__copy_place_repeats(copier *c, bool repeat, uint32_t ti)
{
    bool flush = c->pending && !(repeat && ti == c->pending_ti);
    c->pending = repeat;
    uint32_t was = c->pending_ti;
    c->pending_ti = ti;
    return flush ? tfmt__bw_flush_index(c->w, was) : TFMT_OK;
}

/*
 * Copy records from the reader's window for as long as each can be taken
 * whole (bin_copy_fast.c); TFMT_OK when the next one is for
 * tfmt_bin_next, or a writer error.
 */
int tfmt__copy_fast(copier *c);

#endif
