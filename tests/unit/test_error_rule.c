/* SPDX-License-Identifier: MIT */
/*
 * test_error_rule.c - the library's error rule (fmt_error.h): the handle
 * the caller called owns the error, and a handle that failed because one
 * it uses failed holds a copy of that one's error. Checked for every
 * consumer: a profile, a Gecko timeline and a flat profile reading a
 * corrupt log or JSONL file, tfmt_bin_copy reading a corrupt log, and a
 * profile and a timeline exporting to a full disk.
 */
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "log_files.h"
#include <tachyon/fmt.h>

#define BAD TESTDATA "/bad/"
#define GOOD TESTDATA "/cpython/workload/none.bin"

/* The same error: status, location, message and next step. */
static bool same_error(const tfmt_error *a, const tfmt_error *b)
{
    return a->code < 0 && a->code == b->code &&
           a->has_offset == b->has_offset && a->offset == b->offset &&
           a->line == b->line && a->check == b->check && a->hint == b->hint &&
           strcmp(a->msg, b->msg) == 0;
}

/* bin_encoding.bin opens, then fails while its samples are read. */
#define STREAM_BAD BAD "bin_encoding.bin"

TEST(profile_copies_reader_error)
{
    test_log o;
    tfmt_profile *p = NULL;
    REQUIRE(test_log_open(&o, STREAM_BAD, NULL, NULL) == TFMT_OK &&
                tfmt_profile_new(&p, NULL) == 0,
            "open");
    CHECK(tfmt_profile_add_bin(p, o.r) == TFMT_EFORMAT, "add fails");
    CHECK(same_error(tfmt_profile_error(p), tfmt_bin_error(o.r)),
          "profile error '%s', reader error '%s'", tfmt_profile_error(p)->msg,
          tfmt_bin_error(o.r)->msg);
    tfmt_profile_free(p);
    test_log_close(&o);
}

TEST(gecko_copies_reader_error)
{
    test_log o;
    tfmt_gecko *g = NULL;
    REQUIRE(test_log_open(&o, STREAM_BAD, NULL, NULL) == TFMT_OK &&
                tfmt_gecko_new(&g, NULL) == 0,
            "open");
    CHECK(tfmt_gecko_add_bin(g, o.r) == TFMT_EFORMAT, "add fails");
    CHECK(same_error(tfmt_gecko_error(g), tfmt_bin_error(o.r)),
          "gecko error '%s'", tfmt_gecko_error(g)->msg);
    tfmt_gecko_free(g);
    test_log_close(&o);
}

TEST(flat_copies_reader_errors)
{
    test_log o;
    tfmt_flat *f = NULL;
    REQUIRE(test_log_open(&o, STREAM_BAD, NULL, NULL) == TFMT_OK &&
                tfmt_flat_new(&f, NULL) == 0,
            "open");
    CHECK(tfmt_flat_add_bin(f, o.r) == TFMT_EFORMAT, "add_bin fails");
    CHECK(same_error(tfmt_flat_error(f), tfmt_bin_error(o.r)),
          "flat error '%s'", tfmt_flat_error(f)->msg);
    test_log_close(&o);

    tfmt_source *src = NULL;
    tfmt_jsonl_reader *jr = NULL;
    tfmt_error err = {0};
    REQUIRE(tfmt_source_open_path(&src, BAD "jsonl_syntax.jsonl", NULL, &err) ==
                    0 &&
                tfmt_jsonl_open(&jr, src, NULL, &err) == 0,
            "open jsonl");
    CHECK(tfmt_flat_add_jsonl(f, jr) == TFMT_EFORMAT, "add_jsonl fails");
    CHECK(same_error(tfmt_flat_error(f), tfmt_jsonl_error(jr)) &&
              tfmt_flat_error(f)->line > 0,
          "flat error '%s' line %llu", tfmt_flat_error(f)->msg,
          (unsigned long long)tfmt_flat_error(f)->line);
    tfmt_jsonl_free(jr);
    tfmt_source_free(src);
    tfmt_flat_free(f);
}

