/* SPDX-License-Identifier: MIT */
/*
 * flat_bin.c - add a binary log to a flat profile straight from its
 * sample stream, without building a call tree: each batch of samples adds
 * its weight to the leaf key's self count and, once per batch, to every
 * distinct key (cumulative) and every distinct location (the JSONL-style
 * cumulative) on its stack. Distinctness is tracked with per-key and
 * per-location "last batch" marks, so a batch costs O(depth).
 *
 * Names are read as CPython decodes them (invalid UTF-8 replaced by
 * U+FFFD), so keys equal those of the same log's JSONL export.
 */
#include "flat_internal.h"
#include "import.h"
#include "json_escape.h"
#include "profile_internal.h"

typedef struct bstate {
    tfmt_import im; /* bin string -> rewritten flat string; bin
                       frame -> key or TFMT_FLAT_NONE */
    tfmt_flat *f;
    tfmt_bin_reader *r;
    uint32_t *floc;      /* bin frame -> representative frame (only
                            with opcodes; else each frame is its own) */
    uint32_t *floc_mark; /* per representative frame: last batch */
    uint32_t *key_mark;  /* per key: last batch */
    size_t cap_key_mark;
    tfmt_idset locs; /* representative frames by location */
    bool opcodes;    /* some frame has an opcode: frames that
                        differ only in it share a location */
    tfmt_buf scratch;
    size_t nframes;
    uint32_t batch; /* marks are 32-bit: cleared when it wraps */
    uint64_t samples;
} bstate;

static int oom(bstate *s)
{
    return tfmt__error(&s->f->err, TFMT_ENOMEM, "out of memory");
}

/* Import callback: a bin string, repaired, rewritten and interned. */
static int string_of(void *ctx, const char *p, size_t n, uint32_t *out)
{
    bstate *s = ctx;
    tfmt_str str = {p, n};
    if (!tfmt__utf8_valid(str.ptr, str.len)) {
        s->scratch.len = 0;
        if (tfmt__utf8_repair(&s->scratch, str.ptr, str.len) < 0)
            return oom(s);
        str.ptr = s->scratch.data;
        str.len = s->scratch.len;
    }
    return tfmt__flat_rewrite_intern(s->f, str.ptr, str.len, out);
}

/*
 * Intern the string table up front, a batch at a time with the probes
 * prefetched (tfmt__ftab_prefetch): nearly every string of a log names
 * some frame, and interning each one as the samples first reach it waits
 * on memory every time. Strings that need repair, and every string when
 * rewrite rules apply, are left to string_of.
 */
static int intern_table(bstate *s)
{
    enum { B = TFMT_FLAT_BATCH };
    uint32_t n = tfmt_bin_info(s->r)->string_count;
    if (tfmt__flat_rewrites(s->f))
        return TFMT_OK;
    for (uint32_t from = 0; from < n; from += B) {
        uint32_t m = n - from < B ? n - from : B;
        tfmt_str str[B];
        uint64_t h[B];
        for (uint32_t j = 0; j < m; j++) {
            if (tfmt_bin_string(s->r, from + j, &str[j]) < 0 ||
                !tfmt__utf8_valid(str[j].ptr, str[j].len)) {
                str[j].ptr = NULL;
                continue;
            }
            h[j] = tfmt__flat_str_hash(str[j].ptr, str[j].len);
            tfmt__ftab_prefetch(&s->f->str_set, h[j]);
        }
        for (uint32_t j = 0; j < m; j++) {
            int rc =
                str[j].ptr
                    ? tfmt__flat_intern_hashed(s->f, str[j].ptr, str[j].len,
                                               h[j], &s->im.smap[from + j])
                    : TFMT_OK;
            if (rc < 0)
                return rc;
        }
    }
    return TFMT_OK;
}

static bool bloc_eq(const void *ctx, uint32_t id, const void *key)
{
    tfmt_jloc a = tfmt__profile_jsonl_loc(tfmt_bin_frame(ctx, id));
    return memcmp(&a, key, sizeof a) == 0;
}

static int grow_marks(bstate *s);

/* The line a key of this frame carries (0: none). */
static int32_t key_line(const tfmt_frame *fr)
{
    return fr->lineno == TFMT_NO_LOCATION ? 0 : fr->lineno;
}

