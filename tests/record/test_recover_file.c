/* SPDX-License-Identifier: MIT */
/*
 * test_recover_file.c - FILE.recover's checks (recover_file.c) at their
 * bounds: a copy is believed only when its size is the one it declares,
 * its samples end after the header, and the header it carries puts the
 * string table where the samples end and the frame table inside the
 * trailer (its last byte at most: a frame table at the trailer's end
 * would leave the restored log without one). Each bound is tried at the
 * value just accepted and the first refused.
 */
#include <stdlib.h>

#include "../unit/harness.h"
#include "recover_file.h"

#define TRAILER 32 /* bytes of tables and footer in the crafted copies */
#define SAMPLES_END 4096

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

/* A copy whose log header puts the tables at `strings` and `frames`,
 * declaring `trailer` bytes of trailer but holding `held`. */
static int parse(uint64_t samples_end, uint64_t trailer, uint64_t held,
                 uint64_t strings, uint64_t frames, char *why, size_t len)
{
    rcv_info in = {samples_end, trailer, {0}};
    put_le(in.header, 0x54414348u, 4); /* "TACH" */
    put_le(in.header + 40, strings, 8);
    put_le(in.header + 48, frames, 8);
    uint8_t buf[RCV_HEAD + TRAILER + 8] = {0};
    rcv_encode(&in, buf);
    rcv_info out;
    return rcv_parse(buf, sizeof buf, RCV_HEAD + held, &out, why, len);
}

TEST(frame_table_inside_the_trailer)
{
    char why[200];
    uint64_t end = SAMPLES_END + TRAILER;
    CHECK(parse(SAMPLES_END, TRAILER, TRAILER, SAMPLES_END, SAMPLES_END, why,
                sizeof why) == 0,
          "frames where the strings start (no strings): %s", why);
    CHECK(parse(SAMPLES_END, TRAILER, TRAILER, SAMPLES_END, end - 1, why,
                sizeof why) == 0,
          "frames at the trailer's last byte: %s", why);
    CHECK(parse(SAMPLES_END, TRAILER, TRAILER, SAMPLES_END, end, why,
                sizeof why) != 0,
          "frames at the trailer's end accepted");
    CHECK(strstr(why, "outside its trailer") != NULL, "why: %s", why);
    CHECK(parse(SAMPLES_END, TRAILER, TRAILER, SAMPLES_END, SAMPLES_END - 1,
                why, sizeof why) != 0,
          "frames before the strings accepted");
}

TEST(string_table_where_the_samples_end)
{
    char why[200];
    CHECK(parse(SAMPLES_END, TRAILER, TRAILER, SAMPLES_END + 1, SAMPLES_END + 2,
                why, sizeof why) != 0,
          "strings one past the samples accepted");
    CHECK(parse(SAMPLES_END, TRAILER, TRAILER, SAMPLES_END - 1, SAMPLES_END,
                why, sizeof why) != 0,
          "strings one before the samples' end accepted");
}

TEST(size_as_declared)
{
    char why[200];
    CHECK(parse(SAMPLES_END, TRAILER, TRAILER - 1, SAMPLES_END, SAMPLES_END,
                why, sizeof why) != 0,
          "a copy one byte short accepted");
    CHECK(parse(SAMPLES_END, TRAILER, TRAILER + 1, SAMPLES_END, SAMPLES_END,
                why, sizeof why) != 0,
          "a copy one byte long accepted");
    CHECK(parse(SAMPLES_END, 0, 0, SAMPLES_END, SAMPLES_END, why, sizeof why) !=
              0,
          "an empty trailer accepted");
}

TEST(samples_after_the_header)
{
    char why[200];
    CHECK(parse(RCV_HEADER, TRAILER, TRAILER, RCV_HEADER, RCV_HEADER, why,
                sizeof why) == 0,
          "samples ending at the header's end (none): %s", why);
    CHECK(parse(RCV_HEADER - 1, TRAILER, TRAILER, RCV_HEADER - 1,
                RCV_HEADER - 1, why, sizeof why) != 0,
          "samples ending inside the header accepted");
}

TESTS(TCASE(frame_table_inside_the_trailer),
      TCASE(string_table_where_the_samples_end), TCASE(size_as_declared),
      TCASE(samples_after_the_header))
