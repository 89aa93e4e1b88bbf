/* SPDX-License-Identifier: MIT */
/*
 * harness.h - a minimal unit-test harness. Each test file defines tests with
 * TEST(name) and lists them in a TESTS(...) main; every failed CHECK prints
 * the file, line and a message and marks the test failed. The run ends with
 * "N passed, N failed", which CI reads.
 */
#ifndef TFMT_TEST_HARNESS_H
#define TFMT_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int harness_failed_checks;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__,   \
                    #cond);                                                    \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            harness_failed_checks++;                                           \
        }                                                                      \
    } while (0)

/* Stop the current test when `cond` fails (for preconditions). */
#define REQUIRE(cond, ...)                                                     \
    do {                                                                       \
        int before_ = harness_failed_checks;                                   \
        CHECK(cond, __VA_ARGS__);                                              \
        if (harness_failed_checks != before_)                                  \
            return;                                                            \
    } while (0)

#define TEST(name) static void test_##name(void)

typedef struct harness_case {
    const char *name;
    void (*fn)(void);
} harness_case;

#define TCASE(name)                                                            \
    {                                                                          \
#name, test_##name                                                     \
    }

static inline int harness_run(const harness_case *cases, size_t n, int argc,
                              char **argv)
{
    int passed = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
            continue;
        int before = harness_failed_checks;
        cases[i].fn();
        if (harness_failed_checks == before) {
            passed++;
        } else {
            failed++;
            fprintf(stderr, "FAIL %s\n", cases[i].name);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#define TESTS(...)                                                             \
    int main(int argc, char **argv)                                            \
    {                                                                          \
        static const harness_case cases[] = {__VA_ARGS__};                     \
        return harness_run(cases, sizeof cases / sizeof cases[0], argc, argv); \
    }

/* Read a whole file into a malloc'd buffer, a NUL after its *len bytes
   (test helper). */
static inline unsigned char *harness_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    /* NUL after the bytes (n < cap here), for callers that take the text
     * as a string: nothing past them is ever read */
    if (buf)
        buf[n] = 0;
    *len = n;
    return buf;
}

#endif
