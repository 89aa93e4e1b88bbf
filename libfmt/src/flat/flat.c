/* SPDX-License-Identifier: MIT */
/*
 * flat.c - the tables of a flat profile (fmt_flat.h): interned strings,
 * keys with their self/cumulative counts, folded stacks, and the public
 * accessors. The builders live in flat_profile.c and flat_jsonl.c.
 */
#include "flat_internal.h"

int tfmt_flat_new(tfmt_flat **out, const tfmt_flat_options *opts)
{
    tfmt_flat_options o = TFMT_FLAT_OPTIONS_INIT;
    if (opts)
        o = *opts;
    *out = NULL;
    if (o.key == 0)
        o.key = TFMT_FLAT_KEY_FILE_FUNC;
    if (o.key < TFMT_FLAT_KEY_FUNC || o.key > TFMT_FLAT_KEY_FILE_FUNC_LINE)
        return TFMT_EINVAL;
    tfmt_flat *f = tfmt__calloc(o.alloc, 1, sizeof *f);
    if (!f)
        return TFMT_ENOMEM;
    f->alloc = o.alloc;
    f->opts = o;
    tfmt__buf_init(&f->text, o.alloc);
    tfmt__buf_init(&f->stack_text, o.alloc);
    f->info.has_duration = true;
    f->info.has_stacks = true;
    f->info.exact_cumulative = true;
    if (tfmt__flat_intern(f, "", 0, &f->empty) < 0) {
        tfmt_flat_free(f);
        return TFMT_ENOMEM;
    }
    *out = f;
    return TFMT_OK;
}

void tfmt_flat_free(tfmt_flat *f)
{
    if (!f)
        return;
    tfmt__buf_free(&f->text);
    tfmt__buf_free(&f->stack_text);
    tfmt__free(f->alloc, f->soff);
    tfmt__free(f->alloc, f->keys);
    tfmt__free(f->alloc, f->stacks);
    tfmt__free(f->alloc, f->str_set.slots);
    tfmt__free(f->alloc, f->key_set.slots);
    tfmt__free(f->alloc, f->stack_set.slots);
    tfmt__free(f->alloc, f);
}

/* ---- id tables ---- */

static void ftab_place(tfmt_ftab *t, uint64_t slot)
{
    size_t mask = t->cap - 1;
    size_t i = (size_t)(slot >> 32 >> t->shift);
    while (t->slots[i] != TFMT_FTAB_EMPTY)
        i = (i + 1) & mask;
    t->slots[i] = slot;
}

/*
 * Grow table `t` to hold `want` entries at its load limit (1/2) at once.
 * Slots are placed by the top bits of their stored hash bits, so growing
 * needs no key rehashed.
 */
static int ftab_reserve(tfmt_flat *f, tfmt_ftab *t, size_t want)
{
    size_t cap = t->cap ? t->cap : 64;
    unsigned shift = t->cap ? t->shift : 26;
    while (cap / 2 < want) {
        if (shift == 0)
            return TFMT_ENOMEM; /* 2^31 entries: ids run out first */
        cap *= 2;
        shift--;
    }
    if (cap == t->cap)
        return TFMT_OK;
    tfmt_ftab n = {tfmt__calloc(f->alloc, cap, sizeof *n.slots), cap, t->count,
                   shift};
    if (!n.slots)
        return TFMT_ENOMEM;
    tfmt__advise_huge(n.slots, cap * sizeof *n.slots);
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i] != TFMT_FTAB_EMPTY)
            ftab_place(&n, t->slots[i]);
    tfmt__free(f->alloc, t->slots);
    *t = n;
    return TFMT_OK;
}

static int ftab_insert(tfmt_flat *f, tfmt_ftab *t, uint64_t h, uint32_t id)
{
    if (t->count + 1 > t->cap / 2 && ftab_reserve(f, t, t->count + 1) < 0)
        return TFMT_ENOMEM;
    ftab_place(t, (h >> 32 << 32) | ((uint64_t)id + 1));
    t->count++;
    return TFMT_OK;
}

static uint64_t stack_hash(const char *s, size_t n)
{
    return tfmt__hash_text(s, n, 0x57ac);
}

/* ---- strings ---- */

int tfmt__flat_intern(tfmt_flat *f, const char *s, size_t n, uint32_t *out)
{
    return tfmt__flat_intern_hashed(f, s, n, tfmt__flat_str_hash(s, n), out);
}

