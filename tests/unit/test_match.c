/* SPDX-License-Identifier: MIT */
/* test_match.c - include/exclude/rewrite rules (match.c). */
#include <time.h>

#include "harness.h"
#include "fail_alloc.h"
#include <tachyon/fmt.h>

#include "internal.h"
#include "tachyon/fmt_match.h"

static tfmt_match *make(void)
{
    tfmt_match *m = NULL;
    int rc = tfmt_match_new(&m, NULL);
    CHECK(rc == TFMT_OK && m, "tfmt_match_new: %d", rc);
    return m;
}

static bool keep(tfmt_match *m, const char *file, const char *func)
{
    bool k = true;
    tfmt_error err = {0};
    int rc =
        tfmt_match_filter(m, file, strlen(file), func, strlen(func), &k, &err);
    CHECK(rc == TFMT_OK, "filter %s:%s: %d %s", file, func, rc, err.msg);
    return k;
}

/* Rewrite `in` and compare with `want`. */
static void check_rewrite(tfmt_match *m, const char *in, const char *want)
{
    const char *out = NULL;
    size_t n = 0;
    tfmt_error err = {0};
    int rc =
        tfmt_match_rewrite(m, TFMT_MATCH_FILE, in, strlen(in), &out, &n, &err);
    CHECK(rc == TFMT_OK, "rewrite %s: %d %s", in, rc, err.msg);
    if (rc == TFMT_OK)
        CHECK(n == strlen(want) && memcmp(out, want, n) == 0,
              "rewrite %s: got '%.*s', want '%s'", in, (int)n, out, want);
}

TEST(empty_set_keeps_everything)
{
    tfmt_match *m = make();
    REQUIRE(m, "no handle");
    CHECK(keep(m, "a.py", "f"), "empty set keeps");
    CHECK(keep(m, "", ""), "empty names kept");
    check_rewrite(m, "/x/y.py", "/x/y.py");
    CHECK(tfmt_match_count(m, TFMT_MATCH_INCLUDE) == 0, "no rules");
    tfmt_match_free(m);
}

TEST(include_tries_func_then_file)
{
    tfmt_match *m = make();
    REQUIRE(m, "no handle");
    tfmt_error err = {0};
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_INCLUDE, "^app/", &err) == 0, "%s",
            err.msg);
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_INCLUDE, "^main$", &err) == 0, "%s",
            err.msg);
    CHECK(keep(m, "app/x.py", "f"), "file matches the first include");
    CHECK(keep(m, "lib/x.py", "main"), "func matches the second include");
    CHECK(!keep(m, "lib/app/x.py", "mainloop"), "anchors respected");
    /* The subject is each name alone, never "file:func". */
    CHECK(!keep(m, "lib/app", "main2"), "no joined subject");
    CHECK(tfmt_match_count(m, TFMT_MATCH_INCLUDE) == 2, "two includes");
    tfmt_match_free(m);
}

TEST(exclude_wins_over_include)
{
    tfmt_match *m = make();
    REQUIRE(m, "no handle");
    tfmt_error err = {0};
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_INCLUDE, "app", &err) == 0, "inc");
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_EXCLUDE, "^_", &err) == 0, "exc");
    CHECK(keep(m, "app/a.py", "run"), "included");
    CHECK(!keep(m, "app/a.py", "_private"), "func excluded");
    CHECK(!keep(m, "other.py", "run"), "not included");
    tfmt_match_free(m);

    m = make();
    REQUIRE(m, "no handle");
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_EXCLUDE, "site-packages", &err) == 0,
            "exc");
    CHECK(keep(m, "/src/a.py", "run"), "only excludes: others kept");
    CHECK(!keep(m, "/v/lib/python3.15/site-packages/np/a.py", "dot"),
          "file excluded");
    tfmt_match_free(m);
}

TEST(rewrite_strips_prefix_with_groups)
{
    tfmt_match *m = make();
    REQUIRE(m, "no handle");
    tfmt_error err = {0};
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_REWRITE, "^.*/site-packages/=>",
                           &err) == 0,
            "%s", err.msg);
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_REWRITE,
                           "^/home/([a-z]+)/src/=>$1:", &err) == 0,
            "%s", err.msg);
    check_rewrite(m, "/venv/lib/python3.15/site-packages/numpy/core.py",
                  "numpy/core.py");
    check_rewrite(m, "/home/ann/src/app/main.py", "ann:app/main.py");
    check_rewrite(m, "relative.py", "relative.py");
    CHECK(tfmt_match_count(m, TFMT_MATCH_REWRITE) == 2, "two rewrites");
    tfmt_match_free(m);
}

