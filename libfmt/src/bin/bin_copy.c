/*
 * bin_copy.c - re-encode a binary log: every sample of a reader goes to a
 * writer in file order, one thread-sample per timestamp, with frames
 * interned as CPython's writer would have, so a zstd log copied into an
 * uncompressed writer equals the CPython-written uncompressed log.
 */
#include "bin_internal.h"
#include "bin_writer.h"

typedef struct copier {
    tfmt_bin_reader *r;
    tfmt_bin_writer *w;
    uint32_t *map; /* reader frame -> writer frame, lazy */
    uint32_t nframes;
    uint32_t base; /* writer frames that predate the copy */
    uint32_t *wt;  /* reader thread -> writer thread, or
                      UINT32_MAX before its first sample */
    size_t nwt, capwt;
    bool pending;        /* the last batch was a REPEAT of: */
    uint32_t pending_ti; /* (a writer thread index) */
    uint32_t fresh[TFMT_MAX_DEPTH];
} copier;

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
static int map_frame(copier *c, uint32_t index)
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

/*
 * Map the frames at [keep, depth) of a root-first stack into c->fresh,
 * interning unseen ones innermost first (CPython's order; the frames
 * before `keep` were mapped with an earlier sample).
 */
static int map_tail(copier *c, const tfmt_sample *s, uint32_t keep)
{
    for (uint32_t i = s->depth; i-- > keep;) {
        uint32_t idx = s->stack[i];
        if (idx >= c->nframes || c->map[idx] == UINT32_MAX) {
            int rc = map_frame(c, idx);
            if (rc != TFMT_OK)
                return rc;
        }
        c->fresh[i - keep] = c->map[idx];
    }
    return TFMT_OK;
}

/*
 * The source wrote each REPEAT record at the moment it appears in the
 * file. Write the copy's group there too: once a REPEAT batch of one
 * thread is followed by anything but more REPEATs of that thread (two
 * adjacent records of one thread were split by the 16 KiB rule, which
 * the writer re-applies by itself).
 */
static int place_repeats(copier *c, const tfmt_sample *s, uint32_t ti)
{
    bool same = s && s->encoding == TFMT_ENC_REPEAT && ti == c->pending_ti;
    int rc = TFMT_OK;
    if (c->pending && !same)
        rc = tfmt__bw_flush_index(c->w, c->pending_ti);
    c->pending = s && s->encoding == TFMT_ENC_REPEAT;
    c->pending_ti = ti;
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
    bool first;
    int rc = writer_thread(c, s, &ti, &first);
    if (rc == TFMT_OK)
        rc = place_repeats(c, s, ti);
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
    rc = map_tail(c, s, keep);
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
        const tfmt_sample *s = NULL;
        int rc = tfmt_bin_next(c->r, &s);
        if (rc == TFMT_DONE)
            break;
        if (rc != TFMT_OK)
            return tfmt__error_take(&c->w->err, tfmt_bin_error(c->r), rc);
        rc = copy_batch(c, s);
        if (rc != TFMT_OK)
            return rc;
    }
    int rc = place_repeats(c, NULL, 0);
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