int tfmt__flat_intern_hashed(tfmt_flat *f, const char *s, size_t n, uint64_t h,
                             uint32_t *out)
{
    tfmt_str k = {s, n};
    uint32_t id = tfmt__ftab_find(&f->str_set, h, &k, tfmt__flat_str_eq, f);
    if (id != TFMT_FLAT_NONE) {
        *out = id;
        return TFMT_OK;
    }
    if (n > UINT32_MAX || f->nstrs >= UINT32_MAX - 1)
        return tfmt__error(&f->err, TFMT_ELIMIT, "too many strings");
    if (tfmt__grow(f->alloc, (void **)&f->soff, &f->capsoff, f->nstrs + 2,
                   sizeof *f->soff) < 0)
        return tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
    uint64_t off = f->text.len;
    if (tfmt__buf_put(&f->text, s, n) < 0)
        return tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
    id = (uint32_t)f->nstrs;
    if (ftab_insert(f, &f->str_set, h, id) < 0) {
        f->text.len = off;
        return tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
    }
    /* strings are stored back to back in id order: i ends where i+1 starts */
    f->soff[f->nstrs] = off;
    f->soff[++f->nstrs] = off + n;
    *out = id;
    return TFMT_OK;
}

int tfmt__flat_reserve(tfmt_flat *f, size_t nstrs, size_t nkeys, size_t bytes)
{
    if (tfmt__buf_reserve(&f->text, bytes) < 0 ||
        tfmt__grow(f->alloc, (void **)&f->soff, &f->capsoff,
                   f->nstrs + nstrs + 1, sizeof *f->soff) < 0 ||
        tfmt__grow(f->alloc, (void **)&f->keys, &f->capkeys, f->nkeys + nkeys,
                   sizeof *f->keys) < 0 ||
        ftab_reserve(f, &f->str_set, f->str_set.count + nstrs) < 0 ||
        ftab_reserve(f, &f->key_set, f->key_set.count + nkeys) < 0)
        return TFMT_ENOMEM; /* big tables are advised as they grow */
    return TFMT_OK;
}

/* ---- keys ---- */

static int intern_key(tfmt_flat *f, const tfmt_fkey *k, uint32_t *out)
{
    uint64_t h = tfmt__flat_key_hash(k);
    uint32_t id = tfmt__ftab_find(&f->key_set, h, k, tfmt__flat_key_eq, f);
    if (id != TFMT_FLAT_NONE) {
        *out = id;
        return TFMT_OK;
    }
    if (f->nkeys >= UINT32_MAX - 1)
        return tfmt__error(&f->err, TFMT_ELIMIT, "too many keys");
    if (tfmt__grow(f->alloc, (void **)&f->keys, &f->capkeys, f->nkeys + 1,
                   sizeof *f->keys) < 0 ||
        ftab_insert(f, &f->key_set, h, (uint32_t)f->nkeys) < 0)
        return tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
    f->keys[f->nkeys] = *k;
    f->keys[f->nkeys].self = 0;
    f->keys[f->nkeys].cum = 0;
    f->keys[f->nkeys].cum_frames = 0;
    *out = (uint32_t)f->nkeys++;
    return TFMT_OK;
}

int tfmt__flat_rewrite_intern(tfmt_flat *f, const char *s, size_t n,
                              uint32_t *out)
{
    if (f->opts.match) {
        int rc = tfmt_match_rewrite(f->opts.match, TFMT_MATCH_FILE, s, n, &s,
                                    &n, &f->err);
        if (rc < 0)
            return rc;
    }
    return tfmt__flat_intern(f, s, n, out);
}

int tfmt__flat_frame_key(tfmt_flat *f, const char *file, size_t flen,
                         const char *func, size_t fnlen, int32_t line,
                         uint32_t *out)
{
    uint32_t file_id, func_id;
    *out = TFMT_FLAT_NONE;
    int rc = tfmt__flat_rewrite_intern(f, file, flen, &file_id);
    if (rc == TFMT_OK)
        rc = tfmt__flat_rewrite_intern(f, func, fnlen, &func_id);
    if (rc < 0)
        return rc;
    return tfmt__flat_key_ids(f, file_id, func_id, line, out);
}

/* The key of a frame named by two flat strings, as the key option says. */
static tfmt_fkey key_of(const tfmt_flat *f, uint32_t file_id, uint32_t func_id,
                        int32_t line)
{
    tfmt_fkey k = {file_id, func_id, -1, 0, 0, 0};
    if (f->opts.key == TFMT_FLAT_KEY_FUNC)
        k.file = f->empty;
    if (f->opts.key == TFMT_FLAT_KEY_FILE_FUNC_LINE)
        k.line = line < 0 ? 0 : line;
    return k;
}

