/* SPDX-License-Identifier: MIT */
/*
 * import_bin.c - a binary log into a model: the reader's string and frame
 * indices are mapped to model ids the first time something needs them
 * (so a model numbers its frames in the order samples first show them, as
 * CPython's collectors do), and the sample stream is handed on batch by
 * batch with progress reports and the reader's error copied to the model.
 */
#include "import.h"

static int nomem(tfmt_import *im)
{
    return tfmt__error(im->err, TFMT_ENOMEM, "out of memory");
}

static uint32_t *new_map(const tfmt_allocator *a, uint32_t n)
{
    /* n was checked by the reader against the bytes of its table. */
    size_t len = (size_t)n + 1;
    uint32_t *m = tfmt__malloc_table(a, len, sizeof *m);
    for (size_t i = 0; m && i < len; i++)
        m[i] = TFMT_IMPORT_UNSET;
    return m;
}

int tfmt__import_open(tfmt_import *im, tfmt_bin_reader *r,
                      const tfmt_import_ops *ops, void *ctx,
                      const tfmt_allocator *a, tfmt_error *err)
{
    const tfmt_info *info = tfmt_bin_info(r);
    memset(im, 0, sizeof *im);
    im->r = r;
    im->ops = ops;
    im->ctx = ctx;
    im->err = err;
    im->alloc = a;
    im->nstrings = info->string_count;
    im->nframes = info->frame_count;
    im->smap = new_map(a, im->nstrings);
    im->fmap = new_map(a, im->nframes);
    return im->smap && im->fmap ? TFMT_OK : nomem(im);
}

void tfmt__import_close(tfmt_import *im)
{
    tfmt__free(im->alloc, im->smap);
    tfmt__free(im->alloc, im->fmap);
    im->smap = im->fmap = NULL;
}

int tfmt__import_string(tfmt_import *im, uint32_t index, uint32_t *out)
{
    tfmt_str s;
    if (index < im->nstrings && im->smap[index] != TFMT_IMPORT_UNSET) {
        *out = im->smap[index];
        return TFMT_OK;
    }
    if (index >= im->nstrings || tfmt_bin_string(im->r, index, &s) < 0)
        return tfmt__error(im->err, TFMT_EFORMAT,
                           "string index %u out of range", index);
    int rc = im->ops->string(im->ctx, s.ptr, s.len, &im->smap[index]);
    if (rc == TFMT_OK)
        *out = im->smap[index];
    return rc;
}

int tfmt__import_frame_slow(tfmt_import *im, uint32_t index, uint32_t *out)
{
    const tfmt_frame *f =
        index < im->nframes ? tfmt_bin_frame(im->r, index) : NULL;
    if (!f)
        return tfmt__error(im->err, TFMT_EFORMAT, "frame index %u out of range",
                           index);
    if (im->fmap[index] != TFMT_IMPORT_UNSET) {
        *out = im->fmap[index];
        return TFMT_OK;
    }
    tfmt_frame mf = *f;
    int rc = tfmt__import_string(im, f->filename, &mf.filename);
    if (rc == TFMT_OK)
        rc = tfmt__import_string(im, f->funcname, &mf.funcname);
    if (rc == TFMT_OK)
        rc = im->ops->frame(im->ctx, index, &mf, &im->fmap[index]);
    if (rc == TFMT_OK)
        *out = im->fmap[index];
    return rc;
}

int tfmt__import_placeholders(tfmt_import *im, uint32_t n, uint32_t first)
{
    size_t len = (size_t)im->nframes + n + 1;
    uint32_t *m = tfmt__realloc(im->alloc, im->fmap, len * sizeof *m);
    if (!m)
        return nomem(im);
    for (uint32_t k = 0; k < n; k++)
        m[im->nframes + k] = first + k;
    m[len - 1] = TFMT_IMPORT_UNSET;
    im->fmap = m;
    im->nframes += n;
    return TFMT_OK;
}

int tfmt__import_samples(tfmt_import *im, tfmt_import_sample_fn fn, void *ctx)
{
    int rc = TFMT_OK;
    for (uint32_t n = 1; rc == TFMT_OK; n++) {
        const tfmt_sample *s;
        rc = tfmt_bin_next(im->r, &s);
        if (im->progress && (n & 4095) == 0)
            im->progress(im->progress_ctx, tfmt_bin_samples_read(im->r));
        if (rc == TFMT_OK)
            rc = fn(ctx, s);
        else if (rc < 0)
            rc = tfmt__error_take(im->err, tfmt_bin_error(im->r), rc);
    }
    return rc == TFMT_DONE ? TFMT_OK : rc;
}
