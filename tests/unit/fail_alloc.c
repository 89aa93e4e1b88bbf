/* SPDX-License-Identifier: MIT */
/* fail_alloc.c - an allocator that fails on purpose (fail_alloc.h). */
#include <stdlib.h>

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