TEST(copy_puts_reader_error_on_writer)
{
    test_log o;
    tfmt_sink *sink = NULL;
    tfmt_bin_writer *w = NULL;
    tfmt_error err = {0};
    REQUIRE(test_log_open(&o, STREAM_BAD, NULL, NULL) == TFMT_OK, "open");
    REQUIRE(tfmt_sink_open(&sink, "/dev/null", TFMT_SINK_SEEKABLE, NULL,
                           &err) == 0 &&
                tfmt_bin_writer_open(&w, sink, NULL, &err) == 0,
            "writer: %s", err.msg);
    CHECK(tfmt_bin_copy(o.r, w) == TFMT_EFORMAT, "copy fails");
    CHECK(same_error(tfmt_bin_writer_error(w), tfmt_bin_error(o.r)),
          "writer error '%s'", tfmt_bin_writer_error(w)->msg);
    tfmt_bin_writer_free(w);
    tfmt_sink_free(sink);
    test_log_close(&o);
}

/*
 * A log whose exports are larger than a sink's buffer (256 KiB), so the
 * sink passes bytes on while the export runs: 6000 frames with long
 * names, one sample each. Written to a temporary file; *path gets its
 * name.
 */
static bool big_log(char *path, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, cap, "%s/test_error_rule_%d.bin", dir && *dir ? dir : "/tmp",
             (int)getpid());
    test_log_out out;
    int rc = test_log_create(&out, path, NULL, NULL);
    tfmt_bin_writer *w = out.w;
    for (uint32_t i = 0; i < 6000 && rc == TFMT_OK; i++) {
        char file[96], func[96];
        uint32_t frame;
        snprintf(file, sizeof file, "/srv/a/rather/long/path/to/module_%u.py",
                 i);
        snprintf(func, sizeof func, "function_with_a_long_name_%u", i);
        rc = tfmt_bin_writer_location(w, file, strlen(file), func, strlen(func),
                                      (int32_t)i + 1, (int32_t)i + 1, 0, 4, 0,
                                      &frame);
        if (rc == TFMT_OK)
            rc = tfmt_bin_writer_sample(w, 1, 0, 1000 + i, TFMT_STATUS_HAS_GIL,
                                        &frame, 1);
    }
    return test_log_finish(&out, rc) == TFMT_OK;
}

/* A sink on /dev/full: every write it passes on fails with ENOSPC. */
static tfmt_sink *full_sink(unsigned flags)
{
    tfmt_sink *sink = NULL;
    tfmt_error err = {0};
    if (tfmt_sink_open(&sink, "/dev/full", flags, NULL, &err) != TFMT_OK)
        return NULL;
    return sink;
}

TEST(writers_copy_sink_error)
{
    char path[512];
    test_log o;
    tfmt_profile *p = NULL;
    tfmt_gecko *g = NULL;
    tfmt_sink *sink = full_sink(0);
    REQUIRE(sink && big_log(path, sizeof path), "/dev/full, %s", path);
    REQUIRE(test_log_open(&o, path, NULL, NULL) == TFMT_OK &&
                tfmt_profile_new(&p, NULL) == 0 &&
                tfmt_profile_add_bin(p, o.r) == TFMT_OK,
            "profile");
    test_log_close(&o);
    int rc =
        tfmt_profile_write_jsonl(p, sink, "0123456789abcdef0123456789abcdef");
    CHECK(rc == TFMT_EIO &&
              same_error(tfmt_profile_error(p), tfmt_sink_error(sink)),
          "jsonl to a full disk: %d, profile error '%s', sink error '%s'", rc,
          tfmt_profile_error(p)->msg, tfmt_sink_error(sink)->msg);
    tfmt_sink_free(sink);
    sink = full_sink(0);
    rc = tfmt_profile_write_svg(p, sink, NULL);
    CHECK(rc == TFMT_EIO &&
              same_error(tfmt_profile_error(p), tfmt_sink_error(sink)),
          "svg to a full disk: %d '%s'", rc, tfmt_profile_error(p)->msg);
    tfmt_sink_free(sink);
    sink = full_sink(0);
    REQUIRE(test_log_open(&o, path, NULL, NULL) == TFMT_OK &&
                tfmt_gecko_new(&g, NULL) == 0 &&
                tfmt_gecko_add_bin(g, o.r) == TFMT_OK,
            "timeline");
    CHECK(tfmt_gecko_write(g, sink) == TFMT_EIO &&
              same_error(tfmt_gecko_error(g), tfmt_sink_error(sink)),
          "gecko to a full disk: '%s'", tfmt_gecko_error(g)->msg);
    test_log_close(&o);
    tfmt_sink_free(sink);
    tfmt_gecko_free(g);
    tfmt_profile_free(p);
    remove(path);
}

TESTS(TCASE(profile_copies_reader_error), TCASE(gecko_copies_reader_error),
      TCASE(flat_copies_reader_errors), TCASE(copy_puts_reader_error_on_writer),
      TCASE(writers_copy_sink_error))
