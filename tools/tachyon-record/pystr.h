/* SPDX-License-Identifier: MIT */
/*
 * pystr.h - copy str and bytes objects out of a CPython process.
 */
#ifndef TREC_PYSTR_H
#define TREC_PYSTR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "py_offsets.h"

#define PYSTR_MAX_CHARS 4096    /* longer names are refused */
#define PYBYTES_MAX (64u << 10) /* largest line table copied */

/*
 * Read the compact str at `addr` as UTF-8 into a new NUL-terminated buffer
 * (*out, length *len). Returns a remote_mem status, or RMEM_FAULT for an
 * object that does not look like a compact str.
 */
int pystr_read(pid_t pid, const py_offsets *o, uint64_t addr, char **out,
               size_t *len);

/*
 * Write `n` characters of `kind` (1, 2 or 4) bytes each as UTF-8 to
 * `out` (room for 4 * n + 1 bytes), NUL-terminated; lone surrogates and
 * values past U+10FFFF become U+FFFD. Returns the length written.
 */
size_t pystr_to_utf8(const uint8_t *data, unsigned kind, size_t n, char *out);

/* Read the bytes object at `addr` into a new buffer. */
int pybytes_read(pid_t pid, const py_offsets *o, uint64_t addr, uint8_t **out,
                 size_t *len);

#endif
