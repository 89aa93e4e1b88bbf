/* SPDX-License-Identifier: MIT */
/*
 * bin_stream.c - the sample region [64, string table offset) as a sliding
 * window of decompressed bytes.
 *
 * The region is read in chunks (never whole), raw or through one zstd
 * decoder context, so memory stays at the window size whatever the file
 * size. A memory source without compression is used in place. The window
 * always has room for the largest record (about 2.6 KB), so the decoder can
 * ask for a whole record before parsing it.
 */
#include "bin_internal.h"
#include "zstd_mem.h"

#define WINDOW_SIZE (1u << 20)
#define MIN_WINDOW (16u << 10)
#define INPUT_SIZE (256u << 10)
#define WINDOW_LOG_MAX 25 /* 32 MiB: levels up to 19 and beyond */

int tfmt__bin_stream_open(tfmt_bin_stream *s, tfmt_source *src,
                          const tfmt_info *info, const tfmt_allocator *a,
                          tfmt_error *err)
{
    bool zstd = info->compression == TFMT_COMPRESSION_ZSTD;
    return tfmt__bin_stream_open_range(
        s, src, 0, info->string_table_offset - TFMT_BIN_HEADER_SIZE, zstd, a,
        err);
}

int tfmt__bin_stream_open_range(tfmt_bin_stream *s, tfmt_source *src,
                                uint64_t from, uint64_t to, bool zstd,
                                const tfmt_allocator *a, tfmt_error *err)
{
    memset(s, 0, sizeof *s);
    s->alloc = a;
    s->src = src;
    s->next_in = TFMT_BIN_HEADER_SIZE + from;
    s->end_in = TFMT_BIN_HEADER_SIZE + to;
    s->base = from;
    s->zstd = zstd;
    uint64_t n = s->end_in - s->next_in;
    if (!s->zstd && n <= SIZE_MAX)
        s->mem = tfmt__source_memory(src, s->next_in, (size_t)n);
    if (s->mem) {
        s->pos = s->mem;
        s->end = s->mem + n;
        s->next_in = s->end_in;
        s->eof = true;
        return TFMT_OK;
    }
    /* Small regions get a small window: the window only amortizes reads,
     * it must merely hold the largest record. */
    uint64_t want = s->zstd ? n * 8 : n;
    want = want < MIN_WINDOW ? MIN_WINDOW : want;
    s->win_cap = want < WINDOW_SIZE ? (size_t)want : WINDOW_SIZE;
    s->win = tfmt__malloc(a, s->win_cap);
    if (s->zstd) {
        s->in_cap = n < INPUT_SIZE ? (size_t)n + 1 : INPUT_SIZE;
        s->in = tfmt__malloc(a, s->in_cap);
        s->dctx = tfmt__zstd_dctx(a);
    }
    if (!s->win || (s->zstd && (!s->in || !s->dctx)))
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    /* The frame header says how big a window the decoder allocates: cap it
     * (CPython writes level 5, a 2 MiB window; level 19 needs 8 MiB). */
    if (s->zstd && ZSTD_isError(ZSTD_DCtx_setParameter(
                       s->dctx, ZSTD_d_windowLogMax, WINDOW_LOG_MAX)))
        return tfmt__error(err, TFMT_ENOMEM, "cannot limit the zstd window");
    s->pos = s->end = s->win;
    s->eof = s->next_in >= s->end_in;
    return TFMT_OK;
}

void tfmt__bin_stream_close(tfmt_bin_stream *s)
{
    if (s->dctx)
        ZSTD_freeDCtx(s->dctx);
    tfmt__free(s->alloc, s->win);
    tfmt__free(s->alloc, s->in);
    memset(s, 0, sizeof *s);
}

static int fill_raw(tfmt_bin_stream *s, tfmt_error *err)
{
    size_t room = s->win_cap - (size_t)(s->end - s->win);
    uint64_t left = s->end_in - s->next_in;
    size_t n = left < room ? (size_t)left : room;
    int rc = tfmt__source_pread(s->src, (uint8_t *)s->end, n, s->next_in, err);
    if (rc != TFMT_OK)
        return rc;
    s->end += n;
    s->next_in += n;
    s->eof = s->next_in >= s->end_in;
    return TFMT_OK;
}

static int zstd_error(tfmt_bin_stream *s, int code, const char *msg,
                      tfmt_error *err)
{
    uint64_t at = s->next_in - (s->in_len - s->in_pos);
    tfmt__error_at(err, code, at, "%s", msg);
    if (err)
        err->check = TFMT_BCHK_ZSTD;
    return code;
}

/* Decompress into the window's free space; sets eof at the region end. */
static int fill_zstd(tfmt_bin_stream *s, tfmt_error *err)
{
    if (s->in_pos == s->in_len && s->next_in < s->end_in) {
        uint64_t left = s->end_in - s->next_in;
        size_t n = left < s->in_cap ? (size_t)left : s->in_cap;
        int rc = tfmt__source_pread(s->src, s->in, n, s->next_in, err);
        if (rc != TFMT_OK)
            return rc;
        s->next_in += n;
        s->in_len = n;
        s->in_pos = 0;
    }
    ZSTD_inBuffer in = {s->in, s->in_len, s->in_pos};
    ZSTD_outBuffer out = {s->win, s->win_cap, (size_t)(s->end - s->win)};
    size_t ret = ZSTD_decompressStream(s->dctx, &out, &in);
    if (ZSTD_isError(ret) &&
        tfmt__zstd_status(ret, TFMT_EFORMAT) == TFMT_ENOMEM)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    if (ZSTD_isError(ret)) {
        char msg[160];
        snprintf(msg, sizeof msg, "zstd decompression error: %s",
                 ZSTD_getErrorName(ret));
        return zstd_error(s, TFMT_EFORMAT, msg, err);
    }
    s->zret = ret;
    s->in_pos = in.pos;
    s->end = s->win + out.pos;
    uint64_t used = s->next_in - TFMT_BIN_HEADER_SIZE - (s->in_len - s->in_pos);
    uint64_t made = s->base + out.pos;
    int rc = tfmt__source_check_growth(
        s->src, made, used ? used : 1, "decompressed sample data",
        s->next_in - (s->in_len - s->in_pos), err);
    if (rc != TFMT_OK) {
        if (err)
            err->check = TFMT_BCHK_ZSTD;
        return rc;
    }
    /* zstd keeps a frame's last input byte until all output is flushed,
     * so consumed input means the output is complete. */
    if (s->in_pos == s->in_len && s->next_in >= s->end_in) {
        s->eof = true;
        if (ret != 0)
            return zstd_error(s, TFMT_ETRUNC,
                              "incomplete zstd frame: data may be truncated",
                              err);
    }
    return TFMT_OK;
}

int tfmt__bin_stream_fill(tfmt_bin_stream *s, size_t need, tfmt_error *err)
{
    if ((size_t)(s->end - s->pos) >= need || s->eof)
        return TFMT_OK;
    size_t keep = (size_t)(s->end - s->pos);
    s->base += (uint64_t)(s->pos - s->win);
    memmove(s->win, s->pos, keep);
    s->pos = s->win;
    s->end = s->win + keep;
    while ((size_t)(s->end - s->pos) < need && !s->eof) {
        int rc = s->zstd ? fill_zstd(s, err) : fill_raw(s, err);
        if (rc != TFMT_OK)
            return rc;
    }
    return TFMT_OK;
}
