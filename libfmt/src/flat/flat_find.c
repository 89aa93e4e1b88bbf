/* SPDX-License-Identifier: MIT */
/*
 * flat_find.c - look many rows of one flat profile up in another (the
 * join of a diff). A lookup is two or three probes into tables far larger
 * than the cache; doing them a batch at a time, with every probe's slot
 * prefetched before any is read, overlaps those memory waits.
 */
#include "flat_internal.h"

#define BATCH TFMT_FLAT_BATCH

/* The ids in `in` of the names of f's key `i` (TFMT_FLAT_NONE: absent). */
static void find_names(const tfmt_flat *in, const tfmt_flat *f,
                       const uint64_t *h, size_t i, tfmt_fkey *k)
{
    const tfmt_fkey *row = &f->keys[i];
    tfmt_str file = tfmt__flat_str(f, row->file);
    tfmt_str func = tfmt__flat_str(f, row->func);
    k->file =
        in->opts.key == TFMT_FLAT_KEY_FUNC
            ? in->empty
            : tfmt__ftab_find(&in->str_set, h[0], &file, tfmt__flat_str_eq, in);
    k->func = tfmt__ftab_find(&in->str_set, h[1], &func, tfmt__flat_str_eq, in);
    k->line = in->opts.key == TFMT_FLAT_KEY_FILE_FUNC_LINE ? row->line : -1;
}

static void find_batch(const tfmt_flat *in, const tfmt_flat *f, size_t from,
                       size_t n, uint32_t *out)
{
    uint64_t h[BATCH][2];
    tfmt_fkey k[BATCH];
    for (size_t j = 0; j < n; j++) {
        const tfmt_fkey *row = &f->keys[from + j];
        tfmt_str file = tfmt__flat_str(f, row->file);
        tfmt_str func = tfmt__flat_str(f, row->func);
        h[j][0] = tfmt__flat_str_hash(file.ptr, file.len);
        h[j][1] = tfmt__flat_str_hash(func.ptr, func.len);
        tfmt__ftab_prefetch(&in->str_set, h[j][0]);
        tfmt__ftab_prefetch(&in->str_set, h[j][1]);
    }
    for (size_t j = 0; j < n; j++) {
        find_names(in, f, h[j], from + j, &k[j]);
        h[j][0] = tfmt__flat_key_hash(&k[j]);
        tfmt__ftab_prefetch(&in->key_set, h[j][0]);
    }
    for (size_t j = 0; j < n; j++)
        out[j] = k[j].file == TFMT_FLAT_NONE || k[j].func == TFMT_FLAT_NONE
                     ? UINT32_MAX
                     : tfmt__ftab_find(&in->key_set, h[j][0], &k[j],
                                       tfmt__flat_key_eq, in);
}

void tfmt_flat_find_rows(const tfmt_flat *in, const tfmt_flat *f, size_t from,
                         size_t to, uint32_t *out)
{
    for (size_t i = from; i < to; i += BATCH) {
        size_t n = to - i < BATCH ? to - i : BATCH;
        find_batch(in, f, i, n, out + (i - from));
    }
}
