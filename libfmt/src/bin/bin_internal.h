/* SPDX-License-Identifier: MIT */
/*
 * bin_internal.h - private pieces of the binary reader: header and footer
 * parsing (bin_header.c), the string and frame tables (bin_tables.c), the
 * sample-region byte stream (bin_stream.c) and the record decoder
 * (bin_reader.c).
 */
#ifndef TFMT_BIN_INTERNAL_H
#define TFMT_BIN_INTERNAL_H

#include <tachyon/fmt_bin.h>

#include "io_internal.h"

#define TFMT_BIN_MAGIC 0x54414348u
#define TFMT_BIN_MAGIC_SWAPPED 0x48434154u
#define TFMT_BIN_VERSION 1u
#define TFMT_BIN_HEADER_SIZE 64u
#define TFMT_BIN_FOOTER_SIZE 32u
#define TFMT_BIN_RECORD_HEADER 13u
#define TFMT_BIN_MIN_FRAME_ENTRY 7u
#define TFMT_STATS_SIGNATURE "TACHSTAT"
#define TFMT_STATS_MIN_SIZE 32u
#define TFMT_STATS_FULL_SIZE 56u

/* Everything learnt from the fixed-size parts of a file. */
typedef struct tfmt_bin_fixed {
    tfmt_info info;
    uint64_t tables_end; /* where the frame table must end */
    uint8_t header[TFMT_BIN_HEADER_SIZE];
    uint8_t footer[TFMT_BIN_FOOTER_SIZE];
} tfmt_bin_fixed;

/*
 * Parse and check header, footer and statistics block of a file of
 * `file_size` bytes. Reports findings through `note`. Located errors.
 */
int tfmt__bin_read_fixed(tfmt_bin_fixed *fx, tfmt_source *src,
                         uint64_t file_size, tfmt_note_fn note, void *note_ctx,
                         tfmt_error *err);

/*
 * Before a stream is spooled: refuse what cannot be a binary log from its
 * first bytes (magic, version), with the message a whole file would get.
 * Inputs shorter than a header and a footer pass (their size is their
 * fault, and costs nothing to spool).
 */
int tfmt__bin_precheck(tfmt_source *src, tfmt_error *err);

/*
 * Give a reader's error its tfmt_hint (bin_header.c): RECOVER as the
 * header checks found it (NONE when `src`, which may be NULL, was
 * decompressed); else CHECK for damaged contents (not for a wrong magic
 * or version, nor a corrupt whole-file compression); the limits keep
 * theirs; NONE for the rest.
 */
void tfmt__bin_hint(tfmt_error *err, const tfmt_source *src);

/* The string and frame tables, loaded whole (bounded by the file size). */
typedef struct tfmt_bin_tables {
    const tfmt_allocator *alloc;
    uint8_t *strbytes; /* the raw string-table region */
    uint64_t *stroff;  /* string i at strbytes + stroff[i] */
    uint32_t *strlen_;
    uint32_t nstrings;
    tfmt_frame *frames;
    uint8_t *frame_ok; /* 1 when both string indices are valid */
    uint32_t nframes;
    uint64_t hash[2]; /* of the table bytes, for fingerprints */
} tfmt_bin_tables;

int tfmt__bin_load_tables(tfmt_bin_tables *t, tfmt_source *src,
                          const tfmt_bin_fixed *fx, tfmt_error *err);
void tfmt__bin_free_tables(tfmt_bin_tables *t);

/*
 * The decompressed sample region as a sliding window. `tfmt__bin_stream_fill`
 * makes at least `need` bytes available from `pos` if the region has them,
 * moving the unread tail to the front of the window first.
 */
typedef struct tfmt_bin_stream {
    const tfmt_allocator *alloc;
    tfmt_source *src;
    uint64_t next_in; /* next compressed/raw file offset to read */
    uint64_t end_in;  /* string table offset: end of the region */
    bool zstd;
    void *dctx;  /* ZSTD_DCtx */
    uint8_t *in; /* compressed input buffer */
    size_t in_len, in_pos, in_cap;
    size_t zret;        /* last ZSTD_decompressStream result */
    bool zstarted;      /* the decoder has produced or consumed */
    const uint8_t *mem; /* zero-copy region of a memory source */
    uint8_t *win;       /* window buffer */
    size_t win_cap;
    const uint8_t *pos, *end; /* unread bytes */
    uint64_t base;            /* region offset of win[0] / mem[0] */
    bool eof;                 /* no more bytes will come */
} tfmt_bin_stream;

int tfmt__bin_stream_open(tfmt_bin_stream *s, tfmt_source *src,
                          const tfmt_info *info, const tfmt_allocator *a,
                          tfmt_error *err);
/*
 * A stream of region bytes [from, to) only (offsets in the region): the
 * parts of a region that several threads decode. `from` must be 0 when
 * the region is compressed.
 */
int tfmt__bin_stream_open_range(tfmt_bin_stream *s, tfmt_source *src,
                                uint64_t from, uint64_t to, bool zstd,
                                const tfmt_allocator *a, tfmt_error *err);
int tfmt__bin_stream_fill(tfmt_bin_stream *s, size_t need, tfmt_error *err);
void tfmt__bin_stream_close(tfmt_bin_stream *s);

/* Region offset of the next unread byte. */
static inline uint64_t tfmt__bin_stream_offset(const tfmt_bin_stream *s)
{
    const uint8_t *start = s->mem ? s->mem : s->win;
    return s->base + (uint64_t)(s->pos - start);
}

/*
 * For bin_copy.c: REPEAT batches are no longer split where the status
 * changes; tfmt__bin_statuses then gives the status of each timestamp of
 * the current batch (NULL when the batch is not a REPEAT).
 */
void tfmt__bin_mixed_repeats(tfmt_bin_reader *r);
const uint8_t *tfmt__bin_statuses(const tfmt_bin_reader *r);
/*
 * With mixed repeats: the current REPEAT batch's (delta, status) pairs as
 * the file has them, when each delta is a shortest-form varint (which is
 * how a writer encodes it) and they are still in the window; NULL
 * otherwise. *len gets their length in bytes. Valid until the next
 * tfmt_bin_next.
 */
const uint8_t *tfmt__bin_raw_pairs(const tfmt_bin_reader *r, size_t *len);

#endif
