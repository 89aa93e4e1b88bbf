/* SPDX-License-Identifier: MIT */
/*
 * export_top.c - a plain-text table of the hottest functions.
 *
 * A function is (file, function name), lines merged. Self = weight of
 * samples whose leaf frame is in it; cumulative = weight of samples that
 * show it at least once (recursion counted once, by an active count per
 * function during the walk). Rows are sorted by self, then cumulative,
 * descending, then by file and name; shares are of the table's samples.
 */
#include <stdlib.h>

#include "export_internal.h"

typedef struct trow {
    uint64_t self, cum;
    uint32_t f;
} trow;

typedef struct tctx {
    tfmt_profile *p;
    tfmt_xorder o;
    tfmt_tviews vs;     /* per_thread */
    uint32_t *ffn;      /* profile frame -> function */
    uint32_t *fn_frame; /* function -> a frame of it (for names) */
    uint32_t nfn;
    uint64_t *self, *cum;
    uint32_t *active;
    trow *rows;
    tfmt_buf out;
} tctx;

static void number_functions(tctx *c)
{
    const tfmt_profile *p = c->p;
    const tfmt_frame *prev = NULL;
    for (size_t r = 0; r < c->o.nused; r++) {
        uint32_t id = c->o.frame_by_rank[r];
        const tfmt_frame *f = &p->frames[id];
        if (!prev || prev->filename != f->filename ||
            prev->funcname != f->funcname)
            c->fn_frame[c->nfn++] = id;
        c->ffn[id] = c->nfn - 1;
        prev = f;
    }
}

/* Self and cumulative weights over one thread's tree. */
static void count(tctx *c, const tfmt_tview *v)
{
    memset(c->self, 0, c->nfn * sizeof *c->self);
    memset(c->cum, 0, c->nfn * sizeof *c->cum);
    tfmt_pwalk w;
    tfmt__pwalk_sub(&w, v->nodes, v->tree, v->root);
    uint32_t node;
    int dir;
    while ((dir = tfmt__pwalk_next(&w, &node)) != 0) {
        if (node == v->root)
            continue;
        uint32_t f = c->ffn[v->nodes[node].frame];
        if (dir < 0) {
            c->active[f]--;
            continue;
        }
        if (c->active[f]++ == 0)
            c->cum[f] += v->tree->total[node];
        c->self[f] += tfmt__tview_self(v, node);
    }
}

static int row_cmp(const void *va, const void *vb)
{
    const trow *a = va, *b = vb;
    if (a->self != b->self)
        return a->self > b->self ? -1 : 1;
    if (a->cum != b->cum)
        return a->cum > b->cum ? -1 : 1;
    return a->f < b->f ? -1 : a->f > b->f; /* ids are in content order */
}

int tfmt__top_row(tfmt_buf *out, const tfmt_profile *p, const tfmt_frame *names,
                  uint64_t self, uint64_t cum, uint64_t total)
{
    tfmt_str fn = tfmt__profile_str(p, names->funcname);
    tfmt_str file = tfmt__profile_str(p, names->filename);
    double d = total ? 100.0 * (double)self / (double)total : 0;
    double k = total ? 100.0 * (double)cum / (double)total : 0;
    /* names as inert text: a newline or an escape sequence in a name
     * neither forges a row nor reaches the terminal */
    int rc =
        tfmt__buf_printf(out, "%6.1f%% %10llu %6.1f%% %10llu  ", d,
                         (unsigned long long)self, k, (unsigned long long)cum);
    if (rc == TFMT_OK)
        rc = tfmt__text_put(out, fn.ptr, fn.len, TFMT_TEXT_PLAIN);
    if (rc == TFMT_OK)
        rc = tfmt__buf_puts(out, "  ");
    if (rc == TFMT_OK)
        rc = tfmt__text_put(out, file.ptr, file.len, TFMT_TEXT_PLAIN);
    return rc == TFMT_OK ? tfmt__buf_putc(out, '\n') : rc;
}

static int put_row(tctx *c, uint32_t f, uint64_t total)
{
    return tfmt__top_row(&c->out, c->p, &c->p->frames[c->fn_frame[f]],
                         c->self[f], c->cum[f], total);
}

static int put_table(tctx *c, uint64_t total, uint32_t limit)
{
    uint32_t n = 0;
    for (uint32_t f = 0; f < c->nfn; f++) {
        if (c->cum[f] > 0) {
            c->rows[n].self = c->self[f];
            c->rows[n].cum = c->cum[f];
            c->rows[n++].f = f;
        }
    }
    qsort(c->rows, n, sizeof *c->rows, row_cmp);
    int rc = tfmt__buf_puts(&c->out, TFMT_TOP_COLUMNS);
    for (uint32_t i = 0; i < n && i < limit && rc == TFMT_OK; i++)
        rc = put_row(c, c->rows[i].f, total);
    if (rc == TFMT_OK && n > limit)
        rc = tfmt__buf_printf(&c->out, "(%u more functions)\n", n - limit);
    return rc;
}

/*
 * "N samples, T threads, interval I us", and a line on the samples of
 * JSONL exports, which have no threads and no stacks.
 */
int tfmt__top_header(tfmt_buf *out, const tfmt_profile *p)
{
    int rc = tfmt__buf_printf(out,
                              "%llu sample%s, %zu thread%s, "
                              "interval %llu us\n",
                              (unsigned long long)p->samples_total,
                              p->samples_total == 1 ? "" : "s", p->nthreads,
                              p->nthreads == 1 ? "" : "s",
                              (unsigned long long)p->interval_us);
    if (rc == TFMT_OK && p->agg_inputs)
        rc = tfmt__buf_printf(out,
                              "%llu of them from JSONL exports, "
                              "without threads or stacks: their cumulative "
                              "counts are sums over each function's lines, "
                              "so recursion counts more than once\n",
                              (unsigned long long)p->agg_samples);
    return rc;
}

