/* SPDX-License-Identifier: MIT */
/*
 * test_threads.c - per-thread state costs what a thread uses, and the
 * reader's limit on distinct threads. A log of many short-lived threads
 * (each one small stack, a repeat, a deeper call) is written to a
 * temporary file, then read, copied and aggregated under an allocator
 * that tracks the peak of live bytes: the peak per thread must stay a
 * small multiple of what the thread's data needs, not a fixed 256-frame
 * stack or a 16 KiB buffer per thread.
 */
#include <stdint.h>
#include <unistd.h>

#include "harness.h"
#include "log_files.h"
#include "bin_writer.h"
#include "profile_internal.h"

#define NTHREADS 20000u

/* An allocator that knows each block's size and the peak of live bytes. */
typedef struct meter {
    size_t live, peak;
} meter;

#define HEAD 16 /* keeps malloc's alignment */

static void *m_malloc(size_t n, void *ctx)
{
    meter *m = ctx;
    unsigned char *p = malloc(n + HEAD);
    if (!p)
        return NULL;
    memcpy(p, &n, sizeof n);
    m->live += n;
    m->peak = m->live > m->peak ? m->live : m->peak;
    return p + HEAD;
}

static void m_free(void *ptr, void *ctx)
{
    meter *m = ctx;
    if (!ptr)
        return;
    unsigned char *p = (unsigned char *)ptr - HEAD;
    size_t n;
    memcpy(&n, p, sizeof n);
    m->live -= n;
    free(p);
}

static void *m_realloc(void *ptr, size_t n, void *ctx)
{
    if (!ptr)
        return m_malloc(n, ctx);
    unsigned char *old = (unsigned char *)ptr - HEAD;
    size_t was;
    memcpy(&was, old, sizeof was);
    void *p = m_malloc(n, ctx);
    if (!p)
        return NULL;
    memcpy(p, ptr, was < n ? was : n);
    m_free(ptr, ctx);
    return p;
}

static tfmt_allocator meter_alloc(meter *m)
{
    memset(m, 0, sizeof *m);
    tfmt_allocator a = {m_malloc, m_realloc, m_free, m};
    return a;
}

static char log_path[512];

/* NTHREADS threads, each: a 3-deep stack, 3 repeats, a 5-deep stack. */
static int write_flood(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(log_path, sizeof log_path, "%s/tfmt_threads_%ld.bin",
             t ? t : "/tmp", (long)getpid());
    test_log_out out;
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.start_time_us = 1000;
    o.sample_interval_us = 100;
    int rc = test_log_create(&out, log_path, &o, NULL);
    tfmt_bin_writer *w = out.w;
    uint32_t f[5];
    for (int i = 0; i < 5 && rc == TFMT_OK; i++)
        rc = tfmt_bin_writer_location(w, "app.py", 6, "f", 1, 10 + i, 10 + i, 0,
                                      4, 255, &f[i]);
    for (uint32_t i = 0; i < NTHREADS && rc == TFMT_OK; i++) {
        uint64_t tid = 0x10000 + i, ts = 2000 + i;
        rc = tfmt_bin_writer_sample(w, tid, 0, ts, 1, f, 3);
        for (int k = 1; k <= 3 && rc == TFMT_OK; k++)
            rc = tfmt_bin_writer_sample(w, tid, 0, ts + 100 * k, 1, f, 3);
        if (rc == TFMT_OK)
            rc = tfmt_bin_writer_sample(w, tid, 0, ts + 500, 3, f, 5);
    }
    return test_log_finish(&out, rc);
}

static int open_reader(test_log *l, const tfmt_allocator *a,
                       uint32_t max_threads)
{
    tfmt_bin_options bo = TFMT_BIN_OPTIONS_INIT;
    bo.alloc = a;
    bo.max_threads = max_threads;
    return test_log_open(l, log_path, &bo, NULL);
}

static int read_all(tfmt_bin_reader *r)
{
    const tfmt_sample *s;
    int rc;
    while ((rc = tfmt_bin_next(r, &s)) == TFMT_OK)
        ;
    return rc;
}

/* The reader's tables and window: what any log costs, threads aside. */
static size_t base_cost(const meter *m)
{
    return m->peak;
}

TEST(reader_state_per_thread)
{
    REQUIRE(write_flood() == TFMT_OK, "write the log");
    meter m;
    tfmt_allocator a = meter_alloc(&m);
    test_log l;
    REQUIRE(open_reader(&l, &a, 0) == TFMT_OK, "open");
    size_t opened = base_cost(&m);
    CHECK(read_all(l.r) == TFMT_DONE, "read: %s", tfmt_bin_error(l.r)->msg);
    /* 40 bytes of state, a 32-byte stack, 32 bytes of thread map, and
     * the arrays' doubling (before: a 1 KiB stack alone). */
    size_t per = (m.peak - opened) / NTHREADS;
    CHECK(per <= 256, "%zu bytes a thread", per);
    test_log_close(&l);
    CHECK(m.live == 0, "%zu bytes leaked", m.live);
}

