/* SPDX-License-Identifier: MIT */
/*
 * bin_copy.c - re-encode a binary log: every sample of a reader goes to a
 * writer in file order, one thread-sample per timestamp, with frames
 * interned as CPython's writer would have, so a zstd log copied into an
 * uncompressed writer equals the CPython-written uncompressed log.
 */
#include "bin_copy.h"

static int copy_string(copier *c, uint32_t index, uint32_t *out)
{
    tfmt_str s;
    int rc = tfmt_bin_string(c->r, index, &s);
    if (rc != TFMT_OK)
        return tfmt__error(&c->w->err, TFMT_EFORMAT,
                           "reader string %u is missing", index);
    return tfmt_bin_writer_string(c->w, s.ptr, s.len, out);
}

/*
 * Filename, funcname, then the frame: CPython's interning order. Two
 * source frames that read back equal (CPython keeps an end value of -1
 * apart from end == start) stay two entries.
 */
int tfmt__copy_map_frame(copier *c, uint32_t index)
{
    const tfmt_frame *src = tfmt_bin_frame(c->r, index);
    if (!src || index >= c->nframes)
        return tfmt__error(&c->w->err, TFMT_EFORMAT,
                           "reader frame %u is missing", index);
    tfmt_frame f = *src;
    int rc = copy_string(c, src->filename, &f.filename);
    if (rc == TFMT_OK)
        rc = copy_string(c, src->funcname, &f.funcname);
    if (rc == TFMT_OK)
        rc = tfmt__bw_frame_intern(c->w, &f, c->base, &c->map[index]);
    return rc;
}

/* The writer thread of the sample's thread; *first on its first batch. */
static int writer_thread(copier *c, const tfmt_sample *s, uint32_t *out,
                         bool *first)
{
    size_t i = s->thread_index;
    if (i >= c->nwt) {
        if (tfmt__grow(c->w->alloc, (void **)&c->wt, &c->capwt, i + 1,
                       sizeof *c->wt) != TFMT_OK)
            return tfmt__error(&c->w->err, TFMT_ENOMEM, "out of memory");
        memset(c->wt + c->nwt, 0xff, (i + 1 - c->nwt) * sizeof *c->wt);
        c->nwt = i + 1;
    }
    *first = c->wt[i] == UINT32_MAX;
    if (!*first) {
        *out = c->wt[i];
        return TFMT_OK;
    }
    int rc = tfmt__bw_thread(c->w, s->thread_id, s->interpreter_id, out);
    if (rc == TFMT_OK)
        c->wt[i] = *out;
    return rc;
}

/*
 * Every sample goes to the writer, so after a thread's first batch the
 * writer's previous stack of that thread is the reader's previous stack,
 * mapped: a REPEAT is REPEAT pairs only, and any other record compares
 * from the frames the reader kept. The first batch compares whole.
 */
static int copy_batch(copier *c, const tfmt_sample *s)
{
    if (s->depth > TFMT_MAX_DEPTH)
        return tfmt__error(&c->w->err, TFMT_EFORMAT, "stack too deep");
    uint32_t ti;
    bool first = false;
    int rc = writer_thread(c, s, &ti, &first);
    if (rc == TFMT_OK)
        rc = tfmt__copy_place_repeats(c, s->encoding == TFMT_ENC_REPEAT, ti);
    if (rc != TFMT_OK)
        return rc;
    size_t len;
    const uint8_t *raw = tfmt__bin_raw_pairs(c->r, &len);
    if (!first && raw)
        return tfmt__bw_repeat_raw(c->w, ti, raw, len, s->weight,
                                   s->timestamps[s->weight - 1]);
    const uint8_t *st = tfmt__bin_statuses(c->r);
    if (!first && s->encoding == TFMT_ENC_REPEAT)
        return tfmt__bw_repeat(c->w, ti, s->timestamps, st, s->weight,
                               s->status);
    uint32_t keep = first ? 0 : s->unchanged;
    keep = keep < s->depth ? keep : s->depth;
    rc = tfmt__copy_map_tail(c, s->stack, s->depth, keep);
    if (rc == TFMT_OK)
        rc = tfmt__bw_sample_tail(c->w, ti, s->timestamps[0],
                                  st ? st[0] : s->status, keep, c->fresh,
                                  s->depth);
    if (rc == TFMT_OK && s->weight > 1)
        rc = tfmt__bw_repeat(c->w, ti, s->timestamps + 1, st ? st + 1 : NULL,
                             s->weight - 1, s->status);
    return rc;
}

static int copy_all(copier *c)
{
    for (;;) {
        /* Whole records while it can, then one batch the slow way. */
        int rc = tfmt__copy_fast(c);
        if (rc != TFMT_OK)
            return rc;
        const tfmt_sample *s = NULL;
        rc = tfmt_bin_next(c->r, &s);
        if (rc == TFMT_DONE)
            break;
        if (rc != TFMT_OK)
            return tfmt__error_take(&c->w->err, tfmt_bin_error(c->r), rc);
        rc = copy_batch(c, s);
        if (rc != TFMT_OK)
            return rc;
    }
    int rc = tfmt__copy_place_repeats(c, false, 0);
    const tfmt_info *info = tfmt_bin_info(c->r);
    if (rc == TFMT_OK && info->stats.present)
        rc = tfmt_bin_writer_stats(c->w, &info->stats);
    return rc;
}

int tfmt_bin_copy(tfmt_bin_reader *r, tfmt_bin_writer *w)
{
    copier c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.w = w;
    c.nframes = tfmt_bin_info(r)->frame_count;
    c.base = w->frame_count;
    c.map = tfmt__malloc(w->alloc, (size_t)c.nframes * sizeof *c.map);
    if (!c.map)
        return tfmt__error(&w->err, TFMT_ENOMEM, "out of memory");
    memset(c.map, 0xff, (size_t)c.nframes * sizeof *c.map);
    tfmt__bin_mixed_repeats(r);
    int rc = copy_all(&c);
    tfmt__free(w->alloc, c.map);
    tfmt__free(w->alloc, c.wt);
    return rc;
}
