/* SPDX-License-Identifier: MIT */
/*
 * tachyon/fmt_bin.h - the Tachyon binary sample log ("TACH"), read and
 * written with memory bounded by the unique strings, frames and threads.
 *
 * The reader accepts every layout CPython has written with format version 1
 * (u32 or u64 sample-count header, with or without the 32- or 56-byte
 * statistics block, zstd or uncompressed, either byte order). The writer
 * writes the newest layout; uncompressed, its bytes equal CPython's writer's
 * for the same sample sequence.
 */
#ifndef TACHYON_FMT_BIN_H
#define TACHYON_FMT_BIN_H

#include "fmt_model.h"
#include "fmt_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Reader                                                              */
/* ------------------------------------------------------------------ */

typedef struct tfmt_bin_reader tfmt_bin_reader;

/*
 * The checks a binary reader makes, reported in tfmt_error.check so a
 * validator can give each a stable rule id. Append-only.
 */
typedef enum {
    TFMT_BCHK_NONE = 0,
    TFMT_BCHK_FILE_SIZE = 1, /* too small for header or footer */
    TFMT_BCHK_MAGIC = 2,
    TFMT_BCHK_VERSION = 3,
    TFMT_BCHK_LAYOUT = 4, /* no header layout fits the offsets */
    TFMT_BCHK_STRING_OFFSET = 5,
    TFMT_BCHK_FRAME_OFFSET = 6,
    TFMT_BCHK_TABLE_ORDER = 7,  /* string table after frame table */
    TFMT_BCHK_STRING_COUNT = 8, /* more strings than bytes allow */
    TFMT_BCHK_FRAME_COUNT = 9,
    TFMT_BCHK_FOOTER_SIZE = 10,  /* footer file size != real size */
    TFMT_BCHK_STATS = 11,        /* statistics block size or values */
    TFMT_BCHK_STRING_TABLE = 12, /* malformed or overflowing entry */
    TFMT_BCHK_FRAME_TABLE = 13,
    TFMT_BCHK_TRAILING = 14,     /* bytes after the frame table */
    TFMT_BCHK_COMPRESSION = 15,  /* unknown compression id */
    TFMT_BCHK_ZSTD = 16,         /* corrupt or truncated zstd frame */
    TFMT_BCHK_RECORD = 17,       /* truncated sample record */
    TFMT_BCHK_THREAD_COUNT = 18, /* more threads than declared */
    TFMT_BCHK_ENCODING = 19,     /* unknown stack encoding */
    TFMT_BCHK_RLE = 20,          /* bad REPEAT record */
    TFMT_BCHK_VARINT = 21,       /* malformed varint in sample data */
    TFMT_BCHK_DEPTH = 22,        /* stack depth beyond 256 or shared */
    TFMT_BCHK_FRAME_INDEX = 23,
    TFMT_BCHK_STRING_INDEX = 24,
    TFMT_BCHK_SAMPLE_COUNT = 25, /* decoded != declared sample count */
    TFMT_BCHK_MODE = 26,         /* invalid profiling mode in header */
    TFMT_BCHK_INPUT = 27,        /* whole-file compression corrupt or
                                    truncated (while spooling the input) */
    TFMT_BCHK_THREAD_LIMIT = 28  /* more distinct threads than the
                                    reader's max_threads */
} tfmt_bin_check;

/* Non-fatal findings a reader reports through tfmt_bin_options.on_note. */
typedef enum {
    TFMT_NOTE_THREAD_COUNT = 1,    /* header declares more threads than seen */
    TFMT_NOTE_CHECKSUM = 2,        /* footer checksum bytes are not zero */
    TFMT_NOTE_RESERVED = 3,        /* a reserved header byte is not zero */
    TFMT_NOTE_STATS_VERSION = 4,   /* statistics block of an unknown version */
    TFMT_NOTE_COMPRESSION = 5,     /* compression id > 1, read as none */
    TFMT_NOTE_POP_BEYOND = 6,      /* a POP_PUSH pops more frames than the
                                      stack holds: read as popping them all,
                                      as CPython's reader does (first one
                                      only) */
    TFMT_NOTE_CONFIG_RESERVED = 7, /* reserved bits of the header's
                                      profiling config word are set */
    TFMT_NOTE_TIMESTAMP = 8        /* a timestamp past 2^63 - 1 us: the
                                      deltas overflow a signed clock (read
                                      as unsigned, as CPython does; first
                                      one only) */
} tfmt_note;

typedef void (*tfmt_note_fn)(void *ctx, tfmt_note kind,
                             const tfmt_error *where);

/*
 * The default limit on distinct (thread id, interpreter id) pairs: each
 * costs a reader (and every model built from it) some memory, and a few
 * kilobytes of zstd data can name millions of them. Beyond the limit the
 * reader fails with TFMT_ELIMIT and TFMT_BCHK_THREAD_LIMIT at the record
 * that names one too many.
 */
#define TFMT_BIN_MAX_THREADS 50000u

