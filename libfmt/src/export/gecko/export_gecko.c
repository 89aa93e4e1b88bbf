/* SPDX-License-Identifier: MIT */
/*
 * export_gecko.c - replay binary logs into CPython's GeckoCollector model.
 *
 * Each batch the reader delivers is one collect() call of CPython's replay
 * (one thread, one status, `weight` timestamps), or the rest of the
 * previous one (tfmt_sample.continued: a long REPEAT run the reader cut). Times
 * are milliseconds after the first replayed timestamp. Threads are keyed on the
 * thread id alone, in first-seen order; per thread, functions are keyed on
 * (file, function), frames on (function, line, column or None), stacks on
 * (frame, prefix), each numbered in creation order (made when the thread is
 * written, export_gecko_tables.c), and the global string array grows in
 * CPython's interning order. Reader frames are interned into a
 * private profile ("tab"), which also applies the profile filters.
 */
#include <errno.h>
#include <time.h>

#include "export_gecko.h"

int tfmt__gecko_nomem(tfmt_gecko *g)
{
    return tfmt__error(&g->err, TFMT_ENOMEM, "out of memory");
}

typedef struct skey {
    const char *s;
    size_t len;
} skey;

static bool str_eq(const void *ctx, uint32_t id, const void *key)
{
    const tfmt_gecko *g = ctx;
    const skey *k = key;
    return g->strs[id].len == k->len &&
           memcmp(g->strbuf.data + g->strs[id].off, k->s, k->len) == 0;
}

int tfmt__gecko_string(tfmt_gecko *g, const char *s, size_t len, uint32_t *out)
{
    skey k = {s, len};
    uint64_t h = tfmt__hash_text(s, len, 0x6765636b6fULL);
    uint32_t id = tfmt__idset_find(&g->str_set, h, &k, str_eq, g);
    if (id == TFMT_NO_ID) {
        if (tfmt__grow(g->alloc, (void **)&g->strs, &g->capstrs, g->nstrs + 1,
                       sizeof *g->strs) != TFMT_OK)
            return tfmt__gecko_nomem(g);
        id = (uint32_t)g->nstrs;
        g->strs[id].off = g->strbuf.len;
        g->strs[id].len = (uint32_t)len;
        if (tfmt__buf_put(&g->strbuf, s, len) != TFMT_OK ||
            tfmt__idset_insert(&g->str_set, h, id) != TFMT_OK)
            return tfmt__gecko_nomem(g);
        g->nstrs++;
    }
    *out = id;
    return TFMT_OK;
}

int tfmt_gecko_new(tfmt_gecko **out, const tfmt_profile_options *filter)
{
    const tfmt_allocator *a = filter ? filter->alloc : NULL;
    *out = NULL;
    tfmt_gecko *g = tfmt__calloc(a, 1, sizeof *g);
    if (!g)
        return TFMT_ENOMEM;
    g->alloc = a;
    tfmt__buf_init(&g->strbuf, a);
    tfmt__idset_init(&g->str_set, a);
    tfmt__idset_init(&g->thread_set, a);
    tfmt__idset_init(&g->node_set, a);
    g->spool.alloc = a;
    tfmt__buf_init(&g->spool.rd, a);
    g->interval = 1.0;
    g->opcodes = -1;
    g->root_child_frame = TFMT_NO_ID;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    g->start_ms = ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9) * 1000.0;
    uint32_t root;
    int rc = tfmt_profile_new(&g->tab, filter);
    if (rc == TFMT_OK)
        rc = tfmt__gecko_string(g, "(root)", 6, &root);
    if (rc != TFMT_OK) {
        tfmt_gecko_free(g);
        return TFMT_ENOMEM;
    }
    *out = g;
    return TFMT_OK;
}

static void thread_free(const tfmt_allocator *a, gthread *t)
{
    tfmt__free(a, t->last_tab);
    tfmt__free(a, t->last_stack);
    tfmt__sstream_free(a, &t->samples);
    tfmt__sstream_free(a, &t->markers);
    tfmt__gecko_view_free(a, t);
}

