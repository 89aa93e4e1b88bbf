/* SPDX-License-Identifier: MIT */
/*
 * file_at.h - whole reads and writes at an offset, for the checkpoint and
 * --recover, which patch a log in place.
 */
#ifndef TREC_FILE_AT_H
#define TREC_FILE_AT_H

#include <stddef.h>
#include <stdint.h>

/* Read exactly `len` bytes at `off`: 0, or -1 with errno (EIO when the
 * file ends first: it shrank under us). EINTR is retried. */
int file_read_at(int fd, void *buf, size_t len, uint64_t off);

/* Write all `len` bytes at `off`: 0, or -1 with errno. */
int file_write_at(int fd, const void *buf, size_t len, uint64_t off);

#endif
