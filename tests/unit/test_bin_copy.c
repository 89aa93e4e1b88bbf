/* SPDX-License-Identifier: MIT */
/*
 * test_bin_copy.c - tfmt_bin_copy's fast paths give the bytes the writer
 * gives sample by sample: REPEAT pairs passed through as the file has
 * them must be re-encoded when a delta is not in its shortest form, the
 * 16 KiB cut of a REPEAT group stays where CPython's writer puts it, and
 * a compressed input (whose pairs straddle window refills) copies to the
 * same bytes.
 */
#include <stdint.h>
#include <unistd.h>

#include <tachyon/fmt.h>

#include "fail_alloc.h"
#include "harness.h"
#include "log_files.h"

#define NREP 20000u /* REPEAT samples of thread A: two 16 KiB groups */

static char dir[256];

static const char *path_of(const char *name)
{
    static char buf[4][512];
    static int k;
    if (!dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/tfmt_copy_XXXXXX", t ? t : "/tmp");
        if (!mkdtemp(dir))
            return "/nonexistent/x";
    }
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/*
 * Thread A: a one-frame FULL sample, then NREP samples of the same stack
 * 5 us apart (one-byte deltas) with the status changing now and then; a
 * few samples of thread B in between end A's REPEAT records early.
 */
static int write_log(const char *path, uint32_t compression)
{
    test_log_out out;
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.start_time_us = 1000;
    o.sample_interval_us = 5;
    o.compression = compression;
    int rc = test_log_create(&out, path, &o, NULL);
    tfmt_bin_writer *w = out.w;
    uint32_t fa, fb;
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_location(w, "a.py", 4, "a", 1, 1, 1, 0, 1, 255,
                                      &fa);
    uint64_t ts = 1003;
    for (uint32_t i = 0; i <= NREP && rc == TFMT_OK; i++, ts += 5) {
        uint8_t status = (i / 7) % 3 == 0 ? 0x03 : 0x01;
        rc = tfmt_bin_writer_sample(w, 1, 0, ts, status, &fa, 1);
        if (rc == TFMT_OK && i == 17000)
            rc = tfmt_bin_writer_location(w, "b.py", 4, "b", 1, 2, 2, 0, 1, 255,
                                          &fb);
        if (rc == TFMT_OK && i >= 17000 && i % 1000 == 0)
            rc = tfmt_bin_writer_sample(w, 2, 0, ts + 1, 0x02, &fb, 1);
    }
    return test_log_finish(&out, rc);
}

static int copy_log(const char *in, const char *out)
{
    test_log l;
    test_log_out w = {NULL, NULL};
    int rc = test_log_open(&l, in, NULL, NULL);
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    if (rc == TFMT_OK) {
        const tfmt_info *info = tfmt_bin_info(l.r);
        o.start_time_us = info->start_time_us;
        o.sample_interval_us = info->sample_interval_us;
        rc = test_log_create(&w, out, &o, NULL);
    }
    if (rc == TFMT_OK)
        rc = tfmt_bin_copy(l.r, w.w);
    rc = test_log_finish(&w, rc);
    test_log_close(&l);
    return rc;
}

static bool same_file(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    unsigned char *x = harness_slurp(a, &na), *y = harness_slurp(b, &nb);
    bool same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

static uint64_t ld64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static void st64(unsigned char *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

/*
 * The same log with the first REPEAT pair's one-byte delta spelled in two
 * bytes (d | 0x80, 0x00): the file grows by a byte, so the table offsets
 * and the footer's file size move too. The pair is found by its place:
 * the FULL record is 13 + 4 bytes, then the REPEAT head of 13 bytes and
 * a two-byte count.
 */
static int widen_first_pair(const char *in, const char *out)
{
    size_t n = 0;
    unsigned char *b = harness_slurp(in, &n);
    unsigned char *c = b ? malloc(n + 1) : NULL;
    size_t at = 64 + 17 + 13 + 2;
    int rc = -1;
    if (c && b[64 + 17 + 12] == 0 && b[at] == 5) {
        memcpy(c, b, at);
        c[at] = 0x85;
        c[at + 1] = 0x00;
        memcpy(c + at + 2, b + at + 1, n - at - 1);
        st64(c + 40, ld64(c + 40) + 1);
        st64(c + 48, ld64(c + 48) + 1);
        st64(c + n + 1 - 32 + 8, ld64(c + n + 1 - 32 + 8) + 1);
        FILE *f = fopen(out, "wb");
        rc = f && fwrite(c, 1, n + 1, f) == n + 1 ? 0 : -1;
        if (f && fclose(f) != 0)
            rc = -1;
    }
    free(b);
    free(c);
    return rc;
}

static int save(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    int rc = f && fwrite(b, 1, n, f) == n ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    return rc;
}

static unsigned put_u14(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)(v | 0x80);
    p[1] = (unsigned char)(v >> 7);
    return 2;
}

/*
 * The same log with thread A's first two REPEAT records (adjacent, each
 * cut at 16 KiB by the writer) made one record of more than 16 KiB, as
 * another writer might have written it: 15 bytes shorter.
 */
static int join_first_repeats(const char *in, const char *out)
{
    size_t n = 0;
    unsigned char *b = harness_slurp(in, &n);
    size_t r1 = 64 + 17, r2 = 0;
    unsigned c1 = 0, c2 = 0;
    int rc = -1;
    if (b && b[r1 + 12] == 0 && (b[r1 + 14] & 0x80) == 0) {
        c1 = (b[r1 + 13] & 0x7fu) | (unsigned)b[r1 + 14] << 7;
        r2 = r1 + 15 + 2 * (size_t)c1;
    }
    if (r2 && r2 + 15 < n && b[r2 + 12] == 0 &&
        memcmp(b + r1, b + r2, 12) == 0 && (b[r2 + 14] & 0x80) == 0) {
        c2 = (b[r2 + 13] & 0x7fu) | (unsigned)b[r2 + 14] << 7;
        put_u14(b + r1 + 13, c1 + c2);
        memmove(b + r2, b + r2 + 15, n - r2 - 15);
        n -= 15;
        st64(b + 40, ld64(b + 40) - 15);
        st64(b + 48, ld64(b + 48) - 15);
        st64(b + n - 32 + 8, ld64(b + n - 32 + 8) - 15);
        rc = c1 + c2 < 16384 ? save(out, b, n) : -1;
    }
    free(b);
    return rc;
}

TEST(an_overlong_repeat_record_is_cut_as_cpython_cuts)
{
    const char *plain = path_of("plain.bin"), *joined = path_of("join.bin");
    const char *out = path_of("copy.bin");
    REQUIRE(write_log(plain, TFMT_COMPRESSION_NONE) == TFMT_OK, "write");
    REQUIRE(join_first_repeats(plain, joined) == 0, "join");
    REQUIRE(copy_log(joined, out) == TFMT_OK, "copy of the joined log");
    CHECK(same_file(plain, out), "the 16 KiB cut moved");
    remove(joined);
}

TEST(copy_of_a_writers_log_is_the_log)
{
    const char *plain = path_of("plain.bin"), *out = path_of("copy.bin");
    REQUIRE(write_log(plain, TFMT_COMPRESSION_NONE) == TFMT_OK, "write");
    REQUIRE(copy_log(plain, out) == TFMT_OK, "copy");
    CHECK(same_file(plain, out), "copy differs from its input");
}

TEST(long_form_deltas_are_written_short)
{
    const char *plain = path_of("plain.bin"), *wide = path_of("wide.bin");
    const char *out = path_of("copy.bin");
    REQUIRE(write_log(plain, TFMT_COMPRESSION_NONE) == TFMT_OK, "write");
    REQUIRE(widen_first_pair(plain, wide) == 0, "widen");
    REQUIRE(copy_log(wide, out) == TFMT_OK, "copy of the widened log");
    CHECK(same_file(plain, out), "not re-encoded in the shortest form");
}

/*
 * A frame index equal to the frame count in a thread's second record,
 * which the fast path reads (testdata/bad/bin_frame_index_edge.bin), is
 * refused as the reader refuses it: with libc's allocator (under ASan a
 * loosened bound stops at the read past the frame table's validity
 * bytes) and with the guard allocator, whose byte there is not 0
 * (fail_alloc.h), so that a loosened bound would take the frame.
 */
TEST(frame_index_at_the_frame_count_is_refused)
{
    tfmt_allocator guard = test_guard_alloc();
    const tfmt_allocator *allocs[2] = {NULL, &guard};
    const char *out = path_of("edge.bin");
    for (int i = 0; i < 2; i++) {
        test_log l;
        test_log_out w = {NULL, NULL};
        tfmt_bin_options bo = TFMT_BIN_OPTIONS_INIT;
        bo.alloc = allocs[i];
        int rc = test_log_open(&l, TESTDATA "/bad/bin_frame_index_edge.bin",
                               &bo, NULL);
        tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
        o.alloc = allocs[i];
        if (rc == TFMT_OK)
            rc = test_log_create(&w, out, &o, NULL);
        REQUIRE(rc == TFMT_OK, "open: %d", rc);
        rc = tfmt_bin_copy(l.r, w.w);
        const tfmt_error *e = tfmt_bin_writer_error(w.w);
        CHECK(rc == TFMT_EFORMAT &&
                  strcmp(e->msg, "invalid frame index: 5") == 0 &&
                  e->has_offset && e->offset == 83,
              "allocator %d: status %d, '%s' at %llu", i, rc, e->msg,
              (unsigned long long)e->offset);
        test_log_finish(&w, rc);
        test_log_close(&l);
    }
    remove(out);
}

TEST(compressed_input_copies_to_the_same_bytes)
{
    const char *plain = path_of("plain.bin"), *zst = path_of("zstd.bin");
    const char *out = path_of("copy.bin");
    REQUIRE(write_log(plain, TFMT_COMPRESSION_NONE) == TFMT_OK, "write");
    REQUIRE(write_log(zst, TFMT_COMPRESSION_ZSTD) == TFMT_OK, "write zstd");
    REQUIRE(copy_log(zst, out) == TFMT_OK, "copy");
    CHECK(same_file(plain, out), "zstd input copies differently");
    remove(plain);
    remove(zst);
    remove(out);
    remove(path_of("wide.bin"));
    rmdir(dir);
}

TESTS(TCASE(copy_of_a_writers_log_is_the_log),
      TCASE(long_form_deltas_are_written_short),
      TCASE(an_overlong_repeat_record_is_cut_as_cpython_cuts),
      TCASE(frame_index_at_the_frame_count_is_refused),
      TCASE(compressed_input_copies_to_the_same_bytes))
