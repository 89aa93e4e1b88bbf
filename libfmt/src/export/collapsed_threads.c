/* SPDX-License-Identifier: MIT */
/*
 * collapsed_threads.c - CPython's collapsed lines from a profile with one
 * call tree for all threads and thread leaves: the same bytes as from a
 * tree per thread, in memory that follows the lines, not the threads'
 * trees.
 *
 * A line is (thread id, folded path, count). The shared tree is folded
 * onto the collector's key once (profile_collapsed.c), and every leaf of
 * every thread (tfmt__tleaf_groups) names a folded node. The order is
 * count descending, then line text, then first appearance. Every text is
 * "tid:" digits ";" frames..., so texts of two thread ids compare as
 * their digits followed by ';' do, and texts of one thread id as their
 * paths' texts: one rank per thread id and one per folded node
 * (tfmt__collapsed_rank_pos, or a comparison sort of the folded nodes
 * when a frame text holds a ';') decide the text order. Lines of equal
 * count and text print alike, so which came first, CPython's last key,
 * needs no record. Lines are made thread id by thread id in text order,
 * then sorted stably by count, and each is written from its folded node
 * up: 16 bytes a line, no copies of paths.
 */
#include <stdlib.h>

#include "collapsed.h"

typedef struct tline {
    uint64_t count;
    uint32_t node;  /* cnode of its path */
    uint32_t group; /* index into tctx.tids */
} tline;

/* One leaf of a thread id, while its lines are made. */
typedef struct titem {
    uint32_t pos, node;
    uint64_t count;
} titem;

typedef struct tctx {
    cctx *c;
    const tfmt_allocator *a;
    uint32_t *pos; /* per cnode: rank of its text */
    struct tthread {
        uint64_t tid;
        uint32_t t;
    } * threads;    /* by thread id text */
    uint64_t *tids; /* distinct, by text */
    size_t ntids;
    uint32_t *start, *items; /* tfmt__tleaf_groups */
    titem *scratch;
    size_t capscratch;
    tline *lines;
    size_t nlines, caplines;
    uint32_t *order; /* line indices in output order */
    uint32_t *path;  /* a line's frames, root first */
} tctx;

static void tctx_free(tctx *x)
{
    void *v[] = {x->pos,     x->threads, x->tids,  x->start, x->items,
                 x->scratch, x->lines,   x->order, x->path};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        tfmt__free(x->a, v[i]);
}

/* ---- thread ids ---- */

/* "digits;" of a thread id, as texts compare. */
static int tid_cmp(const void *va, const void *vb)
{
    uint64_t a = ((const struct tthread *)va)->tid;
    uint64_t b = ((const struct tthread *)vb)->tid;
    if (a == b)
        return 0;
    char x[24], y[24];
    snprintf(x, sizeof x, "%llu;", (unsigned long long)a);
    snprintf(y, sizeof y, "%llu;", (unsigned long long)b);
    return strcmp(x, y);
}

/* Threads by thread id text, and the distinct ids in that order. */
static int order_tids(tctx *x)
{
    const tfmt_profile *p = x->c->p;
    size_t n = p->nthreads ? p->nthreads : 1;
    x->threads = tfmt__malloc(x->a, n * sizeof *x->threads);
    x->tids = tfmt__malloc(x->a, n * sizeof *x->tids);
    if (!x->threads || !x->tids)
        return TFMT_ENOMEM;
    for (size_t t = 0; t < p->nthreads; t++) {
        x->threads[t].tid = p->threads[t].thread_id;
        x->threads[t].t = (uint32_t)t;
    }
    qsort(x->threads, p->nthreads, sizeof *x->threads, tid_cmp);
    for (size_t t = 0; t < p->nthreads; t++)
        if (t == 0 || x->threads[t].tid != x->threads[t - 1].tid)
            x->tids[x->ntids++] = x->threads[t].tid;
    return TFMT_OK;
}

/* ---- the text rank of every folded node ---- */

/* cnode n's frames, root first, into out[]; returns the depth. */
static uint32_t node_path(const cctx *c, uint32_t n, uint32_t *out)
{
    uint32_t d = c->nodes[n].depth;
    for (uint32_t i = d; i-- > 0; n = c->nodes[n].parent)
        out[i] = c->nodes[n].frame;
    return d;
}

