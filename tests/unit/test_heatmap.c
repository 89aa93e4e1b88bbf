/* SPDX-License-Identifier: MIT */
/*
 * test_heatmap.c - the heatmap's model on testdata/heatmap/edge.bin, whose
 * samples tests/tools/make_heatmap_fixtures.py describes: the counts below
 * follow from its sample weights (gen 40, fib 25, len 6, store 4, gc 3,
 * frozen 2, lambda 5, noloc 1, ghost 1, lib 7, helper 12, helper2 3); and
 * every allocation of the model and the pages failing in turn.
 */
#include "test_export_common.h"
#include "heat_internal.h"
#include "log_files.h"

static tfmt_profile *load_edge(const tfmt_profile_options *o)
{
    tfmt_profile *p;
    test_log l;
    tfmt_error err;
    if (tfmt_profile_new(&p, o) != TFMT_OK)
        return NULL;
    int rc = test_log_open(&l, TESTDATA "/heatmap/edge.bin", NULL, &err);
    if (rc == TFMT_OK)
        rc = tfmt_profile_add_bin(p, l.r);
    test_log_close(&l);
    if (rc != TFMT_OK) {
        tfmt_profile_free(p);
        return NULL;
    }
    return p;
}

/* Add a JSONL export to `p`. */
static int add_export(tfmt_profile *p, const char *path)
{
    tfmt_source *src;
    tfmt_jsonl_reader *r;
    tfmt_error err;
    int rc = tfmt_source_open_path(&src, path, NULL, &err);
    if (rc != TFMT_OK)
        return rc;
    rc = tfmt_jsonl_open(&r, src, NULL, &err);
    if (rc == TFMT_OK) {
        rc = tfmt_profile_add_jsonl(p, r);
        tfmt_jsonl_free(r);
    }
    tfmt_source_free(src);
    return rc;
}

static const hline *line_of(const tfmt_heatmap *h, size_t page, int32_t n)
{
    const hfile *f = &h->files[h->pages[page]];
    for (uint32_t i = f->line; i < f->line + f->nlines; i++)
        if (h->lines[i].line == n)
            return &h->lines[i];
    return NULL;
}

