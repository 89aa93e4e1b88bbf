/* SPDX-License-Identifier: MIT */
/*
 * test_bin_writer.c - the binary log writer against CPython's own output:
 * every testdata/cpython case is replayed from input.json and must give
 * none.bin byte for byte (zstd: the same decompressed sample region), plus
 * hand-computed layouts for the statistics block, header fields, the 16 KiB
 * REPEAT split, the 256-frame cap and the limit state.
 */
#include <math.h>
#include <json-c/json.h>
#include <zstd.h>

#include "harness.h"
#include "fail_alloc.h"
#include "bin_writer.h"

#define CASES_DIR TESTDATA "/cpython"

static const char *const case_names[] = {
    "single_full",         "repeat_rle",       "suffix_calls", "pop_push",
    "interleaved_threads", "synthetic_frames", "workload",
};
#define NCASES (sizeof case_names / sizeof case_names[0])

/*
 * Output: the writer goes through a real seekable file sink; done()
 * finishes the writer's sink and reads the file back into a membuf.
 */
typedef struct membuf {
    uint8_t *data;
    size_t len;
} membuf;

static tfmt_sink *cur_sink;
static char cur_path[512];

static const char *out_path(void)
{
    static char dir[256];
    if (!dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/tfmt_bw_XXXXXX", t ? t : "/tmp");
        if (!mkdtemp(dir))
            return NULL;
    }
    snprintf(cur_path, sizeof cur_path, "%s/out.bin", dir);
    return cur_path;
}

static tfmt_bin_writer *open_mem(membuf *m, const tfmt_bin_writer_options *o)
{
    tfmt_bin_writer *w = NULL;
    memset(m, 0, sizeof *m);
    const char *path = out_path();
    if (!path ||
        tfmt_sink_open(&cur_sink, path, TFMT_SINK_SEEKABLE | TFMT_SINK_FORCE,
                       NULL, NULL) != TFMT_OK)
        return NULL;
    if (tfmt_bin_writer_open(&w, cur_sink, o, NULL) != TFMT_OK) {
        tfmt_sink_free(cur_sink);
        cur_sink = NULL;
    }
    return w;
}

/* Free the writer, finish its sink and read the file into *m. */
static void done(tfmt_bin_writer *w, membuf *m)
{
    tfmt_bin_writer_free(w);
    m->data = NULL;
    m->len = 0;
    if (!cur_sink)
        return;
    int rc = tfmt_sink_finish(cur_sink);
    tfmt_sink_free(cur_sink);
    cur_sink = NULL;
    m->data = rc == TFMT_OK ? harness_slurp(cur_path, &m->len) : NULL;
    remove(cur_path);
}

/* ---- little helpers to read what was written ---- */

static uint32_t ld32(const uint8_t *p)
{
    return tfmt__load32(p, false);
}

static uint64_t ld64(const uint8_t *p)
{
    return tfmt__load64(p, false);
}

static char *path_of(const char *name, const char *file)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s/%s/%s", CASES_DIR, name, file);
    return buf;
}

/* ---- feeding input.json (frames innermost first) ---- */

static int intern_frame(tfmt_bin_writer *w, json_object *fr, uint32_t *out)
{
    json_object *fn = json_object_array_get_idx(fr, 0);
    json_object *loc = json_object_array_get_idx(fr, 1);
    json_object *func = json_object_array_get_idx(fr, 2);
    json_object *op = json_object_array_get_idx(fr, 3);
    int32_t l[4] = {-1, -1, -1, -1};
    for (int i = 0; loc && i < 4; i++)
        l[i] = (int32_t)json_object_get_int64(
            json_object_array_get_idx(loc, (size_t)i));
    int opcode = op ? (int)json_object_get_int64(op) : -1;
    return tfmt_bin_writer_location(
        w, json_object_get_string(fn), (size_t)json_object_get_string_len(fn),
        json_object_get_string(func), (size_t)json_object_get_string_len(func),
        l[0], l[1], l[2], l[3], opcode, out);
}

/* One thread-sample: intern the 256 innermost frames, pass root first. */
static int feed_thread(tfmt_bin_writer *w, json_object *th, uint32_t iid,
                       uint64_t t)
{
    json_object *frames = json_object_object_get(th, "frames");
    size_t n = json_object_array_length(frames);
    size_t keep = n < TFMT_MAX_DEPTH ? n : TFMT_MAX_DEPTH;
    uint32_t stack[TFMT_MAX_DEPTH];
    for (size_t i = 0; i < keep; i++) {
        int rc = intern_frame(w, json_object_array_get_idx(frames, i),
                              &stack[keep - 1 - i]);
        if (rc != TFMT_OK)
            return rc;
    }
    uint64_t tid = json_object_get_uint64(json_object_object_get(th, "tid"));
    int64_t status =
        json_object_get_int64(json_object_object_get(th, "status"));
    return tfmt_bin_writer_sample(w, tid, iid, t, (uint8_t)status, stack,
                                  (uint32_t)keep);
}

static int feed_samples(tfmt_bin_writer *w, json_object *samples)
{
    for (size_t i = 0; i < json_object_array_length(samples); i++) {
        json_object *s = json_object_array_get_idx(samples, i);
        uint64_t t = json_object_get_uint64(json_object_object_get(s, "t"));
        json_object *interps = json_object_object_get(s, "interps");
        for (size_t j = 0; j < json_object_array_length(interps); j++) {
            json_object *in = json_object_array_get_idx(interps, j);
            uint32_t iid = (uint32_t)json_object_get_int64(
                json_object_object_get(in, "id"));
            json_object *ths = json_object_object_get(in, "threads");
            for (size_t k = 0; k < json_object_array_length(ths); k++) {
                int rc =
                    feed_thread(w, json_object_array_get_idx(ths, k), iid, t);
                if (rc != TFMT_OK)
                    return rc;
            }
        }
    }
    return TFMT_OK;
}

static json_object *load_input(const char *name)
{
    return json_object_from_file(path_of(name, "input.json"));
}

/* An allocator that fails its Nth call (0: never), for every case. */
static test_failing fail;
static const tfmt_allocator failing = {test_fail_malloc, test_fail_realloc,
                                       test_fail_free, &fail};

static void case_options(json_object *in, tfmt_bin_writer_options *o,
                         uint32_t compression)
{
    tfmt_bin_writer_options d = TFMT_BIN_WRITER_OPTIONS_INIT;
    *o = d;
    o->alloc = &failing;
    o->start_time_us =
        json_object_get_uint64(json_object_object_get(in, "start_time_us"));
    o->sample_interval_us = json_object_get_uint64(
        json_object_object_get(in, "sample_interval_us"));
    o->compression = compression;
}

/* Write case `name` to memory; returns the writer's status. */
static int write_case(const char *name, uint32_t compression, membuf *m,
                      tfmt_bw_counts *counts)
{
    json_object *in = load_input(name);
    if (!in)
        return TFMT_EIO;
    tfmt_bin_writer_options o;
    case_options(in, &o, compression);
    tfmt_bin_writer *w = open_mem(m, &o);
    int rc = w ? feed_samples(w, json_object_object_get(in, "samples"))
               : TFMT_ENOMEM;
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_finish(w);
    if (w && counts)
        *counts = *tfmt__bin_writer_counts(w);
    done(w, m);
    json_object_put(in);
    return rc;
}

static void report_diff(const char *what, const uint8_t *a, size_t alen,
                        const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen, i = 0;
    while (i < n && a[i] == b[i])
        i++;
    fprintf(stderr, "%s: sizes %zu vs %zu, first difference at %zu\n", what,
            alen, blen, i);
}

/* ---- every fixture, uncompressed: byte-identical ---- */