/* Byte order of the texts of two folded paths (chunks of frame texts). */
static int path_cmp(const cctx *c, const uint32_t *a, uint32_t na,
                    const uint32_t *b, uint32_t nb)
{
    uint32_t i = 0, j = 0;
    const char *pa = NULL, *pb = NULL;
    size_t la = 0, lb = 0;
    for (;;) {
        if (la == 0 && i < na) {
            pa = c->ftext.data + c->foff[a[i]];
            la = c->foff[a[i] + 1] - c->foff[a[i]];
            i++;
        }
        if (lb == 0 && j < nb) {
            pb = c->ftext.data + c->foff[b[j]];
            lb = c->foff[b[j] + 1] - c->foff[b[j]];
            j++;
        }
        if (la == 0 || lb == 0)
            return la ? 1 : lb ? -1 : 0;
        size_t m = la < lb ? la : lb;
        int r = memcmp(pa, pb, m);
        if (r)
            return r;
        pa += m;
        pb += m;
        la -= m;
        lb -= m;
    }
}

/* The texts of cnodes a and b compared (buf: room for a path). */
static int node_cmp(tctx *x, uint32_t a, uint32_t b, uint32_t *buf)
{
    uint32_t na = node_path(x->c, a, x->path);
    uint32_t nb = node_path(x->c, b, buf);
    return path_cmp(x->c, x->path, na, buf, nb);
}

/* A comparison of folded nodes by text, for tfmt__collapsed_msort. */
typedef struct bytext {
    tctx *x;
    uint32_t *buf; /* room for a path */
} bytext;

static int cmp_by_text(void *ctx, uint32_t a, uint32_t b)
{
    bytext *t = ctx;
    return node_cmp(t->x, a, b, t->buf);
}

/* Frame texts with a ';': rank the folded nodes by a comparison sort of
   their texts. */
static int rank_by_comparison(tctx *x, uint32_t maxd)
{
    cctx *c = x->c;
    size_t n = c->nnodes;
    uint32_t *v = tfmt__malloc(x->a, (n ? n : 1) * sizeof *v);
    uint32_t *tmp = tfmt__malloc(x->a, (n ? n : 1) * sizeof *tmp);
    uint32_t *buf = tfmt__malloc(x->a, ((size_t)maxd + 1) * sizeof *buf);
    int rc = v && tmp && buf ? TFMT_OK : TFMT_ENOMEM;
    if (rc == TFMT_OK) {
        for (size_t i = 0; i < n; i++)
            v[i] = (uint32_t)i;
        bytext t = {x, buf};
        tfmt__collapsed_msort(v, tmp, n, cmp_by_text, &t);
    }
    for (size_t k = 0, r = 0; rc == TFMT_OK && k < n; k++) {
        if (k && node_cmp(x, v[k - 1], v[k], buf) != 0)
            r++;
        x->pos[v[k]] = (uint32_t)r;
    }
    tfmt__free(x->a, v);
    tfmt__free(x->a, tmp);
    tfmt__free(x->a, buf);
    return rc;
}

static int rank_nodes(tctx *x)
{
    cctx *c = x->c;
    uint32_t maxd = 0;
    for (size_t i = 0; i < c->nnodes; i++)
        maxd = c->nodes[i].depth > maxd ? c->nodes[i].depth : maxd;
    x->pos = tfmt__malloc(x->a, (c->nnodes ? c->nnodes : 1) * sizeof *x->pos);
    x->path = tfmt__malloc(x->a, ((size_t)maxd + 1) * sizeof *x->path);
    if (!x->pos || !x->path)
        return TFMT_ENOMEM;
    int rc = tfmt__collapsed_rank_pos(c, x->pos);
    return rc == TFMT_DONE ? rank_by_comparison(x, maxd) : rc;
}

/* ---- the lines ---- */

static int item_cmp(const void *va, const void *vb)
{
    const titem *a = va, *b = vb;
    if (a->pos != b->pos)
        return a->pos < b->pos ? -1 : 1;
    return a->node < b->node ? -1 : a->node > b->node;
}

/* The leaves of the threads [from, to) of x->threads (one thread id). */
static int gather(tctx *x, size_t from, size_t to, size_t *n_out)
{
    const tfmt_profile *p = x->c->p;
    size_t n = 0;
    for (size_t k = from; k < to; k++) {
        uint32_t t = x->threads[k].t;
        n += x->start[t + 1] - x->start[t];
    }
    if (tfmt__grow(x->a, (void **)&x->scratch, &x->capscratch, n ? n : 1,
                   sizeof *x->scratch) != TFMT_OK)
        return TFMT_ENOMEM;
    n = 0;
    for (size_t k = from; k < to; k++) {
        uint32_t t = x->threads[k].t;
        for (uint32_t i = x->start[t]; i < x->start[t + 1]; i++) {
            titem *it = &x->scratch[n++];
            uint32_t leaf;
            tfmt__tleaf_item(p, x->items[i], &leaf, &it->count);
            it->node = x->c->identity ? leaf : x->c->nmap[leaf];
            it->pos = x->pos[it->node];
        }
    }
    *n_out = n;
    return TFMT_OK;
}