/*
 * Import callback: the key and location representative of bin frame
 * `id` (names already flat strings), computed once.
 */
static int resolve(void *ctx, uint32_t id, const tfmt_frame *mf, uint32_t *out)
{
    bstate *s = ctx;
    int rc =
        tfmt__flat_key_ids(s->f, mf->filename, mf->funcname, key_line(mf), out);
    if (rc < 0)
        return rc;
    /* Without opcodes, the writer's frame table is already unique. */
    uint32_t rep = id;
    if (s->opcodes) {
        tfmt_jloc l = tfmt__profile_jsonl_loc(tfmt_bin_frame(s->r, id));
        uint64_t h = tfmt__hash_text(&l, sizeof l, 0x10c);
        rep = tfmt__idset_find(&s->locs, h, &l, bloc_eq, s->r);
        if (rep == TFMT_FLAT_NONE) {
            rep = id;
            if (tfmt__idset_insert(&s->locs, h, id) < 0)
                return oom(s);
        }
    }
    if (s->floc)
        s->floc[id] = rep;
    return grow_marks(s);
}

static const tfmt_import_ops flat_ops = {string_of, resolve};

/*
 * Resolve the whole frame table up front, a batch at a time with the key
 * slots prefetched, for the reason intern_table gives. Frames naming
 * strings out of range are left alone (the reader refuses any sample
 * that uses them). A frame no sample reaches gets a key that stays empty;
 * tfmt__flat_drop_empty removes such keys after the stream.
 */
static int resolve_table(bstate *s)
{
    enum { B = TFMT_FLAT_BATCH };
    const tfmt_info *in = tfmt_bin_info(s->r);
    uint32_t n = in->frame_count;
    for (uint32_t from = 0; from < n; from += B) {
        uint32_t m = n - from < B ? n - from : B;
        bool ok[B];
        for (uint32_t j = 0; j < m; j++) {
            const tfmt_frame *fr = tfmt_bin_frame(s->r, from + j);
            uint32_t file, func;
            ok[j] = fr->filename < in->string_count &&
                    fr->funcname < in->string_count;
            int rc = ok[j] ? tfmt__import_string(&s->im, fr->filename, &file)
                           : TFMT_OK;
            if (ok[j] && rc == TFMT_OK)
                rc = tfmt__import_string(&s->im, fr->funcname, &func);
            if (rc < 0)
                return rc;
            if (ok[j])
                tfmt__flat_key_prefetch(s->f, file, func, key_line(fr));
        }
        for (uint32_t j = 0; j < m; j++) {
            uint32_t key;
            int rc =
                ok[j] ? tfmt__import_frame(&s->im, from + j, &key) : TFMT_OK;
            if (rc < 0)
                return rc;
        }
    }
    return TFMT_OK;
}

/* The next batch number; all marks restart from zero when it wraps. */
static uint32_t next_batch(bstate *s)
{
    if (s->batch == UINT32_MAX) {
        memset(s->key_mark, 0, s->cap_key_mark * sizeof *s->key_mark);
        memset(s->floc_mark, 0, s->nframes * sizeof *s->floc_mark);
        s->batch = 0;
    }
    return ++s->batch;
}

static int count(void *ctx, const tfmt_sample *smp)
{
    bstate *s = ctx;
    uint64_t w = smp->weight;
    uint32_t b = next_batch(s);
    tfmt_flat *f = s->f;
    if (smp->depth == 0)
        return TFMT_OK; /* CPython never counts an empty stack */
    s->samples += w;
    for (uint32_t i = 0; i < smp->depth; i++) {
        uint32_t id = smp->stack[i], k;
        int rc = tfmt__import_frame(&s->im, id, &k);
        if (rc < 0)
            return rc;
        if (k == TFMT_FLAT_NONE)
            continue;
        if (s->key_mark[k] != b) {
            s->key_mark[k] = b;
            f->keys[k].cum += w;
        }
        uint32_t loc = s->floc ? s->floc[id] : id;
        if (s->floc_mark[loc] != b) {
            s->floc_mark[loc] = b;
            f->keys[k].cum_frames += w;
        }
        if (i + 1 == smp->depth)
            f->keys[k].self += w;
    }
    return TFMT_OK;
}