TEST(copy_state_per_thread)
{
    meter m;
    tfmt_allocator a = meter_alloc(&m);
    test_log l;
    REQUIRE(open_reader(&l, &a, 0) == TFMT_OK, "open");
    size_t opened = base_cost(&m);
    tfmt_sink *sink = NULL;
    tfmt_bin_writer *w = NULL;
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.alloc = &a;
    o.start_time_us = 1000;
    char out[600];
    snprintf(out, sizeof out, "%s.copy", log_path);
    REQUIRE(tfmt_sink_open(&sink, out, TFMT_SINK_SEEKABLE | TFMT_SINK_FORCE,
                           NULL, NULL) == TFMT_OK,
            "sink");
    REQUIRE(tfmt_bin_writer_open(&w, sink, &o, NULL) == TFMT_OK, "writer");
    size_t writer = m.peak - opened;
    CHECK(tfmt_bin_copy(l.r, w) == TFMT_OK, "copy: %s",
          tfmt_bin_writer_error(w)->msg);
    /* Reader and writer state, both proportional: no 1 KiB stack and no
     * 16 KiB REPEAT buffer per thread (each had 3 pairs pending). */
    size_t per = (m.peak - opened - writer) / NTHREADS;
    CHECK(per <= 512, "%zu bytes a thread", per);
    CHECK(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    tfmt_bin_writer_free(w);
    tfmt_sink_free(sink);
    remove(out);
    test_log_close(&l);
    CHECK(m.live == 0, "%zu bytes leaked", m.live);
}

TEST(profile_state_per_thread)
{
    meter m;
    tfmt_allocator a = meter_alloc(&m);
    test_log l;
    tfmt_profile *p = NULL;
    tfmt_profile_options po = TFMT_PROFILE_OPTIONS_INIT;
    po.alloc = &a;
    REQUIRE(open_reader(&l, &a, 0) == TFMT_OK, "open");
    size_t opened = base_cost(&m);
    REQUIRE(tfmt_profile_new(&p, &po) == TFMT_OK, "profile");
    CHECK(tfmt_profile_add_bin(p, l.r) == TFMT_OK, "add: %s",
          tfmt_profile_error(p)->msg);
    CHECK(p->nthreads == NTHREADS, "%zu threads", p->nthreads);
    /* Each thread: its reader state, a root and 5 call-tree nodes with
     * their table slots, the importer's path of node ids, the thread's
     * timeline stream head. */
    size_t per = (m.peak - opened) / NTHREADS;
    CHECK(per <= 1280, "%zu bytes a thread", per);
    tfmt_profile_free(p);
    test_log_close(&l);
    CHECK(m.live == 0, "%zu bytes leaked", m.live);
}

TEST(thread_limit_is_a_located_error)
{
    test_log l;
    REQUIRE(open_reader(&l, NULL, 1000) == TFMT_OK, "open");
    CHECK(read_all(l.r) == TFMT_ELIMIT, "status");
    const tfmt_error *e = tfmt_bin_error(l.r);
    CHECK(e->check == TFMT_BCHK_THREAD_LIMIT, "check %d", e->check);
    CHECK(strcmp(e->msg, "thread limit exceeded: more than 1000 distinct "
                         "threads") == 0,
          "message '%s'", e->msg);
    CHECK(e->has_offset && e->offset > 64, "located");
    /* The first 1000 threads' samples came through, no more. */
    CHECK(tfmt_bin_samples_read(l.r) == 1000 * 5, "%llu samples",
          (unsigned long long)tfmt_bin_samples_read(l.r));
    test_log_close(&l);
}

TEST(limits_at_the_edges)
{
    test_log l;
    /* Exactly as many threads as allowed is fine; UINT32_MAX: no limit. */
    uint32_t limits[] = {NTHREADS, UINT32_MAX};
    for (int i = 0; i < 2; i++) {
        REQUIRE(open_reader(&l, NULL, limits[i]) == TFMT_OK, "open");
        CHECK(read_all(l.r) == TFMT_DONE, "limit %u: %s", limits[i],
              tfmt_bin_error(l.r)->msg);
        test_log_close(&l);
    }
    remove(log_path);
}

TESTS(TCASE(reader_state_per_thread), TCASE(copy_state_per_thread),
      TCASE(profile_state_per_thread), TCASE(thread_limit_is_a_located_error),
      TCASE(limits_at_the_edges))
