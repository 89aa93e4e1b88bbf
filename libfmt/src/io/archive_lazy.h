/* SPDX-License-Identifier: MIT */
/*
 * archive_lazy.h - libarchive, loaded the first time a stream needs it.
 *
 * Linking libarchive costs every tool start about 20 shared libraries
 * (libxml2, ICU, libstdc++, nettle, ...) and some 10 ms of CPU, while a
 * regular uncompressed file, the common input, never calls into it. So
 * libfmt does not link it: tfmt__archive_load dlopens it on first use and
 * the callers reach it through the table tfmt__ar() returns.
 */
#ifndef TFMT_ARCHIVE_LAZY_H
#define TFMT_ARCHIVE_LAZY_H

#include <archive.h>
#include <archive_entry.h>

#include "io_internal.h"

/* Every libarchive function libfmt calls (source.c, sink.c, export_pprof.c). */
#define TFMT_ARCHIVE_FUNCS(X)                                                  \
    X(archive_errno)                                                           \
    X(archive_error_string)                                                    \
    X(archive_set_error)                                                       \
    X(archive_filter_code)                                                     \
    X(archive_read_new)                                                        \
    X(archive_read_free)                                                       \
    X(archive_read_support_filter_gzip)                                        \
    X(archive_read_support_filter_zstd)                                        \
    X(archive_read_support_filter_xz)                                          \
    X(archive_read_support_filter_bzip2)                                       \
    X(archive_read_support_format_raw)                                         \
    X(archive_read_support_format_empty)                                       \
    X(archive_read_open)                                                       \
    X(archive_read_next_header)                                                \
    X(archive_read_data_block)                                                 \
    X(archive_write_new)                                                       \
    X(archive_write_free)                                                      \
    X(archive_write_add_filter_by_name)                                        \
    X(archive_write_add_filter_gzip)                                           \
    X(archive_write_set_format_raw)                                            \
    X(archive_write_set_bytes_in_last_block)                                   \
    X(archive_write_set_filter_option)                                         \
    X(archive_write_open2)                                                     \
    X(archive_write_header)                                                    \
    X(archive_write_data)                                                      \
    X(archive_write_close)                                                     \
    X(archive_entry_new)                                                       \
    X(archive_entry_free)                                                      \
    X(archive_entry_set_pathname)                                              \
    X(archive_entry_set_filetype)

/* Pointers with the prototypes of archive.h, named as the functions. */
typedef struct tfmt_archive_api {
#define TFMT_ARCHIVE_MEMBER(f) __typeof__(f) *f;
    TFMT_ARCHIVE_FUNCS(TFMT_ARCHIVE_MEMBER)
#undef TFMT_ARCHIVE_MEMBER
} tfmt_archive_api;

/*
 * Load libarchive once per process (thread-safe). TFMT_OK, or TFMT_EIO
 * with "cannot load libarchive: ..." in `err` (which may be NULL).
 */
int tfmt__archive_load(tfmt_error *err);

/* The table; only after a tfmt__archive_load that returned TFMT_OK. */
const tfmt_archive_api *tfmt__ar(void);

#endif
