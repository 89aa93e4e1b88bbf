/* SPDX-License-Identifier: MIT */
/*
 * bin_tables.c - the string and frame tables of a binary log.
 *
 * Both are loaded whole: their size is bounded by the file's bytes, and
 * every count was checked against those bytes before anything is
 * allocated. Unlike CPython's reader, the string table must end exactly
 * where the frame table starts, and the frame table exactly where the
 * statistics block or the footer starts: a gap is corruption.
 */
#include "bin_internal.h"

static int table_error(tfmt_error *err, int code, int check, uint64_t off,
                       const char *msg, const char *field)
{
    if (field)
        tfmt__error_at(err, code, off, "%s (%s)", msg, field);
    else
        tfmt__error_at(err, code, off, "%s", msg);
    if (err)
        err->check = check;
    return code;
}

static int load_region(const tfmt_allocator *a, tfmt_source *src, uint64_t from,
                       uint64_t to, uint8_t **out, tfmt_error *err)
{
    uint64_t n = to - from;
    if (n > SIZE_MAX - 1)
        return tfmt__error(err, TFMT_ENOMEM, "table of %llu bytes",
                           (unsigned long long)n);
    *out = tfmt__malloc(a, (size_t)n + 1);
    if (!*out)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    return tfmt__source_pread(src, *out, (size_t)n, from, err);
}

static int parse_strings(tfmt_bin_tables *t, const tfmt_info *info, uint64_t n,
                         tfmt_error *err)
{
    const uint8_t *p = t->strbytes, *end = p + n;
    uint64_t base = info->string_table_offset;
    for (uint32_t i = 0; i < t->nstrings; i++) {
        uint32_t len;
        uint64_t at = base + (uint64_t)(p - t->strbytes);
        int rc = tfmt__varint_u32(&p, end, &len);
        if (rc <= 0)
            return table_error(err, rc == 0 ? TFMT_ETRUNC : TFMT_EFORMAT,
                               TFMT_BCHK_STRING_TABLE, at,
                               rc == 0 ? "string table overflow"
                                       : "malformed varint in string table",
                               NULL);
        if (len > (uint64_t)(end - p))
            return table_error(err, TFMT_EFORMAT, TFMT_BCHK_STRING_TABLE, at,
                               "string table overflow", NULL);
        t->stroff[i] = (uint64_t)(p - t->strbytes);
        t->strlen_[i] = len;
        p += len;
    }
    if (p != end) {
        tfmt__error_at(err, TFMT_EFORMAT, base + (uint64_t)(p - t->strbytes),
                       "%llu unexpected bytes between the string table and "
                       "the frame table",
                       (unsigned long long)(end - p));
        if (err)
            err->check = TFMT_BCHK_STRING_TABLE;
        return TFMT_EFORMAT;
    }
    return TFMT_OK;
}

static const char *const FIELD_NAMES[6] = {"filename", "funcname",
                                           "lineno",   "end_lineno_delta",
                                           "column",   "end_column_delta"};

/* Decode one 7-field entry at *pp, which is file offset `at`. */
static int parse_frame(const uint8_t **pp, const uint8_t *end, uint64_t at,
                       tfmt_frame *f, tfmt_error *err)
{
    const uint8_t *start = *pp;
    uint32_t v[6];
    for (int k = 0; k < 6; k++) {
        uint64_t here = at + (uint64_t)(*pp - start);
        int rc = tfmt__varint_u32(pp, end, &v[k]);
        if (rc <= 0)
            return table_error(err, rc == 0 ? TFMT_ETRUNC : TFMT_EFORMAT,
                               TFMT_BCHK_FRAME_TABLE, here,
                               "malformed varint in frame table",
                               FIELD_NAMES[k]);
    }
    if (*pp >= end)
        return table_error(err, TFMT_ETRUNC, TFMT_BCHK_FRAME_TABLE,
                           at + (uint64_t)(*pp - start),
                           "unexpected end of frame table", "opcode");
    f->filename = v[0];
    f->funcname = v[1];
    f->lineno = tfmt__unzigzag32(v[2]);
    f->column = tfmt__unzigzag32(v[4]);
    /* Wrapping add, as the C writer's int arithmetic would produce. */
    f->end_lineno =
        f->lineno == TFMT_NO_LOCATION
            ? TFMT_NO_LOCATION
            : (int32_t)((uint32_t)f->lineno + (uint32_t)tfmt__unzigzag32(v[3]));
    f->end_column =
        f->column == TFMT_NO_LOCATION
            ? TFMT_NO_LOCATION
            : (int32_t)((uint32_t)f->column + (uint32_t)tfmt__unzigzag32(v[5]));
    f->opcode = *(*pp)++;
    return TFMT_OK;
}

