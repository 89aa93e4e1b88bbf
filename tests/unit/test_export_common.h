/* SPDX-License-Identifier: MIT */
/*
 * test_export_common.h - helpers of the viewer-export tests: load a
 * CPython fixture into a profile, export it to a temporary file, and run a
 * python3 checker on the result.
 */
#ifndef TEST_EXPORT_COMMON_H
#define TEST_EXPORT_COMMON_H

#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "export_internal.h"

static const char *const fixture_cases[] = {
    "single_full",         "repeat_rle",       "suffix_calls", "pop_push",
    "interleaved_threads", "synthetic_frames", "workload",
};
#define NCASES (sizeof fixture_cases / sizeof fixture_cases[0])

typedef int (*export_fn)(tfmt_profile *p, tfmt_sink *sink);

/* Add fixture `name`/`variant` to `p`; returns the add status. */
static inline int add_fixture(tfmt_profile *p, const char *name,
                              const char *variant)
{
    char path[512];
    snprintf(path, sizeof path, "%s/cpython/%s/%s", TESTDATA, name, variant);
    tfmt_source *src;
    tfmt_bin_reader *r;
    tfmt_error err;
    int rc = tfmt_source_open_path(&src, path, NULL, &err);
    if (rc != TFMT_OK)
        return rc;
    rc = tfmt_bin_open(&r, src, NULL, &err);
    if (rc == TFMT_OK) {
        rc = tfmt_profile_add_bin(p, r);
        tfmt_bin_free(r);
    }
    tfmt_source_free(src);
    return rc;
}

static inline tfmt_profile *load_fixture(const char *name,
                                         const tfmt_profile_options *o)
{
    tfmt_profile *p;
    if (tfmt_profile_new(&p, o) != TFMT_OK)
        return NULL;
    if (add_fixture(p, name, "none.bin") != TFMT_OK) {
        tfmt_profile_free(p);
        return NULL;
    }
    return p;
}

static inline void tmp_path(char *out, size_t cap, const char *tag)
{
    const char *t = getenv("TMPDIR");
    snprintf(out, cap, "%s/test_export_%s_%ld", t && *t ? t : "/tmp", tag,
             (long)getpid());
}

/* Export through a path sink; returns the export (or finish) status. */
static inline int export_to(tfmt_profile *p, export_fn fn, const char *path)
{
    tfmt_sink *sink;
    tfmt_error err;
    int rc = tfmt_sink_open(&sink, path, TFMT_SINK_FORCE, NULL, &err);
    if (rc != TFMT_OK)
        return rc;
    rc = fn(p, sink);
    int frc = tfmt_sink_finish(sink);
    tfmt_sink_free(sink);
    return rc == TFMT_OK ? frc : rc;
}

#define CHECKER "python3 " TESTDATA "/../tests/unit/test_export_check.py "

/* Run a shell command; returns its exit status (or -1). */
static inline int run_cmd(const char *cmd)
{
    int st = system(cmd);
    if (st == -1 || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

/* True when a command (e.g. "python3") is available. */
static inline int have_cmd(const char *name)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
    return run_cmd(cmd) == 0;
}

static inline unsigned char *slurp_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *d = malloc((size_t)n + 1);
    if (d && fread(d, 1, (size_t)n, f) != (size_t)n) {
        free(d);
        d = NULL;
    }
    fclose(f);
    if (d) {
        d[n] = 0;
        *len = (size_t)n;
    }
    return d;
}

/*
 * Profile of fixture `first` (file `va`) plus `second` (file `vb`),
 * exported with `fn`; the bytes, malloc'd (NULL on failure). Merging in
 * both orders must give the same bytes for the aggregated formats.
 */
static inline unsigned char *merged_export(const char *first, const char *va,
                                           const char *second, const char *vb,
                                           export_fn fn, size_t *len)
{
    tfmt_profile *p;
    if (tfmt_profile_new(&p, NULL) != TFMT_OK)
        return NULL;
    char out[256];
    tmp_path(out, sizeof out, "merge");
    unsigned char *d = NULL;
    if (add_fixture(p, first, va) == TFMT_OK &&
        add_fixture(p, second, vb) == TFMT_OK &&
        export_to(p, fn, out) == TFMT_OK)
        d = slurp_file(out, len);
    unlink(out);
    tfmt_profile_free(p);
    return d;
}

/* An allocator that counts live blocks and can fail call number fail_at. */
typedef struct counting {
    long live, calls, fail_at; /* fail_at < 0: never */
} counting;

static inline void *c_malloc(size_t n, void *ctx)
{
    counting *c = ctx;
    if (c->fail_at >= 0 && c->calls++ == c->fail_at)
        return NULL;
    void *p = malloc(n);
    c->live += p != NULL;
    return p;
}

static inline void *c_realloc(void *ptr, size_t n, void *ctx)
{
    counting *c = ctx;
    if (c->fail_at >= 0 && c->calls++ == c->fail_at)
        return NULL;
    void *p = realloc(ptr, n);
    c->live += p != NULL && ptr == NULL;
    return p;
}

static inline void c_free(void *ptr, void *ctx)
{
    ((counting *)ctx)->live -= ptr != NULL;
    free(ptr);
}

#endif
