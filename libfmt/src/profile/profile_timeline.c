/* SPDX-License-Identifier: MIT */
/*
 * profile_timeline.c - each thread's samples in time order, as runs of
 * one call path (opts.timeline; see fmt_profile.h for the weights). A
 * thread keeps one open run in memory; closed runs are spooled (io's
 * spool) as two varints: the leaf node plus one (0: samples not counted)
 * and the weight in microseconds.
 */
#include <errno.h>

#include "profile_internal.h"

#define RUN_MAX 20 /* bytes of a spooled run, at most */

static int spool_run(tfmt_profile *p, tfmt_pthread *t, uint64_t weight)
{
    uint8_t rec[RUN_MAX];
    uint32_t node = t->run.node;
    size_t n = tfmt__varint_encode(rec, node == TFMT_NO_ID ? 0 : node + 1ull);
    n += tfmt__varint_encode(rec + n, weight);
    int rc = tfmt__spool_append(&p->tl_spool, &t->tl, rec, n);
    if (rc == TFMT_EIO)
        return tfmt__error_errno(&p->err, errno, "timeline spool");
    if (rc != TFMT_OK)
        return tfmt__error(&p->err, TFMT_ENOMEM, "out of memory");
    t->tl_weight += weight;
    return TFMT_OK;
}

/* A run ends where the thread's next sample starts (at `next`). */
static int end_run(tfmt_profile *p, tfmt_pthread *t, uint64_t next)
{
    const tfmt_prun *r = &t->run;
    uint64_t w = next > r->start ? next - r->start : r->n * p->interval_us;
    return spool_run(p, t, w);
}

int tfmt__profile_tl_add(tfmt_profile *p, uint32_t thread, uint32_t node,
                         const uint64_t *ts, uint32_t n)
{
    tfmt_pthread *t = &p->threads[thread];
    tfmt_prun *r = &t->run;
    if (n == 0)
        return TFMT_OK;
    if (!r->open || r->node != node) {
        if (r->open) {
            int rc = end_run(p, t, ts[0]);
            if (rc != TFMT_OK)
                return rc;
        }
        r->open = true;
        r->node = node;
        r->start = ts[0];
        r->n = 0;
    }
    r->last = ts[n - 1];
    r->n += n;
    return TFMT_OK;
}

int tfmt__profile_tl_close(tfmt_profile *p, uint64_t interval_us)
{
    for (size_t i = 0; i < p->nthreads; i++) {
        tfmt_pthread *t = &p->threads[i];
        tfmt_prun *r = &t->run;
        if (!r->open)
            continue;
        r->open = false;
        if (r->node == TFMT_NO_ID)
            continue; /* nothing counted after the last counted run */
        uint64_t w = r->last >= r->start ? r->last - r->start + interval_us
                                         : r->n * interval_us;
        int rc = spool_run(p, t, w);
        if (rc != TFMT_OK)
            return rc;
    }
    return TFMT_OK;
}

typedef struct eachctx {
    int (*fn)(void *ctx, uint32_t node, uint64_t weight);
    void *ctx;
} eachctx;

static int each_block(void *ctx, const uint8_t *d, size_t len)
{
    eachctx *c = ctx;
    const uint8_t *end = d + len;
    while (d < end) {
        uint64_t node, w;
        if (tfmt__varint_u64(&d, end, &node) != 1 ||
            tfmt__varint_u64(&d, end, &w) != 1 || node > UINT32_MAX)
            return TFMT_EIO; /* a damaged spool file */
        int rc = c->fn(c->ctx, node ? (uint32_t)(node - 1) : TFMT_NO_ID, w);
        if (rc != TFMT_OK)
            return rc;
    }
    return TFMT_OK;
}

int tfmt__profile_tl_each(tfmt_profile *p, uint32_t thread,
                          int (*fn)(void *ctx, uint32_t node, uint64_t weight),
                          void *ctx)
{
    eachctx c = {fn, ctx};
    return tfmt__spool_each(&p->tl_spool, &p->threads[thread].tl, each_block,
                            &c);
}
