/* SPDX-License-Identifier: MIT */
/*
 * bin_writer.c - the binary log writer's life cycle: options, opening on a
 * sink or on callbacks, limits, accessors and freeing. The samples are
 * encoded by bin_writer_enc.c.
 */
#include "bin_writer.h"

int tfmt__bw_check_open(tfmt_bin_writer *w)
{
    if (w->finished)
        return tfmt__error(&w->err, TFMT_EINVAL, "writer already finished");
    if (w->failed)
        return w->failed;
    if (w->limit)
        return tfmt__error(&w->err, TFMT_ELIMIT,
                           "binary format limit reached earlier");
    return TFMT_OK;
}

int tfmt__bw_limit(tfmt_bin_writer *w, const char *what)
{
    w->limit = true;
    return tfmt__error(&w->err, TFMT_ELIMIT, "%s", what);
}

static int check_options(const tfmt_bin_writer_options *o, tfmt_error *err)
{
    if (o->version != TFMT_BIN_WRITER_OPTIONS_VERSION)
        return tfmt__error(err, TFMT_EINVAL,
                           "unknown writer options version %u", o->version);
    if (o->compression > TFMT_COMPRESSION_ZSTD)
        return tfmt__error(err, TFMT_EINVAL, "unknown compression %u",
                           o->compression);
    return TFMT_OK;
}

/* The 64 header bytes are written as zeros now and patched at finish. */
static int start(tfmt_bin_writer *w)
{
    int rc = tfmt__bw_out_init(w);
    if (rc != TFMT_OK)
        return rc == TFMT_ENOMEM ? tfmt__error(&w->err, rc, "out of memory")
                                 : rc;
    tfmt__bw_intern_init(w);
    tfmt__tidmap_init(&w->thread_map, w->alloc);
    uint8_t zero[TFMT_BW_HEADER_SIZE] = {0};
    rc = w->write(w->out_ctx, zero, sizeof zero, &w->err);
    w->pos = sizeof zero;
    return rc;
}

int tfmt__bin_writer_open_cb(tfmt_bin_writer **out, tfmt_bw_write_fn write,
                             tfmt_bw_pwrite_fn pwrite, void *ctx,
                             const tfmt_bin_writer_options *opts,
                             tfmt_error *err)
{
    tfmt_bin_writer_options dflt = TFMT_BIN_WRITER_OPTIONS_INIT;
    const tfmt_bin_writer_options *o = opts ? opts : &dflt;
    *out = NULL;
    int rc = check_options(o, err);
    if (rc != TFMT_OK)
        return rc;
    tfmt_bin_writer *w = tfmt__calloc(o->alloc, 1, sizeof *w);
    if (!w)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    w->alloc = o->alloc;
    w->opts = *o;
    w->write = write;
    w->pwrite = pwrite;
    w->out_ctx = ctx;
    w->max_strings = w->max_frames = w->max_threads = UINT32_MAX;
    rc = start(w);
    if (rc != TFMT_OK) {
        if (err)
            *err = w->err;
        tfmt_bin_writer_free(w);
        return rc;
    }
    *out = w;
    return TFMT_OK;
}

static int sink_write(void *ctx, const void *buf, size_t len, tfmt_error *err)
{
    int rc = tfmt_sink_write(ctx, buf, len);
    if (rc != TFMT_OK)
        rc = tfmt__error_take(err, tfmt_sink_error(ctx), rc);
    return rc;
}

static int sink_pwrite(void *ctx, const void *buf, size_t len, uint64_t offset,
                       tfmt_error *err)
{
    int rc = tfmt_sink_pwrite(ctx, buf, len, offset);
    if (rc != TFMT_OK)
        rc = tfmt__error_take(err, tfmt_sink_error(ctx), rc);
    return rc;
}

int tfmt_bin_writer_open(tfmt_bin_writer **out, tfmt_sink *sink,
                         const tfmt_bin_writer_options *opts, tfmt_error *err)
{
    *out = NULL;
    if (!sink)
        return tfmt__error(err, TFMT_EINVAL, "no sink");
    if (tfmt_sink_tell(sink) != 0)
        return tfmt__error(err, TFMT_EINVAL,
                           "a binary log must start at offset 0 of its sink");
    return tfmt__bin_writer_open_cb(out, sink_write, sink_pwrite, sink, opts,
                                    err);
}

void tfmt__bin_writer_set_limits(tfmt_bin_writer *w, uint32_t strings,
                                 uint32_t frames, uint32_t threads)
{
    w->max_strings = strings;
    w->max_frames = frames;
    w->max_threads = threads;
}

void tfmt_bin_writer_free(tfmt_bin_writer *w)
{
    if (!w)
        return;
    for (uint32_t i = 0; i < w->thread_count; i++) {
        tfmt__free(w->alloc, w->threads[i].stack);
        tfmt__free(w->alloc, w->threads[i].pending);
    }
    tfmt__free(w->alloc, w->threads);
    tfmt__tidmap_free(&w->thread_map);
    tfmt__bw_intern_free(w);
    tfmt__bw_out_free(w);
    tfmt__free(w->alloc, w);
}

uint64_t tfmt_bin_writer_samples(const tfmt_bin_writer *w)
{
    return w->samples;
}

const tfmt_error *tfmt_bin_writer_error(const tfmt_bin_writer *w)
{
    return &w->err;
}

const tfmt_bw_counts *tfmt__bin_writer_counts(const tfmt_bin_writer *w)
{
    return &w->counts;
}