static int put_all(tctx *c, const tfmt_export_options *o, tfmt_text_flush flush,
                   void *ctx)
{
    const tfmt_profile *p = c->p;
    uint32_t limit = o && o->top_n ? o->top_n : 20;
    uint64_t total = p->samples_total;
    int rc = tfmt__top_header(&c->out, p);
    uint64_t *self = tfmt__calloc(p->alloc, c->nfn + 1, sizeof *self);
    uint64_t *cum = tfmt__calloc(p->alloc, c->nfn + 1, sizeof *cum);
    if (!self || !cum)
        rc = TFMT_ENOMEM;
    for (size_t t = 0; t < p->nthreads && rc == TFMT_OK; t++) {
        uint32_t id = c->o.threads[t];
        if (!tfmt__profile_owns_root(p, id))
            continue; /* a shared tree is counted once */
        tfmt_tview whole = {p->nodes, NULL, &c->o.tree, p->threads[id].root,
                            id};
        count(c, &whole);
        for (uint32_t f = 0; f < c->nfn; f++) {
            self[f] += c->self[f];
            cum[f] += c->cum[f];
        }
    }
    if (rc == TFMT_OK)
        rc = tfmt__xadd_exports(p, c->ffn, c->nfn, self, cum);
    if (rc == TFMT_OK) {
        memcpy(c->self, self, c->nfn * sizeof *self);
        memcpy(c->cum, cum, c->nfn * sizeof *cum);
        rc = put_table(c, total, limit);
    }
    tfmt__free(p->alloc, self);
    tfmt__free(p->alloc, cum);
    for (size_t t = 0; o && o->per_thread && t < p->nthreads && !rc; t++) {
        const tfmt_pthread *th = &p->threads[c->o.threads[t]];
        tfmt_tview v;
        if (tfmt__tviews_get(&c->vs, c->o.threads[t], &v) != TFMT_OK)
            return TFMT_ENOMEM;
        rc = tfmt__buf_printf(&c->out,
                              "\nthread %llu (interpreter %u): "
                              "%llu samples\n",
                              (unsigned long long)th->thread_id,
                              th->interpreter_id,
                              (unsigned long long)th->samples);
        count(c, &v);
        if (rc == TFMT_OK)
            rc = put_table(c, th->samples, limit);
        if (rc == TFMT_OK && flush)
            rc = flush(ctx, &c->out);
    }
    return rc;
}

int tfmt__top_text(tfmt_profile *p, const tfmt_export_options *opts,
                   tfmt_buf *out, tfmt_text_flush flush, void *ctx)
{
    if (opts && opts->per_thread && tfmt__xneed_views(p) != TFMT_OK)
        return TFMT_EINVAL;
    if (p->nnodes == 0 && !(opts && opts->per_thread)) {
        int rc =
            tfmt__top_direct(p, opts && opts->top_n ? opts->top_n : 20, out);
        if (rc != 1)
            return rc;
    }
    return tfmt__top_walk(p, opts, out, flush, ctx);
}

int tfmt__top_walk(tfmt_profile *p, const tfmt_export_options *opts,
                   tfmt_buf *out, tfmt_text_flush flush, void *ctx)
{
    tctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.out = *out;
    size_t n = p->nframes ? p->nframes : 1;
    int rc = tfmt__xorder_build(p, &c.o);
    c.ffn = tfmt__malloc(p->alloc, n * sizeof *c.ffn);
    c.fn_frame = tfmt__malloc(p->alloc, n * sizeof *c.fn_frame);
    c.self = tfmt__malloc(p->alloc, n * sizeof *c.self);
    c.cum = tfmt__malloc(p->alloc, n * sizeof *c.cum);
    c.active = tfmt__calloc(p->alloc, n, sizeof *c.active);
    c.rows = tfmt__malloc(p->alloc, n * sizeof *c.rows);
    if (rc == TFMT_OK &&
        (!c.ffn || !c.fn_frame || !c.self || !c.cum || !c.active || !c.rows))
        rc = TFMT_ENOMEM;
    if (rc == TFMT_OK && opts && opts->per_thread)
        rc = tfmt__tviews_init(&c.vs, p, &c.o);
    if (rc == TFMT_OK) {
        number_functions(&c);
        rc = put_all(&c, opts, flush, ctx);
    }
    void *v[] = {c.ffn, c.fn_frame, c.self, c.cum, c.active, c.rows};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        tfmt__free(p->alloc, v[i]);
    *out = c.out;
    tfmt__tviews_free(&c.vs);
    tfmt__xorder_free(p, &c.o);
    return rc;
}

typedef struct top_sink {
    tfmt_profile *p;
    tfmt_sink *sink;
} top_sink;

static int flush_text(void *ctx, tfmt_buf *text)
{
    top_sink *t = ctx;
    return tfmt__xflush(t->p, text, t->sink, false);
}

int tfmt_profile_write_top(tfmt_profile *p, tfmt_sink *sink,
                           const tfmt_export_options *opts)
{
    tfmt_buf out;
    tfmt__buf_init(&out, p->alloc);
    top_sink ts = {p, sink};
    int rc = tfmt__top_text(p, opts, &out, flush_text, &ts);
    if (rc == TFMT_OK)
        rc = tfmt__xflush(p, &out, sink, true);
    else if (rc == TFMT_ENOMEM)
        rc = tfmt__xfail(p, rc, NULL);
    tfmt__buf_free(&out);
    return rc;
}
