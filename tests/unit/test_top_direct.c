/* SPDX-License-Identifier: MIT */
/*
 * test_top_direct.c - the "top" table of profiles without a call tree,
 * picked by selection (export_top_direct.c), against the content walk of
 * export_top.c on the same profiles: generated exports with many ties in
 * self and cumulative counts, few distinct names, functions of several
 * lines, frames no export lists, one or two exports merged, strings
 * defined twice with equal content (where the selection must leave the
 * profile to the walk), and table sizes from 1 to all rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "export_internal.h"

#define RUN_ID "00000000000000000000000000000000"

typedef struct gen {
    uint64_t s;
    tfmt_buf text;
} gen;

static uint32_t rnd(gen *g, uint32_t n)
{
    g->s ^= g->s << 13;
    g->s ^= g->s >> 7;
    g->s ^= g->s << 17;
    return (uint32_t)((g->s >> 11) % n);
}

#define ENV(type) "{\"type\":\"" type "\",\"v\":0,\"run_id\":\"" RUN_ID "\""

/*
 * An export of `nframes` frames over a few file and function names (one
 * of them, with `dup`, defined twice), counts with many ties, some frames
 * without an agg entry.
 */
static void export_text(gen *g, uint32_t nframes, bool dup)
{
    static const char *const names[] = {"a.py", "b.py", "f", "g", "h", "ab"};
    tfmt_buf *b = &g->text;
    b->len = 0;
    tfmt__buf_puts(b, ENV("meta") ",\"sample_interval_usec\":1000}\n");
    tfmt__buf_puts(b, ENV("string_table") ",\"strings\":[");
    for (uint32_t i = 0; i < 6; i++)
        tfmt__buf_printf(b, "%s{\"str_id\":%u,\"value\":\"%s\"}", i ? "," : "",
                         i, names[i]);
    if (dup)
        tfmt__buf_printf(b, ",{\"str_id\":6,\"value\":\"%s\"}",
                         names[rnd(g, 6)]);
    tfmt__buf_puts(b, "]}\n" ENV("frame_table") ",\"frames\":[");
    for (uint32_t i = 0; i < nframes; i++)
        tfmt__buf_printf(b,
                         "%s{\"frame_id\":%u,\"path_str_id\":%u,"
                         "\"func_str_id\":%u,\"line\":%u}",
                         i ? "," : "", i, rnd(g, dup ? 7 : 6),
                         rnd(g, dup ? 7 : 6), 1 + rnd(g, 5));
    uint64_t total = 200; /* over any sum of self counts */
    tfmt__buf_printf(b,
                     "]}\n" ENV("agg") ",\"kind\":\"frame\",\"scope\":"
                                       "\"final\",\"samples_total\":%llu,"
                                       "\"entries\":[",
                     (unsigned long long)total);
    bool first = true;
    for (uint32_t i = 0; i < nframes; i++) {
        if (rnd(g, 5) == 0)
            continue; /* a frame no entry lists */
        uint32_t self = rnd(g, 3), cum = self + rnd(g, 3);
        tfmt__buf_printf(b, "%s{\"frame_id\":%u,\"self\":%u,\"cumulative\":%u}",
                         first ? "" : ",", i, self, cum);
        first = false;
    }
    tfmt__buf_printf(b, "]}\n" ENV("end") ",\"samples_total\":%llu}\n",
                     (unsigned long long)total);
}

static int add_export(tfmt_profile *p, gen *g)
{
    tfmt_source *src = NULL;
    tfmt_jsonl_reader *r = NULL;
    int rc = tfmt_source_open_memory(&src, g->text.data, g->text.len, 0, NULL);
    if (rc == TFMT_OK)
        rc = tfmt_jsonl_open(&r, src, NULL, NULL);
    if (rc == TFMT_OK)
        rc = tfmt_profile_add_jsonl(p, r);
    tfmt_jsonl_free(r);
    tfmt_source_free(src);
    return rc;
}

/* One profile: the selection, when it takes it, equals the walk. */
static void check_profile(gen *g, int exports, bool dup, uint32_t limit,
                          int *declined)
{
    tfmt_profile *p = NULL;
    REQUIRE(tfmt_profile_new(&p, NULL) == TFMT_OK, "new");
    for (int i = 0; i < exports; i++) {
        export_text(g, 1 + rnd(g, 60), dup && i == 0);
        REQUIRE(add_export(p, g) == TFMT_OK, "import: %s",
                tfmt_profile_error(p)->msg);
    }
    tfmt_buf a, b;
    tfmt__buf_init(&a, NULL);
    tfmt__buf_init(&b, NULL);
    tfmt_export_options o = TFMT_EXPORT_OPTIONS_INIT;
    o.top_n = limit;
    int rc = tfmt__top_direct(p, limit, &a);
    CHECK(rc == TFMT_OK || rc == 1, "direct: %d", rc);
    CHECK(tfmt__top_walk(p, &o, &b, NULL, NULL) == TFMT_OK, "walk");
    if (rc == 1) {
        ++*declined;
        CHECK(a.len == 0, "declined after writing %zu bytes", a.len);
    } else {
        CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0,
              "tables differ (limit %u):\n%.*s\n-- walk --\n%.*s", limit,
              (int)a.len, a.data, (int)b.len, b.data);
    }
    tfmt__buf_free(&a);
    tfmt__buf_free(&b);
    tfmt_profile_free(p);
}

TEST(selection_equals_the_content_walk)
{
    gen g = {0x2545f4914f6cdd1dull, {0}};
    tfmt__buf_init(&g.text, NULL);
    int declined = 0, runs = 3000;
    for (int i = 0; i < runs; i++) {
        static const uint32_t limits[] = {1, 2, 3, 5, 20, 1000};
        uint32_t limit = limits[rnd(&g, 6)];
        check_profile(&g, 1 + (int)rnd(&g, 2), rnd(&g, 4) == 0, limit,
                      &declined);
    }
    /* Strings defined twice are about one profile in eight. */
    CHECK(declined > 0 && declined < runs / 4, "%d of %d declined", declined,
          runs);
    tfmt__buf_free(&g.text);
}

TESTS(TCASE(selection_equals_the_content_walk))
