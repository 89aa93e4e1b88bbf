/* SPDX-License-Identifier: MIT */
/*
 * tachyon/fmt_detect.h - what a byte stream is, told from its first bytes:
 * a binary log, a JSONL export (and which dialect), or something no reader
 * of this library accepts. Tools pick a reader with this instead of
 * looking at the bytes themselves.
 */
#ifndef TACHYON_FMT_DETECT_H
#define TACHYON_FMT_DETECT_H

#include "fmt_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kinds of input. Append-only: values are never renumbered or reused. */
typedef enum {
    TFMT_KIND_EMPTY = 0,    /* no bytes at all */
    TFMT_KIND_TEXT = 1,     /* printable text that is neither format */
    TFMT_KIND_DATA = 2,     /* other bytes without a known magic: maybe
                               a damaged binary log (the binary reader
                               says what is wrong), maybe anything */
    TFMT_KIND_BIN = 3,      /* a Tachyon binary log: "TACH", or "HCAT"
                               (written in the other byte order) */
    TFMT_KIND_JSONL = 4,    /* JSONL (starts with '{' or blank space)
                               whose first line names no dialect */
    TFMT_KIND_JSONL_V0 = 5, /* JSONL whose first record has "v": 0,
                               CPython's schema v0 */
    TFMT_KIND_JSONL_V1 = 6, /* JSONL whose first record has "v": 1, the
                               earlier pre-release dialect */
    TFMT_KIND_ROWS = 7      /* ClickHouse rows (fmt_rows.h): JSONL
                               whose first object has a "stack_hash"
                               member and no "type" member */
} tfmt_kind;

/* How many of the first bytes a detection keeps (for messages). */
#define TFMT_DETECT_HEAD 8

typedef struct tfmt_detection {
    tfmt_kind kind;
    size_t head_len;                      /* bytes in `head`: fewer
                                             only for a shorter input */
    unsigned char head[TFMT_DETECT_HEAD]; /* the input's first bytes */
} tfmt_detection;

/*
 * Tell what `src` holds from its first bytes (after whole-file compression
 * was removed) without consuming them: the next read of `src`, or a reader
 * opened on it, starts at the same byte as before. Call it before anything
 * else reads `src`. The JSONL dialect is read from the first line when the
 * source has it in hand; otherwise the kind is TFMT_KIND_JSONL. Returns
 * TFMT_OK with *out filled, or a negative status with `err` filled (may be
 * NULL) when the source cannot be read (TFMT_EIO, or TFMT_EFORMAT /
 * TFMT_ETRUNC for corrupt compression).
 */
TFMT_API int tfmt_detect(tfmt_source *src, tfmt_detection *out,
                         tfmt_error *err);

/*
 * The error for a detection no reader takes, so that every tool says the
 * same: TFMT_KIND_EMPTY gives "file is empty", TFMT_KIND_TEXT "not a
 * Tachyon profile (neither a binary log nor JSONL: first byte 0x68)",
 * both TFMT_EFORMAT with `err` filled (may be NULL). Every other kind has
 * a reader (TFMT_KIND_DATA the binary one, which says what is wrong with
 * those bytes): TFMT_OK, `err` untouched.
 */
TFMT_API int tfmt_detect_error(const tfmt_detection *d, tfmt_error *err);

/* True for the JSONL kinds (any dialect; not ClickHouse rows). */
TFMT_API bool tfmt_kind_is_jsonl(tfmt_kind kind);

/* A static English name: "binary log", "JSONL (schema v0)", ... */
TFMT_API const char *tfmt_kind_name(tfmt_kind kind);

#ifdef __cplusplus
}
#endif
#endif