#define TFMT_BIN_OPTIONS_VERSION 2
typedef struct tfmt_bin_options {
    unsigned version;            /* TFMT_BIN_OPTIONS_VERSION */
    const tfmt_allocator *alloc; /* NULL: libc */
    tfmt_note_fn on_note;        /* NULL: findings are dropped */
    void *note_ctx;
    /* version 2: distinct threads accepted; 0: TFMT_BIN_MAX_THREADS,
     * UINT32_MAX: only the header's declared count limits them */
    uint32_t max_threads;
} tfmt_bin_options;
/* A braced initializer, which clang-format takes for a block. */
/* clang-format off */
#define TFMT_BIN_OPTIONS_INIT {TFMT_BIN_OPTIONS_VERSION, NULL, NULL, NULL, 0}
/* clang-format on */

/*
 * Open a binary log: check header and footer, load the string and frame
 * tables and prepare to stream samples. The source is borrowed and must
 * outlive the reader; a non-seekable or compressed source is spooled to an
 * unlinked temporary file first. `opts` may be NULL. On failure returns a
 * negative status with `err` filled (err may be NULL) and *out NULL.
 */
TFMT_API int tfmt_bin_open(tfmt_bin_reader **out, tfmt_source *src,
                           const tfmt_bin_options *opts, tfmt_error *err);

/* Header, footer and statistics. Borrowed; never NULL. */
TFMT_API const tfmt_info *tfmt_bin_info(const tfmt_bin_reader *r);

/* String `index`; TFMT_EINVAL when out of range. */
TFMT_API int tfmt_bin_string(const tfmt_bin_reader *r, uint32_t index,
                             tfmt_str *out);

/* Frame `index`, or NULL when out of range. Borrowed. */
TFMT_API const tfmt_frame *tfmt_bin_frame(const tfmt_bin_reader *r,
                                          uint32_t index);

/*
 * Decode the next batch of thread-samples into *out (borrowed until the
 * next call). Returns TFMT_OK, TFMT_DONE after the last sample once every
 * end-of-data check has passed, or a negative status (see tfmt_bin_error).
 * Every frame index in a delivered stack is valid.
 */
TFMT_API int tfmt_bin_next(tfmt_bin_reader *r, const tfmt_sample **out);

/* Thread-samples delivered so far (sum of weights). */
TFMT_API uint64_t tfmt_bin_samples_read(const tfmt_bin_reader *r);

/* Decompressed sample-region bytes consumed so far (progress). */
TFMT_API uint64_t tfmt_bin_bytes_read(const tfmt_bin_reader *r);

/* The error behind the last negative status. */
TFMT_API const tfmt_error *tfmt_bin_error(const tfmt_bin_reader *r);

/*
 * The log's reproducible run id, version TFMT_RUN_ID_VERSION (fmt_model.h;
 * the JSONL run_id and ClickHouse run_id tachyon-conv gives it): a 128-bit hash
 * of every byte of the file (as decompressed, if the whole file was
 * compressed), as 32 lowercase hex digits and a NUL in `out`. Two logs
 * differing in any byte (a sample, the statistics block) get different ids, on
 * any host. It reads the whole file once more (at about memory speed), so call
 * it only when an id is wanted; the reading position is unchanged. Returns
 * TFMT_OK, or TFMT_EIO, TFMT_ETRUNC or TFMT_ENOMEM with tfmt_bin_error filled.
 */
TFMT_API int tfmt_bin_run_id(tfmt_bin_reader *r, char out[33]);

/*
 * Run id version 1: a fingerprint of the header, footer, tables and size
 * only, which logs differing only in their samples or statistics block
 * share. Kept for callers of 0.1; use tfmt_bin_run_id.
 */
TFMT_API void tfmt_bin_fingerprint(const tfmt_bin_reader *r, char out[33]);

TFMT_API void tfmt_bin_free(tfmt_bin_reader *r);

/* ------------------------------------------------------------------ */
/* Writer                                                              */
/* ------------------------------------------------------------------ */

typedef struct tfmt_bin_writer tfmt_bin_writer;

#define TFMT_BIN_WRITER_OPTIONS_VERSION 1
typedef struct tfmt_bin_writer_options {
    unsigned version;            /* TFMT_BIN_WRITER_OPTIONS_VERSION */
    const tfmt_allocator *alloc; /* NULL: libc */
    uint64_t start_time_us;
    uint64_t sample_interval_us;
    uint8_t python_version[3]; /* {0,0,0}: 3.15.0 */
    uint32_t compression;      /* tfmt_compression */
    int zstd_level;            /* 0: CPython's level 5 */
    uint32_t config;           /* raw profiling config word, 0 unknown */
} tfmt_bin_writer_options;
/* A braced initializer, which clang-format takes for a block. */
/* clang-format off */
#define TFMT_BIN_WRITER_OPTIONS_INIT \
    {TFMT_BIN_WRITER_OPTIONS_VERSION, NULL, 0, 0, {0, 0, 0}, 0, 0, 0}
