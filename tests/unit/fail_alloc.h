/* SPDX-License-Identifier: MIT */
/*
 * fail_alloc.h - allocators for the unit tests, linked into every one:
 * one that fails on purpose (every allocation site of a handle in turn),
 * and one that guards its blocks with nonzero bytes.
 */
#ifndef TFMT_TEST_FAIL_ALLOC_H
#define TFMT_TEST_FAIL_ALLOC_H

#include <stdbool.h>

#include <tachyon/fmt.h>

typedef struct test_failing {
    long at;    /* the call (malloc or realloc) that fails, from 1; 0: none */
    long calls; /* calls so far, failed ones too */
    bool on;    /* every call after `at` fails as well */
} test_failing;

/* malloc, realloc and free, failing the calls *ctx (a test_failing) picks. */
void *test_fail_malloc(size_t n, void *ctx);
void *test_fail_realloc(void *p, size_t n, void *ctx);
void test_fail_free(void *p, void *ctx);

/* The allocator of those three over f. */
tfmt_allocator test_failing_alloc(test_failing *f);

/*
 * An allocator whose blocks are followed by TEST_GUARD_BYTES bytes of
 * TEST_GUARD (and whose malloc'd bytes start as TEST_GUARD too): a read
 * one past an array then sees a nonzero byte instead of whatever libc
 * left there, so an off-by-one bound shows without a sanitizer (which
 * does not see these reads: they stay inside the block).
 */
#define TEST_GUARD 0x5a
#define TEST_GUARD_BYTES 16
tfmt_allocator test_guard_alloc(void);

#endif
