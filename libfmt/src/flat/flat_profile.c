/* SPDX-License-Identifier: MIT */
/*
 * flat_profile.c - add an aggregated profile (call tree) to a flat
 * profile. Self counts come from the nodes; cumulative counts take each
 * key once per stack: a node adds its subtree total only when no ancestor
 * has the same key, which a depth-first walk (no recursion) tracks with a
 * per-key counter of open nodes. The same walk computes the JSONL-style
 * cumulative figure (once per distinct location on the stack, summed per
 * key) and builds folded stacks.
 */
#include "flat_internal.h"
#include "profile_internal.h"

typedef struct fold_state {
    tfmt_buf path;  /* folded text of the current node's path */
    size_t *len_at; /* path length before the node at each depth */
    size_t cap_len_at;
} fold_state;

static bool loc_eq(const void *ctx, uint32_t id, const void *key)
{
    const tfmt_profile *p = ctx;
    tfmt_jloc a = tfmt__profile_jsonl_loc(&p->frames[id]);
    return memcmp(&a, key, sizeof a) == 0;
}

/*
 * out[i] = the first profile frame with frame i's location: frames that
 * differ only in their opcode are one JSONL frame.
 */
static int frame_locs(tfmt_flat *f, const tfmt_profile *p, uint32_t *out)
{
    tfmt_idset set;
    tfmt__idset_init(&set, f->alloc);
    int rc = TFMT_OK;
    for (size_t i = 0; rc == TFMT_OK && i < p->nframes; i++) {
        tfmt_jloc l = tfmt__profile_jsonl_loc(&p->frames[i]);
        uint64_t h = tfmt__hash_text(&l, sizeof l, 0x10c);
        uint32_t id = tfmt__idset_find(&set, h, &l, loc_eq, p);
        if (id == TFMT_FLAT_NONE) {
            id = (uint32_t)i;
            if (tfmt__idset_insert(&set, h, id) < 0)
                rc = tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
        }
        out[i] = id;
    }
    tfmt__idset_free(&set);
    return rc;
}

/* The flat key of every profile frame (TFMT_FLAT_NONE when filtered). */
static int frame_keys(tfmt_flat *f, const tfmt_profile *p, uint32_t **out)
{
    uint32_t *keys = tfmt__malloc(f->alloc, (p->nframes + 1) * 4);
    if (!keys)
        return tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
    for (size_t i = 0; i < p->nframes; i++) {
        const tfmt_frame *fr = &p->frames[i];
        tfmt_str file = tfmt__profile_str(p, fr->filename);
        tfmt_str func = tfmt__profile_str(p, fr->funcname);
        int32_t line, end_line, col, end_col;
        tfmt__profile_norm_loc(fr, &line, &end_line, &col, &end_col);
        int rc = tfmt__flat_frame_key(f, file.ptr, file.len, func.ptr, func.len,
                                      line, &keys[i]);
        if (rc < 0) {
            tfmt__free(f->alloc, keys);
            return rc;
        }
    }
    *out = keys;
    return TFMT_OK;
}

/* Entering `node`: extend the folded path and count its stack. */
static int fold_enter(tfmt_flat *f, fold_state *st, const tfmt_pnode *n,
                      uint32_t key)
{
    if (tfmt__grow(f->alloc, (void **)&st->len_at, &st->cap_len_at,
                   (size_t)n->depth + 1, sizeof *st->len_at) < 0)
        return tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
    st->len_at[n->depth] = st->path.len;
    int rc = TFMT_OK;
    if (key != TFMT_FLAT_NONE) {
        if (st->path.len)
            rc = tfmt__buf_putc(&st->path, ';');
        if (rc == TFMT_OK)
            rc = tfmt__flat_key_text(f, key, &st->path);
        if (rc < 0)
            return tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
    }
    if (n->self && st->path.len)
        return tfmt__flat_add_stack(f, st->path.data, st->path.len, n->self);
    return TFMT_OK;
}