void tfmt_gecko_free(tfmt_gecko *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->nthreads; i++) {
        thread_free(g->alloc, g->threads[i]);
        tfmt__free(g->alloc, g->threads[i]);
    }
    tfmt__free(g->alloc, g->threads);
    tfmt__idset_free(&g->thread_set);
    tfmt__free(g->alloc, g->strs);
    tfmt__buf_free(&g->strbuf);
    tfmt__idset_free(&g->str_set);
    tfmt__spool_free(&g->spool);
    tfmt__free(g->alloc, g->stackbuf);
    tfmt__free(g->alloc, g->gc);
    tfmt__gecko_tree_free(g);
    tfmt_profile_free(g->tab);
    tfmt__free(g->alloc, g);
}

void tfmt_gecko_filter_report(const tfmt_gecko *g, tfmt_filter_report *out)
{
    tfmt_profile_filter_report(g->tab, out);
    out->kept = g->kept;
}

const tfmt_error *tfmt_gecko_error(const tfmt_gecko *g)
{
    return &g->err;
}

/* The thread `tid` (created at first sight): its index in g->threads. */
static int get_thread(tfmt_gecko *g, uint64_t tid, bool main, uint32_t *index)
{
    uint64_t h = tfmt__hash_key(tid);
    uint32_t id = tfmt__idset_find_key(&g->thread_set, h);
    if (id == TFMT_NO_ID) {
        if (tfmt__grow(g->alloc, (void **)&g->threads, &g->capthreads,
                       g->nthreads + 1, sizeof *g->threads) != TFMT_OK)
            return tfmt__gecko_nomem(g);
        id = (uint32_t)g->nthreads;
        gthread *t = tfmt__calloc(g->alloc, 1, sizeof *t);
        if (!t)
            return tfmt__gecko_nomem(g);
        g->threads[id] = t;
        t->tid = tid;
        t->main = main;
        g->nthreads++;
        if (tfmt__idset_insert(&g->thread_set, h, id) != TFMT_OK)
            return tfmt__gecko_nomem(g);
    }
    *index = id;
    return TFMT_OK;
}

/* ---- one input ---- */

typedef struct gin {
    tfmt_gecko *g;
    tfmt_pimport pi; /* reader tables -> tab ids, filters */
    gmapper mapper;
    uint32_t *tmap; /* reader thread index -> thread */
    size_t captmap;
} gin;

/* The thread of a batch, found by the reader's dense thread index. */
static int batch_thread(gin *c, const tfmt_sample *s, gthread **out)
{
    tfmt_gecko *g = c->g;
    uint32_t i = s->thread_index;
    if (i < c->captmap && c->tmap[i] != TFMT_NO_ID) {
        *out = g->threads[c->tmap[i]];
        return TFMT_OK;
    }
    if (i >= c->captmap) {
        size_t old = c->captmap;
        if (tfmt__grow(g->alloc, (void **)&c->tmap, &c->captmap, (size_t)i + 1,
                       sizeof *c->tmap) != TFMT_OK)
            return tfmt__gecko_nomem(g);
        memset(c->tmap + old, 0xff, (c->captmap - old) * sizeof *c->tmap);
    }
    uint32_t id = TFMT_NO_ID;
    int rc =
        get_thread(g, s->thread_id, s->status & TFMT_STATUS_MAIN_THREAD, &id);
    if (rc != TFMT_OK)
        return rc;
    c->tmap[i] = id;
    *out = g->threads[id];
    return TFMT_OK;
}

static int map_cb(void *ctx, uint32_t idx, uint32_t *out)
{
    return tfmt__import_frame(&((gin *)ctx)->pi.im, idx, out);
}

/* Any "<GC>" frame among stack[0..depth); -1: out of memory. */
static int has_gc(tfmt_gecko *g, const uint32_t *stack, uint32_t depth)
{
    for (uint32_t i = 0; i < depth; i++) {
        int gc = tfmt__gecko_is_gc(g, stack[i]);
        if (gc != 0)
            return gc;
    }
    return 0;
}

