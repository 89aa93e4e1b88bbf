/* SPDX-License-Identifier: MIT */
/*
 * export_speedscope.c - speedscope's file format (file-format-schema.json):
 * a shared frame table and one "sampled" profile per thread.
 *
 * speedscope keys frames by their index in shared.frames, so frames that
 * differ only in columns or opcode are merged into one (file, function,
 * line) entry; in content order such frames are adjacent.
 *
 * With a timeline (tfmt_profile_options.timeline, what tachyon-conv
 * asks for), each thread's samples come in time order, one sample per
 * run of one call path, weighted by the time the run lasted (fmt_profile.h
 * says how); samples the profile did not count keep their time as an
 * empty stack. speedscope's Time Order then shows what ran when, and
 * Left Heavy and Sandwich add the same weights up.
 *
 * Without one, each call path with self weight is one sample, weighted in
 * microseconds (count x interval), in a depth-first walk of the tree in
 * content order: bounded by unique stacks and independent of input order.
 */
#include "export_internal.h"

typedef struct sctx {
    tfmt_profile *p;
    tfmt_sink *sink;
    tfmt_xorder o;
    tfmt_tviews vs;   /* without a timeline */
    uint32_t *sframe; /* profile frame -> speedscope frame */
    uint32_t *path;   /* speedscope frames of the walk, root first */
    size_t cappath;
    tfmt_buf out;
} sctx;

static bool same_key(const tfmt_profile *p, const tfmt_frame *a,
                     const tfmt_frame *b)
{
    return a->lineno == b->lineno &&
           tfmt__pstr_cmp(p, a->filename, b->filename) == 0 &&
           tfmt__pstr_cmp(p, a->funcname, b->funcname) == 0;
}

static int put_frame(sctx *c, const tfmt_frame *f, bool first)
{
    tfmt_buf *b = &c->out;
    tfmt_str fn = tfmt__profile_str(c->p, f->funcname);
    tfmt_str file = tfmt__profile_str(c->p, f->filename);
    int rc = tfmt__buf_puts(b, first ? "{\"name\":" : ",{\"name\":");
    rc |= tfmt__json_put_string(b, fn.ptr, fn.len);
    /* Synthetic frames (<GC>, <native>) live in file "~": no file. */
    if (!(file.len == 1 && *file.ptr == '~')) {
        rc |= tfmt__buf_puts(b, ",\"file\":");
        rc |= tfmt__json_put_string(b, file.ptr, file.len);
        if (f->lineno > 0)
            rc |= tfmt__buf_printf(b, ",\"line\":%d", (int)f->lineno);
    }
    return rc | tfmt__buf_putc(b, '}');
}

static int put_frames(sctx *c)
{
    const tfmt_profile *p = c->p;
    size_t n = p->nframes ? p->nframes : 1;
    c->sframe = tfmt__malloc(p->alloc, n * sizeof *c->sframe);
    if (!c->sframe)
        return TFMT_ENOMEM;
    int rc = tfmt__buf_puts(&c->out, "\"shared\":{\"frames\":[");
    uint32_t next = 0;
    const tfmt_frame *prev = NULL;
    for (size_t r = 0; r < c->o.nused && rc == TFMT_OK; r++) {
        const tfmt_frame *f = &p->frames[c->o.frame_by_rank[r]];
        if (!prev || !same_key(p, prev, f)) {
            rc = put_frame(c, f, prev == NULL);
            next++;
        }
        c->sframe[c->o.frame_by_rank[r]] = next - 1;
        prev = f;
    }
    return rc | tfmt__buf_puts(&c->out, "]},");
}

static int push(sctx *c, uint32_t depth, uint32_t frame)
{
    if (depth + 1 > c->cappath &&
        tfmt__grow(c->p->alloc, (void **)&c->path, &c->cappath, depth + 1,
                   sizeof *c->path) != TFMT_OK)
        return TFMT_ENOMEM;
    c->path[depth] = frame;
    return TFMT_OK;
}

/* Samples (paths) of one thread's tree, or their weights. */
static int put_samples(sctx *c, const tfmt_tview *v, bool weights)
{
    tfmt_pwalk w;
    tfmt__pwalk_sub(&w, v->nodes, v->tree, v->root);
    uint32_t node, depth = 0;
    bool first = true;
    int dir, rc = TFMT_OK;
    while (rc == TFMT_OK && (dir = tfmt__pwalk_next(&w, &node)) != 0) {
        if (node == v->root)
            continue;
        if (dir < 0) {
            depth--;
            continue;
        }
        if (push(c, depth++, c->sframe[v->nodes[node].frame]) != TFMT_OK)
            return TFMT_ENOMEM;
        uint64_t self = tfmt__tview_self(v, node);
        if (self == 0)
            continue;
        rc = tfmt__buf_puts(&c->out, first ? "" : ",");
        first = false;
        if (weights) {
            rc |= tfmt__buf_put_u64(&c->out, self * c->p->interval_us);
        } else {
            rc |= tfmt__buf_putc(&c->out, '[');
            for (uint32_t i = 0; i < depth; i++)
                rc |= tfmt__buf_printf(&c->out, i ? ",%u" : "%u", c->path[i]);
            rc |= tfmt__buf_putc(&c->out, ']');
        }
        if (rc == TFMT_OK)
            rc = tfmt__xflush(c->p, &c->out, c->sink, false);
    }
    return rc;
}