TEST(rewrite_is_global_and_chained)
{
    tfmt_match *m = make();
    REQUIRE(m, "no handle");
    tfmt_error err = {0};
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_REWRITE, "0x[0-9a-f]+=>0x?", &err) ==
                0,
            "%s", err.msg);
    /* Applies to the previous rule's output: "0x?" -> "ADDR". */
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_REWRITE, "0x\\?=>ADDR", &err) == 0,
            "%s", err.msg);
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_REWRITE, "\\$=>$$$$", &err) == 0, "%s",
            err.msg);
    check_rewrite(m, "<lambda at 0x7f00ab> and 0x1",
                  "<lambda at ADDR> and "
                  "ADDR");
    check_rewrite(m, "a$b", "a$$b");
    /* Growth beyond the first buffer guess. */
    char big[300], want[1300];
    memset(big, '$', 299);
    big[299] = '\0';
    memset(want, '$', 598);
    want[598] = '\0';
    check_rewrite(m, big, want);
    tfmt_match_free(m);
}

TEST(rewrite_named_and_unset_groups)
{
    tfmt_match *m = make();
    REQUIRE(m, "no handle");
    tfmt_error err = {0};
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_REWRITE,
                           "^(?<mod>\\w+)\\.py(x)?$=>${mod}[$2]", &err) == 0,
            "%s", err.msg);
    check_rewrite(m, "abc.py", "abc[]");
    check_rewrite(m, "abc.pyx", "abc[x]");
    tfmt_match_free(m);
}

/* An unbraced number ends at the first non-digit, as PCRE2 reads it. */
TEST(rewrite_number_then_letters)
{
    tfmt_match *m = make();
    REQUIRE(m, "no handle");
    tfmt_error err = {0};
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_REWRITE, "^(a)(b)=>$2x$1_y", &err) ==
                0,
            "%s", err.msg);
    check_rewrite(m, "abc", "bxa_yc");
    tfmt_match_free(m);
}

TEST(compile_errors_are_one_line_with_offset)
{
    tfmt_match *m = make();
    REQUIRE(m, "no handle");
    tfmt_error err = {0};
    int rc = tfmt_match_add(m, TFMT_MATCH_INCLUDE, "foo(bar", &err);
    CHECK(rc == TFMT_EINVAL, "rc %d", rc);
    CHECK(strcmp(err.msg, "missing closing parenthesis at offset 7") == 0,
          "msg '%s'", err.msg);
    CHECK(err.has_offset && err.offset == 7, "offset %llu",
          (unsigned long long)err.offset);
    rc = tfmt_match_add(m, TFMT_MATCH_REWRITE, "a(b=>x", &err);
    CHECK(strcmp(err.msg, "missing closing parenthesis at offset 3") == 0,
          "msg '%s'", err.msg);
    rc = tfmt_match_add(m, TFMT_MATCH_REWRITE, "abc", &err);
    CHECK(rc == TFMT_EINVAL &&
              strcmp(err.msg, "expected "
                              "'REGEX=>REPLACEMENT', got 'abc'") == 0,
          "msg '%s'", err.msg);
    rc = tfmt_match_add(m, TFMT_MATCH_REWRITE, "(a)=>$2", &err);
    CHECK(rc == TFMT_EINVAL && strcmp(err.msg, "replacement: no group 2 in "
                                               "the pattern (it has 1)") == 0,
          "msg '%s'", err.msg);
    rc = tfmt_match_add(m, TFMT_MATCH_REWRITE, "(a)=>${nope}", &err);
    CHECK(rc == TFMT_EINVAL && strcmp(err.msg, "replacement: no group named "
                                               "'nope' in the pattern") == 0,
          "msg '%s'", err.msg);
    rc = tfmt_match_add(m, TFMT_MATCH_REWRITE, "(a)=>x$", &err);
    CHECK(rc == TFMT_EINVAL && strcmp(err.msg, "replacement: invalid group "
                                               "reference at offset 1") == 0,
          "msg '%s'", err.msg);
    rc = tfmt_match_add(m, TFMT_MATCH_REWRITE, "(a)=>${1", &err);
    CHECK(rc == TFMT_EINVAL && strcmp(err.msg, "replacement: missing '}' "
                                               "after offset 0") == 0,
          "msg '%s'", err.msg);
    /* Failed adds leave the set unchanged. */
    CHECK(tfmt_match_count(m, TFMT_MATCH_REWRITE) == 0, "no rule added");
    CHECK(tfmt_match_count(m, TFMT_MATCH_INCLUDE) == 0, "no rule added");
    tfmt_match_free(m);
}

TEST(invalid_utf8_subjects_match)
{
    tfmt_match *m = make();
    REQUIRE(m, "no handle");
    tfmt_error err = {0};
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_INCLUDE, "caf\xc3\xa9", &err) == 0,
            "%s", err.msg);
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_REWRITE, "^x.=>y", &err) == 0, "%s",
            err.msg);
    CHECK(keep(m, "f.py", "caf\xc3\xa9_run"), "utf-8 name matches");
    CHECK(keep(m, "f.py", "\xff\xfe caf\xc3\xa9"), "after invalid bytes");
    CHECK(!keep(m, "f.py", "caf\xe9"), "latin-1 byte is not e-acute");
    /* '.' takes the whole two-byte character. */
    check_rewrite(m, "x\xc3\xa9z", "yz");
    check_rewrite(m, "x\xffz", "x\xffz");
    tfmt_match_free(m);
}

