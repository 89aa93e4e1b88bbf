/* SPDX-License-Identifier: MIT */
/*
 * test_top_direct.c - the "top" table of profiles without a call tree,
 * picked by selection (export_top_direct.c), against the content walk of
 * export_top.c on the same profiles: generated exports with many ties in
 * self and cumulative counts, few distinct names, functions of several
 * lines, frames no export lists, one or two exports merged, strings
 * defined twice with equal content (where the selection must leave the
 * profile to the walk), and table sizes from 1 to all rows. And names
 * made so that their hashes collide (top_twins.c): the check of names
 * must stay correct and give up after a bounded probe.
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

/*
 * Names of 16 bytes whose name hashes under `seed` are all equal. For
 * 9 to 16 bytes top_twins.c's hash is mix(((a ^ seed) * K1) ^ ((b + n) *
 * K2)), a and b the first and last 8 bytes; so the last 8 are solved
 * from the first 8 (letters), until they are printable too.
 */
#define K1 0x9e3779b97f4a7c15ULL
#define K2 0xc2b2ae3d27d4eb4fULL
#define NAME_LEN 16

static uint64_t odd_inverse(uint64_t k)
{
    uint64_t x = k; /* Newton's iteration: each step doubles the bits */
    for (int i = 0; i < 6; i++)
        x *= 2 - k * x;
    return x;
}

/* Printable ASCII that a JSON string holds as it is. */
static bool plain(uint64_t w)
{
    for (int i = 0; i < 8; i++) {
        unsigned c = (unsigned)(w >> (8 * i)) & 0xff;
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
            return false;
    }
    return true;
}

static void colliding_names(uint64_t seed, uint32_t n, char (*out)[17])
{
    uint64_t inverse = odd_inverse(K2), inner = 0;
    for (uint64_t count = 0, i = 0; i < n; count++) {
        uint64_t a = 0, c = count;
        for (int j = 0; j < 8; j++, c /= 26) /* distinct first halves */
            a |= (uint64_t)('a' + c % 26) << (8 * j);
        if (i == 0)
            inner = ((a ^ seed) * K1) ^ ((0x4141414141414141ULL + 16) * K2);
        uint64_t b = (inner ^ ((a ^ seed) * K1)) * inverse - 16;
        if (!plain(b))
            continue;
        memcpy(out[i], &a, 8);
        memcpy(out[i] + 8, &b, 8);
        out[i++][NAME_LEN] = 0;
    }
}

/*
 * An export of one file ("a.py") and a function (one frame) of each
 * name, with (`dup`) a string no frame uses defined twice.
 */
static void names_export(gen *g, char (*names)[17], uint32_t n, bool dup)
{
    tfmt_buf *b = &g->text;
    b->len = 0;
    tfmt__buf_puts(b, ENV("meta") ",\"sample_interval_usec\":1000}\n");
    tfmt__buf_puts(b, ENV("string_table") ",\"strings\":["
                                          "{\"str_id\":0,\"value\":\"a.py\"}");
    for (uint32_t i = 0; i < n; i++)
        tfmt__buf_printf(b, ",{\"str_id\":%u,\"value\":\"%s\"}", i + 1,
                         names[i]);
    if (dup)
        tfmt__buf_printf(b,
                         ",{\"str_id\":%u,\"value\":\"zz\"}"
                         ",{\"str_id\":%u,\"value\":\"zz\"}",
                         n + 1, n + 2);
    tfmt__buf_puts(b, "]}\n" ENV("frame_table") ",\"frames\":[");
    for (uint32_t i = 0; i < n; i++)
        tfmt__buf_printf(b,
                         "%s{\"frame_id\":%u,\"path_str_id\":0,"
                         "\"func_str_id\":%u,\"line\":1}",
                         i ? "," : "", i, i + 1);
    tfmt__buf_puts(b, "]}\n" ENV("agg") ",\"kind\":\"frame\",\"scope\":"
                                        "\"final\",\"samples_total\":"
                                        "1000000,\"entries\":[");
    for (uint32_t i = 0; i < n; i++)
        tfmt__buf_printf(b, "%s{\"frame_id\":%u,\"self\":%u,\"cumulative\":%u}",
                         i ? "," : "", i, i % 3, i % 3 + i % 2);
    tfmt__buf_puts(b, "]}\n" ENV("end") ",\"samples_total\":1000000}\n");
}