static bool path_is(tfmt_heatmap *h, size_t page, const char *want)
{
    tfmt_str s = tfmt_heatmap_path(h, page);
    return s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

/* Samples from line `l` to the function named `fn` (its callees). */
static uint64_t calls(const tfmt_heatmap *h, const hline *l, const char *fn)
{
    uint64_t n = 0;
    for (uint32_t i = l->callee; i < l->callee + l->ncallee; i++) {
        tfmt_str s = tfmt__profile_str(h->p, h->funcs[h->edges[i].callee].name);
        if (s.len == strlen(fn) && memcmp(s.ptr, fn, s.len) == 0)
            n += h->edges[i].count;
    }
    return n;
}

TEST(edge_counts)
{
    tfmt_profile *p = load_edge(NULL);
    REQUIRE(p, "load edge.bin");
    tfmt_heatmap *h;
    REQUIRE(tfmt_heatmap_new(&h, p, NULL) == TFMT_OK, "heatmap");
    /* '<frozen runpy>' and '~' have no page; hottest file first. */
    CHECK(tfmt_heatmap_pages(h) == 3, "%zu pages", tfmt_heatmap_pages(h));
    CHECK(path_is(h, 0, "/srv/edge/edge.py") &&
              path_is(h, 1, "/srv/edge/util.py") &&
              path_is(h, 2, "/usr/lib/python3.15/functools.py"),
          "page order");
    CHECK(strcmp(tfmt_heatmap_page(h, 1), "file_0001.html") == 0 &&
              strcmp(tfmt_heatmap_page(h, 3), "index.html") == 0,
          "page names");
    const hfile *edge = &h->files[h->pages[0]];
    /* Every one of the 109 samples has an edge.py frame; the leaves of
     * 84 are edge.py lines (not helper's 15, <GC>'s 3, reduce's 7). */
    CHECK(edge->total == 109 && edge->self == 84,
          "edge.py total %llu self %llu", (unsigned long long)edge->total,
          (unsigned long long)edge->self);
    const hline *l5 = line_of(h, 0, 5), *l12 = line_of(h, 0, 12);
    const hline *l9 = line_of(h, 0, 9), *l15 = line_of(h, 0, 15);
    const hline *l0 = line_of(h, 0, 0), *l40 = line_of(h, 0, 40);
    REQUIRE(l5 && l12 && l9 && l15 && l0 && l40, "sampled lines");
    /* A generator on its caller's line, a recursion on one line: once. */
    CHECK(l5->total == 40 && l5->self == 40, "line 5: %llu/%llu",
          (unsigned long long)l5->self, (unsigned long long)l5->total);
    CHECK(l12->total == 25 && l12->self == 25, "line 12");
    /* The <GC> leaf's caller gets no self. */
    CHECK(l9->total == 50 && l9->self == 0, "line 9: %llu/%llu",
          (unsigned long long)l9->self, (unsigned long long)l9->total);
    CHECK(l15->total == 102 && l15->self == 2, "line 15: %llu/%llu",
          (unsigned long long)l15->self, (unsigned long long)l15->total);
    CHECK(l0->total == 1 && l40->total == 1, "line 0 and 40");
    /* Instructions: fib's two calls on line 12 are one opcode, two
     * ranges; the BINARY_OP at the leaf counts once per sample. */
    CHECK(l12->ninstr == 3, "line 12: %u instructions", l12->ninstr);
    for (uint32_t i = l12->instr; i < l12->instr + l12->ninstr; i++)
        CHECK(h->instrs[i].count == 25, "line 12 instruction %u", i);
    /* Callees of main's line 15; callers of fib. */
    CHECK(calls(h, l15, "caf\xc3\xa9") == 60 && calls(h, l15, "fib") == 25 &&
              calls(h, l15, "helper") == 15,
          "line 15 calls");
    CHECK(calls(h, l12, "fib") == 50, "fib calls fib from line 12");
    tfmt_heatmap_free(h);
    tfmt_profile_free(p);
}

static int write_all(tfmt_heatmap *h)
{
    tfmt_heatmap_source src = {"def x():\n    pass\n", 18, NULL, NULL};
    for (size_t i = 0; i <= tfmt_heatmap_pages(h); i++) {
        tfmt_sink *sink;
        tfmt_error err;
        int rc = tfmt_sink_open(&sink, "/dev/null", 0, NULL, &err);
        if (rc != TFMT_OK)
            return rc;
        rc = i < tfmt_heatmap_pages(h)
                 ? tfmt_heatmap_write_page(h, i, i ? NULL : &src, sink)
                 : tfmt_heatmap_write_index(h, sink);
        int frc = tfmt_sink_finish(sink);
        tfmt_sink_free(sink);
        if (rc != TFMT_OK || frc != TFMT_OK)
            return rc != TFMT_OK ? rc : frc;
    }
    return TFMT_OK;
}

/* The page of `path`, or SIZE_MAX. */
static size_t page_of(tfmt_heatmap *h, const char *path)
{
    for (size_t i = 0; i < tfmt_heatmap_pages(h); i++)
        if (path_is(h, i, path))
            return i;
    return SIZE_MAX;
}

/*
 * workload's export (testdata/cpython/workload/expected.jsonl) alone:
 * workload.py line 64 has frames of workload_recursive_sort (cols 8-33,
 * self 166, cumulative 246) and of a function defined on that line (no
 * columns, self 80, cumulative 80): self 246, total the larger function's
 * 246. Line 56 has two columns of fib (cumulative 211 and 212, self 0),
 * summed per function: 423 (the binary log's heatmap says 212: fib is
 * recursive, the case docs/formats.md names). No edges, no instructions; the
 * file's total is its largest line total.
 */
TEST(jsonl_lines)
{
    tfmt_profile *p;
    REQUIRE(tfmt_profile_new(&p, NULL) == TFMT_OK, "new");
    REQUIRE(add_export(p, TESTDATA "/cpython/workload/expected.jsonl") ==
                TFMT_OK,
            "add");
    tfmt_heatmap *h = NULL;
    REQUIRE(tfmt_heatmap_new(&h, p, NULL) == TFMT_OK, "heatmap");
    size_t pg = page_of(h, "/srv/app/workload.py");
    REQUIRE(pg != SIZE_MAX, "no page of workload.py");
    const hline *l64 = line_of(h, pg, 64), *l56 = line_of(h, pg, 56);
    REQUIRE(l64 && l56, "lines 56 and 64");
    CHECK(l64->self == 246 && l64->total == 246, "line 64: %llu/%llu",
          (unsigned long long)l64->self, (unsigned long long)l64->total);
    CHECK(l56->self == 0 && l56->total == 423, "line 56: %llu/%llu",
          (unsigned long long)l56->self, (unsigned long long)l56->total);
    CHECK(h->jsonl && h->nedges == 0 && h->ninstrs == 0, "edges or opcodes");
    const hfile *f = &h->files[h->pages[pg]];
    CHECK(f->total == f->max_total, "file total %llu, max line %llu",
          (unsigned long long)f->total, (unsigned long long)f->max_total);
    tfmt_heatmap_free(h);
    tfmt_profile_free(p);
}

/*
 * The model, then every page, with the n-th allocation failing for every
 * n: TFMT_ENOMEM with the error recorded, nothing leaked. The profile
 * holds edge.bin and workload's JSONL export (so the export's lines too).
 */
TEST(every_allocation_failing)
{
    counting cnt = {0, 0, -1};
    tfmt_allocator a = {c_malloc, c_realloc, c_free, &cnt};
    tfmt_profile_options o = TFMT_PROFILE_OPTIONS_INIT;
    o.alloc = &a;
    tfmt_profile *p = load_edge(&o);
    REQUIRE(p, "load");
    REQUIRE(add_export(p, TESTDATA "/cpython/workload/expected.jsonl") ==
                TFMT_OK,
            "add the export");
    long base = cnt.live;
    bool ok_seen = false;
    for (long n = 0; n < 2000 && !ok_seen; n++) {
        tfmt_heatmap *h = NULL;
        cnt.calls = 0;
        cnt.fail_at = n;
        int rc = tfmt_heatmap_new(&h, p, NULL);
        if (rc == TFMT_OK) {
            rc = write_all(h);
            CHECK(rc == TFMT_OK || tfmt_heatmap_error(h)->code == rc,
                  "failing allocation %ld: error not recorded", n);
        } else {
            CHECK(tfmt_profile_error(p)->code == TFMT_ENOMEM,
                  "failing allocation %ld: profile error", n);
        }
        cnt.fail_at = -1;
        tfmt_heatmap_free(h);
        ok_seen = rc == TFMT_OK;
        CHECK(rc == TFMT_OK || rc == TFMT_ENOMEM,
              "failing allocation %ld: status %d", n, rc);
        CHECK(cnt.live == base, "failing allocation %ld: %ld blocks leaked", n,
              cnt.live - base);
    }
    CHECK(ok_seen, "never succeeded");
    tfmt_profile_free(p);
    CHECK(cnt.live == 0, "%ld blocks leaked", cnt.live);
}

TESTS(TCASE(edge_counts), TCASE(jsonl_lines), TCASE(every_allocation_failing))