static int parse_frames(tfmt_bin_tables *t, const uint8_t *bytes, uint64_t n,
                        uint64_t base, tfmt_error *err)
{
    const uint8_t *p = bytes, *end = bytes + n;
    for (uint32_t i = 0; i < t->nframes; i++) {
        uint64_t at = base + (uint64_t)(p - bytes);
        tfmt_frame *f = &t->frames[i];
        const uint8_t *q = p;
        int rc = parse_frame(&q, end, at, f, err);
        if (rc != TFMT_OK)
            return rc;
        p = q;
        t->frame_ok[i] = f->filename < t->nstrings && f->funcname < t->nstrings;
    }
    if (p != end) {
        tfmt__error_at(err, TFMT_EFORMAT, base + (uint64_t)(p - bytes),
                       "%llu unexpected bytes after the frame table",
                       (unsigned long long)(end - p));
        if (err)
            err->check = TFMT_BCHK_TRAILING;
        return TFMT_EFORMAT;
    }
    return TFMT_OK;
}

static int alloc_tables(tfmt_bin_tables *t, tfmt_error *err)
{
    const tfmt_allocator *a = t->alloc;
    t->stroff = tfmt__calloc(a, t->nstrings, sizeof *t->stroff);
    t->strlen_ = tfmt__calloc(a, t->nstrings, sizeof *t->strlen_);
    t->frames = tfmt__calloc(a, t->nframes, sizeof *t->frames);
    t->frame_ok = tfmt__calloc(a, t->nframes, 1);
    if (!t->stroff || !t->strlen_ || !t->frames || !t->frame_ok)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    return TFMT_OK;
}

int tfmt__bin_load_tables(tfmt_bin_tables *t, tfmt_source *src,
                          const tfmt_bin_fixed *fx, tfmt_error *err)
{
    const tfmt_info *info = &fx->info;
    uint64_t so = info->string_table_offset, fo = info->frame_table_offset;
    uint8_t *fbytes = NULL;
    t->nstrings = info->string_count;
    t->nframes = info->frame_count;
    if (fo > fx->tables_end)
        return table_error(err, TFMT_EFORMAT, TFMT_BCHK_FRAME_OFFSET, 48,
                           "frame table overlaps the statistics block", NULL);
    int rc = alloc_tables(t, err);
    if (rc == TFMT_OK)
        rc = load_region(t->alloc, src, so, fo, &t->strbytes, err);
    if (rc == TFMT_OK)
        rc = parse_strings(t, info, fo - so, err);
    if (rc == TFMT_OK)
        rc = load_region(t->alloc, src, fo, fx->tables_end, &fbytes, err);
    if (rc == TFMT_OK)
        rc = parse_frames(t, fbytes, fx->tables_end - fo, fo, err);
    if (rc == TFMT_OK) {
        t->hash[0] = tfmt__hash_bytes(t->strbytes, fo - so, 1);
        t->hash[1] = tfmt__hash_bytes(fbytes, fx->tables_end - fo, 2);
    }
    tfmt__free(t->alloc, fbytes);
    return rc;
}

void tfmt__bin_free_tables(tfmt_bin_tables *t)
{
    tfmt__free(t->alloc, t->strbytes);
    tfmt__free(t->alloc, t->stroff);
    tfmt__free(t->alloc, t->strlen_);
    tfmt__free(t->alloc, t->frames);
    tfmt__free(t->alloc, t->frame_ok);
    memset(t, 0, sizeof *t);
}