TEST(catastrophic_backtracking_fails_fast)
{
    tfmt_match *m = make();
    REQUIRE(m, "no handle");
    tfmt_error err = {0};
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_EXCLUDE, "^(a+)+$", &err) == 0, "%s",
            err.msg);
    char subject[64];
    memset(subject, 'a', 40);
    subject[40] = 'b';
    subject[41] = '\0';
    bool k = true;
    clock_t t0 = clock();
    int rc = tfmt_match_filter(m, "f.py", 4, subject, 41, &k, &err);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    /* the pattern is at fault, not the data: EINVAL, tools exit 2 */
    CHECK(rc == TFMT_EINVAL, "rc %d", rc);
    CHECK(strcmp(err.msg, "pattern '^(a+)+$': match limit exceeded") == 0,
          "msg '%s'", err.msg);
    /* Without a limit this takes hours; generous bound for slow CI. */
    CHECK(secs < 5.0, "took %.3f s", secs);
    tfmt_match_free(m);
}

/*
 * Chained rules that double a name: refused once the result would pass
 * TFMT_MATCH_MAX_NAME (20 doublings of "main" would be 4 MiB); a name
 * that was that long already may stay so.
 */
TEST(rewrite_growth_is_capped)
{
    tfmt_match *m = make();
    REQUIRE(m, "no handle");
    tfmt_error err = {0};
    for (int i = 0; i < 20; i++)
        REQUIRE(tfmt_match_add(m, TFMT_MATCH_REWRITE, "(.+)=>$1$1", &err) ==
                    TFMT_OK,
                "%s", err.msg);
    const char *out = NULL;
    size_t n = 0;
    int rc = tfmt_match_rewrite(m, TFMT_MATCH_FUNC, "main", 4, &out, &n, &err);
    CHECK(rc == TFMT_EINVAL, "rc %d", rc);
    CHECK(strcmp(err.msg, "pattern '(.+)=>$1$1': rewritten name longer "
                          "than 65536 bytes") == 0,
          "msg '%s'", err.msg);
    tfmt_match_free(m);
    m = make();
    REQUIRE(m, "no handle");
    REQUIRE(tfmt_match_add(m, TFMT_MATCH_REWRITE, "a=>b", &err) == TFMT_OK,
            "%s", err.msg);
    size_t big = TFMT_MATCH_MAX_NAME * 2;
    char *name = malloc(big);
    REQUIRE(name, "malloc");
    memset(name, 'a', big);
    rc = tfmt_match_rewrite(m, TFMT_MATCH_FILE, name, big, &out, &n, &err);
    CHECK(rc == TFMT_OK && n == big && out[0] == 'b' && out[big - 1] == 'b',
          "long name rewritten in place: rc %d n %zu %s", rc, n, err.msg);
    free(name);
    tfmt_match_free(m);
}

/* One full use of the API; returns the first failing status. */
static int exercise(const tfmt_allocator *a)
{
    tfmt_match *m = NULL;
    tfmt_error err = {0};
    int rc = tfmt_match_new(&m, a);
    if (rc == TFMT_OK)
        rc = tfmt_match_add(m, TFMT_MATCH_INCLUDE, "x", &err);
    if (rc == TFMT_OK)
        rc = tfmt_match_add(m, TFMT_MATCH_REWRITE, "(a)=>$1$1", &err);
    const char *out = NULL;
    size_t n = 0;
    if (rc == TFMT_OK)
        rc =
            tfmt_match_rewrite(m, TFMT_MATCH_FUNC, "banana", 6, &out, &n, &err);
    if (rc == TFMT_OK && (n != 9 || memcmp(out, "baanaanaa", 9) != 0))
        rc = TFMT_EINVAL;
    tfmt_match_free(m);
    return rc;
}

TEST(failing_allocator)
{
    test_failing f = {0, 0, false};
    tfmt_allocator a = test_failing_alloc(&f);
    int ok_at = -1;
    for (int i = 0; i < 200 && ok_at < 0; i++) {
        f.at = i + 1; /* i allocations succeed */
        f.calls = 0;
        int rc = exercise(&a);
        CHECK(rc == TFMT_OK || rc == TFMT_ENOMEM, "alloc %d: rc %d", i, rc);
        if (rc == TFMT_OK)
            ok_at = i;
    }
    CHECK(ok_at > 5, "succeeded once allocations stopped failing (%d)", ok_at);
}

TESTS(TCASE(empty_set_keeps_everything), TCASE(include_tries_func_then_file),
      TCASE(exclude_wins_over_include),
      TCASE(rewrite_strips_prefix_with_groups),
      TCASE(rewrite_is_global_and_chained),
      TCASE(rewrite_named_and_unset_groups), TCASE(rewrite_number_then_letters),
      TCASE(rewrite_growth_is_capped),
      TCASE(compile_errors_are_one_line_with_offset),
      TCASE(invalid_utf8_subjects_match),
      TCASE(catastrophic_backtracking_fails_fast), TCASE(failing_allocator))
