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
const uint8_t *tfmt__source_memory(tfmt_source *src, uint64_t offset,
                                   size_t n);

#endif