/* The string table's size: a bound on the bytes its strings need. */
static size_t strings_bytes(const tfmt_info *in)
{
    uint64_t n = in->frame_table_offset > in->string_table_offset
                     ? in->frame_table_offset - in->string_table_offset
                     : 0;
    return n < SIZE_MAX / 2 ? (size_t)n : 0;
}

static int setup(bstate *s)
{
    const tfmt_info *in = tfmt_bin_info(s->r);
    const tfmt_allocator *a = s->f->alloc;
    size_t nf = (size_t)in->frame_count + 1;
    int rc = tfmt__import_open(&s->im, s->r, &flat_ops, s, a, &s->f->err);
    if (rc < 0)
        return rc;
    s->nframes = nf;
    s->floc_mark = tfmt__calloc(a, nf, sizeof *s->floc_mark);
    for (uint32_t i = 0; i < in->frame_count && !s->opcodes; i++)
        s->opcodes = tfmt_bin_frame(s->r, i)->opcode != TFMT_NO_OPCODE;
    if (s->opcodes)
        s->floc = tfmt__malloc(a, nf * sizeof *s->floc);
    if ((s->opcodes && !s->floc) || !s->floc_mark ||
        tfmt__grow(a, (void **)&s->key_mark, &s->cap_key_mark, s->f->nkeys + 1,
                   sizeof *s->key_mark) < 0)
        return oom(s);
    if (tfmt__flat_reserve(s->f, in->string_count, in->frame_count,
                           strings_bytes(in)) < 0)
        return oom(s);
    memset(s->key_mark, 0, s->cap_key_mark * sizeof *s->key_mark);
    rc = intern_table(s);
    return rc == TFMT_OK ? resolve_table(s) : rc;
}

/*
 * Keep a zeroed mark for every key (new keys must not look marked). Called
 * for every frame resolved, so it returns at once while the marks cover
 * the keys: a memset of no bytes is not free here. glibc's memset masks
 * its last store, and one past the array is often the first page after
 * the table's own mapping (bigmap.c): perf put 99% of memset's samples on
 * that store, masked to nothing, and tachyon-diff of two 1M-function
 * logs took 26% more CPU time until this returned early.
 */
static int grow_marks(bstate *s)
{
    size_t old = s->cap_key_mark;
    if (s->f->nkeys <= old)
        return TFMT_OK;
    if (tfmt__grow(s->f->alloc, (void **)&s->key_mark, &s->cap_key_mark,
                   s->f->nkeys, sizeof *s->key_mark) < 0)
        return oom(s);
    memset(s->key_mark + old, 0, (s->cap_key_mark - old) * sizeof *s->key_mark);
    return TFMT_OK;
}

int tfmt_flat_add_bin(tfmt_flat *f, tfmt_bin_reader *r)
{
    bstate s = {.f = f, .r = r};
    tfmt__idset_init(&s.locs, f->alloc);
    tfmt__buf_init(&s.scratch, f->alloc);
    tfmt__error_clear(&f->err);
    uint64_t *snap = NULL;
    size_t n = 0, keys_before = f->nkeys;
    int rc = f->opts.stacks ? tfmt__error(&f->err, TFMT_EINVAL,
                                          "folded stacks need "
                                          "tfmt_flat_add_profile")
                            : setup(&s);
    if (rc == TFMT_OK)
        rc = tfmt__flat_cap_begin(f, &snap, &n);
    if (rc == TFMT_OK) {
        rc = tfmt__import_samples(&s.im, count, &s);
        tfmt__flat_cap_end(f, snap, n, rc == TFMT_OK ? s.samples : UINT64_MAX);
    }
    if (rc == TFMT_OK)
        tfmt__flat_drop_empty(f, keys_before);
    if (rc == TFMT_OK) {
        const tfmt_info *in = tfmt_bin_info(r);
        tfmt__flat_add_input(f, s.samples, in->sample_interval_us,
                             in->stats.present ? in->stats.duration_s : -1.0,
                             true, false);
    }
    tfmt__import_close(&s.im);
    tfmt__free(f->alloc, s.floc);
    tfmt__free(f->alloc, s.floc_mark);
    tfmt__free(f->alloc, s.key_mark);
    tfmt__idset_free(&s.locs);
    tfmt__buf_free(&s.scratch);
    return rc;
}