/* One run of a timeline: its stack (root first) or its weight. */
typedef struct runctx {
    sctx *c;
    bool weights, first;
} runctx;

static int put_run(void *ctx, uint32_t node, uint64_t weight)
{
    runctx *r = ctx;
    sctx *c = r->c;
    const tfmt_profile *p = c->p;
    tfmt_buf *b = &c->out;
    uint32_t depth = node == TFMT_NO_ID ? 0 : p->nodes[node].depth;
    /* a separator, "[", up to 11 bytes an index, "]" (or a weight) */
    if (tfmt__buf_reserve(b, (size_t)depth * 11 + 24) != TFMT_OK)
        return TFMT_ENOMEM;
    char *o = b->data + b->len;
    if (!r->first)
        *o++ = ',';
    r->first = false;
    if (r->weights) {
        o = tfmt__put_uint(o, weight);
    } else {
        /* the path, written leaf first from its end, root first */
        char *end = o + (size_t)depth * 11 + 2;
        char *q = end;
        *--q = ']';
        for (uint32_t i = 0; i < depth; i++, node = p->nodes[node].parent) {
            char num[12];
            char *e = tfmt__put_uint(num, c->sframe[p->nodes[node].frame]);
            size_t n = (size_t)(e - num);
            if (i)
                *--q = ',';
            q -= n;
            memcpy(q, num, n);
        }
        *o++ = '[';
        size_t n = (size_t)(end - q);
        memmove(o, q, n);
        o += n;
    }
    b->len = (size_t)(o - b->data);
    return tfmt__xflush(c->p, b, c->sink, false);
}

static int put_timeline(sctx *c, uint32_t t, bool weights)
{
    runctx r = {c, weights, true};
    int rc = tfmt__profile_tl_each(c->p, t, put_run, &r);
    if (rc == TFMT_EIO)
        return tfmt__error(&c->p->err, TFMT_EIO, "timeline spool: read failed");
    return rc;
}

static int put_profile(sctx *c, uint32_t t, bool first)
{
    const tfmt_pthread *th = &c->p->threads[t];
    bool tl = c->p->opts.timeline;
    uint64_t end = tl ? th->tl_weight : th->samples * c->p->interval_us;
    int rc = tfmt__buf_printf(
        &c->out,
        "%s{\"type\":\"sampled\",\"name\":\"Thread %llu (interpreter %u)\","
        "\"unit\":\"microseconds\",\"startValue\":0,\"endValue\":%llu,"
        "\"samples\":[",
        first ? "" : ",", (unsigned long long)th->thread_id, th->interpreter_id,
        (unsigned long long)end);
    /* without a timeline: the thread's tree, built once for both */
    tfmt_tview v;
    if (rc == TFMT_OK && !tl)
        rc = tfmt__tviews_get(&c->vs, t, &v);
    if (rc == TFMT_OK)
        rc = tl ? put_timeline(c, t, false) : put_samples(c, &v, false);
    if (rc == TFMT_OK)
        rc = tfmt__buf_puts(&c->out, "],\"weights\":[");
    if (rc == TFMT_OK)
        rc = tl ? put_timeline(c, t, true) : put_samples(c, &v, true);
    return rc ? rc : tfmt__buf_puts(&c->out, "]}");
}

static int write_all(sctx *c)
{
    int rc = tfmt__buf_puts(
        &c->out,
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",");
    if (rc == TFMT_OK)
        rc = put_frames(c);
    if (rc == TFMT_OK)
        rc = tfmt__buf_puts(&c->out, "\"profiles\":[");
    bool first = true;
    for (size_t i = 0; i < c->p->nthreads && rc == TFMT_OK; i++) {
        uint32_t t = c->o.threads[i];
        if (c->p->threads[t].samples == 0)
            continue;
        rc = put_profile(c, t, first);
        first = false;
    }
    if (rc == TFMT_OK)
        rc = tfmt__buf_puts(&c->out, "],\"name\":\"tachyon profile\","
                                     "\"activeProfileIndex\":0,"
                                     "\"exporter\":\"tachyon-conv\"}\n");
    return rc;
}

int tfmt_profile_write_speedscope(tfmt_profile *p, tfmt_sink *sink,
                                  const tfmt_export_options *opts)
{
    /* A timeline names each run's call path by its leaf, whose frames are
     * the same in a tree shared by all threads: only the walk of the
     * tree needs one per thread. */
    if (tfmt__xneed_stacks(p) != TFMT_OK ||
        (!p->opts.timeline && tfmt__xneed_views(p) != TFMT_OK))
        return TFMT_EINVAL;
    (void)opts;
    sctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.sink = sink;
    tfmt__buf_init(&c.out, p->alloc);
    int rc = tfmt__xorder_build(p, &c.o);
    if (rc == TFMT_OK && !p->opts.timeline)
        rc = tfmt__tviews_init(&c.vs, p, &c.o);
    if (rc == TFMT_OK)
        rc = write_all(&c);
    if (rc == TFMT_ENOMEM)
        rc = tfmt__xfail(p, rc, NULL);
    else if (rc == TFMT_OK)
        rc = tfmt__xflush(p, &c.out, sink, true);
    tfmt__buf_free(&c.out);
    tfmt__free(p->alloc, c.sframe);
    tfmt__free(p->alloc, c.path);
    tfmt__tviews_free(&c.vs);
    tfmt__xorder_free(p, &c.o);
    return rc;
}