TEST(fixtures_none_identical)
{
    for (size_t c = 0; c < NCASES; c++) {
        membuf m;
        int rc = write_case(case_names[c], 0, &m, NULL);
        CHECK(rc == TFMT_OK, "%s: writer status %d", case_names[c], rc);
        size_t elen = 0;
        uint8_t *exp = harness_slurp(path_of(case_names[c], "none.bin"), &elen);
        REQUIRE(exp, "%s: cannot read none.bin", case_names[c]);
        bool same = m.len == elen && memcmp(m.data, exp, elen) == 0;
        if (!same)
            report_diff(case_names[c], m.data, m.len, exp, elen);
        CHECK(same, "%s: output differs from CPython's none.bin",
              case_names[c]);
        free(exp);
        free(m.data);
    }
}

/* "FULL=1 SUFFIX=0 POP_PUSH=2 REPEAT records=2 (covering 43 samples)" */
static bool readme_counts(const char *name, uint64_t v[5])
{
    size_t len;
    char *txt = (char *)harness_slurp(path_of(name, "README.txt"), &len);
    if (!txt)
        return false;
    char *p = strstr(txt, "FULL=");
    unsigned long long f = 0, s = 0, pp = 0, r = 0, rs = 0;
    int got = p ? sscanf(p,
                         "FULL=%llu SUFFIX=%llu POP_PUSH=%llu REPEAT "
                         "records=%llu (covering %llu",
                         &f, &s, &pp, &r, &rs)
                : 0;
    free(txt);
    v[TFMT_ENC_FULL] = f;
    v[TFMT_ENC_SUFFIX] = s;
    v[TFMT_ENC_POP_PUSH] = pp;
    v[TFMT_ENC_REPEAT] = r;
    v[4] = rs;
    return got == 5;
}

TEST(fixtures_encoding_mix)
{
    for (size_t c = 0; c < NCASES; c++) {
        uint64_t want[5];
        REQUIRE(readme_counts(case_names[c], want), "%s: README counts",
                case_names[c]);
        membuf m;
        tfmt_bw_counts got;
        REQUIRE(write_case(case_names[c], 0, &m, &got) == TFMT_OK, "%s",
                case_names[c]);
        for (int e = 0; e < 4; e++)
            CHECK(got.records[e] == want[e], "%s: encoding %d: %llu vs %llu",
                  case_names[c], e, (unsigned long long)got.records[e],
                  (unsigned long long)want[e]);
        CHECK(got.repeat_samples == want[4], "%s: repeat samples",
              case_names[c]);
        free(m.data);
    }
}

/* ---- zstd: the region decodes to none.bin's region ---- */

static uint8_t *unzstd(const uint8_t *src, size_t n, size_t *out_len)
{
    ZSTD_DStream *ds = ZSTD_createDStream();
    size_t cap = 1 << 16, len = 0;
    uint8_t *out = malloc(cap);
    ZSTD_inBuffer in = {src, n, 0};
    size_t left = 1;
    while (out && ds && (in.pos < in.size || left)) {
        if (len == cap)
            out = realloc(out, cap *= 2);
        ZSTD_outBuffer ob = {out, cap, len};
        left = ZSTD_decompressStream(ds, &ob, &in);
        len = ob.pos;
        if (ZSTD_isError(left) || (in.pos == in.size && left && ob.pos < cap))
            break;
    }
    ZSTD_freeDStream(ds);
    if (left) {
        free(out);
        return NULL;
    }
    *out_len = len;
    return out;
}

static void check_zstd_case(const char *name, const membuf *m,
                            const uint8_t *exp, size_t elen)
{
    uint64_t str_off = ld64(m->data + 40), est = ld64(exp + 40);
    REQUIRE(ld32(m->data + 56) == 1, "%s: compression field", name);
    REQUIRE(str_off >= 64 && str_off <= m->len, "%s: str_off", name);
    size_t rlen = 0;
    uint8_t *region = unzstd(m->data + 64, str_off - 64, &rlen);
    REQUIRE(region, "%s: sample region is not one zstd frame", name);
    CHECK(rlen == est - 64 && memcmp(region, exp + 64, rlen) == 0,
          "%s: decompressed region differs from none.bin", name);
    free(region);
    /* Tables and footer counts equal; the header fields besides the
     * offsets and compression equal too. */
    size_t tail = elen - est - 24;
    CHECK(m->len - str_off == elen - est &&
              memcmp(m->data + str_off, exp + est, tail) == 0,
          "%s: tables differ", name);
    CHECK(ld64(m->data + m->len - 24) == m->len, "%s: footer size", name);
    CHECK(ld64(m->data + 48) - str_off == ld64(exp + 48) - est,
          "%s: frame table offset", name);
    CHECK(memcmp(m->data, exp, 40) == 0, "%s: header start", name);
    CHECK(ld32(m->data + 60) == ld32(exp + 60), "%s: config", name);
}

TEST(fixtures_zstd_region)
{
    for (size_t c = 0; c < NCASES; c++) {
        membuf m;
        REQUIRE(write_case(case_names[c], 1, &m, NULL) == TFMT_OK, "%s",
                case_names[c]);
        size_t elen = 0;
        uint8_t *exp = harness_slurp(path_of(case_names[c], "none.bin"), &elen);
        REQUIRE(exp, "%s: none.bin", case_names[c]);
        check_zstd_case(case_names[c], &m, exp, elen);
        /* The helper itself: CPython's zstd.bin decodes to the same. */
        membuf cz;
        cz.data = harness_slurp(path_of(case_names[c], "zstd.bin"), &cz.len);
        REQUIRE(cz.data, "%s: zstd.bin", case_names[c]);
        check_zstd_case(case_names[c], &cz, exp, elen);
        free(cz.data);
        free(exp);
        free(m.data);
    }
}

/* Every allocation failing in turn: ENOMEM, no leak, no crash. */
TEST(alloc_failures)
{
    size_t elen = 0;
    uint8_t *exp =
        harness_slurp(path_of("interleaved_threads", "none.bin"), &elen);
    REQUIRE(exp, "none.bin");
    for (fail.at = 1;; fail.at++) {
        fail.calls = 0;
        membuf m;
        int rc = write_case("interleaved_threads", fail.at % 2, &m, NULL);
        bool hit = fail.calls >= fail.at;
        if (hit)
            CHECK(rc == TFMT_ENOMEM, "allocation %ld: status %d", fail.at, rc);
        else
            CHECK(rc == TFMT_OK, "no failure: status %d", rc);
        if (!hit && !(fail.at % 2))
            CHECK(m.len == elen && memcmp(m.data, exp, elen) == 0,
                  "output after %ld allocations", fail.at);
        free(m.data);
        if (!hit)
            break;
    }
    CHECK(fail.at > 10, "the writer allocates: %ld", fail.at);
    fail.at = 0;
    free(exp);
}

/* ---- hand-computed layouts ---- */

static const uint8_t stats56[56] = {
    /* 1.5 */ 0,
    0,
    0,
    0,
    0,
    0,
    0xf8,
    0x3f,
    /* 1000.0 */ 0,
    0,
    0,
    0,
    0,
    0x40,
    0x8f,
    0x40,
    /* 2.5 */ 0,
    0,
    0,
    0,
    0,
    0,
    0x04,
    0x40,
    /* 0.25 */ 0,
    0,
    0,
    0,
    0,
    0,
    0xd0,
    0x3f,
    /* flags 3, reserved 0 */ 3,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    'T',
    'A',
    'C',
    'H',
    'S',
    'T',
    'A',
    'T',
    1,
    0,
    0,
    0,
    56,
    0,
    0,
    0,
};

static const uint8_t stats32[32] = {
    0,   0,   0,   0,   0,   0,   0xf8, 0x3f, 0, 0, 0, 0, 0,  0x40, 0x8f, 0x40,
    'T', 'A', 'C', 'H', 'S', 'T', 'A',  'T',  1, 0, 0, 0, 32, 0,    0,    0,
};

