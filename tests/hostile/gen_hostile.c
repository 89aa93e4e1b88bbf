/* SPDX-License-Identifier: MIT */
/*
 * gen_hostile.c - crafted hostile inputs for tests/hostile, made on the
 * spot so no large or opaque file is committed. Each case reproduces one
 * finding of the adversarial audit (issue 14):
 *
 *   whole-bomb MIB   a zstd file (OUT) that decompresses to a binary
 *                    log header followed by MIB MiB of zeros: RLE blocks,
 *                    4 bytes per 128 KiB (3072 MiB take 96 KiB); its
 *                    header claims a 1 MiB zstd sample region, which
 *                    allows a frame table of terabytes, so only the
 *                    size and ratio limits stop it
 *   table-bomb MIB   the same with the issue 22 header: string table at
 *                    81, frame table at 88, an uncompressed sample
 *                    region of 17 bytes: at most 17 frames, so refused
 *                    about 1 MiB in
 *   table-bomb-zstd MIB
 *                    the same header saying its 17-byte region is zstd
 *                    (at most 557056 frames: refused about 35 MiB in)
 *   region-bomb MIB  an uncompressed log whose zstd sample region
 *                    expands to MIB MiB of zeros (empty REPEAT records)
 *   ignorable MIB    a zstd JSONL export (single_full's records) holding
 *                    MIB MiB of records of an unknown type
 *   pop-beyond       a log whose POP_PUSH record pops 5 frames off a
 *                    stack of 2 (CPython's reader keeps none, no error)
 *   config-bits      a log with reserved bits (9 and 20) of the header's
 *                    config word set
 *   ts-overflow      a log whose second sample's timestamp is 2^63 µs
 *   clean            the same two-sample log without a defect
 *   frames N FILE FUNC...
 *                    a log whose frame i names FILE and FUNC (pairs of
 *                    arguments, any bytes but NUL: hostile names for the
 *                    heatmap's sources and the text outputs) at line i+1,
 *                    with N * (i + 1) samples of the stack [main, i]
 *   id-flood N       an export of N more strings whose str_ids (2^31 and
 *                    up) all met in one probe chain of the id sets while
 *                    their hash was a fixed multiply-shift: the top 12
 *                    bits of (id + 1) * 2^64/phi are zero (quadratic
 *                    time before the hashes took a secret, 0.2)
 *   string-flood N   a log of N functions (one sample each, under "main")
 *                    whose 16-byte names all had one hash while strings
 *                    were interned with a fixed seed (0.1's profile.c):
 *                    the last 8 bytes solved from the first 8
 *   jsonl-SHAPE-WHERE MIB  an export with one line of MIB MiB: a value of
 *                    many empty arrays, deep arrays, a long string, many
 *                    members or numbers, placed where readers skip it, or
 *                    a big valid record (gen_jsonl_lines.c)
 *
 * usage: gen_hostile CASE OUT [MIB]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include <tachyon/fmt.h>

#include "gen_jsonl_lines.h"
#include "internal.h" /* 0.1's fixed hash, to make names collide under it */

#define RLE_BLOCK (128u << 10)

static int fail(const char *what)
{
    fprintf(stderr, "gen_hostile: %s\n", what);
    return 2;
}

