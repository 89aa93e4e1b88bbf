/* SPDX-License-Identifier: MIT */
/*
 * fail_alloc.h - an allocator that fails on purpose, for the unit tests
 * that make every allocation site of a handle fail in turn. Linked into
 * every unit test.
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

#endif