static void check_empty_with_stats(uint32_t size, const uint8_t *block)
{
    membuf m;
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    tfmt_bin_writer *w = open_mem(&m, &o);
    REQUIRE(w, "open");
    tfmt_stats s = {true, size, 1, 1.5, 1000.0, 2.5, 0.25, 3};
    CHECK(tfmt_bin_writer_stats(w, &s) == TFMT_OK, "stats accepted");
    REQUIRE(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    done(w, &m);
    size_t total = 64 + size + 32;
    REQUIRE(m.len == total, "size %zu, want %zu", m.len, total);
    CHECK(memcmp(m.data + 64, block, size) == 0, "stats block bytes");
    CHECK(ld64(m.data + 40) == 64 && ld64(m.data + 48) == 64, "offsets");
    CHECK(ld64(m.data + 28) == 0 && ld32(m.data + 36) == 0, "counts");
    const uint8_t *f = m.data + 64 + size;
    CHECK(ld32(f) == 0 && ld32(f + 4) == 0, "footer counts");
    CHECK(ld64(f + 8) == total, "footer size");
    static const uint8_t zero16[16];
    CHECK(memcmp(f + 16, zero16, 16) == 0, "checksum zero");
    free(m.data);
}

TEST(stats_block_56)
{
    check_empty_with_stats(56, stats56);
}

TEST(stats_block_32)
{
    check_empty_with_stats(32, stats32);
}

TEST(header_fields)
{
    membuf m;
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.start_time_us = 0x0102030405060708ULL;
    o.config = 0x1a3;
    o.python_version[0] = 3;
    o.python_version[1] = 16;
    o.python_version[2] = 2;
    o.sample_interval_us = 1000;
    tfmt_bin_writer *w = open_mem(&m, &o);
    REQUIRE(w, "open");
    /* The interval can still change before finish (a recorder writes the
     * one it achieved). */
    REQUIRE(tfmt_bin_writer_set_interval(w, 250) == TFMT_OK, "set interval");
    REQUIRE(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    CHECK(tfmt_bin_writer_set_interval(w, 9) == TFMT_EINVAL,
          "interval after finish");
    done(w, &m);
    static const uint8_t want[64] = {
        0x48, 0x43, 0x41, 0x54, 1,   0, 0, 0, 3,  16, 2, 0, 8,    7,    6, 5,
        4,    3,    2,    1,    250, 0, 0, 0, 0,  0,  0, 0, 0,    0,    0, 0,
        0,    0,    0,    0,    0,   0, 0, 0, 64, 0,  0, 0, 0,    0,    0, 0,
        64,   0,    0,    0,    0,   0, 0, 0, 0,  0,  0, 0, 0xa3, 0x01, 0, 0,
    };
    REQUIRE(m.len == 96, "empty log is header + footer, got %zu", m.len);
    CHECK(memcmp(m.data, want, 64) == 0, "header bytes");
    free(m.data);
}

TEST(bad_stats_refused)
{
    membuf m;
    tfmt_bin_writer *w = open_mem(&m, NULL);
    REQUIRE(w, "open");
    const tfmt_stats good = {true, 56, 1, 1.0, 10.0, 0.0, 0.0, 0};
    tfmt_stats s = good;
    s.duration_s = NAN;
    CHECK(tfmt_bin_writer_stats(w, &s) == TFMT_EINVAL, "nan duration");
    CHECK(strcmp(tfmt_bin_writer_error(w)->msg,
                 "duration must be a finite non-negative value") == 0,
          "message: %s", tfmt_bin_writer_error(w)->msg);
    s = good;
    s.duration_s = -1.0;
    CHECK(tfmt_bin_writer_stats(w, &s) == TFMT_EINVAL, "negative duration");
    s = good;
    s.sample_rate = INFINITY;
    CHECK(tfmt_bin_writer_stats(w, &s) == TFMT_EINVAL, "inf rate");
    s = good;
    s.error_rate = -0.5;
    CHECK(tfmt_bin_writer_stats(w, &s) == TFMT_OK, "unflagged error rate");
    s.flags = TFMT_STATS_HAS_ERROR_RATE;
    CHECK(tfmt_bin_writer_stats(w, &s) == TFMT_EINVAL, "flagged error rate");
    s = good;
    s.flags = TFMT_STATS_HAS_MISSED;
    s.missed = -3.0;
    CHECK(tfmt_bin_writer_stats(w, &s) == TFMT_OK, "negative missed ok");
    s.missed = NAN;
    CHECK(tfmt_bin_writer_stats(w, &s) == TFMT_EINVAL, "nan missed");
    s = good;
    s.size = 40;
    CHECK(tfmt_bin_writer_stats(w, &s) == TFMT_EINVAL, "size 40");
    s = good;
    s.present = false;
    CHECK(tfmt_bin_writer_stats(w, &s) == TFMT_EINVAL, "not present");
    done(w, &m);
    free(m.data);
}

/* ---- an independent walk over an uncompressed sample region ---- */

typedef struct rec {
    uint64_t tid;
    uint32_t iid;
    int enc;
    uint32_t a, b; /* count | depth | shared/pop, new/push */
    uint32_t frames[TFMT_MAX_DEPTH];
    uint64_t first_delta;
} rec;

static const uint8_t *rd_varint(const uint8_t *p, uint64_t *v)
{
    *v = 0;
    for (unsigned s = 0;; s += 7) {
        *v |= (uint64_t)(*p & 0x7f) << s;
        if (!(*p++ & 0x80))
            return p;
    }
}

/* Parse the record at *pp into r; returns false at the region end. */
static bool next_rec(const uint8_t **pp, const uint8_t *end, rec *r)
{
    const uint8_t *p = *pp;
    if (p + 13 > end)
        return false;
    uint64_t v, n;
    r->tid = ld64(p);
    r->iid = ld32(p + 8);
    r->enc = p[12];
    p += 13;
    if (r->enc == TFMT_ENC_REPEAT) {
        p = rd_varint(p, &n);
        r->a = (uint32_t)n;
        for (uint64_t i = 0; i < n; i++) {
            p = rd_varint(p, &v) + 1;
            if (!i)
                r->first_delta = v;
        }
    } else {
        p = rd_varint(p, &r->first_delta) + 1;
        p = rd_varint(p, &v);
        r->a = (uint32_t)v;
        n = v;
        if (r->enc != TFMT_ENC_FULL) {
            p = rd_varint(p, &n);
            r->b = (uint32_t)n;
        }
        for (uint64_t i = 0; i < n; i++) {
            p = rd_varint(p, &v);
            r->frames[i] = (uint32_t)v;
        }
    }
    *pp = p;
    return true;
}

static uint32_t one_frame(tfmt_bin_writer *w, int line)
{
    uint32_t id = UINT32_MAX;
    tfmt_bin_writer_location(w, "f.py", 4, "fn", 2, line, line, 0, 4, 1, &id);
    return id;
}

TEST(repeat_split_16k)
{
    membuf m;
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.start_time_us = 1000000;
    o.sample_interval_us = 1000;
    tfmt_bin_writer *w = open_mem(&m, &o);
    REQUIRE(w, "open");
    uint32_t f = one_frame(w, 1);
    for (uint64_t i = 1; i <= 12000; i++)
        REQUIRE(tfmt_bin_writer_sample(w, 7, 0, 1000000 + i * 1000, 1, &f, 1) ==
                    TFMT_OK,
                "sample %llu", (unsigned long long)i);
    CHECK(tfmt_bin_writer_samples(w) == 12000, "sample count");
    REQUIRE(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    done(w, &m);
    /* FULL, then 11,999 REPEATs of 3 bytes each (2-byte delta + status):
     * a group is flushed when 3 * n + 11 > 16384, i.e. at n = 5458. */
    const uint8_t *p = m.data + 64, *end = m.data + ld64(m.data + 40);
    static const uint32_t want[] = {5458, 5458, 1083};
    rec r;
    REQUIRE(next_rec(&p, end, &r) && r.enc == TFMT_ENC_FULL, "first FULL");
    for (int i = 0; i < 3; i++) {
        REQUIRE(next_rec(&p, end, &r), "record %d", i);
        CHECK(r.enc == TFMT_ENC_REPEAT && r.a == want[i],
              "record %d: enc %d count %u", i, r.enc, r.a);
    }
    CHECK(p == end, "no more records");
    CHECK(ld64(m.data + 28) == 12000, "header sample count");
    free(m.data);
}

/*
 * The same rule where a group's size reaches 16384 - 11 exactly: one
 * 3-byte pair (delta 200) then 2-byte pairs (delta 100), so k pairs take
 * 2k + 1 bytes. At k = 8186 (16373 bytes) 16373 + 11 > 16384 is false and
 * one more pair goes in; with 3-byte pairs alone the size never lands
 * there, and a cut one pair early would look the same.
 */
TEST(repeat_split_16k_at_the_bound)
{
    membuf m;
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.start_time_us = 1000000;
    o.sample_interval_us = 1000;
    tfmt_bin_writer *w = open_mem(&m, &o);
    REQUIRE(w, "open");
    uint32_t f = one_frame(w, 1);
    uint64_t ts = 1001000;
    for (uint32_t i = 0; i <= 9000; i++) {
        ts += i == 0 ? 0 : i == 1 ? 200 : 100;
        REQUIRE(tfmt_bin_writer_sample(w, 7, 0, ts, 1, &f, 1) == TFMT_OK,
                "sample %u", i);
    }
    REQUIRE(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    done(w, &m);
    const uint8_t *p = m.data + 64, *end = m.data + ld64(m.data + 40);
    static const uint32_t want[] = {8187, 813};
    rec r;
    REQUIRE(next_rec(&p, end, &r) && r.enc == TFMT_ENC_FULL, "first FULL");
    for (int i = 0; i < 2; i++) {
        const uint8_t *at = p;
        REQUIRE(next_rec(&p, end, &r), "record %d", i);
        CHECK(r.enc == TFMT_ENC_REPEAT && r.a == want[i],
              "record %d: enc %d count %u, want %u", i, r.enc, r.a, want[i]);
        if (i == 0)
            CHECK(p - at == 13 + 2 + 16375, "first group: %td bytes", p - at);
    }
    CHECK(p == end, "no more records");
    free(m.data);
}

/*
 * The reader cuts a REPEAT run at 4096 timestamps; the pieces after the
 * first say `continued`, unless the status changes right at the cut (a new
 * collect() call in CPython's replay) or a new record begins.
 */
TEST(repeat_batches_continue)
{
    membuf m;
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.start_time_us = 1000000;
    tfmt_bin_writer *w = open_mem(&m, &o);
    REQUIRE(w, "open");
    uint32_t f = one_frame(w, 1);
    /* FULL, then REPEAT records of 5458, 5458 and 1083 (repeat_split_16k);
     * the 4097th pair of the first one has another status */
    for (uint64_t i = 1; i <= 12000; i++)
        REQUIRE(tfmt_bin_writer_sample(w, 7, 0, 1000000 + i * 1000,
                                       i == 4098 ? 3 : 1, &f, 1) == TFMT_OK,
                "sample %llu", (unsigned long long)i);
    REQUIRE(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    done(w, &m);
    REQUIRE(m.data, "written");
    static const uint32_t want[][3] = {
        {1, 0, 1},    {4096, 0, 1}, {1, 0, 3},    {1361, 0, 1},
        {4096, 0, 1}, {1362, 1, 1}, {1083, 0, 1},
    };
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    REQUIRE(tfmt_source_open_memory(&src, m.data, m.len, 0, NULL) == TFMT_OK &&
                tfmt_bin_open(&r, src, NULL, NULL) == TFMT_OK,
            "open the log");
    const tfmt_sample *s;
    size_t n = 0;
    int rc;
    while ((rc = tfmt_bin_next(r, &s)) == TFMT_OK) {
        if (n < sizeof want / sizeof *want)
            CHECK(s->weight == want[n][0] && s->continued == want[n][1] &&
                      s->status == want[n][2],
                  "batch %zu: weight %u continued %u status %u", n, s->weight,
                  s->continued, s->status);
        n++;
    }
    CHECK(rc == TFMT_DONE && n == sizeof want / sizeof *want,
          "%zu batches, status %d", n, rc);
    tfmt_bin_free(r);
    tfmt_source_free(src);
    free(m.data);
}

TEST(depth_300_keeps_innermost_256)
{
    membuf m;
    tfmt_bin_writer *w = open_mem(&m, NULL);
    REQUIRE(w, "open");
    uint32_t stack[300];
    for (int i = 0; i < 300; i++)
        stack[i] = one_frame(w, i + 1); /* root first: line 1 outermost */
    REQUIRE(tfmt_bin_writer_sample(w, 1, 0, 10, 0, stack, 300) == TFMT_OK,
            "sample");
    REQUIRE(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    done(w, &m);
    const uint8_t *p = m.data + 64, *end = m.data + ld64(m.data + 40);
    rec r;
    REQUIRE(next_rec(&p, end, &r), "record");
    CHECK(r.enc == TFMT_ENC_FULL && r.a == 256, "FULL of depth %u", r.a);
    /* Innermost first: frame ids 299 down to 44. */
    for (uint32_t i = 0; i < 256; i++)
        CHECK(r.frames[i] == 299 - i, "frame %u is %u", i, r.frames[i]);
    /* The FULL record: 13 head + delta 10 (1) + status + depth 256 (2)
     * + 256 ids (ids 44..127 take 1 byte, 128..299 take 2). */
    CHECK(end - (m.data + 64) == 13 + 1 + 1 + 2 + 84 + 172 * 2,
          "region size %td", end - (m.data + 64));
    free(m.data);
}

TEST(encoding_choice)
{
    membuf m;
    tfmt_bin_writer *w = open_mem(&m, NULL);
    REQUIRE(w, "open");
    for (int i = 0; i < 8; i++)
        REQUIRE(one_frame(w, i + 1) == (uint32_t)i, "frame %d", i);
    /* root-first stacks and the encoding CPython chooses */
    static const struct {
        uint32_t d;
        uint32_t s[6];
        int enc;
    } seq[] = {
        {0, {0}, TFMT_ENC_REPEAT}, /* fresh thread, empty */
        {2, {0, 1}, TFMT_ENC_FULL},
        {4, {0, 1, 2, 3}, TFMT_ENC_SUFFIX},  /* calls */
        {3, {0, 1, 2}, TFMT_ENC_POP_PUSH},   /* return */
        {3, {0, 1, 4}, TFMT_ENC_POP_PUSH},   /* shared 2 >= 3/2 */
        {5, {0, 5, 6, 7, 4}, TFMT_ENC_FULL}, /* shared 1 < 5/2 */
        {5, {1, 5, 6, 7, 4}, TFMT_ENC_FULL}, /* root differs */
        {0, {0}, TFMT_ENC_FULL},             /* later empty stack */
    };
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++)
        REQUIRE(tfmt_bin_writer_sample(w, 3, 1, 100 + i, 0, seq[i].s,
                                       seq[i].d) == TFMT_OK,
                "sample %zu", i);
    REQUIRE(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    done(w, &m);
    const uint8_t *p = m.data + 64, *end = m.data + ld64(m.data + 40);
    rec r;
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        REQUIRE(next_rec(&p, end, &r), "record %zu", i);
        CHECK(r.enc == seq[i].enc, "record %zu: enc %d, want %d", i, r.enc,
              seq[i].enc);
        CHECK(r.tid == 3 && r.iid == 1, "record %zu ids", i);
    }
    CHECK(p == end, "eight records");
    free(m.data);
}

TEST(timestamp_wraps)
{
    membuf m;
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.start_time_us = 1000;
    tfmt_bin_writer *w = open_mem(&m, &o);
    REQUIRE(w, "open");
    uint32_t f = one_frame(w, 1);
    REQUIRE(tfmt_bin_writer_sample(w, 1, 0, 999, 0, &f, 1) == TFMT_OK, "s");
    REQUIRE(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    done(w, &m);
    const uint8_t *p = m.data + 64, *end = m.data + ld64(m.data + 40);
    rec r;
    REQUIRE(next_rec(&p, end, &r), "record");
    CHECK(r.first_delta == UINT64_MAX, "delta wraps to 2^64-1");
    free(m.data);
}

/* CPython keys frames on the fields as given: an end value of -1 is a
 * different frame from end == start although both are stored alike. An
 * opcode it cannot store is mapped to 255 before the lookup. */
TEST(frame_dedup_keys)
{
    membuf m;
    tfmt_bin_writer *w = open_mem(&m, NULL);
    REQUIRE(w, "open");
    uint32_t a, b, c, d, e;
    tfmt_bin_writer_location(w, "x", 1, "f", 1, 7, -1, 4, 9, 53, &a);
    tfmt_bin_writer_location(w, "x", 1, "f", 1, 7, 7, 4, 9, 53, &b);
    tfmt_bin_writer_location(w, "x", 1, "f", 1, 7, 7, 4, 9, 300, &c);
    tfmt_bin_writer_location(w, "x", 1, "f", 1, 7, 7, 4, 9, -1, &d);
    tfmt_bin_writer_location(w, "x", 1, "f", 1, 7, 7, 4, 9, 255, &e);
    CHECK(a == 0 && b == 1, "raw end line is part of the key: %u %u", a, b);
    CHECK(c == 2 && d == 2 && e == 2, "unstorable opcodes share 255");
    REQUIRE(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    done(w, &m);
    /* strings "x","f"; frames: 0 1 zz(7)=14 0 zz(4)=8 zz(5)=10 53, ... */
    static const uint8_t want[] = {
        1,  'x', 1, 'f', 0,  1, 14, 0,  8, 10, 53, 0,   1,
        14, 0,   8, 10,  53, 0, 1,  14, 0, 8,  10, 255,
    };
    CHECK(m.len == 64 + sizeof want + 32, "size %zu", m.len);
    CHECK(memcmp(m.data + 64, want, sizeof want) == 0, "table bytes");
    free(m.data);
}

TEST(limit_keeps_file_valid)
{
    membuf m;
    tfmt_bin_writer *w = open_mem(&m, NULL);
    REQUIRE(w, "open");
    tfmt__bin_writer_set_limits(w, 3, UINT32_MAX, UINT32_MAX);
    uint32_t f = one_frame(w, 1), g;
    REQUIRE(tfmt_bin_writer_sample(w, 1, 0, 5, 0, &f, 1) == TFMT_OK, "s");
    REQUIRE(tfmt_bin_writer_sample(w, 1, 0, 6, 0, &f, 1) == TFMT_OK, "s");
    CHECK(tfmt_bin_writer_string(w, "third", 5, &g) == TFMT_OK, "third");
    CHECK(tfmt_bin_writer_string(w, "fourth", 6, &g) == TFMT_ELIMIT,
          "fourth string is over the limit");
    CHECK(strcmp(tfmt_bin_writer_error(w)->msg,
                 "too many strings for binary format") == 0,
          "message: %s", tfmt_bin_writer_error(w)->msg);
    CHECK(tfmt_bin_writer_sample(w, 1, 0, 7, 0, &f, 1) == TFMT_ELIMIT,
          "samples refused after the limit");
    CHECK(tfmt_bin_writer_finish(w) == TFMT_OK, "finish still works");
    done(w, &m);
    /* FULL + REPEAT(1), tables of 3 strings and 1 frame, footer. */
    const uint8_t *p = m.data + 64, *end = m.data + ld64(m.data + 40);
    rec r;
    CHECK(next_rec(&p, end, &r) && r.enc == TFMT_ENC_FULL, "FULL");
    CHECK(next_rec(&p, end, &r) && r.enc == TFMT_ENC_REPEAT && r.a == 1,
          "REPEAT 1");
    CHECK(p == end, "two records");
    CHECK(ld64(m.data + 28) == 2, "sample count 2");
    CHECK(ld32(m.data + m.len - 32) == 3 && ld32(m.data + m.len - 28) == 1,
          "footer counts");
    CHECK(ld64(m.data + m.len - 24) == m.len, "footer size");
    free(m.data);
}

TEST(frame_and_thread_limits)
{
    membuf m;
    tfmt_bin_writer *w = open_mem(&m, NULL);
    REQUIRE(w, "open");
    tfmt__bin_writer_set_limits(w, UINT32_MAX, 1, 1);
    uint32_t f = one_frame(w, 1), g = 0;
    CHECK(f == 0, "first frame");
    CHECK(one_frame(w, 1) == 0, "a known frame is not a new one");
    CHECK(tfmt_bin_writer_location(w, "f.py", 4, "fn", 2, 2, 2, 0, 4, 1, &g) ==
              TFMT_ELIMIT,
          "second frame over the limit");
    CHECK(strcmp(tfmt_bin_writer_error(w)->msg,
                 "too many frames for binary format") == 0,
          "message");
    CHECK(tfmt_bin_writer_finish(w) == TFMT_OK, "finish after the limit");
    done(w, &m);
    CHECK(m.len == 64 + 5 + 3 + 7 + 32, "one frame, no samples: %zu", m.len);
    free(m.data);

    w = open_mem(&m, NULL);
    REQUIRE(w, "open");
    tfmt__bin_writer_set_limits(w, UINT32_MAX, UINT32_MAX, 1);
    f = one_frame(w, 1);
    CHECK(tfmt_bin_writer_sample(w, 1, 0, 5, 0, &f, 1) == TFMT_OK, "t1");
    CHECK(tfmt_bin_writer_sample(w, 1, 1, 5, 0, &f, 1) == TFMT_ELIMIT,
          "a second (thread, interpreter) pair is over the limit");
    CHECK(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    done(w, &m);
    CHECK(m.len > 64 && ld32(m.data + 36) == 1 && ld64(m.data + 28) == 1,
          "one thread, one sample");
    free(m.data);
}

TEST(misuse)
{
    membuf m;
    tfmt_bin_writer *w = open_mem(&m, NULL);
    REQUIRE(w, "open");
    uint32_t bad = 0;
    CHECK(tfmt_bin_writer_sample(w, 1, 0, 5, 0, &bad, 1) == TFMT_EINVAL,
          "unknown frame index");
    tfmt_frame fr = {0, 0, 1, 1, 0, 0, 255};
    CHECK(tfmt_bin_writer_frame(w, &fr, &bad) == TFMT_EINVAL,
          "unknown string index");
    CHECK(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    CHECK(tfmt_bin_writer_finish(w) == TFMT_EINVAL, "finish twice");
    CHECK(tfmt_bin_writer_sample(w, 1, 0, 5, 0, NULL, 0) == TFMT_EINVAL,
          "sample after finish");
    done(w, &m);
    free(m.data);
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.compression = 2;
    CHECK(open_mem(&m, &o) == NULL, "unknown compression refused");
}

/* A sink that cannot patch the header makes finish fail, with its error. */
TEST(sink_error_reported)
{
    tfmt_sink *sink = NULL;
    const char *path = out_path();
    REQUIRE(path && tfmt_sink_open(&sink, path, TFMT_SINK_FORCE, NULL, NULL) ==
                        TFMT_OK,
            "sink");
    tfmt_bin_writer *w = NULL;
    REQUIRE(tfmt_bin_writer_open(&w, sink, NULL, NULL) == TFMT_OK, "open");
    int rc = tfmt_bin_writer_finish(w);
    CHECK(rc < 0, "finish fails without a seekable sink");
    CHECK(tfmt_bin_writer_error(w)->code == rc &&
              strcmp(tfmt_bin_writer_error(w)->msg,
                     tfmt_sink_error(sink)->msg) == 0,
          "writer error is the sink's: %s", tfmt_bin_writer_error(w)->msg);
    CHECK(tfmt_bin_writer_finish(w) == rc, "failure is sticky");
    tfmt_bin_writer_free(w);
    tfmt_sink_free(sink);
    remove(path);
}

/* ---- with the reader: copy and round trip ---- */

static tfmt_bin_reader *open_reader(const uint8_t *data, size_t len,
                                    tfmt_source **src)
{
    tfmt_bin_reader *r = NULL;
    if (tfmt_source_open_memory(src, data, len, 0, NULL) != TFMT_OK)
        return NULL;
    if (tfmt_bin_open(&r, *src, NULL, NULL) != TFMT_OK) {
        tfmt_source_free(*src);
        return NULL;
    }
    return r;
}

/* Copy the log in[0..len) into a writer with `compression`. */
static int copy_bytes(const uint8_t *in, size_t len, uint32_t compression,
                      membuf *m)
{
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = open_reader(in, len, &src);
    if (!r)
        return TFMT_EFORMAT;
    const tfmt_info *info = tfmt_bin_info(r);
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.start_time_us = info->start_time_us;
    o.sample_interval_us = info->sample_interval_us;
    memcpy(o.python_version, info->python_version, 3);
    o.config = info->config;
    o.compression = compression;
    tfmt_bin_writer *w = open_mem(m, &o);
    int rc = w ? tfmt_bin_copy(r, w) : TFMT_ENOMEM;
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_finish(w);
    done(w, m);
    tfmt_bin_free(r);
    tfmt_source_free(src);
    return rc;
}

/* Copy `file` of case `name` into an uncompressed writer. */
static int copy_file(const char *name, const char *file, membuf *m)
{
    size_t len = 0;
    uint8_t *in = harness_slurp(path_of(name, file), &len);
    int rc = in ? copy_bytes(in, len, TFMT_COMPRESSION_NONE, m) : TFMT_EIO;
    free(in);
    return rc;
}

/*
 * Records of one thread that the writer delays (REPEAT groups, flushed by
 * the 16 KiB rule, by a stack change or at finish) land between other
 * threads' records; a copy must put them back in the same places.
 */
/* A sample as CPython takes it: frames interned innermost first. */
static void sample_cp(tfmt_bin_writer *w, uint64_t tid, uint32_t iid,
                      uint64_t ts, uint8_t status, const int *lines,
                      uint32_t depth)
{
    uint32_t st[8];
    for (uint32_t i = depth; i-- > 0;)
        st[i] = one_frame(w, lines[i]);
    tfmt_bin_writer_sample(w, tid, iid, ts, status, st, depth);
}

static void write_interleaved(tfmt_bin_writer *w)
{
    static const int lines[] = {1, 2, 3, 4, 5, 6, 7};
    for (uint64_t i = 0; i < 12000; i++) {
        uint64_t ts = 2000 + i * 1000;
        if (i < 7000 || i % 500 == 0) /* fresh and empty first */
            sample_cp(w, 1, 0, ts, 0, lines, i < 7000 ? 0 : 2);
        sample_cp(w, 2, 0, ts + 3, (uint8_t)(i / 700 % 2), lines + 4,
                  3); /* long runs of one stack */
        if (i % 3 == 0)
            sample_cp(w, 3, 0, ts + 5, 1, lines + (i / 3) % 4, 2);
        if (i == 11990)
            sample_cp(w, 4, 1, ts, 0, NULL, 0);
    }
    tfmt_stats st = {true, 56, 1, 12.0, 2500.0, 0.5, 1.0, 3};
    tfmt_bin_writer_stats(w, &st);
}

/* CPython stores (7,-1,4,9) and (7,7,4,9) as two equal entries. */
TEST(copy_keeps_equal_frames_apart)
{
    membuf orig, copy;
    tfmt_bin_writer *w = open_mem(&orig, NULL);
    REQUIRE(w, "open");
    uint32_t a, b;
    tfmt_bin_writer_location(w, "x", 1, "f", 1, 7, -1, 4, 9, 1, &a);
    tfmt_bin_writer_sample(w, 1, 0, 10, 0, &a, 1);
    tfmt_bin_writer_location(w, "x", 1, "f", 1, 7, 7, 4, 9, 1, &b);
    tfmt_bin_writer_sample(w, 1, 0, 20, 0, &b, 1);
    tfmt_bin_writer_sample(w, 1, 0, 30, 0, &a, 1);
    CHECK(a == 0 && b == 1, "two entries");
    REQUIRE(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    done(w, &orig);
    REQUIRE(orig.data, "output");
    CHECK(copy_bytes(orig.data, orig.len, 0, &copy) == TFMT_OK, "copy");
    CHECK(copy.len == orig.len && memcmp(copy.data, orig.data, orig.len) == 0,
          "copy keeps both entries and their uses");
    free(orig.data);
    free(copy.data);
}

TEST(copy_reproduces_interleaving)
{
    membuf orig, none, z, back;
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.start_time_us = 1500;
    o.config = 0x13;
    tfmt_bin_writer *w = open_mem(&orig, &o);
    REQUIRE(w, "open");
    write_interleaved(w);
    REQUIRE(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    done(w, &orig);
    REQUIRE(orig.data, "output");
    CHECK(copy_bytes(orig.data, orig.len, 0, &none) == TFMT_OK, "copy");
    CHECK(none.len == orig.len && memcmp(none.data, orig.data, orig.len) == 0,
          "uncompressed copy is identical");
    CHECK(copy_bytes(orig.data, orig.len, 1, &z) == TFMT_OK, "to zstd");
    CHECK(z.data && copy_bytes(z.data, z.len, 0, &back) == TFMT_OK,
          "back from zstd");
    CHECK(back.len == orig.len && memcmp(back.data, orig.data, orig.len) == 0,
          "zstd and back is identical");
    free(orig.data);
    free(none.data);
    free(z.data);
    free(back.data);
}

TEST(copy_equals_none)
{
    static const char *const files[] = {"zstd.bin", "none.hdr-u32.bin",
                                        "zstd.hdr-u32.bin", "none.bin"};
    for (size_t c = 0; c < NCASES; c++) {
        size_t elen = 0;
        uint8_t *exp = harness_slurp(path_of(case_names[c], "none.bin"), &elen);
        REQUIRE(exp, "%s: none.bin", case_names[c]);
        for (size_t f = 0; f < 4; f++) {
            membuf m;
            int rc = copy_file(case_names[c], files[f], &m);
            CHECK(rc == TFMT_OK, "%s/%s: copy status %d", case_names[c],
                  files[f], rc);
            bool same = m.len == elen && memcmp(m.data, exp, elen) == 0;
            if (!same)
                report_diff(files[f], m.data, m.len, exp, elen);
            CHECK(same, "%s/%s: copy differs from none.bin", case_names[c],
                  files[f]);
            free(m.data);
        }
        free(exp);
    }
}

/* A seeded random walk over stacks, per thread, with what was fed. */
typedef struct fed {
    uint64_t ts;
    uint8_t status;
    uint32_t depth; /* after the 256 cap */
    uint32_t stack[TFMT_MAX_DEPTH];
} fed;

#define RT_THREADS 3
#define RT_SAMPLES 1500

static uint64_t rt_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static void rt_step(uint64_t *seed, uint32_t *st, uint32_t *depth)
{
    uint64_t r = rt_rand(seed) % 100;
    if (r < 60)
        return; /* same stack */
    if (r < 75 && *depth < 300)
        st[(*depth)++] = (uint32_t)(rt_rand(seed) % 40); /* call */
    else if (r < 90 && *depth > 0)
        (*depth)--; /* return */
    else if (r < 97 && *depth > 0)
        st[*depth - 1] = (uint32_t)(rt_rand(seed) % 40);
    else
        *depth = (uint32_t)(rt_rand(seed) % 280); /* jump / deep */
}

static void rt_write(tfmt_bin_writer *w, fed *log, uint64_t seed)
{
    uint32_t st[RT_THREADS][300] = {{0}}, depth[RT_THREADS] = {0};
    for (int i = 0; i < RT_SAMPLES; i++) {
        for (int t = 0; t < RT_THREADS; t++) {
            rt_step(&seed, st[t], &depth[t]);
            fed *f = &log[i * RT_THREADS + t];
            f->ts = 5000 + (uint64_t)i * 1000 - (t == 2 ? 7000 : 0);
            f->status = (uint8_t)(rt_rand(&seed) % 4 ? 3 : 0x21);
            uint32_t d = depth[t], keep = d > 256 ? 256 : d;
            f->depth = keep;
            memcpy(f->stack, st[t] + (d - keep), keep * sizeof(uint32_t));
            tfmt_bin_writer_sample(w, 100 + (uint64_t)t, t == 2, f->ts,
                                   f->status, st[t], d);
        }
    }
}

static void rt_check(tfmt_bin_reader *r, const fed *log)
{
    size_t next[RT_THREADS] = {0};
    const tfmt_sample *s;
    int rc;
    while ((rc = tfmt_bin_next(r, &s)) == TFMT_OK) {
        int t = (int)(s->thread_id - 100);
        REQUIRE(t >= 0 && t < RT_THREADS && s->interpreter_id == (t == 2),
                "thread %llu", (unsigned long long)s->thread_id);
        for (uint32_t k = 0; k < s->weight; k++) {
            REQUIRE(next[t] < RT_SAMPLES, "too many samples");
            const fed *f = &log[next[t]++ * RT_THREADS + t];
            REQUIRE(s->timestamps[k] == f->ts && s->status == f->status &&
                        s->depth == f->depth &&
                        memcmp(s->stack, f->stack,
                               f->depth * sizeof(uint32_t)) == 0,
                    "thread %d sample %zu differs", t, next[t] - 1);
        }
    }
    CHECK(rc == TFMT_DONE, "reader status %d: %s", rc, tfmt_bin_error(r)->msg);
    for (int t = 0; t < RT_THREADS; t++)
        CHECK(next[t] == RT_SAMPLES, "thread %d: %zu samples", t, next[t]);
}

static void round_trip(uint32_t compression)
{
    membuf m;
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.start_time_us = 1000;
    o.compression = compression;
    tfmt_bin_writer *w = open_mem(&m, &o);
    REQUIRE(w, "open");
    for (int i = 0; i < 40; i++)
        REQUIRE(one_frame(w, i + 1) == (uint32_t)i, "frame %d", i);
    fed *log = calloc(RT_SAMPLES * RT_THREADS, sizeof *log);
    REQUIRE(log, "memory");
    rt_write(w, log, 42);
    CHECK(tfmt_bin_writer_samples(w) == RT_SAMPLES * RT_THREADS, "count");
    CHECK(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    done(w, &m);
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = open_reader(m.data, m.len, &src);
    CHECK(r != NULL, "reader opens the written log");
    if (r) {
        CHECK(tfmt_bin_info(r)->sample_count == RT_SAMPLES * RT_THREADS,
              "declared count");
        CHECK(tfmt_bin_info(r)->thread_count == RT_THREADS, "threads");
        rt_check(r, log);
        tfmt_bin_free(r);
        tfmt_source_free(src);
    }
    free(log);
    free(m.data);
}

TEST(round_trip_none)
{
    round_trip(TFMT_COMPRESSION_NONE);
}

TEST(round_trip_zstd)
{
    round_trip(TFMT_COMPRESSION_ZSTD);
}

/* Decode the file at `path`: a sum over its thread-samples of a hash of
 * (tid, timestamp, depth, leaf line), which does not depend on how they
 * were grouped into records, and how many; -1 when it does not decode. */
static int64_t decode_file(const char *path, uint64_t *sum)
{
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    const tfmt_sample *smp;
    int64_t n = 0;
    int rc;
    *sum = 0;
    if (tfmt_source_open_path(&src, path, NULL, NULL) != TFMT_OK)
        return -1;
    if (tfmt_bin_open(&r, src, NULL, NULL) != TFMT_OK) {
        tfmt_source_free(src);
        return -1;
    }
    while ((rc = tfmt_bin_next(r, &smp)) == TFMT_OK) {
        int line = tfmt_bin_frame(r, smp->stack[smp->depth - 1])->lineno;
        for (uint32_t k = 0; k < smp->weight; k++)
            *sum += tfmt__hash_mix(smp->thread_id * 1000003 +
                                   smp->timestamps[k] * 31 + smp->depth * 7 +
                                   (uint64_t)line);
        n += smp->weight;
    }
    tfmt_bin_free(r);
    tfmt_source_free(src);
    return rc == TFMT_DONE ? n : -1;
}

/* Samples i in [from, to): two threads, stacks that change and repeat. */
static void feed_range(tfmt_bin_writer *w, int from, int to)
{
    for (int i = from; i < to; i++) {
        int lines[3] = {1, 2, 3 + (i / 7) % 3};
        sample_cp(w, 1 + (uint64_t)(i % 2), 0, 1000 + 10 * (uint64_t)i, 0,
                  lines, 3);
    }
}

/*
 * A checkpointed log is valid after every checkpoint, with everything
 * added before it, and a finish after checkpoints gives the same samples
 * as one written in one go.
 */
static void checkpoints(uint32_t compression)
{
    char path[600], once[620];
    uint64_t sum, want;
    snprintf(path, sizeof path, "%s", out_path());
    snprintf(once, sizeof once, "%s.once", path);
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.start_time_us = 1000;
    o.sample_interval_us = 10;
    o.compression = compression;
    tfmt_sink *sink = NULL, *sink2 = NULL;
    tfmt_bin_writer *w = NULL, *w2 = NULL;
    REQUIRE(tfmt_sink_open(&sink, path,
                           TFMT_SINK_SEEKABLE | TFMT_SINK_IN_PLACE |
                               TFMT_SINK_FORCE,
                           NULL, NULL) == TFMT_OK,
            "in-place sink");
    REQUIRE(tfmt_bin_writer_open(&w, sink, &o, NULL) == TFMT_OK, "open");
    REQUIRE(tfmt_sink_open(&sink2, once, TFMT_SINK_SEEKABLE | TFMT_SINK_FORCE,
                           NULL, NULL) == TFMT_OK,
            "sink");
    REQUIRE(tfmt_bin_writer_open(&w2, sink2, &o, NULL) == TFMT_OK, "open");
    CHECK(tfmt_bin_writer_checkpoint(w) == TFMT_OK, "empty checkpoint");
    CHECK(tfmt_sink_sync(sink) == TFMT_OK, "sync");
    CHECK(decode_file(path, &sum) == 0, "an empty checkpoint is a log");
    static const int cuts[] = {0, 50, 51, 400, 1000};
    for (size_t c = 1; c < sizeof cuts / sizeof *cuts; c++) {
        feed_range(w, cuts[c - 1], cuts[c]);
        feed_range(w2, cuts[c - 1], cuts[c]);
        REQUIRE(tfmt_bin_writer_checkpoint(w) == TFMT_OK, "checkpoint %zu", c);
        CHECK(decode_file(path, &sum) == cuts[c],
              "checkpoint %zu: the file holds %d samples", c, cuts[c]);
    }
    feed_range(w, 1000, 1300);
    feed_range(w2, 1000, 1300);
    REQUIRE(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    REQUIRE(tfmt_sink_finish(sink) == TFMT_OK, "sink finish");
    REQUIRE(tfmt_bin_writer_finish(w2) == TFMT_OK, "finish once");
    REQUIRE(tfmt_sink_finish(sink2) == TFMT_OK, "sink finish once");
    CHECK(decode_file(path, &sum) == 1300, "all samples after finish");
    CHECK(decode_file(once, &want) == 1300 && sum == want,
          "the same samples as a log written in one go");
    tfmt_bin_writer_free(w);
    tfmt_bin_writer_free(w2);
    tfmt_sink_free(sink);
    tfmt_sink_free(sink2);
    remove(path);
    remove(once);
}

/* The first four bytes of the file at `path` (0 if unreadable). */
static uint32_t file_magic(const char *path)
{
    uint8_t b[4] = {0};
    FILE *f = fopen(path, "rb");
    if (f) {
        if (fread(b, 1, 4, f) != 4)
            memset(b, 0, sizeof b);
        fclose(f);
    }
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
           (uint32_t)b[3] << 24;
}

/*
 * Between checkpoints, once samples go over the last checkpoint's trailer
 * the header is zeroed first: the file is then an unfinished log (a kill
 * there needs --recover), never a header pointing at tables that sample
 * bytes overwrote. The next checkpoint makes it whole again.
 */
TEST(checkpoint_header_zeroed_before_overwrite)
{
    char path[600];
    uint64_t sum;
    snprintf(path, sizeof path, "%s", out_path());
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.start_time_us = 1000;
    o.sample_interval_us = 10;
    tfmt_sink *sink = NULL;
    tfmt_bin_writer *w = NULL;
    REQUIRE(tfmt_sink_open(&sink, path,
                           TFMT_SINK_SEEKABLE | TFMT_SINK_IN_PLACE |
                               TFMT_SINK_FORCE,
                           NULL, NULL) == TFMT_OK,
            "in-place sink");
    REQUIRE(tfmt_bin_writer_open(&w, sink, &o, NULL) == TFMT_OK, "open");
    feed_range(w, 0, 1000);
    REQUIRE(tfmt_bin_writer_checkpoint(w) == TFMT_OK, "checkpoint");
    CHECK(decode_file(path, &sum) == 1000, "the checkpoint is a log");
    int i = 1000;
    bool overwritten = false;
    while (!overwritten && i < 4000000) {
        feed_range(w, i, i + 20000);
        i += 20000;
        overwritten = file_magic(path) == 0;
        if (!overwritten)
            CHECK(decode_file(path, &sum) == 1000,
                  "before any byte goes over the trailer: the checkpoint");
    }
    CHECK(overwritten, "samples reached the file before %d samples", i);
    CHECK(decode_file(path, &sum) == -1, "an unfinished log in between");
    REQUIRE(tfmt_bin_writer_checkpoint(w) == TFMT_OK, "checkpoint 2");
    CHECK(decode_file(path, &sum) == i, "whole again: %d samples", i);
    REQUIRE(tfmt_bin_writer_finish(w) == TFMT_OK, "finish");
    REQUIRE(tfmt_sink_finish(sink) == TFMT_OK, "sink finish");
    CHECK(decode_file(path, &sum) == i, "finished: %d samples", i);
    tfmt_bin_writer_free(w);
    tfmt_sink_free(sink);
    remove(path);
}

TEST(checkpoints_none)
{
    checkpoints(TFMT_COMPRESSION_NONE);
}

TEST(checkpoints_zstd)
{
    checkpoints(TFMT_COMPRESSION_ZSTD);
}

/* The workload case written with a statistics block of `duration`. */
static int write_with_stats(double duration, membuf *m)
{
    json_object *in = load_input("workload");
    if (!in)
        return TFMT_EIO;
    tfmt_bin_writer_options o;
    case_options(in, &o, 0);
    tfmt_bin_writer *w = open_mem(m, &o);
    tfmt_stats st = {true, 56, 1, duration, 1000.0, 0, 0, 0};
    int rc = w ? feed_samples(w, json_object_object_get(in, "samples"))
               : TFMT_ENOMEM;
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_stats(w, &st);
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_finish(w);
    done(w, m);
    json_object_put(in);
    return rc;
}

/* Both run ids of a log in memory, read in chunks of `chunk` bytes. */
static int ids_of(const membuf *m, size_t chunk, char v1[33], char v2[33])
{
    tfmt_source *src;
    tfmt_bin_reader *r;
    int rc = tfmt_source_open_memory(&src, m->data, m->len, chunk, NULL);
    if (rc != TFMT_OK)
        return rc;
    rc = tfmt_bin_open(&r, src, NULL, NULL);
    if (rc == TFMT_OK) {
        tfmt_bin_fingerprint(r, v1);
        rc = tfmt_bin_run_id(r, v2);
        tfmt_bin_free(r);
    }
    tfmt_source_free(src);
    return rc;
}

TEST(run_id_covers_every_byte)
{
    /* Two logs that differ only in their statistics block's values, and
       one that differs in one sample-region byte: version 1 (the
       fingerprint) could not tell them apart, version 2 does; the same
       bytes give the same id however they are read. */
    membuf a, b;
    char a1[33], a2[33], b1[33], b2[33], c1[33], c2[33], x1[33], x2[33];
    REQUIRE(write_with_stats(1.5, &a) == TFMT_OK, "write a");
    REQUIRE(write_with_stats(2.5, &b) == TFMT_OK, "write b");
    REQUIRE(a.len == b.len && memcmp(a.data, b.data, a.len) != 0, "twins");
    REQUIRE(ids_of(&a, 0, a1, a2) == TFMT_OK, "ids a");
    REQUIRE(ids_of(&b, 0, b1, b2) == TFMT_OK, "ids b");
    CHECK(strcmp(a1, b1) == 0, "v1 fingerprints differ: %s %s", a1, b1);
    CHECK(strcmp(a2, b2) != 0, "v2 ids equal: %s", a2);
    CHECK(strlen(a2) == 32 && strspn(a2, "0123456789abcdef") == 32, "%s", a2);
    a.data[70] ^= 1; /* a sample-region byte (the header is 64) */
    REQUIRE(ids_of(&a, 0, c1, c2) == TFMT_OK, "ids c");
    CHECK(strcmp(c1, a1) == 0 && strcmp(c2, a2) != 0, "one byte: %s %s", c2,
          a2);
    a.data[70] ^= 1;
    REQUIRE(ids_of(&a, 7, x1, x2) == TFMT_OK, "ids in 7-byte chunks");
    CHECK(strcmp(x2, a2) == 0, "chunked read: %s, whole: %s", x2, a2);
    free(a.data);
    free(b.data);
}

TEST(digest_any_cut)
{
    /* The digest of a buffer is the same however it is cut into updates,
       and differs for every length (padding is unambiguous). */
    uint8_t buf[300];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 7 + 1);
    uint64_t whole[2], cut[2], prev[2] = {0, 0};
    for (size_t n = 0; n <= sizeof buf; n++) {
        tfmt_digest d;
        tfmt__digest_init(&d, 2);
        tfmt__digest_update(&d, buf, n);
        tfmt__digest_final(&d, whole);
        CHECK(whole[0] != prev[0] || whole[1] != prev[1], "length %zu", n);
        memcpy(prev, whole, sizeof prev);
        for (size_t step = 1; step <= 33; step += 4) {
            tfmt__digest_init(&d, 2);
            for (size_t i = 0; i < n; i += step)
                tfmt__digest_update(&d, buf + i, n - i < step ? n - i : step);
            tfmt__digest_final(&d, cut);
            CHECK(cut[0] == whole[0] && cut[1] == whole[1],
                  "length %zu, steps of %zu", n, step);
        }
    }
}

TESTS(TCASE(fixtures_none_identical), TCASE(fixtures_encoding_mix),
      TCASE(fixtures_zstd_region), TCASE(alloc_failures), TCASE(stats_block_56),
      TCASE(stats_block_32), TCASE(header_fields), TCASE(bad_stats_refused),
      TCASE(repeat_split_16k), TCASE(repeat_split_16k_at_the_bound),
      TCASE(repeat_batches_continue), TCASE(depth_300_keeps_innermost_256),
      TCASE(encoding_choice), TCASE(timestamp_wraps), TCASE(frame_dedup_keys),
      TCASE(limit_keeps_file_valid), TCASE(misuse),
      TCASE(frame_and_thread_limits), TCASE(sink_error_reported),
      TCASE(copy_equals_none), TCASE(copy_reproduces_interleaving),
      TCASE(copy_keeps_equal_frames_apart), TCASE(round_trip_none),
      TCASE(round_trip_zstd), TCASE(checkpoints_none), TCASE(checkpoints_zstd),
      TCASE(checkpoint_header_zeroed_before_overwrite),
      TCASE(run_id_covers_every_byte), TCASE(digest_any_cut))
