/* SPDX-License-Identifier: MIT */
/*
 * flat_jsonl.c - add a JSONL export to a flat profile. JSONL carries only
 * per-frame aggregates: self adds up exactly; cumulative is summed per key
 * and capped at the input's samples_total (see fmt_flat.h for why it can
 * double count recursion under a coarse key).
 */
#include "flat_internal.h"
#include "import.h"

/*
 * Import callback: strings are rewritten and interned as they are
 * defined, with the probes prefetched (tfmt__ftab_prefetch) unless
 * rewrite rules change the bytes first.
 */
static int add_strings(void *ctx, const tfmt_jsonl_string *js, size_t n,
                       uint32_t *out)
{
    tfmt_flat *f = ctx;
    uint64_t h[TFMT_JIMPORT_BATCH];
    bool plain = !tfmt__flat_rewrites(f);
    for (size_t j = 0; plain && j < n; j++) {
        h[j] = tfmt__flat_str_hash(js[j].value.ptr, js[j].value.len);
        tfmt__ftab_prefetch(&f->str_set, h[j]);
    }
    for (size_t j = 0; j < n; j++) {
        const tfmt_str *v = &js[j].value;
        int rc =
            plain ? tfmt__flat_intern_hashed(f, v->ptr, v->len, h[j], &out[j])
                  : tfmt__flat_rewrite_intern(f, v->ptr, v->len, &out[j]);
        if (rc < 0)
            return rc;
    }
    return TFMT_OK;
}

/* Import callback: the keys of frames (names are flat strings). */
static int add_frames(void *ctx, const tfmt_jimport_frame *fr, size_t n,
                      uint32_t *out)
{
    tfmt_flat *f = ctx;
    for (size_t j = 0; j < n; j++)
        tfmt__flat_key_prefetch(f, fr[j].file, fr[j].func, fr[j].line);
    for (size_t j = 0; j < n; j++) {
        int rc =
            tfmt__flat_key_ids(f, fr[j].file, fr[j].func, fr[j].line, &out[j]);
        if (rc < 0)
            return rc;
    }
    return TFMT_OK;
}

/* Import callback: self and per-frame cumulative counts by key. */
static int add_aggs(void *ctx, const tfmt_jsonl_agg *e, const uint32_t *key,
                    size_t n)
{
    tfmt_flat *f = ctx;
    for (size_t j = 0; j < n; j++) {
        if (key[j] == TFMT_FLAT_NONE)
            continue;
        tfmt_fkey *k = &f->keys[key[j]];
        k->self = tfmt__add_sat(k->self, e[j].self);
        k->cum_frames = tfmt__add_sat(k->cum_frames, e[j].cumulative);
    }
    return TFMT_OK;
}

static const tfmt_jimport_ops flat_jops = {add_strings, add_frames, add_aggs};

/* JSONL's cumulative is the per-frame one: copy it over once capped. */
static void sync_cumulative(tfmt_flat *f, const uint64_t *before, size_t n)
{
    for (size_t i = 0; i < f->nkeys; i++)
        f->keys[i].cum = tfmt__add_sat(
            f->keys[i].cum, f->keys[i].cum_frames - (i < n ? before[i] : 0));
}

int tfmt_flat_add_jsonl(tfmt_flat *f, tfmt_jsonl_reader *r)
{
    tfmt_jimport im;
    tfmt__jimport_init(&im, r, &flat_jops, f, f->alloc, &f->err);
    tfmt__error_clear(&f->err);
    uint64_t *snap = NULL, *before = NULL;
    size_t n = 0;
    int rc = tfmt__flat_cap_begin(f, &snap, &n);
    if (rc == TFMT_OK) {
        before = tfmt__malloc(f->alloc, (n + 1) * sizeof *before);
        rc = before ? TFMT_OK
                    : tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
    }
    if (rc == TFMT_OK) {
        memcpy(before, snap, n * sizeof *before);
        rc = tfmt__jimport_run(&im);
    }
    if (snap)
        tfmt__flat_cap_end(f, snap, n,
                           rc == TFMT_OK ? im.samples_total : UINT64_MAX);
    if (rc == TFMT_OK) {
        sync_cumulative(f, before, n);
        tfmt__flat_add_input(f, im.samples_total, im.interval_us, -1.0, false,
                             false);
    }
    tfmt__free(f->alloc, before);
    tfmt__jimport_free(&im);
    return rc;
}
