/* SPDX-License-Identifier: MIT */
/*
 * io_internal.h - the io layer's private interface: random access to a
 * source for the binary reader. Never installed.
 */
#ifndef TFMT_IO_INTERNAL_H
#define TFMT_IO_INTERNAL_H

#include <tachyon/fmt_io.h>

#include "internal.h"

/*
 * Make `src` randomly readable, spooling a stream to an unlinked temporary
 * file when needed; then read exactly `n` bytes at `offset` (short read:
 * TFMT_ETRUNC). Size of the (decompressed) input in *out.
 */
int tfmt__source_seekable(tfmt_source *src, uint64_t *size, tfmt_error *err);
int tfmt__source_pread(tfmt_source *src, void *buf, size_t n, uint64_t offset,
                       tfmt_error *err);
/* Borrow a pointer to [offset, offset+n) if the source is in memory. */
const uint8_t *tfmt__source_memory(tfmt_source *src, uint64_t offset, size_t n);

/*
 * Copy up to `cap` bytes from the current position into `buf` without
 * consuming them (*got: how many; fewer at the end of the input). A
 * stream delivers again only its first 64 KiB, so peeks end there. With
 * `decode` false a stream returns only bytes it already has in hand and
 * decodes no further, so a corrupt compressed input fails where it always
 * does: in the reader that reads it.
 */
int tfmt__source_peek(tfmt_source *src, void *buf, size_t cap, bool decode,
                      size_t *got, tfmt_error *err);

/*
 * Whether `out` decompressed bytes from `in` compressed ones (in 0: not
 * compressed, no ratio check) stay within the source's limits
 * (tfmt_source_set_limits). Returns TFMT_OK, or TFMT_ELIMIT with `err`
 * located at `at` and saying "<what> exceeds ...".
 */
int tfmt__source_check_growth(const tfmt_source *src, uint64_t out, uint64_t in,
                              const char *what, uint64_t at, tfmt_error *err);

/*
 * Bound a stream by its own numbers: once more than `max` bytes have
 * come out of it (a format's header says where its data must end), every
 * read and spool fails with TFMT_ELIMIT located at byte `max` and the
 * message `msg`, before the temporary space holds more than that. Does
 * nothing to a regular file or to memory, whose size is already real.
 */
void tfmt__source_bound(tfmt_source *src, uint64_t max, const char *msg);

/*
 * Open an unlinked temporary file (read-write, close-on-exec) in $TMPDIR
 * or /tmp into *out. On failure *out is -1, errno is kept and `err` (may
 * be NULL) gets TFMT_EIO with "<what>: strerror" (just strerror when
 * `what` is NULL).
 */
int tfmt__tmpfile(int *out, const char *what, tfmt_error *err);

#endif
