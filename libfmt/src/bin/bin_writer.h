/* SPDX-License-Identifier: MIT */
/*
 * bin_writer.h - private state of the binary log writer, shared by
 * bin_writer*.c and bin_copy.c. Never installed.
 */
#ifndef TFMT_BIN_WRITER_H
#define TFMT_BIN_WRITER_H

#include <tachyon/fmt_bin.h>

#include "io_internal.h"

/* CPython's constants (binary_io.h / binary_io_writer.c). */
#define TFMT_BW_HEADER_SIZE 64
#define TFMT_BW_FOOTER_SIZE 32
#define TFMT_BW_BUFFER_SIZE (512 * 1024) /* sample buffer, zstd chunk */
#define TFMT_BW_RLE_SIZE (16 * 1024)     /* per-thread pending REPEATs */
#define TFMT_BW_RLE_ENTRY 11             /* varint u64 + status byte */
#define TFMT_BW_RECORD_HEAD 13           /* thread, interpreter, enc */

/*
 * Where the writer's bytes go. The public open wires these to a tfmt_sink;
 * tests may substitute memory. On failure a callback fills `err`.
 */
typedef int (*tfmt_bw_write_fn)(void *ctx, const void *buf, size_t len,
                                tfmt_error *err);
typedef int (*tfmt_bw_pwrite_fn)(void *ctx, const void *buf, size_t len,
                                 uint64_t offset, tfmt_error *err);

/*
 * One (thread_id, interpreter_id) pair, in creation order. Its memory is
 * what it uses: the stack array grows with the deepest stack the thread
 * showed, the pending REPEAT pairs with the group being collected (up to
 * CPython's TFMT_BW_RLE_SIZE, where the group is written).
 */
typedef struct tfmt_bw_thread {
    uint64_t thread_id;
    uint32_t interpreter_id;
    uint32_t depth; /* previous stack depth */
    uint64_t prev_ts;
    uint32_t *stack; /* previous stack, ROOT first */
    uint32_t cap;
    uint32_t pending_count;
    uint8_t *pending; /* REPEAT pairs of the open group */
    uint32_t pending_bytes, pending_cap;
} tfmt_bw_thread;

/* Records written per encoding (REPEAT counts records, not samples). */
typedef struct tfmt_bw_counts {
    uint64_t records[4]; /* indexed by tfmt_encoding */
    uint64_t repeat_samples;
} tfmt_bw_counts;

struct tfmt_bin_writer {
    const tfmt_allocator *alloc;
    tfmt_bw_write_fn write;
    tfmt_bw_pwrite_fn pwrite;
    void *out_ctx;
    tfmt_bin_writer_options opts;
    tfmt_error err;
    int failed; /* sticky status after an output error */
    bool limit; /* a format limit was hit: finish only */
    bool finished;
    uint64_t pos;         /* where the next output byte lands */
    bool in_place;        /* checkpointed: bytes go by pwrite at pos */
    bool trailer_on_disk; /* a checkpoint's header points at a trailer
                             the next bytes would overwrite */

    /* sample buffer and optional zstd stream */
    uint8_t *buf;
    size_t buf_len;
    bool raw;    /* past the sample region: no compression */
    void *zcctx; /* ZSTD_CCtx */
    uint8_t *zout;
    size_t zout_cap;

    /* strings: bytes in one arena */
    tfmt_buf str_bytes;
    uint64_t *str_off;
    uint32_t *str_len;
    size_t str_cap;
    uint32_t str_count;
    tfmt_idset str_set;

    /* frames */
    tfmt_frame *frames;
    size_t frame_cap;
    uint32_t frame_count;
    tfmt_idset frame_set;

    /* threads */
    tfmt_bw_thread *threads;
    size_t thread_cap;
    uint32_t thread_count;
    tfmt_tidmap thread_map;

    uint64_t samples;
    tfmt_stats stats;
    tfmt_bw_counts counts;

    /* format limits, lowered by tests to reach them */
    uint32_t max_strings;
    uint32_t max_frames;
    uint32_t max_threads;
};

/* Open with explicit output callbacks (tests, the public open). */
int tfmt__bin_writer_open_cb(tfmt_bin_writer **out, tfmt_bw_write_fn write,
                             tfmt_bw_pwrite_fn pwrite, void *ctx,
                             const tfmt_bin_writer_options *opts,
                             tfmt_error *err);

/* Lower the u32 limits so tests can reach them. */
void tfmt__bin_writer_set_limits(tfmt_bin_writer *w, uint32_t strings,
                                 uint32_t frames, uint32_t threads);

/*
 * Write `thread`'s pending REPEAT group now, if it has one (bin_copy.c
 * uses this to place each copied REPEAT record where the source had it).
 */
int tfmt__bin_writer_flush_thread(tfmt_bin_writer *w, uint64_t thread_id,
                                  uint32_t interpreter_id);