/* clang-format on */

/*
 * Start a log on `sink`, which must have been opened with
 * TFMT_SINK_SEEKABLE and be at offset 0 (the header is written last). The sink
 * is borrowed; the caller finishes and frees it after tfmt_bin_writer_finish.
 */
TFMT_API int tfmt_bin_writer_open(tfmt_bin_writer **out, tfmt_sink *sink,
                                  const tfmt_bin_writer_options *opts,
                                  tfmt_error *err);

/* Intern a string; *out gets its index. Same bytes, same index. */
TFMT_API int tfmt_bin_writer_string(tfmt_bin_writer *w, const char *s,
                                    size_t len, uint32_t *out);

/*
 * Intern a frame whose filename/funcname are indices returned by
 * tfmt_bin_writer_string; *out gets its frame index. As CPython's writer
 * does, frames are deduplicated on the seven fields as given, except that
 * an opcode outside 0..254 first becomes TFMT_NO_OPCODE. An end line or end
 * column of -1 is stored as a zero delta (it reads back equal to its start
 * value) but still keys a frame of its own.
 */
TFMT_API int tfmt_bin_writer_frame(tfmt_bin_writer *w, const tfmt_frame *f,
                                   uint32_t *out);

/*
 * Intern filename, funcname and frame in CPython's order (filename first),
 * for callers that hold strings rather than indices.
 */
TFMT_API int tfmt_bin_writer_location(tfmt_bin_writer *w, const char *filename,
                                      size_t flen, const char *funcname,
                                      size_t nlen, int32_t lineno,
                                      int32_t end_lineno, int32_t column,
                                      int32_t end_column, int opcode,
                                      uint32_t *out);

/*
 * Append one thread-sample. `stack` holds `depth` frame indices ROOT FIRST;
 * only the TFMT_MAX_DEPTH innermost frames are kept, as CPython does. To
 * reproduce CPython's string and frame order, intern a sample's frames
 * innermost first before adding it, and only its TFMT_MAX_DEPTH innermost
 * ones (CPython never interns the frames it drops).
 * After a TFMT_ELIMIT the writer refuses further strings, frames and
 * samples but tfmt_bin_writer_finish still writes a valid log.
 */
TFMT_API int tfmt_bin_writer_sample(tfmt_bin_writer *w, uint64_t thread_id,
                                    uint32_t interpreter_id,
                                    uint64_t timestamp_us, uint8_t status,
                                    const uint32_t *stack, uint32_t depth);

/* Record the statistics block to write (stats->present must be true). */
TFMT_API int tfmt_bin_writer_stats(tfmt_bin_writer *w, const tfmt_stats *stats);

/*
 * Change the sample interval the header will say (the options' value
 * otherwise), e.g. to the interval a recorder actually achieved, so that
 * samples x interval is the time recorded. Before finish only.
 */
TFMT_API int tfmt_bin_writer_set_interval(tfmt_bin_writer *w,
                                          uint64_t interval_us);

/* Thread-samples added so far. */
TFMT_API uint64_t tfmt_bin_writer_samples(const tfmt_bin_writer *w);

/*
 * Write the log as it stands, complete and valid (tables, statistics if
 * set, footer, header), and carry on: the next samples go where this
 * trailer starts, so the file is a valid log after every checkpoint and
 * holds everything added before the last one. The sink must be a file
 * opened with TFMT_SINK_IN_PLACE | TFMT_SINK_SEEKABLE. Pending REPEAT
 * groups are written as records and a zstd frame ends at each checkpoint
 * (CPython's reader decodes the frames one after another), so a
 * checkpointed log is not byte-identical to one written in one go.
 */
TFMT_API int tfmt_bin_writer_checkpoint(tfmt_bin_writer *w);

/*
 * Flush pending samples and write tables, statistics, footer and header.
 * The log is complete only after this returns TFMT_OK.
 */
TFMT_API int tfmt_bin_writer_finish(tfmt_bin_writer *w);

/* The error behind the last negative status (a sink's failure copied). */
TFMT_API const tfmt_error *tfmt_bin_writer_error(const tfmt_bin_writer *w);

/*
 * Copy every remaining sample of `r` into `w`, one thread-sample per
 * timestamp, in file order, interning frames as CPython's writer would (so
 * a zstd log re-encoded uncompressed equals the CPython-written one), and
 * copy r's statistics block if it has one. `w` should have been opened with
 * r's start time, interval, Python version and config word. Returns TFMT_OK
 * or a negative status with tfmt_bin_writer_error(w) filled: the writer is
 * the consumer, so it holds its own error, its sink's or, when reading
 * failed, a copy of the reader's (tfmt_bin_error(r) keeps the original,
 * which tells a caller that the input, not the output, was at fault).
 */
TFMT_API int tfmt_bin_copy(tfmt_bin_reader *r, tfmt_bin_writer *w);

TFMT_API void tfmt_bin_writer_free(tfmt_bin_writer *w);

#ifdef __cplusplus
}
#endif
#endif