/* The selection of a names export: its return code; its table, when it
 * takes the profile, equals the walk's. */
static int check_names(gen *g, char (*names)[17], uint32_t n, bool dup)
{
    names_export(g, names, n, dup);
    tfmt_profile *p = NULL;
    if (tfmt_profile_new(&p, NULL) != TFMT_OK || add_export(p, g) != TFMT_OK) {
        CHECK(false, "import: %s", p ? tfmt_profile_error(p)->msg : "new");
        tfmt_profile_free(p);
        return -1;
    }
    tfmt_buf a, b;
    tfmt__buf_init(&a, NULL);
    tfmt__buf_init(&b, NULL);
    tfmt_export_options o = TFMT_EXPORT_OPTIONS_INIT;
    o.top_n = 20;
    int rc = tfmt__top_direct(p, 20, &a);
    CHECK(tfmt__top_walk(p, &o, &b, NULL, NULL) == TFMT_OK, "walk");
    if (rc == TFMT_OK)
        CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0,
              "tables differ:\n%.*s\n-- walk --\n%.*s", (int)a.len, a.data,
              (int)b.len, b.data);
    else
        CHECK(a.len == 0, "declined after writing %zu bytes", a.len);
    tfmt__buf_free(&a);
    tfmt__buf_free(&b);
    tfmt_profile_free(p);
    return rc;
}

/* 5,000 names: more than one partition's share, so the layout is
 * counted again; far more than a probe may pass. */
#define FLOOD 5000

static bool all_collide(char (*names)[17], uint32_t n, uint64_t seed)
{
    uint64_t h = tfmt__name_hash(names[0], NAME_LEN, seed);
    for (uint32_t i = 1; i < n; i++)
        if (tfmt__name_hash(names[i], NAME_LEN, seed) != h)
            return false;
    return true;
}

/*
 * Strings whose hashes collide: the check of strings gives up (all in
 * one partition, one chain of equal keys), the check of functions (whose
 * hashes take the file's) finds no twins, and the selection takes the
 * profile.
 */
TEST(colliding_strings_are_checked_as_functions)
{
    gen g = {1, {0}};
    tfmt__buf_init(&g.text, NULL);
    char(*names)[17] = calloc(FLOOD, sizeof *names);
    REQUIRE(names, "calloc");
    colliding_names(0, FLOOD, names);
    CHECK(all_collide(names, FLOOD, 0), "crafted names do not collide");
    CHECK(check_names(&g, names, FLOOD, false) == TFMT_OK, "declined");
    free(names);
    tfmt__buf_free(&g.text);
}

/*
 * Function names whose hashes under the file's collide, and a string
 * defined twice so that functions are checked: they have no twins, but
 * the check cannot tell in a bounded probe, and leaves the profile to
 * the walk (without a bound it would compare every pair).
 */
TEST(colliding_functions_go_to_the_walk)
{
    gen g = {1, {0}};
    tfmt__buf_init(&g.text, NULL);
    char(*names)[17] = calloc(FLOOD, sizeof *names);
    REQUIRE(names, "calloc");
    uint64_t file = tfmt__name_hash("a.py", 4, 0);
    colliding_names(file, FLOOD, names);
    CHECK(all_collide(names, FLOOD, file), "crafted names do not collide");
    CHECK(check_names(&g, names, FLOOD, true) == 1, "not declined");
    /* the same names without the string defined twice: taken */
    CHECK(check_names(&g, names, FLOOD, false) == TFMT_OK, "declined");
    /* a few of them: compared in full, no twins, taken */
    CHECK(check_names(&g, names, 40, true) == TFMT_OK, "declined");
    free(names);
    tfmt__buf_free(&g.text);
}

TESTS(TCASE(selection_equals_the_content_walk),
      TCASE(colliding_strings_are_checked_as_functions),
      TCASE(colliding_functions_go_to_the_walk))