static void put_le(unsigned char *p, unsigned long long v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A zstd frame header without content size, 128 KiB window. */
static void zstd_frame_start(FILE *f)
{
    static const unsigned char h[] = {0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38};
    fwrite(h, 1, sizeof h, f);
}

/* A raw block holding `n` (<= 128 KiB) bytes. */
static void zstd_raw_block(FILE *f, const void *p, size_t n, int last)
{
    unsigned char h[3];
    put_le(h, ((unsigned long long)n << 3) | (unsigned)last, 3);
    fwrite(h, 1, 3, f);
    fwrite(p, 1, n, f);
}

/* `mib` MiB of zero bytes as RLE blocks; the last one ends the frame. */
static void zstd_zeros(FILE *f, unsigned long mib)
{
    unsigned long blocks = mib * ((1u << 20) / RLE_BLOCK);
    for (unsigned long i = 0; i < blocks; i++) {
        unsigned char b[4];
        put_le(b,
               ((unsigned long long)RLE_BLOCK << 3) | (1u << 1) |
                   (i + 1 == blocks),
               3);
        b[3] = 0;
        fwrite(b, 1, 4, f);
    }
}

/* The newest header: magic, version 1, Python 3.15.0, interval 1000. */
static void header(unsigned char h[64], unsigned long long samples,
                   unsigned threads, unsigned long long str_off,
                   unsigned long long frame_off, unsigned compression)
{
    memset(h, 0, 64);
    put_le(h, 0x54414348u, 4);
    put_le(h + 4, 1, 4);
    h[8] = 3;
    h[9] = 15;
    put_le(h + 20, 1000, 8);
    put_le(h + 28, samples, 8);
    put_le(h + 36, threads, 4);
    put_le(h + 40, str_off, 8);
    put_le(h + 48, frame_off, 8);
    put_le(h + 56, compression, 4);
}

static int whole_bomb(FILE *f, unsigned long mib, unsigned long long tables,
                      unsigned long long frames, unsigned compression)
{
    unsigned char h[64];
    header(h, 1, 1, tables, frames, compression);
    zstd_frame_start(f);
    zstd_raw_block(f, h, sizeof h, 0);
    zstd_zeros(f, mib);
    return 0;
}

/* Header, a zstd region of zeros, empty tables and the footer. */
static int region_bomb(FILE *f, unsigned long mib)
{
    unsigned long blocks = mib * ((1u << 20) / RLE_BLOCK);
    unsigned long long region = 6 + 4ULL * blocks;
    unsigned long long tables = 64 + region;
    unsigned char h[64], foot[32];
    header(h, 0, 1, tables, tables, 1);
    fwrite(h, 1, sizeof h, f);
    zstd_frame_start(f);
    zstd_zeros(f, mib);
    memset(foot, 0, sizeof foot);
    put_le(foot + 8, tables + sizeof foot, 8);
    fwrite(foot, 1, sizeof foot, f);
    return 0;
}

#define RUN_ID "00000000000000000000000000000000"
#define ENVELOPE(type)                                                         \
    "{\"type\":\"" type "\",\"v\":0,\"run_id\":\"" RUN_ID "\""

static const char jsonl_head[] =
    ENVELOPE("meta") ",\"sample_interval_usec\":1000}\n" ENVELOPE(
        "string_table") ",\"strings\":[{\"str_id\":0,\"value\":\"leaf\"},"
                        "{\"str_id\":1,\"value\":\"/app/"
                        "work.py\"}]}\n" ENVELOPE(
                            "frame_table") ",\"frames\":[{\"frame_id\":0,"
                                           "\"path_str_id\":1,"
                                           "\"func_str_id\":0,\"line\":5}]}\n";
static const char jsonl_tail[] = ENVELOPE(
    "agg") ",\"kind\":\"frame\",\"scope\":\"final\","
           "\"samples_total\":1,\"entries\":[{\"frame_id\":0,\"self\":1,"
           "\"cumulative\":1}]}\n" ENVELOPE("end") ",\"samples_total\":1}\n";
static const char jsonl_ignorable[] =
    ENVELOPE("x_annotation") ",\"payload\":{\"k\":[1,-2,true,null],"
                             "\"s\":\"ignored by every reader\"}}\n";

static int compress_chunk(ZSTD_CCtx *c, FILE *f, const void *p, size_t n,
                          ZSTD_EndDirective end)
{
    static unsigned char out[1 << 16];
    ZSTD_inBuffer in = {p, n, 0};
    for (;;) {
        ZSTD_outBuffer o = {out, sizeof out, 0};
        size_t left = ZSTD_compressStream2(c, &o, &in, end);
        if (ZSTD_isError(left))
            return -1;
        fwrite(out, 1, o.pos, f);
        if (end == ZSTD_e_end ? left == 0 : in.pos == in.size)
            return 0;
    }
}

static int ignorable(FILE *f, unsigned long mib)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    if (!c)
        return fail("out of memory");
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
    size_t line = strlen(jsonl_ignorable), per = (1u << 20) / line;
    char *chunk = malloc(per * line);
    if (!chunk)
        return fail("out of memory");
    for (size_t i = 0; i < per; i++)
        memcpy(chunk + i * line, jsonl_ignorable, line);
    int rc =
        compress_chunk(c, f, jsonl_head, strlen(jsonl_head), ZSTD_e_continue);
    for (unsigned long i = 0; rc == 0 && i < mib; i++)
        rc = compress_chunk(c, f, chunk, per * line, ZSTD_e_continue);
    if (rc == 0)
        rc = compress_chunk(c, f, jsonl_tail, strlen(jsonl_tail), ZSTD_e_end);
    free(chunk);
    ZSTD_freeCCtx(c);
    return rc == 0 ? 0 : fail("zstd compression failed");
}