/* The filtered copy of the thread's view; *depth 0 when dropped. */
static int filtered(gin *c, gthread *t, uint32_t *depth)
{
    tfmt_gecko *g = c->g;
    if (*depth > g->capstackbuf &&
        tfmt__grow(g->alloc, (void **)&g->stackbuf, &g->capstackbuf, *depth,
                   sizeof *g->stackbuf) != TFMT_OK)
        return tfmt__gecko_nomem(g);
    if (*depth)
        memcpy(g->stackbuf, t->view, *depth * sizeof *g->stackbuf);
    bool keep = true;
    int rc = tfmt__pfilter_stack(c->pi.filter, g->stackbuf, depth, &keep);
    if (rc != TFMT_OK)
        return rc;
    if (!keep)
        *depth = 0;
    return TFMT_OK;
}

/*
 * The sample's stack as tab frames: the thread's view, or its filtered
 * copy; *depth 0 when dropped; *hint how many outermost frames are known
 * to equal the thread's last stack; *gc whether a frame is "<GC>".
 */
static int tab_stack(gin *c, gthread *t, const tfmt_sample *s,
                     const uint32_t **stack, uint32_t *depth, uint32_t *hint,
                     int *gc)
{
    uint32_t u = 0;
    int rc = tfmt__gecko_view(c->g, t, s, &c->mapper, &u);
    *depth = s->depth;
    if (rc != TFMT_OK)
        return rc;
    if (!tfmt__pfilter_stacks(c->pi.filter)) {
        *stack = t->view;
        *hint = t->last_is_view ? u : 0;
        *gc = t->view_gc != UINT32_MAX;
        return TFMT_OK;
    }
    *hint = 0;
    rc = filtered(c, t, depth);
    *stack = c->g->stackbuf; /* after filtered() grew it */
    *gc = rc == TFMT_OK ? has_gc(c->g, c->g->stackbuf, *depth) : 0;
    if (*gc < 0)
        rc = tfmt__gecko_nomem(c->g);
    return rc;
}

/*
 * A stack at the 256-frame cap, when the options mark it: a copy in
 * stackbuf after the "<truncated>" frame (fmt_profile.h).
 */
static int mark_truncated(gin *c, const tfmt_sample *s, const uint32_t **stack,
                          uint32_t *depth, uint32_t *hint)
{
    tfmt_gecko *g = c->g;
    if (*depth == 0 || !tfmt__profile_truncated(g->tab, s->depth))
        return TFMT_OK;
    if ((size_t)*depth + 1 > g->capstackbuf) {
        /* *stack may be stackbuf itself: keep its offset */
        bool own = *stack == g->stackbuf;
        if (tfmt__grow(g->alloc, (void **)&g->stackbuf, &g->capstackbuf,
                       (size_t)*depth + 1, sizeof *g->stackbuf) != TFMT_OK)
            return tfmt__gecko_nomem(g);
        if (own)
            *stack = g->stackbuf;
    }
    memmove(g->stackbuf + 1, *stack, *depth * sizeof *g->stackbuf);
    int rc = tfmt__profile_trunc_frame(g->tab, &g->stackbuf[0]);
    *stack = g->stackbuf;
    ++*depth;
    *hint = 0;
    return rc;
}

static int append_samples(tfmt_gecko *g, gthread *t, const tfmt_sample *s,
                          uint32_t stack)
{
    for (uint32_t i = 0; i < s->weight; i++) {
        gsample rec = {stack, s->timestamps[i]};
        uint8_t *in = tfmt__spool_room(&g->spool, &t->samples, G_SAMPLE_MAX);
        if (in) {
            tfmt__spool_commit(&t->samples,
                               gsample_encode(in, &rec, &t->samples.prev));
            continue;
        }
        uint8_t buf[G_SAMPLE_MAX];
        size_t n = gsample_encode(buf, &rec, &t->samples.prev);
        int rc = tfmt__spool_append(&g->spool, &t->samples, buf, n);
        if (rc == TFMT_EIO)
            return tfmt__error_errno(&g->err, errno, "gecko spool");
        if (rc != TFMT_OK)
            return tfmt__gecko_nomem(g);
    }
    return TFMT_OK;
}

static bool thread_kept(const tfmt_profile_options *o, uint64_t tid)
{
    for (size_t i = 0; i < o->nthread_ids; i++)
        if (o->thread_ids[i] == tid)
            return true;
    return o->nthread_ids == 0;
}

