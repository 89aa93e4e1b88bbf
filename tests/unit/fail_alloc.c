/* SPDX-License-Identifier: MIT */
/* fail_alloc.c - allocators for the unit tests (fail_alloc.h). */
#include <stdlib.h>
#include <string.h>

#include "fail_alloc.h"

static bool fails(test_failing *f)
{
    f->calls++;
    return f->at > 0 && (f->on ? f->calls >= f->at : f->calls == f->at);
}

void *test_fail_malloc(size_t n, void *ctx)
{
    return fails(ctx) ? NULL : malloc(n);
}

void *test_fail_realloc(void *p, size_t n, void *ctx)
{
    return fails(ctx) ? NULL : realloc(p, n);
}

void test_fail_free(void *p, void *ctx)
{
    free(p);
}

tfmt_allocator test_failing_alloc(test_failing *f)
{
    tfmt_allocator a = {test_fail_malloc, test_fail_realloc, test_fail_free, f};
    return a;
}

static void *guard_malloc(size_t n, void *ctx)
{
    (void)ctx;
    unsigned char *p = malloc(n + TEST_GUARD_BYTES);
    if (p)
        memset(p, TEST_GUARD, n + TEST_GUARD_BYTES);
    return p;
}

/* The bytes past n are not reset (realloc keeps no size): a grown block
 * is guarded by whatever it held, a fresh one by TEST_GUARD. */
static void *guard_realloc(void *p, size_t n, void *ctx)
{
    (void)ctx;
    return p ? realloc(p, n + TEST_GUARD_BYTES) : guard_malloc(n, ctx);
}

static void guard_free(void *p, void *ctx)
{
    (void)ctx;
    free(p);
}

tfmt_allocator test_guard_alloc(void)
{
    tfmt_allocator a = {guard_malloc, guard_realloc, guard_free, NULL};
    return a;
}
