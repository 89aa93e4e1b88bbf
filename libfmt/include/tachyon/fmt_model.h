/* SPDX-License-Identifier: MIT */
/*
 * tachyon/fmt_model.h - the sample model every codec and tool meets at.
 *
 * A Tachyon profile is a header (tfmt_info), a string table, a frame table
 * (tfmt_frame: file, function, line span, column span, opcode) and a stream
 * of thread-samples (tfmt_sample).
 *
 * STACK ORDER: everywhere in this library a stack is an array of frame
 * indices ROOT FIRST: stack[0] is the outermost frame, stack[depth - 1] the
 * leaf (innermost, currently executing) frame. CPython's own APIs list frames
 * innermost first; root-first order makes "the outermost N frames did not
 * change" a prefix, which is what the binary log's delta encodings share.
 */
#ifndef TACHYON_FMT_MODEL_H
#define TACHYON_FMT_MODEL_H

#include "fmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits of the binary format (CPython's MAX_STACK_DEPTH). */
#define TFMT_MAX_DEPTH 256

/*
 * How a run id was derived (tfmt_bin_run_id). A ClickHouse row carries it
 * (column run_id_version), so a fleet tells ids made by different
 * versions apart: 1 was tachyon 0.1's tfmt_bin_fingerprint (header,
 * footer, tables and size only), 2 is tfmt_bin_run_id (every byte of the
 * log), and 0 an id the user chose (--run-id).
 */
#define TFMT_RUN_ID_VERSION 2

/* Sentinels in tfmt_frame. */
#define TFMT_NO_LOCATION (-1) /* lineno/end_lineno/column/end_column n/a */
#define TFMT_NO_OPCODE 255

/* Thread status bits (the sample's status byte). */
#define TFMT_STATUS_HAS_GIL 0x01
#define TFMT_STATUS_ON_CPU 0x02
#define TFMT_STATUS_UNKNOWN 0x04
#define TFMT_STATUS_GIL_REQUESTED 0x08
#define TFMT_STATUS_HAS_EXCEPTION 0x10
#define TFMT_STATUS_MAIN_THREAD 0x20

/* Profiling modes (header config word stores mode + 1; 0 = unknown). */
typedef enum {
    TFMT_MODE_UNKNOWN = -1,
    TFMT_MODE_WALL = 0,
    TFMT_MODE_CPU = 1,
    TFMT_MODE_GIL = 2,
    TFMT_MODE_ALL = 3,
    TFMT_MODE_EXCEPTION = 4
} tfmt_mode;

/*
 * Capture feature bits (tfmt_info.capture_features), as CPython's
 * binary_collector.CAPTURE_FEATURES: what the recorder was asked to add.
 */
#define TFMT_CAPTURE_ALL_THREADS 0x01
#define TFMT_CAPTURE_NATIVE 0x02 /* "<native>" frames */
#define TFMT_CAPTURE_GC 0x04     /* "<GC>" frames */
#define TFMT_CAPTURE_OPCODES 0x08
#define TFMT_CAPTURE_BLOCKING 0x10

/* "wall", "cpu", ... or NULL for TFMT_MODE_UNKNOWN / out of range. */
TFMT_API const char *tfmt_mode_name(int mode);

/*
 * CPython's name for the opcode byte `op` of a frame recorded under Python
 * major.minor (tables for 3.11 to 3.15), specialised and instrumented
 * variants under their own names as dis shows them ("LOAD_ATTR_SLOT").
 * NULL when that version is not known or has no such opcode (and for
 * TFMT_NO_OPCODE). The string is static.
 */
TFMT_API const char *tfmt_opcode_name(unsigned major, unsigned minor,
                                      unsigned op);

/*
 * The instruction `op` is a specialised form of (LOAD_ATTR for
 * LOAD_ATTR_SLOT, as CPython's opcode._specializations says), `op` itself
 * for any other opcode, TFMT_NO_OPCODE when unknown.
 */
TFMT_API unsigned tfmt_opcode_base(unsigned major, unsigned minor, unsigned op);

/*
 * How many inline cache code units follow instruction `op` in that
 * version's bytecode (instrumented variants as their instruction), or -1
 * when the byte cannot say (INSTRUMENTED_LINE and the like keep the real
 * opcode elsewhere) or is unknown.
 */
TFMT_API int tfmt_opcode_cache_units(unsigned major, unsigned minor,
                                     unsigned op);

