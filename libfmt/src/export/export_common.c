/* SPDX-License-Identifier: MIT */
/*
 * export_common.c - helpers of the viewer exporters: Python's float repr
 * and the content order of a profile (see export_internal.h).
 */
#include <math.h>
#include <stdlib.h>

#include "export_internal.h"

/* ---- Python float repr ---- */

/* json.dumps spells non-finite floats as JavaScript does. */
char *tfmt__json_float(char *p, double v)
{
    if (isfinite(v))
        return p + tfmt__pyrepr(v, p);
    const char *s = isnan(v) ? "NaN" : v < 0 ? "-Infinity" : "Infinity";
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

int tfmt__put_pyfloat(tfmt_buf *b, double v)
{
    if (tfmt__buf_reserve(b, TFMT_PYREPR_MAX) != TFMT_OK)
        return TFMT_ENOMEM;
    b->len = (size_t)(tfmt__json_float(b->data + b->len, v) - b->data);
    return TFMT_OK;
}

/* ---- strings ---- */

int tfmt__pstr_cmp(const tfmt_profile *p, uint32_t a, uint32_t b)
{
    if (a == b)
        return 0;
    tfmt_str x = tfmt__profile_str(p, a), y = tfmt__profile_str(p, b);
    size_t n = x.len < y.len ? x.len : y.len;
    int c = n ? memcmp(x.ptr, y.ptr, n) : 0;
    if (c)
        return c;
    return x.len < y.len ? -1 : x.len > y.len;
}

tfmt_str tfmt__pstr_basename(const tfmt_profile *p, uint32_t id)
{
    tfmt_str s = tfmt__profile_str(p, id);
    for (size_t i = s.len; i-- > 0;) {
        if (s.ptr[i] == '/') {
            s.ptr += i + 1;
            s.len -= i + 1;
            break;
        }
    }
    return s;
}

/* ---- content order ---- */

typedef struct fsort {
    const tfmt_profile *p;
    const tfmt_frame *f;
    uint32_t id;
    bool unused;
} fsort;

static int cmp_i32(int32_t a, int32_t b)
{
    return a < b ? -1 : a > b;
}

static int frame_cmp(const void *va, const void *vb)
{
    const fsort *a = va, *b = vb;
    const tfmt_frame *x = a->f, *y = b->f;
    if (a->unused != b->unused)
        return a->unused ? 1 : -1;
    int c = tfmt__pstr_cmp(a->p, x->filename, y->filename);
    if (!c)
        c = tfmt__pstr_cmp(a->p, x->funcname, y->funcname);
    if (!c)
        c = cmp_i32(x->lineno, y->lineno);
    if (!c)
        c = cmp_i32(x->end_lineno, y->end_lineno);
    if (!c)
        c = cmp_i32(x->column, y->column);
    if (!c)
        c = cmp_i32(x->end_column, y->end_column);
    if (!c)
        c = cmp_i32(x->opcode, y->opcode);
    return c;
}

static int rank_frames(const tfmt_profile *p, tfmt_xorder *o)
{
    size_t n = p->nframes ? p->nframes : 1;
    fsort *v = tfmt__malloc(p->alloc, n * sizeof *v);
    o->frame_rank = tfmt__malloc(p->alloc, n * sizeof(uint32_t));
    o->frame_by_rank = tfmt__malloc(p->alloc, n * sizeof(uint32_t));
    if (!v || !o->frame_rank || !o->frame_by_rank) {
        tfmt__free(p->alloc, v);
        return TFMT_ENOMEM;
    }
    uint8_t *used = tfmt__malloc(p->alloc, n);
    if (!used) {
        tfmt__free(p->alloc, v);
        return TFMT_ENOMEM;
    }
    tfmt__profile_used(p, used);
    for (size_t i = 0; i < p->nframes; i++) {
        v[i].p = p;
        v[i].f = &p->frames[i];
        v[i].id = (uint32_t)i;
        v[i].unused = !used[i];
    }
    tfmt__free(p->alloc, used);
    o->nused = 0;
    for (size_t i = 0; i < p->nframes; i++)
        o->nused += !v[i].unused;
    qsort(v, p->nframes, sizeof *v, frame_cmp);
    for (size_t i = 0; i < p->nframes; i++) {
        o->frame_rank[v[i].id] = (uint32_t)i;
        o->frame_by_rank[i] = v[i].id;
    }
    tfmt__free(p->alloc, v);
    return TFMT_OK;
}

typedef struct tsort {
    uint64_t tid;
    uint32_t interp;
    uint32_t id;
} tsort;

static int thread_cmp(const void *va, const void *vb)
{
    const tsort *a = va, *b = vb;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    if (a->interp != b->interp)
        return a->interp < b->interp ? -1 : 1;
    return 0;
}

static int sort_threads(const tfmt_profile *p, tfmt_xorder *o)
{
    size_t n = p->nthreads ? p->nthreads : 1;
    tsort *v = tfmt__malloc(p->alloc, n * sizeof *v);
    o->threads = tfmt__malloc(p->alloc, n * sizeof(uint32_t));
    if (!v || !o->threads) {
        tfmt__free(p->alloc, v);
        return TFMT_ENOMEM;
    }
    for (size_t i = 0; i < p->nthreads; i++) {
        v[i].tid = p->threads[i].thread_id;
        v[i].interp = p->threads[i].interpreter_id;
        v[i].id = (uint32_t)i;
    }
    qsort(v, p->nthreads, sizeof *v, thread_cmp);
    for (size_t i = 0; i < p->nthreads; i++)
        o->threads[i] = v[i].id;
    tfmt__free(p->alloc, v);
    return TFMT_OK;
}

/*
 * Re-chain every sibling list in frame-rank order, roots by thread. The
 * nodes are bucketed by the rank of their frame (a counting sort, 4 bytes
 * a node) and prepended to their parent's list from the highest rank
 * down; a parent has at most one child per frame, so every list comes out
 * in rank order.
 */
static int rechain(const tfmt_profile *p, tfmt_xorder *o)
{
    size_t n = p->nnodes ? p->nnodes : 1;
    uint32_t *start = tfmt__calloc(p->alloc, p->nframes + 1, sizeof *start);
    uint32_t *by_rank = tfmt__malloc(p->alloc, n * sizeof *by_rank);
    if (!start || !by_rank) {
        tfmt__free(p->alloc, start);
        tfmt__free(p->alloc, by_rank);
        return TFMT_ENOMEM;
    }
    for (size_t i = 0; i < p->nnodes; i++)
        if (p->nodes[i].parent != TFMT_NO_ID)
            start[o->frame_rank[p->nodes[i].frame] + 1]++;
    for (size_t r = 0; r < p->nframes; r++)
        start[r + 1] += start[r];
    size_t m = p->nframes ? start[p->nframes] : 0;
    for (size_t i = 0; i < p->nnodes; i++)
        if (p->nodes[i].parent != TFMT_NO_ID)
            by_rank[start[o->frame_rank[p->nodes[i].frame]]++] = (uint32_t)i;
    tfmt_ptree *t = &o->tree;
    memset(t->first_child, 0xff, n * sizeof(uint32_t));
    for (size_t k = m; k-- > 0;) {
        uint32_t id = by_rank[k], parent = p->nodes[id].parent;
        t->next_sibling[id] = t->first_child[parent];
        t->first_child[parent] = id;
    }
    t->first_root = TFMT_NO_ID;
    for (size_t i = p->nthreads; i-- > 0;) {
        if (!tfmt__profile_owns_root(p, o->threads[i]))
            continue; /* a shared tree is walked once */
        uint32_t root = p->threads[o->threads[i]].root;
        t->next_sibling[root] = t->first_root;
        t->first_root = root;
    }
    tfmt__free(p->alloc, start);
    tfmt__free(p->alloc, by_rank);
    return TFMT_OK;
}

void tfmt__xorder_free(const tfmt_profile *p, tfmt_xorder *o)
{
    tfmt__free(p->alloc, o->frame_rank);
    tfmt__free(p->alloc, o->frame_by_rank);
    tfmt__free(p->alloc, o->threads);
    if (o->tree.total)
        tfmt__ptree_free(p, &o->tree);
    memset(o, 0, sizeof *o);
}

int tfmt__xorder_build(tfmt_profile *p, tfmt_xorder *o)
{
    memset(o, 0, sizeof *o);
    tfmt__profile_drop_index(p);
    int rc = rank_frames(p, o);
    if (rc == TFMT_OK)
        rc = sort_threads(p, o);
    if (rc == TFMT_OK)
        rc = tfmt__ptree_build(p, &o->tree);
    if (rc == TFMT_OK)
        rc = rechain(p, o);
    if (rc != TFMT_OK)
        tfmt__xorder_free(p, o);
    return rc;
}

int tfmt__xadd_exports(const tfmt_profile *p, const uint32_t *key,
                       uint32_t nkeys, uint64_t *self, uint64_t *cum)
{
    if (!p->agg_inputs)
        return TFMT_OK;
    uint64_t *sum = tfmt__calloc(p->alloc, nkeys + 1, sizeof *sum);
    if (!sum)
        return TFMT_ENOMEM;
    for (uint32_t f = 0; f < p->naggs && f < p->nframes; f++) {
        const tfmt_pagg *a = tfmt__profile_agg(p, f);
        if (!a || key[f] >= nkeys)
            continue;
        self[key[f]] = tfmt__sat_add(self[key[f]], a->self);
        sum[key[f]] = tfmt__sat_add(sum[key[f]], a->cum);
    }
    for (uint32_t k = 0; k < nkeys; k++)
        cum[k] = tfmt__sat_add(
            cum[k], sum[k] < p->agg_samples ? sum[k] : p->agg_samples);
    tfmt__free(p->alloc, sum);
    return TFMT_OK;
}

/* ---- output ---- */

int tfmt__profile_flush(tfmt_buf *b, tfmt_sink *sink, size_t min)
{
    if (b->len < min || b->len == 0)
        return TFMT_OK;
    int rc = tfmt_sink_write(sink, b->data, b->len);
    b->len = 0;
    return rc;
}

int tfmt__xfail(tfmt_profile *p, int rc, tfmt_sink *sink)
{
    if (rc == TFMT_ENOMEM)
        return tfmt__error(&p->err, TFMT_ENOMEM, "out of memory");
    if (sink)
        return tfmt__error_take(&p->err, tfmt_sink_error(sink), rc);
    return tfmt__error(&p->err, rc, "export failed");
}

int tfmt__xneed_stacks(tfmt_profile *p)
{
    if (!p->agg_inputs)
        return TFMT_OK;
    return tfmt__error(&p->err, TFMT_EINVAL, "%s", TFMT_JSONL_NO_STACKS);
}

int tfmt__xneed_views(tfmt_profile *p)
{
    if (!p->opts.shared_tree || p->opts.thread_leaves)
        return TFMT_OK;
    return tfmt__error(&p->err, TFMT_EINVAL,
                       "the profile has one call tree for all threads "
                       "(shared_tree) and no thread_leaves; this format "
                       "needs the threads' own trees");
}

int tfmt__xflush(tfmt_profile *p, tfmt_buf *b, tfmt_sink *sink, bool all)
{
    int rc = tfmt__profile_flush(b, sink, all ? 0 : TFMT_EXPORT_FLUSH);
    return rc == TFMT_OK ? rc : tfmt__xfail(p, rc, sink);
}
