/* SPDX-License-Identifier: MIT */
/*
 * tachyon/fmt_io.h - byte sources and sinks.
 *
 * A source delivers the bytes of one input: a path (or "-" for stdin), or a
 * memory buffer. Whole-file gzip, zstd, xz and bzip2 compression is detected
 * by content and removed transparently. A sink receives the bytes of one
 * output: a path (written to a temporary file in the same directory that
 * gets the path's name in tfmt_sink_finish, so a failed run never leaves a
 * partial or clobbered file), or stdout. Where the system has O_TMPFILE
 * (Linux, most local file systems) that file has no name before the
 * commit, so not even SIGKILL leaves one behind; elsewhere it is
 * `PATH.tmp.XXXXXX` (tfmt_sink_temp_path).
 */
#ifndef TACHYON_FMT_IO_H
#define TACHYON_FMT_IO_H

#include "fmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tfmt_source tfmt_source;
typedef struct tfmt_sink tfmt_sink;

/*
 * Open `path` for reading; "-" reads standard input. On failure returns a
 * negative status, fills `err` (which may be NULL) and sets *out to NULL.
 * `alloc` may be NULL.
 */
TFMT_API int tfmt_source_open_path(tfmt_source **out, const char *path,
                                   const tfmt_allocator *alloc,
                                   tfmt_error *err);

/*
 * Read from `size` bytes at `data`, which must outlive the source and is not
 * copied. Sequential reads return at most `chunk` bytes each (0 = no limit),
 * so tests can feed a reader one byte at a time. Compressed data in memory
 * is not decompressed.
 */
TFMT_API int tfmt_source_open_memory(tfmt_source **out, const void *data,
                                     size_t size, size_t chunk,
                                     const tfmt_allocator *alloc);

/*
 * Read up to `cap` bytes from the current position. Sets *got to the count;
 * *got == 0 with TFMT_OK means end of input.
 */
TFMT_API int tfmt_source_read(tfmt_source *src, void *buf, size_t cap,
                              size_t *got, tfmt_error *err);

/*
 * Input limits. A source that is decompressed or read from a pipe stops
 * with TFMT_ELIMIT (located at the decompressed byte reached) once it has
 * delivered more than `max_size` bytes, or more than
 * TFMT_SOURCE_RATIO_FLOOR bytes and over `max_ratio` times the compressed
 * bytes read so far; so a compression bomb or an endless pipe is an error,
 * not a full disk. A binary log's zstd-compressed sample region obeys the
 * same limits. Regular uncompressed files and memory are not limited
 * (nothing is copied). 0 means no limit.
 */
#define TFMT_SOURCE_MAX_SIZE_DEFAULT ((uint64_t)4 << 30)
#define TFMT_SOURCE_MAX_RATIO_DEFAULT 1000u
#define TFMT_SOURCE_RATIO_FLOOR ((uint64_t)256 << 20)

/* Set the limits (the defaults above until called). */
TFMT_API void tfmt_source_set_limits(tfmt_source *src, uint64_t max_size,
                                     uint64_t max_ratio);

/* Name of the whole-file compression removed: "none", "gzip", "zstd"... */
TFMT_API const char *tfmt_source_compression(const tfmt_source *src);

TFMT_API void tfmt_source_free(tfmt_source *src);

/* Sink flags. */
#define TFMT_SINK_FORCE 0x01    /* replace an existing file */
#define TFMT_SINK_SEEKABLE 0x02 /* the writer will patch earlier bytes */
#define TFMT_SINK_IN_PLACE                                                     \
    0x04 /* write the path itself, no temporary                                \
            file: what is written is on disk at                                \
            once (a recorder's checkpoints) */
#define TFMT_SINK_FILE_ONLY                                                    \
    0x08 /* the path is to be a regular file of                                \
            its own: whatever is there (a link,                                \
            a FIFO, a device) is replaced, never                               \
            written into */

/*
 * Open a sink writing to `path`, or to stdout when `path` is NULL or "-".
 * A path is written through a temporary file renamed at finish; an existing
 * path is refused (TFMT_EINVAL, "file exists") without TFMT_SINK_FORCE.
 * An existing path that is not a regular file (/dev/null, a FIFO, a
 * terminal) is written in place, unless TFMT_SINK_FILE_ONLY is given.
 * With TFMT_SINK_SEEKABLE the sink supports tfmt_sink_pwrite even on a pipe
 * (by spooling to an unlinked temporary file). With TFMT_SINK_IN_PLACE
 * (a regular file, uncompressed) the path is created at once and written
 * directly, tfmt_sink_pwrite may also write past the end, and a sink
 * freed without finish leaves the file as it is; the path is created
 * new (O_EXCL), and with TFMT_SINK_FORCE as a new file renamed over the
 * old one at open, so a link there is replaced, never written through.
 */
TFMT_API int tfmt_sink_open(tfmt_sink **out, const char *path, unsigned flags,
                            const tfmt_allocator *alloc, tfmt_error *err);

/* Append `len` bytes. */
TFMT_API int tfmt_sink_write(tfmt_sink *sink, const void *buf, size_t len);

/* Overwrite bytes already written (TFMT_SINK_SEEKABLE sinks only). */
TFMT_API int tfmt_sink_pwrite(tfmt_sink *sink, const void *buf, size_t len,
                              uint64_t offset);

/* Bytes appended so far. */
TFMT_API uint64_t tfmt_sink_tell(const tfmt_sink *sink);

/*
 * Flush and make what was written durable (fdatasync) where the output
 * is a file: written in place, or the temporary file that gets the path's
 * name at finish (sync, then finish: the rename publishes bytes already
 * on disk). A no-op for other outputs (stdout, a spool, compression).
 */
TFMT_API int tfmt_sink_sync(tfmt_sink *sink);

/*
 * Flush, close and (for a path) rename into place. After a failure the
 * temporary file is removed and the destination is left untouched.
 */
TFMT_API int tfmt_sink_finish(tfmt_sink *sink);

/* The error of the last failed call on `sink`. */
TFMT_API const tfmt_error *tfmt_sink_error(const tfmt_sink *sink);

/*
 * The name of the sink's temporary file, for a signal handler that must
 * remove it: a buffer that holds "" while no such name exists (stdout, a
 * device, an anonymous O_TMPFILE file, after the commit) and the name
 * while one does. The sink writes each name there before creating it
 * (its first byte last) and empties it once the name is gone, so a
 * handler may call unlink() on whatever non-empty string it finds. Valid
 * until tfmt_sink_free; NULL when the sink writes no file of its own.
 * Setting TACHYON_NO_TMPFILE in the environment forces named files.
 */
TFMT_API const char *tfmt_sink_temp_path(const tfmt_sink *sink);

/* Free; without a successful finish the temporary file is removed. */
TFMT_API void tfmt_sink_free(tfmt_sink *sink);

#ifdef __cplusplus
}
#endif
#endif