static int id_flood(FILE *f, unsigned long n)
{
    fputs(ENVELOPE("meta") ",\"sample_interval_usec\":1000}\n" ENVELOPE(
              "string_table") ",\"strings\":[{\"str_id\":0,\"value\":"
                              "\"leaf\"},{\"str_id\":1,\"value\":\"w.py\"}",
          f);
    unsigned long long id = 1ULL << 31;
    for (unsigned long k = 0; k < n && id < 1ULL << 32; id++)
        if (((id + 1) * 0x9e3779b97f4a7c15ULL) >> 52 == 0) {
            fprintf(f, ",{\"str_id\":%llu,\"value\":\"s\"}", id);
            k++;
        }
    fputs("]}\n" ENVELOPE("frame_table") ",\"frames\":[{\"frame_id\":0,"
                                         "\"path_str_id\":1,\"func_str_id\":"
                                         "0,\"line\":5}]}\n",
          f);
    fputs(jsonl_tail, f);
    return 0;
}

/* A log through the public writer (1 ms interval from t = 1 s), header
 * config word `config`; 0, or 1 after saying why. */
static int open_log(const char *path, unsigned config, tfmt_sink **s,
                    tfmt_bin_writer **w)
{
    tfmt_error e;
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.start_time_us = 1000000;
    o.sample_interval_us = 1000;
    o.config = config;
    if (tfmt_sink_open(s, path, TFMT_SINK_SEEKABLE | TFMT_SINK_FORCE, NULL,
                       &e) != TFMT_OK ||
        tfmt_bin_writer_open(w, *s, &o, &e) != TFMT_OK) {
        tfmt_sink_free(*s);
        return fail(e.msg);
    }
    return 0;
}

/* Finish the log when rc is TFMT_OK, and free it: 0, or 1. */
static int close_log(tfmt_sink *s, tfmt_bin_writer *w, int rc)
{
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_finish(w);
    tfmt_bin_writer_free(w);
    if (rc == TFMT_OK)
        rc = tfmt_sink_finish(s);
    tfmt_sink_free(s);
    return rc == TFMT_OK ? 0 : fail("writer failed");
}

#define GOLDEN 0x9e3779b97f4a7c15ULL
#define OLD_STRING_SEED 0x7461636879736eULL

/* Names whose 0.1 hash (tfmt__hash_bytes, unkeyed, with profile.c's seed
 * of then) is equal: each one's state after its first 8 bytes (the first
 * round of tfmt__hash_bytes), XORed with its last 8, is one value. Every
 * byte is ASCII but NUL, so the reader's UTF-8 repair keeps the names as
 * they are. */
static int string_flood(const char *path, unsigned long n)
{
    tfmt_sink *s = NULL;
    tfmt_bin_writer *w = NULL;
    if (open_log(path, 0, &s, &w) != 0)
        return 1;
    uint32_t st[2];
    int rc = tfmt_bin_writer_location(w, "app.py", 6, "main", 4, 1, 1, 0, 4,
                                      255, &st[0]);
    uint64_t t = 1000000, target = 0x6f6e652076616c75ULL;
    for (uint64_t a = 0x4141414141414141ULL; n && rc == TFMT_OK; a++) {
        uint64_t h =
            tfmt__hash_mix((OLD_STRING_SEED ^ 16 * GOLDEN) ^ a) + GOLDEN;
        uint64_t b = target ^ h;
        bool ascii = true;
        for (int i = 0; i < 8; i++) {
            unsigned x = a >> (8 * i) & 0xff, y = b >> (8 * i) & 0xff;
            ascii &= x && x < 0x80 && y && y < 0x80;
        }
        if (!ascii)
            continue;
        char name[16];
        memcpy(name, &a, 8);
        memcpy(name + 8, &b, 8);
        if (tfmt__hash_bytes(name, 16, OLD_STRING_SEED) !=
            tfmt__hash_mix(tfmt__hash_mix(target) + GOLDEN))
            return fail("string-flood: the names do not collide");
        rc = tfmt_bin_writer_location(w, "app.py", 6, name, 16, 2, 2, 0, 4, 255,
                                      &st[1]);
        if (rc == TFMT_OK)
            rc = tfmt_bin_writer_sample(w, 1, 0, t += 1000, 0, st, 2);
        n--;
    }
    return close_log(s, w, rc);
}

/*
 * A valid log through the public writer: thread 1 samples stack [A, B]
 * at t0, then [A, C] (a POP_PUSH: pop 1, push 1) at `t1`.
 */