/*
 * The copy's fast path (bin_copy.c). A thread is named by its index,
 * found or created by tfmt__bw_thread; the samples then skip the lookup,
 * and the stack comparison starts where the caller knows the stacks
 * still agree. Output bytes are those of tfmt_bin_writer_sample.
 */
int tfmt__bw_thread(tfmt_bin_writer *w, uint64_t thread_id,
                    uint32_t interpreter_id, uint32_t *out);
/*
 * `n` samples of thread `ti` whose stack equals the thread's previous one:
 * REPEAT pairs only. Sample i has status st[i], or `status` if st is NULL.
 */
int tfmt__bw_repeat(tfmt_bin_writer *w, uint32_t ti, const uint64_t *ts,
                    const uint8_t *st, uint32_t n, uint8_t status);
/*
 * The same for `n` samples given as the pairs a writer would encode for
 * them (`len` bytes at raw: shortest-form deltas from the thread's
 * previous timestamp, each with its status byte); `last` is the last
 * sample's timestamp. The group is still cut where CPython's 16 KiB rule
 * says.
 */
int tfmt__bw_repeat_raw(tfmt_bin_writer *w, uint32_t ti, const uint8_t *raw,
                        size_t len, uint32_t n, uint64_t last);
/*
 * tfmt__bw_repeat_raw for a caller that knows the group ends with these
 * pairs (the copy, which sees that the next record is not a REPEAT of
 * the same thread): with no group open and the pairs within CPython's
 * 16 KiB, they are written at once as the REPEAT record that the group
 * would become, and *done is set; otherwise nothing happens.
 */
int tfmt__bw_repeat_group(tfmt_bin_writer *w, uint32_t ti, const uint8_t *raw,
                          size_t len, uint32_t n, uint64_t last, bool *done);
/*
 * One sample of thread `ti`: its previous stack with the frames from
 * `keep` on replaced by fresh[0 .. depth - keep) (writer frame ids, root
 * first); depth is at most TFMT_MAX_DEPTH, and the caller knows the first
 * `keep` frames equal the previous stack's.
 */
int tfmt__bw_sample_tail(tfmt_bin_writer *w, uint32_t ti, uint64_t ts,
                         uint8_t status, uint32_t keep, const uint32_t *fresh,
                         uint32_t depth);
/* Write thread `ti`'s pending REPEAT group now, if it has one. */
int tfmt__bw_flush_index(tfmt_bin_writer *w, uint32_t ti);

/* Record counts per encoding so far (bench and tests). */
const tfmt_bw_counts *tfmt__bin_writer_counts(const tfmt_bin_writer *w);

/* TFMT_OK when the writer accepts input, else the status to return. */
int tfmt__bw_check_open(tfmt_bin_writer *w);
/* Enter the sticky "limit reached" state (finish still works). */
int tfmt__bw_limit(tfmt_bin_writer *w, const char *what);

/* Write every pending REPEAT group, in thread-creation order. */
int tfmt__bw_flush_all(tfmt_bin_writer *w);

/* ---- bin_writer_out.c: the byte stream ---- */
int tfmt__bw_out_init(tfmt_bin_writer *w);
void tfmt__bw_out_free(tfmt_bin_writer *w);
/* Append to the current region (compressed while in the sample region). */
int tfmt__bw_out_put(tfmt_bin_writer *w, const void *p, size_t n);
/*
 * tfmt__bw_out_put, inline for the bytes that leave room in the buffer
 * (a record at a time): a buffer that fills still goes on from
 * tfmt__bw_out_put, so the output is handed on in the same pieces.
 */
static inline int tfmt__bw_put(tfmt_bin_writer *w, const void *p, size_t n)
{
    if (n >= TFMT_BW_BUFFER_SIZE - w->buf_len)
        return tfmt__bw_out_put(w, p, n);
    memcpy(w->buf + w->buf_len, p, n);
    w->buf_len += n;
    return TFMT_OK;
}
/* End the sample region: flush, end the zstd frame, switch to raw. */
int tfmt__bw_out_end_samples(tfmt_bin_writer *w);
/* Flush buffered raw bytes; the next byte lands at w->pos. */
int tfmt__bw_out_flush(tfmt_bin_writer *w);
/* Mark the writer failed with `code` (sticky) and return it. */
int tfmt__bw_fail(tfmt_bin_writer *w, int code);

/* ---- bin_writer_intern.c: string and frame tables ---- */
int tfmt__bw_intern_init(tfmt_bin_writer *w);
void tfmt__bw_intern_free(tfmt_bin_writer *w);
/*
 * Intern a frame, reusing an equal one only if its id is below
 * `reuse_below`; otherwise an equal frame gets a new entry (a copy keeps
 * the source's distinct-but-equal entries apart this way).
 */
int tfmt__bw_frame_intern(tfmt_bin_writer *w, const tfmt_frame *f,
                          uint32_t reuse_below, uint32_t *out);
int tfmt__bw_write_tables(tfmt_bin_writer *w, uint64_t *str_off,
                          uint64_t *frame_off);

#endif
