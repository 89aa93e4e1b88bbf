/* SPDX-License-Identifier: MIT */
/*
 * zstd_mem.h - libzstd contexts that allocate through a handle's
 * allocator, like every other allocation of the library (so a failing
 * allocator in the tests reaches the decoder's and encoder's memory too).
 * ZSTD_customMem and the *_advanced constructors belong to zstd's
 * "static linking only" API; they have been unchanged since zstd 1.3 and
 * are exported by the shared library.
 */
#ifndef TFMT_ZSTD_MEM_H
#define TFMT_ZSTD_MEM_H

#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "internal.h"

/* A decoder / encoder context allocating through `a` (NULL: libc). */
ZSTD_DCtx *tfmt__zstd_dctx(const tfmt_allocator *a);
ZSTD_CCtx *tfmt__zstd_cctx(const tfmt_allocator *a);

/*
 * The library status of a libzstd error code: TFMT_ENOMEM when an
 * allocation failed (contexts allocate lazily, inside the streaming
 * calls), else `otherwise`.
 */
int tfmt__zstd_status(size_t ret, int otherwise);

#endif
