/* SPDX-License-Identifier: MIT */
/*
 * profile_bin.c - stream a binary log's samples into a profile.
 *
 * Work per sample is proportional to the frames that changed, not to the
 * depth: each reader thread keeps the node path of its last counted stack,
 * and the reader says how many outermost frames a sample shares with the
 * thread's previous one. Reader frame and string indices are mapped to
 * profile ids lazily, the first time a counted sample shows them, so the
 * profile's frame order is CPython's collectors' id order.
 */
#include "profile_internal.h"
#include "profile_filter.h"

/* Per reader thread (indexed by tfmt_sample.thread_index). */
typedef struct tstate {
    uint32_t thread; /* profile thread; TFMT_NO_ID until counted */
    uint32_t valid;  /* outermost path entries that still equal the
                        reader's previous stack of this thread */
    bool trunc;      /* the path starts with the "<truncated>" node */
    size_t cap;
    uint32_t *path; /* node ids of the last counted stack, root first
                       (after the "<truncated>" node when trunc) */
} tstate;

typedef struct binctx {
    tfmt_pimport pi; /* reader tables -> profile ids, filters */
    tfmt_profile *p;
    tstate *ts;
    size_t nts, capts;
} binctx;

static int nomem(tfmt_profile *p)
{
    return tfmt__error(&p->err, TFMT_ENOMEM, "out of memory");
}

static void ctx_free(binctx *c)
{
    for (size_t i = 0; i < c->nts; i++)
        tfmt__free(c->p->alloc, c->ts[i].path);
    tfmt__free(c->p->alloc, c->ts);
    tfmt__profile_import_close(&c->pi);
}

/*
 * The first input sets the profile's interval, mode, statistics and Python
 * version; a later log of another Python minor version is noted (its
 * opcode bytes are numbered differently).
 */
static void take_info(tfmt_profile *p, const tfmt_info *info)
{
    if (p->have_input) {
        if (p->python_version[0] &&
            memcmp(p->python_version, info->python_version, 2) != 0)
            p->python_mixed = true;
        return;
    }
    p->have_input = true;
    memcpy(p->python_version, info->python_version, 3);
    p->interval_us = info->sample_interval_us;
    p->mode = info->mode;
    p->stats = info->stats;
    p->start_time_us = info->start_time_us;
}

static int get_state(binctx *c, uint32_t index, tstate **out)
{
    /* Indices are dense in order of appearance, but a thread whose only
     * record was an empty REPEAT delivered nothing: fill such gaps. The
     * index counts threads the reader met, so it is bounded by its input. */
    if (index >= c->nts) {
        if (tfmt__grow(c->p->alloc, (void **)&c->ts, &c->capts,
                       (size_t)index + 1, sizeof *c->ts) != TFMT_OK)
            return nomem(c->p);
        for (size_t i = c->nts; i <= index; i++) {
            memset(&c->ts[i], 0, sizeof *c->ts);
            c->ts[i].thread = TFMT_NO_ID;
        }
        c->nts = (size_t)index + 1;
    }
    *out = &c->ts[index];
    return TFMT_OK;
}

static bool counted(tfmt_profile *p, const tfmt_sample *s)
{
    if (s->weight == 0)
        return false;
    tfmt__pfilter_saw(p, s->thread_id, s->status, s->depth, s->weight);
    if (s->depth == 0 ||
        !tfmt__pfilter_sample(&p->opts, s->thread_id, s->status))
        return false;
    tfmt__pfilter_passed(p, s->weight);
    return true;
}

/* Map the frames at [k, depth) to profile ids, innermost first. */
static int map_frames(binctx *c, const tfmt_sample *s, uint32_t k)
{
    for (uint32_t i = s->depth; i-- > k;) {
        uint32_t id;
        int rc = tfmt__import_frame(&c->pi.im, s->stack[i], &id);
        if (rc != TFMT_OK)
            return rc;
    }
    return TFMT_OK;
}

/* Room in t's path for a stack of `depth` frames and the marker. */
static int reserve_path(tfmt_profile *p, tstate *t, uint32_t depth)
{
    if ((size_t)depth + 1 > t->cap &&
        tfmt__grow(p->alloc, (void **)&t->path, &t->cap, (size_t)depth + 1,
                   sizeof *t->path) != TFMT_OK)
        return nomem(p);
    return TFMT_OK;
}

/*
 * Extend t's path from depth k to the sample's depth, mapping frames.
 * With t->trunc, path[0] is the "<truncated>" node under the thread root
 * and frame i's node is path[i + 1].
 */
static int build_path(binctx *c, tstate *t, const tfmt_sample *s, uint32_t k)
{
    tfmt_profile *p = c->p;
    int rc = reserve_path(p, t, s->depth);
    if (rc != TFMT_OK)
        return rc;
    uint32_t o = t->trunc;
    uint32_t node = p->threads[t->thread].root;
    if (o && k == 0) {
        uint32_t mark;
        rc = tfmt__profile_trunc_frame(p, &mark);
        if (rc == TFMT_OK)
            rc = tfmt__profile_child(p, node, mark, &t->path[0]);
        if (rc != TFMT_OK)
            return rc;
    }
    if (k + o)
        node = t->path[k + o - 1];
    for (uint32_t i = k; i < s->depth; i++) {
        uint32_t idx = s->stack[i];
        rc = TFMT_OK;
        /* Unmapped frames get ids innermost first, as in CPython. */
        if (!tfmt__import_mapped(&c->pi.im, idx))
            rc = map_frames(c, s, i);
        if (rc == TFMT_OK)
            rc = tfmt__profile_child(p, node, c->pi.im.fmap[idx], &node);
        if (rc != TFMT_OK)
            return rc;
        t->path[i + o] = node;
    }
    return TFMT_OK;
}