int tfmt__flat_key_ids(tfmt_flat *f, uint32_t file_id, uint32_t func_id,
                       int32_t line, uint32_t *out)
{
    int rc;
    *out = TFMT_FLAT_NONE;
    if (f->opts.match) {
        tfmt_str a = tfmt__flat_str(f, file_id), b = tfmt__flat_str(f, func_id);
        bool keep = true;
        rc = tfmt_match_filter(f->opts.match, a.ptr, a.len, b.ptr, b.len, &keep,
                               &f->err);
        if (rc < 0 || !keep)
            return rc;
    }
    tfmt_fkey k = key_of(f, file_id, func_id, line);
    return intern_key(f, &k, out);
}

void tfmt__flat_key_prefetch(const tfmt_flat *f, uint32_t file_id,
                             uint32_t func_id, int32_t line)
{
    tfmt_fkey k = key_of(f, file_id, func_id, line);
    tfmt__ftab_prefetch(&f->key_set, tfmt__flat_key_hash(&k));
}

int tfmt__flat_key_text(const tfmt_flat *f, uint32_t id, tfmt_buf *b)
{
    const tfmt_fkey *k = &f->keys[id];
    tfmt_str file = tfmt__flat_str(f, k->file);
    tfmt_str func = tfmt__flat_str(f, k->func);
    int rc = TFMT_OK;
    if (f->opts.key != TFMT_FLAT_KEY_FUNC) {
        rc = tfmt__buf_put(b, file.ptr, file.len);
        if (rc == TFMT_OK)
            rc = tfmt__buf_putc(b, ':');
    }
    if (rc == TFMT_OK)
        rc = tfmt__buf_put(b, func.ptr, func.len);
    if (rc == TFMT_OK && f->opts.key == TFMT_FLAT_KEY_FILE_FUNC_LINE) {
        rc = tfmt__buf_putc(b, ':');
        if (rc == TFMT_OK)
            rc = tfmt__buf_put_i64(b, k->line);
    }
    return rc;
}

/* ---- stacks ---- */

static bool stack_eq(const tfmt_flat *f, uint32_t id, const void *key)
{
    const tfmt_str *k = key;
    const tfmt_fspan *s = &f->stacks[id].text;
    return s->len == k->len &&
           memcmp(f->stack_text.data + s->off, k->ptr, k->len) == 0;
}

int tfmt__flat_add_stack(tfmt_flat *f, const char *s, size_t n, uint64_t count)
{
    tfmt_str k = {s, n};
    uint64_t h = stack_hash(s, n);
    uint32_t id = tfmt__ftab_find(&f->stack_set, h, &k, stack_eq, f);
    if (id != TFMT_FLAT_NONE) {
        f->stacks[id].count += count;
        return TFMT_OK;
    }
    if (n > UINT32_MAX || f->nstacks >= UINT32_MAX - 1)
        return tfmt__error(&f->err, TFMT_ELIMIT, "too many stacks");
    uint64_t off = f->stack_text.len;
    if (tfmt__grow(f->alloc, (void **)&f->stacks, &f->capstacks, f->nstacks + 1,
                   sizeof *f->stacks) < 0 ||
        tfmt__buf_put(&f->stack_text, s, n) < 0)
        return tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
    if (ftab_insert(f, &f->stack_set, h, (uint32_t)f->nstacks) < 0) {
        f->stack_text.len = off;
        return tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
    }
    f->stacks[f->nstacks].text = (tfmt_fspan){off, (uint32_t)n};
    f->stacks[f->nstacks++].count = count;
    return TFMT_OK;
}

void tfmt__flat_drop_empty(tfmt_flat *f, size_t from)
{
    size_t to = from;
    for (size_t i = from; i < f->nkeys; i++) {
        const tfmt_fkey *k = &f->keys[i];
        if (k->self || k->cum || k->cum_frames)
            f->keys[to++] = *k;
    }
    if (to == f->nkeys)
        return;
    /* Ids moved: place every key again (rare: writers store only frames
     * that samples use). */
    f->nkeys = to;
    tfmt_ftab *t = &f->key_set;
    memset(t->slots, 0, t->cap * sizeof *t->slots);
    for (size_t i = 0; i < f->nkeys; i++) {
        uint64_t h = tfmt__flat_key_hash(&f->keys[i]);
        ftab_place(t, (h >> 32 << 32) | ((uint64_t)i + 1));
    }
    t->count = f->nkeys;
}