/*
 * The lines of thread id `group` (threads [from, to)): the leaves of one
 * folded node summed, in text order.
 */
static int make_lines(tctx *x, uint32_t group, size_t from, size_t to)
{
    size_t n;
    int rc = gather(x, from, to, &n);
    if (rc != TFMT_OK)
        return rc;
    qsort(x->scratch, n, sizeof *x->scratch, item_cmp);
    size_t m = 0; /* merged in place */
    for (size_t i = 0; i < n; i++) {
        if (m && x->scratch[m - 1].node == x->scratch[i].node)
            x->scratch[m - 1].count += x->scratch[i].count;
        else
            x->scratch[m++] = x->scratch[i];
    }
    if (tfmt__grow(x->a, (void **)&x->lines, &x->caplines, x->nlines + m + 1,
                   sizeof *x->lines) != TFMT_OK)
        return TFMT_ENOMEM;
    for (size_t i = 0; i < m; i++)
        x->lines[x->nlines++] =
            (tline){x->scratch[i].count, x->scratch[i].node, group};
    return TFMT_OK;
}

static int all_lines(tctx *x)
{
    const tfmt_profile *p = x->c->p;
    int rc = tfmt__tleaf_groups(p, &x->start, &x->items);
    uint32_t group = 0;
    for (size_t from = 0, to; rc == TFMT_OK && from < p->nthreads;
         from = to, group++) {
        for (to = from + 1;
             to < p->nthreads && x->threads[to].tid == x->threads[from].tid;)
            to++;
        rc = make_lines(x, group, from, to);
    }
    tfmt__free(x->a, x->scratch);
    x->scratch = NULL;
    return rc;
}

/* The line indices in output order: by count, stably. */
static int by_count(tctx *x)
{
    size_t n = x->nlines;
    x->order = tfmt__malloc(x->a, (n ? n : 1) * sizeof *x->order);
    if (!x->order)
        return TFMT_ENOMEM;
    for (size_t i = 0; i < n; i++)
        x->order[i] = (uint32_t)i;
    return tfmt__collapsed_by_count(x->a, x->order, n, &x->lines[0].count,
                                    sizeof(tline));
}

/* ---- output ---- */

static int put_line(tctx *x, tfmt_buf *b, const tline *l)
{
    const cctx *c = x->c;
    uint32_t d = node_path(c, l->node, x->path);
    size_t need = 4 + 20 + 1 + 20 + 1;
    for (uint32_t i = 0; i < d; i++)
        need += c->foff[x->path[i] + 1] - c->foff[x->path[i]];
    if (tfmt__buf_reserve(b, need) != TFMT_OK)
        return TFMT_ENOMEM;
    char *o = b->data + b->len;
    memcpy(o, "tid:", 4);
    o = tfmt__put_uint(o + 4, x->tids[l->group]);
    for (uint32_t i = 0; i < d; i++) {
        size_t n = c->foff[x->path[i] + 1] - c->foff[x->path[i]];
        memcpy(o, c->ftext.data + c->foff[x->path[i]], n);
        o += n;
    }
    *o++ = ' ';
    o = tfmt__put_uint(o, l->count);
    *o++ = '\n';
    b->len = (size_t)(o - b->data);
    return TFMT_OK;
}

static int write_all(tctx *x, tfmt_sink *sink, bool *io_failed)
{
    tfmt_buf b;
    tfmt__buf_init(&b, x->a);
    int rc = TFMT_OK;
    for (size_t i = 0; i < x->nlines && rc == TFMT_OK; i++) {
        rc = put_line(x, &b, &x->lines[x->order[i]]);
        if (rc == TFMT_OK &&
            tfmt__profile_flush(&b, sink, TFMT_EXPORT_FLUSH) != TFMT_OK) {
            *io_failed = true;
            rc = TFMT_EIO;
        }
    }
    if (rc == TFMT_OK && tfmt__profile_flush(&b, sink, 0) != TFMT_OK) {
        *io_failed = true;
        rc = TFMT_EIO;
    }
    tfmt__buf_free(&b);
    return rc;
}

int tfmt__collapsed_threads(cctx *c, tfmt_sink *sink, bool *io_failed)
{
    tctx x;
    memset(&x, 0, sizeof x);
    x.c = c;
    x.a = c->p->alloc;
    int rc = rank_nodes(&x);
    if (rc == TFMT_OK)
        rc = order_tids(&x);
    if (rc == TFMT_OK)
        rc = all_lines(&x);
    if (rc == TFMT_OK)
        rc = by_count(&x);
    if (rc == TFMT_OK)
        rc = write_all(&x, sink, io_failed);
    tctx_free(&x);
    return rc;
}
