/* SPDX-License-Identifier: MIT */
/*
 * bin_writer_intern.c - the writer's string and frame tables: interning in
 * first-use order with CPython's dedup keys, and their serialisation.
 */
#include "bin_writer.h"

#define SEED_STR 0x5354524eULL

int tfmt__bw_intern_init(tfmt_bin_writer *w)
{
    tfmt__buf_init(&w->str_bytes, w->alloc);
    tfmt__idset_init(&w->str_set, w->alloc);
    tfmt__idset_init(&w->frame_set, w->alloc);
    return TFMT_OK;
}

void tfmt__bw_intern_free(tfmt_bin_writer *w)
{
    tfmt__buf_free(&w->str_bytes);
    tfmt__idset_free(&w->str_set);
    tfmt__idset_free(&w->frame_set);
    tfmt__free(w->alloc, w->str_off);
    tfmt__free(w->alloc, w->str_len);
    tfmt__free(w->alloc, w->frames);
}

typedef struct strkey {
    const char *s;
    size_t len;
} strkey;

static bool str_eq(const void *ctx, uint32_t id, const void *key)
{
    const tfmt_bin_writer *w = ctx;
    const strkey *k = key;
    if (w->str_len[id] != k->len)
        return false;
    return !k->len ||
           memcmp(w->str_bytes.data + w->str_off[id], k->s, k->len) == 0;
}

static int grow_strings(tfmt_bin_writer *w)
{
    size_t cap = w->str_cap;
    size_t need = (size_t)w->str_count + 1;
    int rc = tfmt__grow(w->alloc, (void **)&w->str_off, &cap, need,
                        sizeof *w->str_off);
    if (rc != TFMT_OK)
        return rc;
    cap = w->str_cap;
    rc = tfmt__grow(w->alloc, (void **)&w->str_len, &cap, need,
                    sizeof *w->str_len);
    if (rc != TFMT_OK)
        return rc;
    w->str_cap = cap;
    return TFMT_OK;
}

int tfmt_bin_writer_string(tfmt_bin_writer *w, const char *s, size_t len,
                           uint32_t *out)
{
    int rc = tfmt__bw_check_open(w);
    if (rc != TFMT_OK)
        return rc;
    if (!s && len)
        return tfmt__error(&w->err, TFMT_EINVAL, "null string");
    strkey key = {s ? s : "", len};
    uint64_t h = tfmt__hash_text(key.s, len, SEED_STR);
    uint32_t id = tfmt__idset_find(&w->str_set, h, &key, str_eq, w);
    if (id != UINT32_MAX) {
        *out = id;
        return TFMT_OK;
    }
    if (w->str_count >= w->max_strings)
        return tfmt__bw_limit(w, "too many strings for binary format");
    if ((uint64_t)len > UINT32_MAX)
        return tfmt__bw_limit(w, "string length exceeds binary format maximum");
    if (w->str_count >= w->str_cap && grow_strings(w) != TFMT_OK)
        return tfmt__error(&w->err, TFMT_ENOMEM, "out of memory");
    size_t off = w->str_bytes.len;
    if (tfmt__buf_put(&w->str_bytes, key.s, len) != TFMT_OK ||
        tfmt__idset_insert(&w->str_set, h, w->str_count) != TFMT_OK) {
        w->str_bytes.len = off;
        return tfmt__error(&w->err, TFMT_ENOMEM, "out of memory");
    }
    w->str_off[w->str_count] = off;
    w->str_len[w->str_count] = (uint32_t)len;
    *out = w->str_count++;
    return TFMT_OK;
}

static bool frame_eq(const void *ctx, uint32_t id, const void *key)
{
    return tfmt__frame_same(&((const tfmt_bin_writer *)ctx)->frames[id], key);
}

/* Append `f` as a new frame; `h` goes into the dedup set unless 0. */
static int append_frame(tfmt_bin_writer *w, const tfmt_frame *f, uint64_t h,
                        uint32_t *out)
{
    if (w->frame_count >= w->max_frames)
        return tfmt__bw_limit(w, "too many frames for binary format");
    size_t need = (size_t)w->frame_count + 1;
    if (tfmt__grow(w->alloc, (void **)&w->frames, &w->frame_cap, need,
                   sizeof *w->frames) != TFMT_OK ||
        (h && tfmt__idset_insert(&w->frame_set, h, w->frame_count) != TFMT_OK))
        return tfmt__error(&w->err, TFMT_ENOMEM, "out of memory");
    w->frames[w->frame_count] = *f;
    *out = w->frame_count++;
    return TFMT_OK;
}