int tfmt__flat_cap_begin(tfmt_flat *f, uint64_t **snap, size_t *n)
{
    *n = f->nkeys;
    *snap = tfmt__malloc(f->alloc, (f->nkeys + 1) * sizeof **snap);
    if (!*snap)
        return tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
    for (size_t i = 0; i < f->nkeys; i++)
        (*snap)[i] = f->keys[i].cum_frames;
    return TFMT_OK;
}

void tfmt__flat_cap_end(tfmt_flat *f, uint64_t *snap, size_t n, uint64_t total)
{
    for (size_t i = 0; i < f->nkeys; i++) {
        uint64_t base = i < n ? snap[i] : 0;
        if (f->keys[i].cum_frames - base > total)
            f->keys[i].cum_frames = base + total;
    }
    tfmt__free(f->alloc, snap);
}

void tfmt__flat_add_input(tfmt_flat *f, uint64_t samples, uint64_t interval_us,
                          double duration_s, bool exact, bool stacks)
{
    tfmt_flat_info *in = &f->info;
    in->inputs++;
    in->samples = tfmt__add_sat(in->samples, samples);
    if (interval_us && in->interval_us && interval_us != in->interval_us)
        in->mixed_interval = true;
    if (interval_us && !in->interval_us)
        in->interval_us = interval_us;
    if (duration_s > 0 && interval_us) {
        in->duration_s += duration_s;
        in->ticks += duration_s * 1e6 / (double)interval_us;
    } else {
        in->has_duration = false;
    }
    if (!stacks)
        in->has_stacks = false;
    if (!exact)
        in->exact_cumulative = false;
}

/* ---- accessors ---- */

const tfmt_flat_info *tfmt_flat_get_info(const tfmt_flat *f)
{
    return &f->info;
}

size_t tfmt_flat_count(const tfmt_flat *f)
{
    return f->nkeys;
}

void tfmt_flat_row_at(const tfmt_flat *f, size_t i, tfmt_flat_row *out)
{
    const tfmt_fkey *k = &f->keys[i];
    out->file = tfmt__flat_str(f, k->file);
    out->func = tfmt__flat_str(f, k->func);
    out->line = k->line;
    out->self = k->self;
    out->cumulative = k->cum;
    out->cumulative_frames = k->cum_frames;
}

void tfmt_flat_counts_at(const tfmt_flat *f, size_t i, uint64_t *self,
                         uint64_t *cumulative, uint64_t *cumulative_frames)
{
    const tfmt_fkey *k = &f->keys[i];
    *self = k->self;
    *cumulative = k->cum;
    *cumulative_frames = k->cum_frames;
}

/* Look a string up without interning it. */
static uint32_t find_str(const tfmt_flat *f, tfmt_str s)
{
    uint64_t h = tfmt__flat_str_hash(s.ptr, s.len);
    return tfmt__ftab_find(&f->str_set, h, &s, tfmt__flat_str_eq, f);
}

size_t tfmt_flat_find(const tfmt_flat *f, const tfmt_flat_row *key)
{
    tfmt_fkey k = {f->empty, 0, -1, 0, 0, 0};
    if (f->opts.key != TFMT_FLAT_KEY_FUNC)
        k.file = find_str(f, key->file);
    k.func = find_str(f, key->func);
    if (k.file == TFMT_FLAT_NONE || k.func == TFMT_FLAT_NONE)
        return SIZE_MAX;
    if (f->opts.key == TFMT_FLAT_KEY_FILE_FUNC_LINE)
        k.line = key->line;
    uint32_t id = tfmt__ftab_find(&f->key_set, tfmt__flat_key_hash(&k), &k,
                                  tfmt__flat_key_eq, f);
    return id == TFMT_FLAT_NONE ? SIZE_MAX : id;
}

size_t tfmt_flat_stack_count(const tfmt_flat *f)
{
    return f->nstacks;
}

void tfmt_flat_stack_at(const tfmt_flat *f, size_t i, tfmt_str *stack,
                        uint64_t *count)
{
    const tfmt_fstack *s = &f->stacks[i];
    stack->ptr = f->stack_text.data + s->text.off;
    stack->len = s->text.len;
    *count = s->count;
}

size_t tfmt_flat_stack_find(const tfmt_flat *f, const char *stack, size_t len)
{
    tfmt_str k = {stack, len};
    uint64_t h = stack_hash(stack, len);
    uint32_t id = tfmt__ftab_find(&f->stack_set, h, &k, stack_eq, f);
    return id == TFMT_FLAT_NONE ? SIZE_MAX : id;
}

const tfmt_error *tfmt_flat_error(const tfmt_flat *f)
{
    return &f->err;
}
