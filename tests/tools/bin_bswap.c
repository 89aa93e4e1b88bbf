/* SPDX-License-Identifier: MIT */
/*
 * bin_bswap - make the opposite-byte-order twin of a binary log, as a
 * big-endian CPython writer would have written it: every fixed-width field
 * (header, sample-record thread and interpreter ids, statistics block,
 * footer) is byte-swapped; varints and single bytes stay. A zstd sample
 * region is decompressed, swapped and recompressed (level 5).
 *
 * It walks the records itself rather than through the reader, so the
 * reader's cross-endian path is tested against an independent encoder.
 * The library is used only to learn the header layout and offsets.
 *
 * Usage: bin_bswap IN OUT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include <tachyon/fmt.h>

static void swap_n(uint8_t *p, int n)
{
    for (int i = 0; i < n / 2; i++) {
        uint8_t t = p[i];
        p[i] = p[n - 1 - i];
        p[n - 1 - i] = t;
    }
}

static const uint8_t *skip_varint(const uint8_t *p)
{
    while (*p & 0x80)
        p++;
    return p + 1;
}

static uint64_t varint(const uint8_t **pp)
{
    uint64_t v = 0;
    unsigned shift = 0;
    const uint8_t *p = *pp;
    do {
        v |= (uint64_t)(*p & 0x7f) << shift;
        shift += 7;
    } while (*p++ & 0x80);
    *pp = p;
    return v;
}

/* Swap the fixed-width ids of every record in an uncompressed region. */
static void swap_records(uint8_t *p, uint8_t *end)
{
    while (p < end) {
        swap_n(p, 8);
        swap_n(p + 8, 4);
        uint8_t enc = p[12];
        const uint8_t *q = p + 13;
        if (enc == 0) {
            uint64_t count = varint(&q);
            for (uint64_t i = 0; i < count; i++)
                q = skip_varint(q) + 1;
        } else {
            q = skip_varint(q) + 1;
            uint64_t n = varint(&q);
            if (enc != 1)
                n = varint(&q);
            for (uint64_t i = 0; i < n; i++)
                q = skip_varint(q);
        }
        p = (uint8_t *)q;
    }
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc(*len);
    if (d && fread(d, 1, *len, f) != *len) {
        free(d);
        d = NULL;
    }
    fclose(f);
    return d;
}

/* The region as raw records: decompressed when the log uses zstd. */
static uint8_t *raw_region(const uint8_t *d, const tfmt_info *info, size_t *len)
{
    size_t n = (size_t)(info->string_table_offset - 64);
    if (info->compression == 0) {
        uint8_t *r = malloc(n + 1);
        memcpy(r, d + 64, n);
        *len = n;
        return r;
    }
    size_t cap = 64u << 20;
    uint8_t *r = malloc(cap);
    ZSTD_DStream *ds = ZSTD_createDStream();
    ZSTD_inBuffer in = {d + 64, n, 0};
    ZSTD_outBuffer out = {r, cap, 0};
    while (in.pos < in.size)
        if (ZSTD_isError(ZSTD_decompressStream(ds, &out, &in)))
            exit(1);
    ZSTD_freeDStream(ds);
    *len = out.pos;
    return r;
}

static void swap_header(uint8_t *h, const tfmt_info *info)
{
    bool u64 = info->layout == TFMT_LAYOUT_U64_COUNT;
    swap_n(h, 4);
    swap_n(h + 4, 4);
    swap_n(h + 12, 8);
    swap_n(h + 20, 8);
    swap_n(h + 28, u64 ? 8 : 4);
    swap_n(h + (u64 ? 36 : 32), 4);
    swap_n(h + (u64 ? 40 : 36), 8);
    swap_n(h + (u64 ? 48 : 44), 8);
    swap_n(h + (u64 ? 56 : 52), 4);
    if (u64)
        swap_n(h + 60, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

/* Write header + region + tables/stats + footer with new offsets. */
static int assemble(FILE *o, const uint8_t *d, size_t size,
                    const tfmt_info *info, const uint8_t *reg, size_t rlen)
{
    bool u64 = info->layout == TFMT_LAYOUT_U64_COUNT;
    uint64_t shift = 64 + rlen - info->string_table_offset;
    uint8_t h[64];
    memcpy(h, d, 64);
    put64(h + (u64 ? 40 : 36), info->string_table_offset + shift);
    put64(h + (u64 ? 48 : 44), info->frame_table_offset + shift);
    swap_header(h, info);
    size_t tail = size - 32 - (size_t)info->string_table_offset;
    uint8_t *t = malloc(tail + 32);
    memcpy(t, d + info->string_table_offset, tail + 32);
    if (info->stats.present) {
        uint8_t *st = t + tail - info->stats.size;
        int nd = info->stats.size >= 56 ? 4 : 2;
        for (int i = 0; i < nd; i++)
            swap_n(st + 8 * i, 8);
        if (nd == 4)
            swap_n(st + 32, 4), swap_n(st + 36, 4);
        swap_n(st + info->stats.size - 8, 4);
        swap_n(st + info->stats.size - 4, 4);
    }
    uint8_t *ft = t + tail;
    put64(ft + 8, size + shift);
    swap_n(ft, 4);
    swap_n(ft + 4, 4);
    swap_n(ft + 8, 8);
    int ok = fwrite(h, 1, 64, o) == 64 && fwrite(reg, 1, rlen, o) == rlen &&
             fwrite(t, 1, tail + 32, o) == tail + 32;
    free(t);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    size_t size, rlen;
    if (argc != 3) {
        fprintf(stderr, "usage: bin_bswap IN OUT\n");
        return 2;
    }
    uint8_t *d = slurp(argv[1], &size);
    if (!d || tfmt_source_open_path(&src, argv[1], NULL, NULL) != TFMT_OK ||
        tfmt_bin_open(&r, src, NULL, NULL) != TFMT_OK) {
        fprintf(stderr, "bin_bswap: %s: cannot read\n", argv[1]);
        return 1;
    }
    const tfmt_info *info = tfmt_bin_info(r);
    uint8_t *reg = raw_region(d, info, &rlen);
    swap_records(reg, reg + rlen);
    if (info->compression == 1) {
        size_t cap = ZSTD_compressBound(rlen);
        uint8_t *z = malloc(cap);
        rlen = ZSTD_compress(z, cap, reg, rlen, 5);
        free(reg);
        reg = z;
    }
    FILE *o = fopen(argv[2], "wb");
    int rc = !o || assemble(o, d, size, info, reg, rlen) || fclose(o);
    tfmt_bin_free(r);
    tfmt_source_free(src);
    free(reg);
    free(d);
    return rc;
}
