/*
 * bin_copy.c - re-encode a binary log: every sample of a reader goes to a
 * writer in file order, one thread-sample per timestamp, with frames
 * interned as CPython's writer would have, so a zstd log copied into an
 * uncompressed writer equals the CPython-written uncompressed log.
 */
#include "bin_writer.h"

typedef struct copier {
    tfmt_bin_reader *r;
    tfmt_bin_writer *w;
    uint32_t *map;              /* reader frame -> writer frame, lazy */
    uint32_t nframes;
    uint32_t base;              /* writer frames that predate the copy */
    bool pending;               /* the last batch was a REPEAT of: */
    uint64_t pending_tid;
    uint32_t pending_iid;
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

/* Map a root-first stack, interning unseen frames innermost first. */
static int map_stack(copier *c, const tfmt_sample *s, uint32_t *out)
{
    for (uint32_t i = s->depth; i-- > 0;) {
        uint32_t idx = s->stack[i];
        if (idx >= c->nframes || c->map[idx] == UINT32_MAX) {
            int rc = map_frame(c, idx);
            if (rc != TFMT_OK)
                return rc;
        }
        out[i] = c->map[idx];
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
static int place_repeats(copier *c, const tfmt_sample *s)
{
    bool same = s && s->encoding == TFMT_ENC_REPEAT &&
                s->thread_id == c->pending_tid &&
                s->interpreter_id == c->pending_iid;
    int rc = TFMT_OK;
    if (c->pending && !same)
        rc = tfmt__bin_writer_flush_thread(c->w, c->pending_tid,
                                           c->pending_iid);
    c->pending = s && s->encoding == TFMT_ENC_REPEAT;
    if (c->pending) {
        c->pending_tid = s->thread_id;
        c->pending_iid = s->interpreter_id;
    }
    return rc;
}

static int copy_batch(copier *c, const tfmt_sample *s)
{
    uint32_t stack[TFMT_MAX_DEPTH];
    if (s->depth > TFMT_MAX_DEPTH)
        return tfmt__error(&c->w->err, TFMT_EFORMAT, "stack too deep");
    int rc = place_repeats(c, s);
    if (rc == TFMT_OK)
        rc = map_stack(c, s, stack);
    for (uint32_t i = 0; i < s->weight && rc == TFMT_OK; i++)
        rc = tfmt_bin_writer_sample(c->w, s->thread_id, s->interpreter_id,
                                    s->timestamps[i], s->status, stack,
                                    s->depth);
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
    int rc = place_repeats(c, NULL);
    const tfmt_info *info = tfmt_bin_info(c->r);
    if (rc == TFMT_OK && info->stats.present)
        rc = tfmt_bin_writer_stats(c->w, &info->stats);
    return rc;
}

int tfmt_bin_copy(tfmt_bin_reader *r, tfmt_bin_writer *w)
{
    copier c = {r, w, NULL, tfmt_bin_info(r)->frame_count, w->frame_count,
                false, 0, 0};
    c.map = tfmt__malloc(w->alloc, (size_t)c.nframes * sizeof *c.map);
    if (!c.map)
        return tfmt__error(&w->err, TFMT_ENOMEM, "out of memory");
    memset(c.map, 0xff, (size_t)c.nframes * sizeof *c.map);
    int rc = copy_all(&c);
    tfmt__free(w->alloc, c.map);
    return rc;
}