/* Binary header layouts that say format version 1. */
typedef enum {
    TFMT_LAYOUT_U32_COUNT = 1, /* sample count u32 at 28, tables at 36/44 */
    TFMT_LAYOUT_U64_COUNT = 2  /* sample count u64 at 28, config at 60 */
} tfmt_layout;

/* Compression of the binary log's sample region. */
typedef enum {
    TFMT_COMPRESSION_NONE = 0,
    TFMT_COMPRESSION_ZSTD = 1
} tfmt_compression;

/* Presence bits of the optional statistics fields. */
#define TFMT_STATS_HAS_ERROR_RATE 0x01
#define TFMT_STATS_HAS_MISSED 0x02

/* The optional TACHSTAT profile-statistics block. */
typedef struct tfmt_stats {
    bool present;       /* block found / to be written */
    uint32_t size;      /* 32 (duration + rate only) or 56 */
    uint32_t version;   /* extension version, 1 */
    double duration_s;  /* measured duration, seconds */
    double sample_rate; /* measured samples per second */
    double error_rate;  /* failed samples, percent (flag bit 0) */
    double missed;      /* missed samples, percent (flag bit 1) */
    uint32_t flags;     /* TFMT_STATS_HAS_* */
} tfmt_stats;

/* Everything the binary header, footer and statistics block say. */
typedef struct tfmt_info {
    uint32_t format_version;   /* 1 */
    uint8_t python_version[3]; /* major, minor, micro of the writer */
    uint64_t start_time_us;    /* monotonic clock, microseconds */
    uint64_t sample_interval_us;
    uint64_t sample_count; /* declared thread-samples */
    uint32_t thread_count; /* declared (thread, interpreter) pairs */
    uint32_t string_count;
    uint32_t frame_count;
    uint32_t compression; /* tfmt_compression */
    uint32_t config;      /* raw profiling config word (0 = unknown) */
    int mode;             /* tfmt_mode decoded from config */
    int capture_features; /* feature bits, -1 when not recorded */
    tfmt_layout layout;
    bool big_endian; /* byte order of the file */
    uint64_t file_size;
    uint64_t string_table_offset;
    uint64_t frame_table_offset;
    tfmt_stats stats;
} tfmt_info;

/* A string borrowed from a table: not NUL-terminated, may hold any bytes. */
typedef struct tfmt_str {
    const char *ptr;
    size_t len;
} tfmt_str;

/* One frame-table entry. Strings are indices into the string table. */
typedef struct tfmt_frame {
    uint32_t filename;
    uint32_t funcname;
    int32_t lineno; /* TFMT_NO_LOCATION: synthetic frame */
    int32_t end_lineno;
    int32_t column;
    int32_t end_column;
    uint8_t opcode; /* TFMT_NO_OPCODE when unknown */
} tfmt_frame;

/* Record encodings of the binary log. */
typedef enum {
    TFMT_ENC_REPEAT = 0,
    TFMT_ENC_FULL = 1,
    TFMT_ENC_SUFFIX = 2,
    TFMT_ENC_POP_PUSH = 3
} tfmt_encoding;

/*
 * One or more thread-samples of one thread with the same stack and status.
 * `weight` timestamps are listed; a REPEAT run is split into batches of
 * equal status (as CPython's replay does) and, to keep memory bounded, of
 * at most a few thousand timestamps each (`continued` marks the pieces
 * after the first of such a cut run).
 */
typedef struct tfmt_sample {
    uint64_t thread_id;
    uint32_t interpreter_id;
    uint32_t thread_index; /* dense 0..n-1, order of first appearance */
    uint8_t status;        /* TFMT_STATUS_* bits */
    uint8_t encoding;      /* tfmt_encoding of the source record */
    /*
     * 1: this batch continues the previous one (same REPEAT record, same
     * status), cut only by the batch size; CPython's replay hands the
     * whole run to one collect() call. 0 otherwise.
     */
    uint8_t continued;
    uint32_t weight;            /* number of timestamps, >= 1 */
    const uint64_t *timestamps; /* absolute, microseconds */
    const uint32_t *stack;      /* frame indices, ROOT FIRST */
    uint32_t depth;
    /*
     * A lower bound on how many outermost frames equal those of this
     * thread's previous sample: exact for REPEAT (depth), SUFFIX and
     * POP_PUSH records (the frames they keep), 0 for FULL.
     */
    uint32_t unchanged;
} tfmt_sample;

#ifdef __cplusplus
}
#endif
#endif
