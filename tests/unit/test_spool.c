/* SPDX-License-Identifier: MIT */
/*
 * test_spool.c - io/spool.c: records of many interleaved streams come
 * back in order, whole and per block, while blocks shrink as streams are
 * added (their memory shared out), and a stream is gathered only when it
 * fits.
 */
#include "harness.h"
#include "spool.h"

#define NSTREAMS 20000
#define NRECORDS 100
#define EARLY 3000 /* stream 0's records before the others start */

typedef struct reader {
    uint32_t stream, next; /* the record expected next */
    bool bad;
} reader;

/* Record r of stream s: 1 to 8 bytes, all (s * 31 + r) & 0xff. */
static size_t record(uint32_t s, uint32_t r, uint8_t *out)
{
    size_t n = 1 + (s + r) % 8;
    memset(out, (int)((s * 31 + r) & 0xff), n);
    return n;
}

static int check_records(void *ctx, const uint8_t *d, size_t len)
{
    reader *rd = ctx;
    while (len > 0) {
        uint8_t want[8];
        size_t n = record(rd->stream, rd->next++, want);
        if (n > len || memcmp(d, want, n) != 0) {
            rd->bad = true;
            return TFMT_OK;
        }
        d += n;
        len -= n;
    }
    return TFMT_OK;
}

static int append(tfmt_spool *sp, tfmt_sstream *st, uint32_t s, uint32_t r)
{
    uint8_t rec[8];
    size_t n = record(s, r, rec);
    uint8_t *in = tfmt__spool_room(sp, st, n);
    if (!in)
        return tfmt__spool_append(sp, st, rec, n);
    memcpy(in, rec, n);
    tfmt__spool_commit(st, n);
    return TFMT_OK;
}

/*
 * Stream 0 fills 8 KiB blocks alone first, then 19,999 more streams
 * shrink the blocks to TFMT_SPOOL_MIN: its tail gives its room back.
 */
TEST(many_streams_round_trip)
{
    tfmt_spool sp;
    memset(&sp, 0, sizeof sp);
    tfmt__buf_init(&sp.rd, NULL);
    tfmt_sstream *st = calloc(NSTREAMS, sizeof *st);
    REQUIRE(st, "out of memory");
    int rc = TFMT_OK;
    for (uint32_t r = 0; r < EARLY && rc == TFMT_OK; r++)
        rc = append(&sp, &st[0], 0, r);
    CHECK(st[0].tail.cap > 2 * TFMT_SPOOL_MIN, "stream 0 keeps %zu bytes",
          st[0].tail.cap);
    for (uint32_t r = 0; r < NRECORDS && rc == TFMT_OK; r++)
        for (uint32_t s = 0; s < NSTREAMS && rc == TFMT_OK; s++)
            rc = append(&sp, &st[s], s, s ? r : EARLY + r);
    CHECK(rc == TFMT_OK, "append: %d", rc);
    CHECK(sp.block == TFMT_SPOOL_MIN, "block %zu with %d streams", sp.block,
          NSTREAMS);
    CHECK(st[0].nblocks > 0, "the first stream was never spooled");
    tfmt_buf whole;
    tfmt__buf_init(&whole, NULL);
    for (uint32_t s = 0; s < NSTREAMS; s++) {
        uint32_t want = s ? NRECORDS : EARLY + NRECORDS;
        CHECK(st[s].count == want, "stream %u: %llu records", s,
              (unsigned long long)st[s].count);
        CHECK(st[s].tail.cap <= 2 * sp.block, "stream %u keeps %zu bytes", s,
              st[s].tail.cap);
        reader a = {s, 0, false}, b = {s, 0, false};
        CHECK(tfmt__spool_each(&sp, &st[s], check_records, &a) == TFMT_OK &&
                  !a.bad && a.next == want,
              "stream %u read back by block", s);
        CHECK(tfmt__spool_gather(&sp, &st[s], 1 << 20, &whole) == 1,
              "stream %u not gathered", s);
        check_records(&b, (const uint8_t *)whole.data, whole.len);
        CHECK(!b.bad && b.next == want, "stream %u gathered", s);
        CHECK(tfmt__spool_gather(&sp, &st[s], 10, &whole) == 0 &&
                  whole.len == 0,
              "stream %u gathered past the limit", s);
        tfmt__sstream_free(NULL, &st[s]);
    }
    tfmt__buf_free(&whole);
    free(st);
    tfmt__spool_free(&sp);
}

TESTS(TCASE(many_streams_round_trip))