/* The sample on its thread's timeline, if the profile keeps them. */
static int timeline(binctx *c, const tstate *t, const tfmt_sample *s,
                    uint32_t leaf)
{
    if (!c->p->opts.timeline || t->thread == TFMT_NO_ID)
        return TFMT_OK; /* no timeline, or before the first count */
    return tfmt__profile_tl_add(c->p, t->thread, leaf, s->timestamps,
                                s->weight);
}

/*
 * With stack filters: filter a copy (in t->path, after a slot for the
 * marker) and add it whole; the marker goes on after filtering.
 */
static int add_filtered(binctx *c, tstate *t, const tfmt_sample *s)
{
    int rc = reserve_path(c->p, t, s->depth);
    if (rc != TFMT_OK)
        return rc;
    t->valid = 0;
    uint32_t depth = s->depth, *stack = t->path + 1;
    for (uint32_t i = 0; i < depth; i++)
        stack[i] = c->pi.im.fmap[s->stack[i]];
    bool keep;
    rc = tfmt__pfilter_stack(c->pi.filter, stack, &depth, &keep);
    if (rc != TFMT_OK || !keep)
        return rc == TFMT_OK ? timeline(c, t, s, TFMT_NO_ID) : rc;
    if (tfmt__profile_truncated(c->p, s->depth)) {
        rc = tfmt__profile_trunc_frame(c->p, &t->path[0]);
        stack--;
        depth++;
    }
    uint32_t leaf = TFMT_NO_ID;
    if (rc == TFMT_OK)
        rc = tfmt__profile_add_stack_at(c->p, s->thread_id, s->interpreter_id,
                                        s->status, stack, depth, s->weight,
                                        &t->thread, &leaf);
    return rc == TFMT_OK ? timeline(c, t, s, leaf) : rc;
}

static int add_sample(void *ctx, const tfmt_sample *s)
{
    binctx *c = ctx;
    tstate *t = NULL;
    int rc = get_state(c, s->thread_index, &t);
    if (rc != TFMT_OK)
        return rc;
    uint32_t k = s->unchanged < t->valid ? s->unchanged : t->valid;
    if (k > s->depth)
        k = s->depth;
    /* A skipped sample still becomes the reader's "previous stack". */
    t->valid = k;
    if (!counted(c->p, s))
        return timeline(c, t, s, TFMT_NO_ID);
    if (tfmt__pfilter_stacks(c->pi.filter)) {
        rc = map_frames(c, s, k);
        return rc == TFMT_OK ? add_filtered(c, t, s) : rc;
    }
    /* Split by status, a change of status is a change of tree. */
    if (t->thread == TFMT_NO_ID ||
        (c->p->opts.split_status &&
         c->p->threads[t->thread].status != s->status)) {
        rc = tfmt__profile_thread(c->p, s->thread_id, s->interpreter_id,
                                  s->status, &t->thread);
        if (rc != TFMT_OK)
            return rc;
        k = 0;
    }
    bool trunc = tfmt__profile_truncated(c->p, s->depth);
    if (trunc != t->trunc) {
        t->trunc = trunc;
        k = 0;
    }
    rc = build_path(c, t, s, k);
    if (rc != TFMT_OK)
        return rc;
    t->valid = s->depth;
    uint32_t leaf = t->path[s->depth - 1 + trunc];
    rc = tfmt__profile_count(c->p, t->thread, leaf, s->weight);
    return rc == TFMT_OK ? timeline(c, t, s, leaf) : rc;
}

/*
 * Stream r's samples into p. `placeholders` > 0: r is a slice whose
 * threads start with placeholder frames (bin_slice.h), which map to the
 * profile frame ids TFMT_PAR_PLACEHOLDER + k; *fmap then receives the
 * reader-to-profile frame map (the caller frees it).
 */
static int add_reader(tfmt_profile *p, tfmt_bin_reader *r,
                      uint32_t placeholders, uint32_t **fmap)
{
    binctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    int rc = tfmt__profile_import_open(&c.pi, p, r);
    if (rc == TFMT_OK && fmap)
        rc = tfmt__import_placeholders(&c.pi.im, placeholders,
                                       TFMT_PAR_PLACEHOLDER);
    if (rc == TFMT_OK) {
        if (!fmap)
            take_info(p, tfmt_bin_info(r));
        rc = tfmt__import_samples(&c.pi.im, add_sample, &c);
    }
    /* this input's runs end here; the next input's follow them */
    if (rc == TFMT_OK && p->opts.timeline)
        rc = tfmt__profile_tl_close(p, tfmt_bin_info(r)->sample_interval_us);
    if (rc == TFMT_OK && fmap) {
        *fmap = c.pi.im.fmap;
        c.pi.im.fmap = NULL;
    }
    ctx_free(&c);
    return rc;
}

int tfmt__profile_add_slice(tfmt_profile *p, tfmt_bin_reader *r,
                            uint32_t placeholders, uint32_t **fmap)
{
    return add_reader(p, r, placeholders, fmap);
}

void tfmt__profile_take_info(tfmt_profile *p, const tfmt_info *info)
{
    take_info(p, info);
}

int tfmt_profile_add_bin(tfmt_profile *p, tfmt_bin_reader *r)
{
    int rc = tfmt__profile_add_par(p, r);
    if (rc != TFMT_PAR_DECLINED)
        return rc;
    return add_reader(p, r, 0, NULL);
}