static int two_samples(const char *path, unsigned long long t1, unsigned config)
{
    tfmt_sink *s = NULL;
    tfmt_bin_writer *w = NULL;
    if (open_log(path, config, &s, &w) != 0)
        return 1;
    uint32_t fr[3], st[2];
    static const char *const names[] = {"main", "work", "rest"};
    for (int i = 0; i < 3; i++)
        tfmt_bin_writer_location(w, "app.py", 6, names[i], 4, 10 * (i + 1),
                                 10 * (i + 1), 0, 4, 255, &fr[i]);
    st[0] = fr[0];
    st[1] = fr[1];
    int rc = tfmt_bin_writer_sample(w, 1, 0, 1000000, 0, st, 2);
    st[1] = fr[2];
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_sample(w, 1, 0, t1, 0, st, 2);
    return close_log(s, w, rc);
}

/* Find the second record (POP_PUSH, pop 1) and make it pop 5. */
static int pop_beyond(const char *path)
{
    int rc = two_samples(path, 1001000, 0);
    FILE *f = rc ? NULL : fopen(path, "r+b");
    unsigned char b[128];
    if (!f || fread(b, 1, sizeof b, f) != sizeof b)
        return fail("cannot reread the log");
    /* record 1 at 64: 13 + delta 0 + status + depth 2 + 2 frames = 18;
     * record 2 at 82: 13 + delta 1000 (2 bytes) + status, then pop. */
    if (b[82 + 12] != 3 || b[82 + 16] != 1)
        return fail("unexpected record layout");
    b[82 + 16] = 5;
    rc = fseek(f, 0, SEEK_SET) != 0 || fwrite(b, 1, sizeof b, f) != sizeof b;
    return fclose(f) != 0 || rc ? fail("cannot patch the log") : 0;
}

/* Each (file, func) pair a frame under a common "main" caller. */
static int named_frames(const char *path, unsigned long n, int npairs,
                        char **pairs)
{
    tfmt_sink *s = NULL;
    tfmt_bin_writer *w = NULL;
    if (open_log(path, 0, &s, &w) != 0)
        return 1;
    int rc = TFMT_OK;
    uint64_t t = 1000000;
    for (int i = 0; i < npairs && rc == TFMT_OK; i++) {
        const char *file = pairs[2 * i], *func = pairs[2 * i + 1];
        uint32_t st[2];
        rc = tfmt_bin_writer_location(w, file, strlen(file), func, strlen(func),
                                      i + 1, i + 1, 0, 4, 255, &st[1]);
        if (rc == TFMT_OK)
            rc = tfmt_bin_writer_location(w, "main.py", 7, "main", 4, 1, 1, 0,
                                          4, 255, &st[0]);
        for (unsigned long k = 0;
             k < n * (unsigned long)(i + 1) && rc == TFMT_OK; k++)
            rc = tfmt_bin_writer_sample(w, 1, 0, t += 1000, 0, st, 2);
    }
    return close_log(s, w, rc);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fail("usage: gen_hostile CASE OUT [MIB]");
    const char *c = argv[1], *out = argv[2];
    unsigned long mib = argc > 3 ? strtoul(argv[3], NULL, 10) : 3072;
    if (!strcmp(c, "pop-beyond"))
        return pop_beyond(out);
    if (!strcmp(c, "config-bits"))
        return two_samples(out, 1001000, 1u | 1u << 9 | 1u << 20);
    if (!strcmp(c, "ts-overflow"))
        return two_samples(out, 1ULL << 63, 0);
    if (!strcmp(c, "frames") && argc >= 4 && argc % 2 == 0)
        return named_frames(out, strtoul(argv[3], NULL, 10), (argc - 4) / 2,
                            argv + 4);
    if (!strcmp(c, "clean"))
        return two_samples(out, 1001000, 0);
    if (!strcmp(c, "string-flood"))
        return string_flood(out, mib);
    FILE *f = fopen(out, "wb");
    if (!f)
        return fail("cannot create OUT");
    int rc = !strcmp(c, "whole-bomb")
                 ? whole_bomb(f, mib, 64 + (1u << 20), 64 + (1u << 20), 1)
             : !strcmp(c, "table-bomb")       ? whole_bomb(f, mib, 81, 88, 0)
             : !strcmp(c, "table-bomb-zstd")  ? whole_bomb(f, mib, 81, 88, 1)
             : !strcmp(c, "region-bomb")      ? region_bomb(f, mib)
             : !strcmp(c, "ignorable")        ? ignorable(f, mib)
             : !strcmp(c, "id-flood")         ? id_flood(f, mib)
             : gen_jsonl_line(c, f, mib) == 0 ? 0
                                              : fail("unknown case");
    if (fclose(f) != 0 && rc == 0)
        rc = fail("write error");
    return rc;
}
