/* SPDX-License-Identifier: MIT */
/*
 * bin_reader.h - the binary reader's state, private to bin_reader.c, the
 * copy's fast path (bin_copy_fast.c), which decodes the records it can
 * take whole with the reader's own state and leaves every other record,
 * and so every error, to bin_reader.c, and the slices (bin_slice.c),
 * readers of one part of the sample region for decoding on several
 * threads.
 */
#ifndef TFMT_BIN_READER_H
#define TFMT_BIN_READER_H

#include "bin_internal.h"

/* Largest record that is not a REPEAT: 13 + 3 varints + status + 256. */
#define MAX_RECORD (TFMT_BIN_RECORD_HEADER + 3 * 10 + 1 + TFMT_MAX_DEPTH * 10)
#define MAX_PAIR 11u
#define BATCH 4096u

/*
 * Per-thread state costs what the thread uses: the stack array grows with
 * the deepest stack the thread has shown (it is not a fixed 256 frames),
 * and the threads sit in one array, found through a tidmap.
 */
typedef struct bin_thread {
    uint64_t tid;
    uint32_t interp;
    uint32_t depth;
    uint64_t prev_ts;
    uint32_t *stack; /* root first, cap entries */
    uint32_t cap;
} bin_thread;

struct tfmt_bin_reader {
    const tfmt_allocator *alloc;
    tfmt_bin_options opts;
    uint32_t max_threads;
    tfmt_bin_fixed fx;
    tfmt_bin_tables tables;
    tfmt_bin_stream stream;
    bool swap;
    bin_thread *threads;
    size_t nthreads, capthreads;
    tfmt_tidmap thread_map;
    /* An open REPEAT record: its thread, pairs left, a read-ahead pair. */
    uint32_t rep;
    uint32_t rep_left;
    bool have_pending;
    uint64_t pend_ts;
    uint8_t pend_status;
    bool mixed; /* REPEAT batches keep every status */
    /* the last batch stopped at BATCH timestamps, with this status */
    bool rep_cut;
    uint8_t cut_status;
    uint64_t ts[BATCH];
    uint8_t st[BATCH];  /* with `mixed`: each sample's status */
    const uint8_t *raw; /* with `mixed`: the batch's pairs as they
                           are in the window, or NULL */
    size_t raw_len;     /* their bytes */
    uint32_t empty[1];  /* the stack of a thread with none yet */
    tfmt_sample sample;
    uint64_t samples_read;
    bool noted_pop; /* TFMT_NOTE_POP_BEYOND given */
    bool noted_ts;  /* TFMT_NOTE_TIMESTAMP given */
    /* A slice (bin_slice.c) reads one part of the region for a caller
     * that decodes the parts on several threads: its threads may start
     * with placeholder stacks, its tables are the parent's, the sample
     * count is checked by the caller, and a note, or a timestamp that
     * only the whole file can judge, sets `odd` instead of being given
     * (the caller then reads the file whole, which gives it). */
    bool slice;
    bool odd;
    uint64_t dmask; /* UINT64_MAX in a slice: a delta past 2^63-1 is
                       odd there (it could wrap a clock whose start
                       the slice does not know) */
    int state;      /* TFMT_OK, TFMT_DONE or the error code */
    tfmt_error err;
};

#endif
