/* SPDX-License-Identifier: MIT */
/*
 * tachyon/fmt_error.h - status codes, error records and the allocator hook.
 *
 * Ownership rule for the whole library: every handle returned through an
 * `out` parameter belongs to the caller and is released with its `_free`
 * function (NULL is always a no-op); every pointer a handle returns from a
 * getter is borrowed and stays valid until the next call that advances or
 * frees that handle.
 *
 * Error rule for the whole library: the handle you called owns the error.
 * After a negative status, the details are in the `_error` function of the
 * handle the failed function is named after (tfmt_profile_error after
 * tfmt_profile_add_bin or tfmt_profile_write_jsonl). A handle that failed
 * because a handle it uses failed (a profile's or flat's reader, an
 * exporter's or writer's sink, tfmt_bin_copy's reader) holds a copy of
 * that handle's error, so a caller checks one handle. Functions with a
 * `tfmt_error *err` argument (those that create a handle, a source's
 * reads, tfmt_detect) fill that instead.
 */
#ifndef TACHYON_FMT_ERROR_H
#define TACHYON_FMT_ERROR_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#if defined(TFMT_BUILDING) && defined(__GNUC__)
#define TFMT_API __attribute__((visibility("default")))
#else
#define TFMT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. Append-only: values are never renumbered or reused. */
typedef enum {
    TFMT_OK = 0,
    TFMT_DONE = 1,      /* iteration finished; not an error */
    TFMT_EINVAL = -1,   /* invalid argument or call order */
    TFMT_ENOMEM = -2,   /* allocation failed */
    TFMT_EIO = -3,      /* system I/O error; see sys_errno */
    TFMT_EFORMAT = -4,  /* corrupt data */
    TFMT_ETRUNC = -5,   /* data ends early */
    TFMT_EVERSION = -6, /* unsupported format or record version */
    TFMT_ELIMIT = -7,   /* a configured or format limit was exceeded */
    TFMT_ESCHEMA = -8   /* well-formed data that breaks a schema rule */
} tfmt_status;

/*
 * What a reader's error says about the input beyond its message: the kind
 * of next step that can help, which a tool names in its own words (the
 * library knows no tools). Append-only.
 */
typedef enum {
    TFMT_HINT_NONE = 0,    /* nothing more to learn or do: not a profile,
                              an empty file, a version, a format's own
                              limit, I/O */
    TFMT_HINT_CHECK = 1,   /* a profile with damaged contents: a full
                              check of the input reports every problem */
    TFMT_HINT_RECOVER = 2, /* a binary log whose end is missing (cut
                              short, or never finished because its
                              recorder was killed), read from a plain
                              file: a recorder's recovery data may
                              restore it */
    /* A limit the caller sets (tfmt_source_set_limits, max_threads) was
       exceeded: for an input it trusts, it may raise that limit. */
    TFMT_HINT_MAX_SIZE = 3,   /* the source's max_size */
    TFMT_HINT_MAX_RATIO = 4,  /* the source's max_ratio */
    TFMT_HINT_MAX_THREADS = 5 /* tfmt_bin_options.max_threads */
} tfmt_hint;

/* Where an error or finding is located. */
typedef struct tfmt_error {
    int code;        /* a tfmt_status, < 0 */
    int sys_errno;   /* errno for TFMT_EIO, else 0 */
    int check;       /* which check failed: a codec's own enum
                        (tfmt_bin_check for binary logs), 0 if none */
    bool has_offset; /* `offset` is meaningful */
    uint8_t hint;    /* a tfmt_hint, set by the readers (binary, JSONL,
                        rows) on the errors they return; 0 elsewhere.
                        (In what was padding: the layout is unchanged.) */
    uint64_t offset; /* byte offset in the (decompressed) input */
    uint64_t line;   /* 1-based line for line formats, 0 if none */
    char msg[256];   /* one line, lowercase start allowed, no period */
} tfmt_error;

/* A static English name for a status code ("corrupt data", ...). */
TFMT_API const char *tfmt_strerror(int code);

/*
 * Optional allocator, passed per handle in the options structs. A NULL
 * pointer or NULL members mean the C library's malloc/realloc/free. `ctx` is
 * handed back to every call. Tests use this to fail the Nth allocation.
 */
typedef struct tfmt_allocator {
    void *(*malloc_fn)(size_t size, void *ctx);
    void *(*realloc_fn)(void *ptr, size_t size, void *ctx);
    void (*free_fn)(void *ptr, void *ctx);
    void *ctx;
} tfmt_allocator;

/* The library version, "MAJOR.MINOR.PATCH", of the code actually linked. */
TFMT_API const char *tfmt_version(void);

#ifdef __cplusplus
}
#endif
#endif