/* Per-walk tables: key and location of each frame, open-node counters. */
typedef struct walk_tabs {
    const uint32_t *fkey, *floc;
    uint32_t *open_key, *open_loc;
} walk_tabs;

static void count_node(tfmt_flat *f, const walk_tabs *w, uint32_t frame,
                       uint32_t key, uint64_t self, uint64_t total)
{
    f->keys[key].self += self;
    if (w->open_key[key]++ == 0)
        f->keys[key].cum += total;
    if (w->open_loc[w->floc[frame]]++ == 0)
        f->keys[key].cum_frames += total;
}

static int walk(tfmt_flat *f, const tfmt_profile *p, const tfmt_ptree *t,
                const walk_tabs *tabs, fold_state *st)
{
    tfmt_pwalk w;
    uint32_t id;
    int dir;
    tfmt__pwalk_init(&w, p, t);
    while ((dir = tfmt__pwalk_next(&w, &id)) != 0) {
        const tfmt_pnode *n = &p->nodes[id];
        uint32_t k =
            n->frame == TFMT_NO_ID ? TFMT_FLAT_NONE : tabs->fkey[n->frame];
        if (dir < 0) {
            if (k != TFMT_FLAT_NONE) {
                tabs->open_key[k]--;
                tabs->open_loc[tabs->floc[n->frame]]--;
            }
            if (st)
                st->path.len = st->len_at[n->depth];
            continue;
        }
        if (k != TFMT_FLAT_NONE)
            count_node(f, tabs, n->frame, k, n->self, t->total[id]);
        if (st) {
            int rc = fold_enter(f, st, n, k);
            if (rc < 0)
                return rc;
        }
    }
    return TFMT_OK;
}

static int count_tree(tfmt_flat *f, const tfmt_profile *p, const uint32_t *fkey)
{
    tfmt_ptree t;
    if (tfmt__ptree_build(p, &t) < 0)
        return tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
    uint32_t *floc = tfmt__malloc(f->alloc, (p->nframes + 1) * 4);
    walk_tabs tabs = {fkey, floc, tfmt__calloc(f->alloc, f->nkeys + 1, 4),
                      tfmt__calloc(f->alloc, p->nframes + 1, 4)};
    fold_state st = {{0}, NULL, 0};
    tfmt__buf_init(&st.path, f->alloc);
    int rc = floc && tabs.open_key && tabs.open_loc
                 ? TFMT_OK
                 : tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
    if (rc == TFMT_OK)
        rc = frame_locs(f, p, floc);
    if (rc == TFMT_OK)
        rc = walk(f, p, &t, &tabs, f->opts.stacks ? &st : NULL);
    tfmt__buf_free(&st.path);
    tfmt__free(f->alloc, st.len_at);
    tfmt__free(f->alloc, floc);
    tfmt__free(f->alloc, tabs.open_key);
    tfmt__free(f->alloc, tabs.open_loc);
    tfmt__ptree_free(p, &t);
    return rc;
}

int tfmt_flat_add_profile(tfmt_flat *f, const tfmt_profile *p)
{
    uint32_t *fkey = NULL;
    tfmt__error_clear(&f->err);
    int rc = frame_keys(f, p, &fkey);
    if (rc < 0)
        return rc;
    uint64_t *snap = NULL;
    size_t n = 0;
    rc = tfmt__flat_cap_begin(f, &snap, &n);
    if (rc == TFMT_OK) {
        rc = count_tree(f, p, fkey);
        tfmt__flat_cap_end(f, snap, n, p->samples_total);
    }
    tfmt__free(f->alloc, fkey);
    if (rc < 0)
        return rc;
    double duration = p->stats.present ? p->stats.duration_s : -1.0;
    tfmt__flat_add_input(f, p->samples_total, p->interval_us, duration, true,
                         f->opts.stacks);
    return TFMT_OK;
}