int tfmt__bw_frame_intern(tfmt_bin_writer *w, const tfmt_frame *f,
                          uint32_t reuse_below, uint32_t *out)
{
    int rc = tfmt__bw_check_open(w);
    if (rc != TFMT_OK)
        return rc;
    if (f->filename >= w->str_count || f->funcname >= w->str_count)
        return tfmt__error(&w->err, TFMT_EINVAL,
                           "frame names an unknown string");
    uint64_t h = tfmt__frame_hash(f) | 1;
    uint32_t id = tfmt__idset_find(&w->frame_set, h, f, frame_eq, w);
    if (id == UINT32_MAX)
        return append_frame(w, f, h, out);
    if (id < reuse_below) {
        *out = id;
        return TFMT_OK;
    }
    return append_frame(w, f, 0, out);
}

/*
 * CPython keys frames on the seven fields as the sampler gave them (an end
 * value of -1 stays -1 in the key and is only stored as delta 0), with the
 * opcode already mapped to 255 when it cannot be stored.
 */
int tfmt_bin_writer_frame(tfmt_bin_writer *w, const tfmt_frame *f,
                          uint32_t *out)
{
    return tfmt__bw_frame_intern(w, f, UINT32_MAX, out);
}

int tfmt_bin_writer_location(tfmt_bin_writer *w, const char *filename,
                             size_t flen, const char *funcname, size_t nlen,
                             int32_t lineno, int32_t end_lineno, int32_t column,
                             int32_t end_column, int opcode, uint32_t *out)
{
    tfmt_frame f = {0,      0,          lineno,        end_lineno,
                    column, end_column, TFMT_NO_OPCODE};
    if (opcode >= 0 && opcode < TFMT_NO_OPCODE)
        f.opcode = (uint8_t)opcode;
    int rc = tfmt_bin_writer_string(w, filename, flen, &f.filename);
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_string(w, funcname, nlen, &f.funcname);
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_frame(w, &f, out);
    return rc;
}

/* end - start as stored: 0 when either side is not available. */
static int32_t span_delta(int32_t start, int32_t end)
{
    if (start == TFMT_NO_LOCATION || end == TFMT_NO_LOCATION)
        return 0;
    return (int32_t)((uint32_t)end - (uint32_t)start);
}

static int put_frame(tfmt_bin_writer *w, const tfmt_frame *f)
{
    uint8_t b[32];
    size_t n = tfmt__varint_encode(b, f->filename);
    n += tfmt__varint_encode(b + n, f->funcname);
    n += tfmt__varint_encode(b + n, tfmt__zigzag32(f->lineno));
    n += tfmt__varint_encode(
        b + n, tfmt__zigzag32(span_delta(f->lineno, f->end_lineno)));
    n += tfmt__varint_encode(b + n, tfmt__zigzag32(f->column));
    n += tfmt__varint_encode(
        b + n, tfmt__zigzag32(span_delta(f->column, f->end_column)));
    b[n++] = f->opcode;
    return tfmt__bw_out_put(w, b, n);
}

/* Both tables, raw, at the current position; their offsets in *_off. */
int tfmt__bw_write_tables(tfmt_bin_writer *w, uint64_t *str_off,
                          uint64_t *frame_off)
{
    int rc = TFMT_OK;
    *str_off = w->pos + w->buf_len;
    for (uint32_t i = 0; i < w->str_count && rc == TFMT_OK; i++) {
        uint8_t v[10];
        size_t n = tfmt__varint_encode(v, w->str_len[i]);
        rc = tfmt__bw_out_put(w, v, n);
        if (rc == TFMT_OK && w->str_len[i])
            rc = tfmt__bw_out_put(w, w->str_bytes.data + w->str_off[i],
                                  w->str_len[i]);
    }
    *frame_off = w->pos + w->buf_len;
    for (uint32_t i = 0; i < w->frame_count && rc == TFMT_OK; i++)
        rc = put_frame(w, &w->frames[i]);
    return rc;
}
