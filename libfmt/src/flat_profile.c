/*
 * flat_profile.c - add an aggregated profile (call tree) to a flat
 * profile. Self counts come from the nodes; cumulative counts take each
 * key once per stack: a node adds its subtree total only when no ancestor
 * has the same key, which a depth-first walk (no recursion) tracks with a
 * per-key counter of open nodes. The same walk builds folded stacks.
 */
#include "flat_internal.h"
#include "profile_internal.h"

typedef struct fold_state {
    tfmt_buf path;          /* folded text of the current node's path */
    size_t *len_at;         /* path length before the node at each depth */
    size_t cap_len_at;
} fold_state;

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
        int rc = tfmt__flat_frame_key(f, file.ptr, file.len, func.ptr,
                                      func.len, line, &keys[i]);
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

static int walk(tfmt_flat *f, const tfmt_profile *p, const tfmt_ptree *t,
                const uint32_t *fkey, uint32_t *open, fold_state *st)
{
    tfmt_pwalk w;
    uint32_t id;
    int dir;
    tfmt__pwalk_init(&w, p, t);
    while ((dir = tfmt__pwalk_next(&w, &id)) != 0) {
        const tfmt_pnode *n = &p->nodes[id];
        uint32_t k = n->frame == TFMT_NO_ID ? TFMT_FLAT_NONE
                                            : fkey[n->frame];
        if (dir < 0) {
            if (k != TFMT_FLAT_NONE)
                open[k]--;
            if (st)
                st->path.len = st->len_at[n->depth];
            continue;
        }
        if (k != TFMT_FLAT_NONE) {
            f->keys[k].self += n->self;
            if (open[k]++ == 0)
                f->keys[k].cum += t->total[id];
        }
        if (st) {
            int rc = fold_enter(f, st, n, k);
            if (rc < 0)
                return rc;
        }
    }
    return TFMT_OK;
}

static int count_tree(tfmt_flat *f, const tfmt_profile *p,
                      const uint32_t *fkey)
{
    tfmt_ptree t;
    if (tfmt__ptree_build(p, &t) < 0)
        return tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
    uint32_t *open = tfmt__calloc(f->alloc, f->nkeys + 1, sizeof *open);
    fold_state st = {{0}, NULL, 0};
    tfmt__buf_init(&st.path, f->alloc);
    int rc = open ? TFMT_OK
                  : tfmt__error(&f->err, TFMT_ENOMEM, "out of memory");
    if (rc == TFMT_OK)
        rc = walk(f, p, &t, fkey, open, f->opts.stacks ? &st : NULL);
    tfmt__buf_free(&st.path);
    tfmt__free(f->alloc, st.len_at);
    tfmt__free(f->alloc, open);
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
    rc = count_tree(f, p, fkey);
    tfmt__free(f->alloc, fkey);
    if (rc < 0)
        return rc;
    double duration = p->stats.present ? p->stats.duration_s : -1.0;
    tfmt__flat_add_input(f, p->samples_total, p->interval_us, duration,
                         true);
    return TFMT_OK;
}
