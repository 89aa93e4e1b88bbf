/* SPDX-License-Identifier: MIT */
/*
 * bin_writer_out.c - the binary writer's byte stream: a 512 KiB buffer that
 * is handed to the output (or fed to one zstd frame) whenever it is full,
 * as CPython's writer does, then raw bytes for the tables and trailer.
 */
#include "bin_writer.h"
#include "zstd_mem.h"

int tfmt__bw_fail(tfmt_bin_writer *w, int code)
{
    if (!w->failed)
        w->failed = code;
    return code;
}

int tfmt__bw_out_init(tfmt_bin_writer *w)
{
    w->buf = tfmt__malloc(w->alloc, TFMT_BW_BUFFER_SIZE);
    if (!w->buf)
        return TFMT_ENOMEM;
    if (w->opts.compression != TFMT_COMPRESSION_ZSTD)
        return TFMT_OK;
    int level = w->opts.zstd_level ? w->opts.zstd_level : 5;
    ZSTD_CCtx *cctx = tfmt__zstd_cctx(w->alloc);
    w->zcctx = cctx;
    if (!cctx)
        return TFMT_ENOMEM;
    if (ZSTD_isError(
            ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)))
        return tfmt__error(&w->err, TFMT_EINVAL, "bad zstd level %d", level);
    w->zout_cap = ZSTD_CStreamOutSize();
    w->zout = tfmt__malloc(w->alloc, w->zout_cap);
    return w->zout ? TFMT_OK : TFMT_ENOMEM;
}

void tfmt__bw_out_free(tfmt_bin_writer *w)
{
    ZSTD_freeCCtx(w->zcctx);
    w->zcctx = NULL;
    tfmt__free(w->alloc, w->zout);
    tfmt__free(w->alloc, w->buf);
    w->zout = NULL;
    w->buf = NULL;
}

/*
 * The next bytes go over the last checkpoint's trailer: zero the header
 * that points at it first, so a log killed between here and the next
 * checkpoint reads as unfinished ("header never written"; tachyon-record
 * --recover puts the checkpoint back) instead of as tables made of sample
 * bytes that a reader might accept.
 */
static int leave_checkpoint(tfmt_bin_writer *w)
{
    uint8_t zero[TFMT_BW_HEADER_SIZE] = {0};
    int rc = w->pwrite(w->out_ctx, zero, sizeof zero, 0, &w->err);
    if (rc != TFMT_OK)
        return tfmt__bw_fail(w, rc);
    w->trailer_on_disk = false;
    return TFMT_OK;
}

static int emit(tfmt_bin_writer *w, const void *p, size_t n)
{
    if (!n)
        return TFMT_OK;
    if (w->trailer_on_disk) {
        int rc = leave_checkpoint(w);
        if (rc != TFMT_OK)
            return rc;
    }
    /* After a checkpoint the samples continue where the last trailer
     * starts, so bytes are placed rather than appended. */
    int rc = w->in_place ? w->pwrite(w->out_ctx, p, n, w->pos, &w->err)
                         : w->write(w->out_ctx, p, n, &w->err);
    if (rc != TFMT_OK)
        return tfmt__bw_fail(w, rc);
    w->pos += n;
    return TFMT_OK;
}

/* Run the zstd stream over `in` with directive `mode` until it is done. */
static int zstd_pump(tfmt_bin_writer *w, const void *p, size_t n,
                     ZSTD_EndDirective mode)
{
    ZSTD_inBuffer in = {p, n, 0};
    for (;;) {
        ZSTD_outBuffer out = {w->zout, w->zout_cap, 0};
        size_t left = ZSTD_compressStream2(w->zcctx, &out, &in, mode);
        if (ZSTD_isError(left)) {
            int code = tfmt__zstd_status(left, TFMT_EIO);
            tfmt__error(&w->err, code, "zstd compression error: %s",
                        ZSTD_getErrorName(left));
            return tfmt__bw_fail(w, code);
        }
        int rc = emit(w, w->zout, out.pos);
        if (rc != TFMT_OK)
            return rc;
        bool done = mode == ZSTD_e_end ? left == 0 : in.pos == in.size;
        if (done)
            return TFMT_OK;
    }
}

int tfmt__bw_out_flush(tfmt_bin_writer *w)
{
    size_t n = w->buf_len;
    if (!n)
        return TFMT_OK;
    w->buf_len = 0;
    if (w->zcctx && !w->raw)
        return zstd_pump(w, w->buf, n, ZSTD_e_continue);
    return emit(w, w->buf, n);
}

int tfmt__bw_out_put(tfmt_bin_writer *w, const void *p, size_t n)
{
    const uint8_t *s = p;
    while (n) {
        size_t room = TFMT_BW_BUFFER_SIZE - w->buf_len;
        size_t take = n < room ? n : room;
        memcpy(w->buf + w->buf_len, s, take);
        w->buf_len += take;
        s += take;
        n -= take;
        if (w->buf_len == TFMT_BW_BUFFER_SIZE) {
            int rc = tfmt__bw_out_flush(w);
            if (rc != TFMT_OK)
                return rc;
        }
    }
    return TFMT_OK;
}

int tfmt__bw_out_end_samples(tfmt_bin_writer *w)
{
    int rc = tfmt__bw_out_flush(w);
    if (rc != TFMT_OK)
        return rc;
    if (w->zcctx) {
        rc = zstd_pump(w, NULL, 0, ZSTD_e_end);
        if (rc != TFMT_OK)
            return rc;
    }
    w->raw = true;
    return TFMT_OK;
}
