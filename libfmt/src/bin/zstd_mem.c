/* SPDX-License-Identifier: MIT */
/* zstd_mem.c - libzstd contexts on the handle's allocator (zstd_mem.h). */
#include <zstd_errors.h>

#include "zstd_mem.h"

static void *zstd_alloc(void *opaque, size_t size)
{
    return tfmt__malloc(opaque, size);
}

static void zstd_free(void *opaque, void *address)
{
    tfmt__free(opaque, address);
}

/* With no allocator, libzstd's own defaults (libc). */
static ZSTD_customMem mem_of(const tfmt_allocator *a)
{
    if (!a || !a->malloc_fn)
        return ZSTD_defaultCMem;
    ZSTD_customMem m = {zstd_alloc, zstd_free, (void *)a};
    return m;
}

ZSTD_DCtx *tfmt__zstd_dctx(const tfmt_allocator *a)
{
    return ZSTD_createDCtx_advanced(mem_of(a));
}

ZSTD_CCtx *tfmt__zstd_cctx(const tfmt_allocator *a)
{
    return ZSTD_createCCtx_advanced(mem_of(a));
}

int tfmt__zstd_status(size_t ret, int otherwise)
{
    return ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation ? TFMT_ENOMEM
                                                                  : otherwise;
}