/*
 * What collect() does with its times: base and last time, and the
 * interval it would compute, kept as timestamps and divided at the end
 * (tfmt_gecko_write), since only the last one counts. A continued batch
 * is the rest of the same call: the interval is computed again from what
 * the call started with, now with the call's last time.
 */
static void note_times(tfmt_gecko *g, const tfmt_sample *s)
{
    if (!g->have_base) {
        g->have_base = true;
        g->base_us = s->timestamps[0];
    }
    if (!s->continued) {
        g->call_last_ts = g->last_ts;
        g->call_count = g->sample_count;
    }
    uint64_t last = s->timestamps[s->weight - 1];
    if (g->call_count > 0 &&
        (__int128)g->call_last_ts - (__int128)g->base_us > 0) {
        g->iv_set = true;
        g->iv_ts = last;
        g->iv_prev_ts = g->call_last_ts;
        g->iv_count = g->call_count;
    }
    g->last_ts = last;
}

/* GeckoCollector.collect() for one batch. */
static int collect(void *ctx, const tfmt_sample *s)
{
    gin *c = ctx;
    tfmt_gecko *g = c->g;
    const tfmt_profile_options *o = &g->tab->opts;
    if (s->weight == 0)
        return TFMT_OK; /* an empty REPEAT: no collect() call */
    tfmt__pfilter_saw(g->tab, s->thread_id, s->status, s->depth, s->weight);
    if (!thread_kept(o, s->thread_id))
        return TFMT_OK; /* another thread: as if not in the input */
    note_times(g, s);
    gthread *t = NULL;
    int rc = batch_thread(c, s, &t);
    const uint32_t *stack = NULL;
    uint32_t depth = 0, hint = 0;
    int gc = 0;
    if (rc == TFMT_OK)
        rc = tab_stack(c, t, s, &stack, &depth, &hint, &gc);
    if (rc == TFMT_OK)
        rc = mark_truncated(c, s, &stack, &depth, &hint);
    if (rc == TFMT_OK && !s->continued) /* no new call, no transition */
        rc = tfmt__gecko_track(g, t, s->status, gc == 1, s->timestamps[0]);
    bool counted = tfmt__pfilter_sample(o, s->thread_id, s->status);
    if (counted && s->depth > 0)
        tfmt__pfilter_passed(g->tab, s->weight);
    if (rc == TFMT_OK && counted && depth > 0) {
        uint32_t id;
        rc = tfmt__gecko_stack(g, t, stack, depth, hint, &id);
        if (rc == TFMT_OK)
            rc = append_samples(g, t, s, id);
        if (rc == TFMT_OK)
            rc = tfmt__gecko_opcode_track(g, t, stack[depth - 1],
                                          s->timestamps[0]);
        t->last_is_view = stack == t->view;
        g->kept += s->weight;
    } else if (t) {
        t->last_is_view = false; /* the view moved on without it */
    }
    g->sample_count += s->weight;
    return rc;
}

/*
 * Replay one input. The tab profile interns frames and applies the
 * filters, so its failures (and the reader's, which the import copies to
 * the tab) are recorded there: the timeline copies them, as the handle
 * the caller called.
 */
int tfmt_gecko_add_bin(tfmt_gecko *g, tfmt_bin_reader *r)
{
    gin c = {.g = g, .mapper = {map_cb, NULL, ++g->ninputs}};
    c.mapper.ctx = &c;
    const tfmt_info *info = tfmt_bin_info(r);
    g->in_major = info->python_version[0];
    g->in_minor = info->python_version[1];
    if (g->opcodes < 0) /* the first input decides, as the collector's flag */
        g->opcodes = info->capture_features >= 0 &&
                     (info->capture_features & TFMT_CAPTURE_OPCODES);
    tfmt__error_clear(&g->err);
    tfmt__error_clear(&g->tab->err);
    int rc = tfmt__profile_import_open(&c.pi, g->tab, r);
    if (rc == TFMT_OK)
        rc = tfmt__import_samples(&c.pi.im, collect, &c);
    if (rc < 0 && g->err.code == 0)
        g->err = g->tab->err;
    tfmt__profile_import_close(&c.pi);
    tfmt__free(g->alloc, c.tmap);
    return rc;
}
