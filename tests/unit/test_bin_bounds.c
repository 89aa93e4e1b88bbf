/* SPDX-License-Identifier: MIT */
/*
 * test_bin_bounds.c - the binary reader at each of its bounds.
 *
 * Every limit on a value read from a log (a varint's width, a frame
 * index, a stack depth, a SUFFIX shared count, a REPEAT count, the
 * footer's counts) is tried at the last value it allows, which must read,
 * and at the first it refuses, which must fail with CPython's message at
 * the record's offset. Values far past a bound (index 100 of 3) let a
 * loosened bound through (tests/mutate/mutants.txt); these do not. Each
 * case is a CPython-written fixture changed in one place.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fail_alloc.h"
#include "harness.h"
#include <tachyon/fmt.h>

#include "internal.h"

/* ---- varints ---- */

typedef struct vcase {
    const char *what;
    uint8_t bytes[12];
    size_t len;
    int rc64, rc32; /* 1 read, 0 ran out, -1 malformed or too big */
    uint64_t value;
} vcase;

static const vcase VARINTS[] = {
    {"2^32 - 1", {0xff, 0xff, 0xff, 0xff, 0x0f}, 5, 1, 1, 0xffffffffu},
    {"2^32", {0x80, 0x80, 0x80, 0x80, 0x10}, 5, 1, -1, 1ull << 32},
    {"2^32 + 1", {0x81, 0x80, 0x80, 0x80, 0x10}, 5, 1, -1, (1ull << 32) + 1},
    {"2^35 - 1", {0xff, 0xff, 0xff, 0xff, 0x7f}, 5, 1, -1, (1ull << 35) - 1},
    {"2^64 - 1",
     {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
     10,
     1,
     -1,
     UINT64_MAX},
    {"an 11th group",
     {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
     11,
     -1,
     -1,
     0},
    {"0 in five bytes", {0x80, 0x80, 0x80, 0x80, 0x00}, 5, 1, 1, 0},
    {"2^14 - 1 (two bytes)", {0xff, 0x7f}, 2, 1, 1, 16383},
    {"cut after a continuation", {0x80, 0x80}, 2, 0, 0, 0},
};

TEST(varints_at_and_above_2_32)
{
    for (size_t i = 0; i < sizeof VARINTS / sizeof VARINTS[0]; i++) {
        const vcase *c = &VARINTS[i];
        const uint8_t *p = c->bytes, *end = c->bytes + c->len;
        uint64_t v64 = 0;
        int rc = tfmt__varint_u64(&p, end, &v64);
        CHECK(rc == c->rc64, "%s: u64 gave %d, want %d", c->what, rc, c->rc64);
        CHECK(rc != 1 || (v64 == c->value && p == end),
              "%s: u64 read %" PRIu64 " in %td bytes", c->what, v64,
              p - c->bytes);
        p = c->bytes;
        uint32_t v32 = 12345;
        rc = tfmt__varint_u32(&p, end, &v32);
        CHECK(rc == c->rc32, "%s: u32 gave %d (value %u), want %d", c->what, rc,
              v32, c->rc32);
        if (rc == 1)
            CHECK(v32 == c->value && p == end, "%s: u32 read %u", c->what, v32);
        else
            CHECK(p == c->bytes && v32 == 12345,
                  "%s: a refused u32 moved the cursor or wrote %u", c->what,
                  v32);
    }
}

/* ---- fixtures changed in one place ---- */

static uint8_t *load(const char *c, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/cpython/%s/none.bin", TESTDATA, c);
    uint8_t *d = harness_slurp(path, n);
    if (!d)
        fprintf(stderr, "cannot read %s\n", path);
    return d;
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/*
 * d[off, off + old) (in the sample region) replaced by `len` bytes of
 * `with` (NULL: `fill` repeated), the tables moved and the header offsets
 * and footer size put right. A new malloc'd image; *n is updated.
 */
static uint8_t *splice(const uint8_t *d, size_t *n, size_t off, size_t old,
                       const uint8_t *with, size_t len, uint8_t fill)
{
    size_t m = *n - old + len;
    uint8_t *out = malloc(m);
    if (!out)
        return NULL;
    memcpy(out, d, off);
    if (with)
        memcpy(out + off, with, len);
    else
        memset(out + off, fill, len);
    memcpy(out + off + len, d + off + old, *n - off - old);
    put64(out + 40, get64(d + 40) + len - old);
    put64(out + 48, get64(d + 48) + len - old);
    put64(out + m - 24, m);
    *n = m;
    return out;
}

typedef struct outcome {
    int rc;
    tfmt_error err;
    uint64_t samples;
    uint32_t max_depth;
} outcome;

/* The reader's allocator (NULL: libc's); see guarded(). */
static const tfmt_allocator *reader_alloc;

static outcome decode(const uint8_t *d, size_t n)
{
    outcome o = {0};
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    tfmt_bin_options bo = TFMT_BIN_OPTIONS_INIT;
    bo.alloc = reader_alloc;
    o.rc = tfmt_source_open_memory(&src, d, n, 0, NULL);
    if (o.rc == TFMT_OK)
        o.rc = tfmt_bin_open(&r, src, &bo, &o.err);
    const tfmt_sample *s;
    while (o.rc == TFMT_OK && (o.rc = tfmt_bin_next(r, &s)) == TFMT_OK) {
        o.samples += s->weight;
        o.max_depth = s->depth > o.max_depth ? s->depth : o.max_depth;
    }
    if (r && o.rc != TFMT_DONE)
        o.err = *tfmt_bin_error(r);
    tfmt_bin_free(r);
    tfmt_source_free(src);
    return o;
}

/* The image must read to the end: `samples` samples, deepest `depth`. */
static void expect_read(const char *what, const uint8_t *d, size_t n,
                        uint64_t samples, uint32_t depth)
{
    outcome o = decode(d, n);
    CHECK(o.rc == TFMT_DONE, "%s: status %d (%s)", what, o.rc, o.err.msg);
    CHECK(o.samples == samples && o.max_depth == depth,
          "%s: %" PRIu64 " samples, deepest %u; want %" PRIu64 " and %u", what,
          o.samples, o.max_depth, samples, depth);
}

/* The image must fail: code, check, message and offset. */
static void expect_fail(const char *what, const uint8_t *d, size_t n, int code,
                        int check, uint64_t at, const char *want)
{
    outcome o = decode(d, n);
    CHECK(o.rc == code && o.err.check == check,
          "%s: status %d check %d, want %d and %d (%s)", what, o.rc,
          o.err.check, code, check, o.err.msg);
    CHECK(strcmp(o.err.msg, want) == 0, "%s: message\n  got:  %s\n  want: %s",
          what, o.err.msg, want);
    CHECK(o.err.has_offset && o.err.offset == at,
          "%s: offset %" PRIu64 ", want %" PRIu64, what, o.err.offset, at);
}

/*
 * single_full/none.bin: one FULL record at 64 (13-byte head, delta
 * dc 0b, status, depth 03 at byte 80, frames 00 01 02 at 81..83) of a
 * thread with 3 frames; 3 strings.
 */
TEST(varint_above_2_32_in_a_record)
{
    size_t n;
    uint8_t *d = load("single_full", &n);
    REQUIRE(d, "fixture");
    static const uint8_t big[] = {0x80, 0x80, 0x80, 0x80, 0x10};
    static const uint8_t max[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
    static const uint8_t depth[] = {0x83, 0x80, 0x80, 0x80, 0x10};
    size_t m = n;
    uint8_t *e = splice(d, &m, 81, 1, big, sizeof big, 0);
    REQUIRE(e, "memory");
    /* read as 0 (a valid frame) if the width were not checked */
    expect_fail("frame index 2^32", e, m, TFMT_EFORMAT, TFMT_BCHK_VARINT, 81,
                "invalid or incomplete varint in binary data");
    free(e);
    m = n;
    e = splice(d, &m, 81, 1, max, sizeof max, 0);
    REQUIRE(e, "memory");
    expect_fail("frame index 2^32 - 1", e, m, TFMT_EFORMAT,
                TFMT_BCHK_FRAME_INDEX, 64, "invalid frame index: 4294967295");
    free(e);
    m = n;
    e = splice(d, &m, 80, 1, depth, sizeof depth, 0);
    REQUIRE(e, "memory");
    /* read as depth 3 if the width were not checked */
    expect_fail("depth 2^32 + 3", e, m, TFMT_EFORMAT, TFMT_BCHK_VARINT, 80,
                "malformed varint in sample data");
    free(e);
    free(d);
}

/*
 * One past the last frame. A loosened bound (f > nframes) first reads the
 * validity byte one past the frame table's: ASan stops there; without it,
 * with libc's allocator that byte is mostly 0 and the message comes out
 * right all the same, so the read is made again with the guard allocator,
 * whose byte there is not 0: the frame is then taken, and this fails.
 */
TEST(frame_index_equal_to_the_frame_count)
{
    size_t n;
    uint8_t *d = load("single_full", &n);
    REQUIRE(d, "fixture");
    tfmt_allocator guard = test_guard_alloc();
    const tfmt_allocator *allocs[2] = {NULL, &guard};
    for (int i = 0; i < 2; i++) {
        reader_alloc = allocs[i];
        d[81] = 2; /* the last frame: reads */
        expect_read("frame index 2 of 3", d, n, 1, 3);
        d[81] = 3;
        expect_fail(i ? "frame index 3 of 3, guarded" : "frame index 3 of 3", d,
                    n, TFMT_EFORMAT, TFMT_BCHK_FRAME_INDEX, 64,
                    "invalid frame index: 3");
    }
    reader_alloc = NULL;
    free(d);
}

/* single_full's frame table at 127: frame 0 is file 0, function 1, ...;
 * its string table holds 5 strings. */
TEST(string_index_equal_to_the_string_count)
{
    size_t n;
    uint8_t *d = load("single_full", &n);
    REQUIRE(d && d[127] == 0 && d[128] == 1, "fixture");
    d[127] = 4; /* the last string: reads */
    expect_read("file string 4 of 5", d, n, 1, 3);
    d[127] = 5;
    expect_fail("file string 5 of 5", d, n, TFMT_EFORMAT,
                TFMT_BCHK_STRING_INDEX, 64, "invalid string index in frame");
    d[127] = 0;
    d[128] = 5;
    expect_fail("function string 5 of 5", d, n, TFMT_EFORMAT,
                TFMT_BCHK_STRING_INDEX, 64, "invalid string index in frame");
    free(d);
}

/* The profiling config word (byte 60): bits 0-2 are mode + 1, 0..5. */
TEST(profiling_mode_5_and_6)
{
    size_t n;
    uint8_t *d = load("single_full", &n);
    REQUIRE(d, "fixture");
    d[60] = 5; /* exception mode */
    expect_read("mode 5 - 1", d, n, 1, 3);
    d[60] = 6;
    expect_fail("mode 6 - 1", d, n, TFMT_EFORMAT, TFMT_BCHK_MODE, 60,
                "invalid profiling mode in header: 6");
    free(d);
}

TEST(full_depth_256_and_257)
{
    size_t n;
    uint8_t *d = load("single_full", &n);
    REQUIRE(d, "fixture");
    uint8_t depth[258] = {0x80, 0x02}; /* 256, then 256 x frame 0 */
    size_t m = n;
    uint8_t *e = splice(d, &m, 80, 4, depth, sizeof depth, 0);
    REQUIRE(e, "memory");
    expect_read("FULL depth 256", e, m, 1, 256);
    free(e);
    uint8_t deeper[259] = {0x81, 0x02};
    m = n;
    e = splice(d, &m, 80, 4, deeper, sizeof deeper, 0);
    REQUIRE(e, "memory");
    expect_fail("FULL depth 257", e, m, TFMT_EFORMAT, TFMT_BCHK_DEPTH, 64,
                "stack depth 257 exceeds capacity 256");
    free(e);
    free(d);
}

/*
 * suffix_calls/none.bin: a FULL record of depth 2 at 64, then SUFFIX
 * records, the first at 83 (delta e8 07, status, shared 02 at byte 99,
 * new 01 at 100, frame at 101); 5 frames, 5 samples, deepest 5.
 */
TEST(suffix_shared_count_against_the_depth)
{
    size_t n;
    uint8_t *d = load("suffix_calls", &n);
    REQUIRE(d, "fixture");
    expect_read("shared 2 of depth 2", d, n, 5, 5);
    d[99] = 3;
    expect_fail("shared 3 of depth 2", d, n, TFMT_EFORMAT, TFMT_BCHK_DEPTH, 83,
                "shared count 3 exceeds current stack depth 2");
    d[99] = 2;
    d[101] = 5;
    expect_fail("frame index 5 of 5 in a SUFFIX", d, n, TFMT_EFORMAT,
                TFMT_BCHK_FRAME_INDEX, 83, "invalid frame index: 5");
    free(d);
}

TEST(final_depth_256_and_257)
{
    size_t n;
    uint8_t *d = load("suffix_calls", &n);
    REQUIRE(d, "fixture");
    /* shared 2, then 254 or 255 new frames (index 0) instead of 1 */
    uint8_t fits[3 + 254] = {0x02, 0xfe, 0x01};
    size_t m = n;
    uint8_t *e = splice(d, &m, 99, 3, fits, sizeof fits, 0);
    REQUIRE(e, "memory");
    expect_read("SUFFIX to depth 256", e, m, 5, 256);
    free(e);
    uint8_t over[3 + 255] = {0x02, 0xff, 0x01};
    m = n;
    e = splice(d, &m, 99, 3, over, sizeof over, 0);
    REQUIRE(e, "memory");
    expect_fail("SUFFIX to depth 257", e, m, TFMT_EFORMAT, TFMT_BCHK_DEPTH, 83,
                "final stack depth 257 exceeds capacity 256");
    free(e);
    free(d);
}

/*
 * repeat_rle/none.bin: a FULL record at 64, a REPEAT at 84 of thread 1
 * (count 0x27 at byte 97); the region ends at 280 and the header declares
 * 46 samples.
 */
TEST(repeat_count_against_the_bytes_left)
{
    size_t n;
    uint8_t *d = load("repeat_rle", &n);
    REQUIRE(d, "fixture");
    d[97] = 127; /* 182 bytes left: at most 91 pairs */
    expect_fail("REPEAT count 127", d, n, TFMT_EFORMAT, TFMT_BCHK_RLE, 98,
                "invalid RLE count 127 exceeds maximum possible 91 for "
                "remaining data");
    d[97] = 0x27;
    /* A last REPEAT of 2 one-byte pairs in its last 4 bytes: exactly at
     * the bound, so it reads (48 samples). */
    static const uint8_t last[] = {1, 0, 0, 0, 0, 0, 0, 0, 0,
                                   0, 0, 0, 0, 2, 0, 3, 0, 3};
    size_t m = n;
    uint8_t *e = splice(d, &m, 280, 0, last, sizeof last, 0);
    REQUIRE(e, "memory");
    put64(e + 28, 48);
    expect_read("REPEAT count 2 in 4 bytes", e, m, 48, 3);
    e[280 + 13] = 3;
    expect_fail("REPEAT count 3 in 4 bytes", e, m, TFMT_EFORMAT, TFMT_BCHK_RLE,
                280 + 14,
                "invalid RLE count 3 exceeds maximum possible 2 for "
                "remaining data");
    free(e);
    free(d);
}

/*
 * interleaved_threads/none.bin: 1928 bytes, tables at 1682 and 1805, so
 * at most 246 one-byte strings and 17 seven-byte frames; 17 strings and
 * 13 frames. A count at the bound passes the count check (and then the
 * table itself is too short); one more is refused by it.
 */
TEST(footer_counts_at_the_bound)
{
    size_t n;
    uint8_t *d = load("interleaved_threads", &n);
    REQUIRE(d && n == 1928, "fixture");
    uint8_t keep[8];
    memcpy(keep, d + n - 32, 8);
    static const struct {
        size_t off;
        uint32_t at, over;
        int check;
        const char *what;
    } c[2] = {{1928 - 32, 246, 247, TFMT_BCHK_STRING_COUNT, "string"},
              {1928 - 28, 17, 18, TFMT_BCHK_FRAME_COUNT, "frame"}};
    for (int i = 0; i < 2; i++) {
        uint8_t *f = d + c[i].off;
        for (int k = 0; k < 4; k++)
            f[k] = (uint8_t)(c[i].at >> (8 * k));
        outcome o = decode(d, n);
        CHECK(o.rc < 0 && o.err.check != c[i].check,
              "%s count %u (the bound) refused as too many: %s", c[i].what,
              c[i].at, o.err.msg);
        for (int k = 0; k < 4; k++)
            f[k] = (uint8_t)(c[i].over >> (8 * k));
        char want[96];
        snprintf(want, sizeof want,
                 "invalid %s count %u exceeds maximum possible %u", c[i].what,
                 c[i].over, c[i].at);
        expect_fail(c[i].what, d, n, TFMT_EFORMAT, c[i].check, c[i].off, want);
        memcpy(d + n - 32, keep, 8);
    }
    free(d);
}

TESTS(TCASE(varints_at_and_above_2_32), TCASE(varint_above_2_32_in_a_record),
      TCASE(frame_index_equal_to_the_frame_count),
      TCASE(string_index_equal_to_the_string_count),
      TCASE(profiling_mode_5_and_6), TCASE(full_depth_256_and_257),
      TCASE(suffix_shared_count_against_the_depth),
      TCASE(final_depth_256_and_257),
      TCASE(repeat_count_against_the_bytes_left),
      TCASE(footer_counts_at_the_bound))
