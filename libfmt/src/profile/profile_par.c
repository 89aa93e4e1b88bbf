/* SPDX-License-Identifier: MIT */
/*
 * profile_par.c - a big binary log into a profile on several threads.
 *
 * The sample region is cut into parts, four a thread (bin_slice.h). A
 * pool of threads takes two kinds of work: the scan of a part (where each
 * thread's stack depth stands at the part's end; all but the last part)
 * and the decode of a part into a profile of its own, its inherited
 * frames as placeholders, which waits for the scans of the parts before
 * it. The parts' profiles are then merged in file order (profile_merge.c),
 * placeholders resolved from the stacks the part before ended with, into
 * the profile one reader would have built, id for id.
 *
 * Only logs the whole-file reader would read without a note or an error
 * are read this way: anything else (and any option that needs samples in
 * order: timelines, filters) declines, and the caller reads the log whole,
 * which gives the exact error or note. Memory: each part's profile holds
 * the call paths of its part, and they live until their merge, so the
 * peak is up to twice that of one reader when every part has other
 * paths (the unique-stacks case), the same plus a few MB otherwise.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "bin_slice.h"
#include "profile_filter.h"

#define AUTO_MIN_REGION (64u << 20) /* auto: logs from this size */
#define AUTO_PART (32u << 20)       /* auto: at least this per part */
#define MIN_PART (8u << 10)         /* never less per part */
#define MAX_THREADS 64
#define PARTS_PER_THREAD 4
#define MAX_PARTS (MAX_THREADS * PARTS_PER_THREAD)

typedef struct part {
    uint64_t from, to; /* region offsets of its first record and its end */
    uint64_t until;    /* its nominal end: `to` is the first record start
                          at or after it */
    tfmt_bin_scan scan;
    int scan_rc;
    tfmt_bin_seed *seeds; /* the threads before the part, with depths */
    size_t nseeds;
    uint32_t nph;      /* placeholders: the seeds' depths summed */
    uint32_t *ph_real; /* per placeholder: the reader frame */
    tfmt_bin_reader *slice;
    tfmt_profile *prof;
    uint32_t *fmap; /* reader frame -> part frame */
    int rc;
    uint64_t reported; /* samples passed to the shared count */
    struct par *par;
} part;

typedef struct par {
    tfmt_profile *p;
    tfmt_bin_reader *r;
    part *parts;
    size_t n;
    uint32_t nframes;
    _Atomic uint64_t samples; /* read by all parts, for progress */
    pthread_t caller;         /* the thread that reports progress */
    /* every thread in order of first appearance, with its stack (reader
       frames, root first) where the current part starts */
    tfmt_bin_seed *threads;
    uint32_t **stacks;
    uint64_t *ts; /* each thread's clock at the current part's start */
    size_t nthreads, capthreads;
    tfmt_tidmap map;
} par;

void tfmt_profile_set_threads(tfmt_profile *p, unsigned n)
{
    p->par_threads = n;
}

static unsigned online_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n > 0 ? (unsigned)n : 1;
}

/* Options under which samples may be counted out of order. */
static bool options_allow(const tfmt_profile *p)
{
    const tfmt_profile_options *o = &p->opts;
    return !o->alloc && !tfmt__pfilter_any(o) && !o->timeline &&
           !o->split_status;
}

/*
 * How to read a region: *threads (below 2: whole, on this thread) and
 * *parts. Every part builds the call paths it shows into a profile of
 * its own, which costs as much again as in one profile (about 0.012 s of
 * CPU a part for a realistic profile), so a part should hold many samples
 * a path: AUTO_PART bytes or more. More parts than threads, up to
 * PARTS_PER_THREAD a thread, let a thread that has finished a part find
 * another while the scans run. Parts are never under MIN_PART.
 */
static void plan(const tfmt_profile *p, uint64_t region, size_t *threads,
                 size_t *parts)
{
    uint64_t want = p->par_threads;
    *threads = *parts = 1;
    if (want == 1 || !options_allow(p))
        return;
    if (want == 0) {
        if (region < AUTO_MIN_REGION)
            return;
        want = online_cpus();
    }
    if (want > MAX_THREADS)
        want = MAX_THREADS;
    uint64_t n = region / (p->par_part_bytes ? p->par_part_bytes : AUTO_PART);
    n = n < want ? want : n;
    n = n > want * PARTS_PER_THREAD ? want * PARTS_PER_THREAD : n;
    n = n > region / MIN_PART ? region / MIN_PART : n;
    *parts = (size_t)n;
    *threads = (size_t)(n < want ? n : want);
}

/* ---- pass 1: part boundaries and depths ---- */

/* Scan part pt from its start to the first record at or after `until`. */
static void scan_part(part *pt)
{
    pt->scan_rc = tfmt__bin_scan(pt->par->r, pt->from, pt->until, &pt->scan);
}

/* n parts of nominal ends at equal steps; the scans say where they end. */
static int cut(par *c, uint64_t region, size_t n)
{
    c->parts = tfmt__calloc(NULL, n, sizeof *c->parts);
    if (!c->parts)
        return TFMT_ENOMEM;
    c->n = n;
    for (size_t i = 0; i < n; i++) {
        c->parts[i].par = c;
        c->parts[i].until = i + 1 == n ? region : region / n * (i + 1);
    }
    c->parts[n - 1].to = region;
    return TFMT_OK;
}

static int add_thread(par *c, const tfmt_bin_xfer *x)
{
    if (tfmt__grow(NULL, (void **)&c->threads, &c->capthreads, c->nthreads + 1,
                   sizeof *c->threads) != TFMT_OK)
        return TFMT_ENOMEM;
    size_t cap = c->capthreads;
    uint32_t **st = tfmt__realloc(NULL, c->stacks, cap * sizeof *st);
    if (st)
        c->stacks = st;
    uint64_t *ts = tfmt__realloc(NULL, c->ts, cap * sizeof *ts);
    if (ts)
        c->ts = ts;
    if (!st || !ts ||
        tfmt__tidmap_insert(&c->map, x->tid, x->interp,
                            (uint32_t)c->nthreads) != TFMT_OK)
        return TFMT_ENOMEM;
    c->threads[c->nthreads] = (tfmt_bin_seed){x->tid, x->interp, 0};
    c->stacks[c->nthreads] = NULL;
    c->ts[c->nthreads] = tfmt_bin_info(c->r)->start_time_us;
    c->nthreads++;
    return TFMT_OK;
}

/* Part i's seeds: every thread before it, at the depth it has there. */
static int seed_part(par *c, part *pt)
{
    pt->nseeds = c->nthreads;
    pt->seeds = tfmt__malloc(NULL, (c->nthreads + 1) * sizeof *pt->seeds);
    if (!pt->seeds)
        return TFMT_ENOMEM;
    uint64_t nph = 0;
    for (size_t t = 0; t < c->nthreads; t++) {
        pt->seeds[t] = c->threads[t];
        nph += c->threads[t].depth;
    }
    if (nph + c->nframes >= TFMT_PAR_PLACEHOLDER)
        return TFMT_PAR_DECLINED;
    pt->nph = (uint32_t)nph;
    return TFMT_OK;
}

/* After part i's scan: its threads join, and their depths move on. */
static int follow_scan(par *c, const part *pt)
{
    if (pt->scan_rc != TFMT_OK)
        return TFMT_PAR_DECLINED;
    for (size_t k = 0; k < pt->scan.nthreads; k++) {
        const tfmt_bin_xfer *x = &pt->scan.threads[k];
        uint32_t t = tfmt__tidmap_find(&c->map, x->tid, x->interp);
        if (t == UINT32_MAX) {
            if (add_thread(c, x) != TFMT_OK)
                return TFMT_ENOMEM;
            t = (uint32_t)c->nthreads - 1;
        }
        uint32_t d = tfmt__bin_xfer_apply(x, c->threads[t].depth);
        if (d > TFMT_MAX_DEPTH)
            return TFMT_PAR_DECLINED; /* the reader will say why */
        c->threads[t].depth = d;
    }
    return TFMT_OK;
}

/* ---- pass 2: each part into a profile of its own ---- */

static void part_progress(void *ctx, uint64_t samples_read)
{
    part *pt = ctx;
    par *c = pt->par;
    uint64_t total =
        atomic_fetch_add(&c->samples, samples_read - pt->reported) +
        (samples_read - pt->reported);
    pt->reported = samples_read;
    if (pthread_equal(pthread_self(), c->caller) && c->p->opts.progress)
        c->p->opts.progress(c->p->opts.progress_ctx, total);
}

static void decode_part(part *pt)
{
    par *c = pt->par;
    tfmt_error err;
    tfmt_profile_options o = c->p->opts;
    o.progress = part_progress;
    o.progress_ctx = pt;
    pt->rc = tfmt__bin_slice_open(&pt->slice, c->r, pt->from, pt->to, pt->seeds,
                                  pt->nseeds, &err);
    if (pt->rc == TFMT_OK)
        pt->rc = tfmt_profile_new(&pt->prof, &o);
    if (pt->rc == TFMT_OK)
        pt->rc =
            tfmt__profile_add_slice(pt->prof, pt->slice, pt->nph, &pt->fmap);
}

/* ---- the two passes on a pool of threads ---- */

/*
 * The work: the scan of every part but the last (nothing follows it), one
 * after the other, since each starts where the one before ended; and the
 * decode of every part, which waits for its seeds (the scans before it)
 * and its end (its own scan). A free thread takes the next scan first:
 * the scans are the chain every decode waits on.
 */
typedef struct pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    par *c;
    size_t scanned; /* scans done, in order */
    bool scanning;  /* the next scan is running */
    size_t next_decode;
    int rc; /* a scan failed or a part cannot be seeded: stop */
} pool;

/* After scan i (under mu): part i ends, part i + 1 starts and is seeded. */
static void scan_done(pool *w, size_t i)
{
    par *c = w->c;
    part *pt = &c->parts[i];
    w->rc = follow_scan(c, pt);
    if (w->rc == TFMT_OK) {
        pt->to = pt->scan.end;
        c->parts[i + 1].from = pt->scan.end;
        w->rc = seed_part(c, &c->parts[i + 1]);
    }
    w->scanned = i + 1;
    w->scanning = false;
}

static bool decode_ready(const pool *w, size_t i)
{
    size_t need = i + 1 < w->c->n ? i + 1 : i;
    return w->scanned >= need;
}

static void *worker(void *arg)
{
    pool *w = arg;
    par *c = w->c;
    pthread_mutex_lock(&w->mu);
    while (w->rc == TFMT_OK && w->next_decode < c->n) {
        if (!w->scanning && w->scanned + 1 < c->n) {
            size_t i = w->scanned;
            w->scanning = true;
            pthread_mutex_unlock(&w->mu);
            scan_part(&c->parts[i]);
            pthread_mutex_lock(&w->mu);
            scan_done(w, i);
            pthread_cond_broadcast(&w->cv);
        } else if (decode_ready(w, w->next_decode)) {
            size_t i = w->next_decode++;
            pthread_mutex_unlock(&w->mu);
            decode_part(&c->parts[i]);
            pthread_mutex_lock(&w->mu);
        } else {
            pthread_cond_wait(&w->cv, &w->mu);
        }
    }
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Run both passes on `threads` threads, this one included. */
static int run_pool(par *c, size_t threads)
{
    pool w;
    memset(&w, 0, sizeof w);
    w.c = c;
    w.rc = seed_part(c, &c->parts[0]);
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    pthread_t tid[MAX_PARTS];
    size_t started = 0;
    for (size_t i = 1; i < threads; i++)
        if (pthread_create(&tid[started], NULL, worker, &w) == 0)
            started++;
    worker(&w);
    for (size_t i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    pthread_cond_destroy(&w.cv);
    pthread_mutex_destroy(&w.mu);
    return w.rc;
}

/* ---- between the passes and the merge: what only the whole knows ---- */

/*
 * Part i's placeholders as reader frames (from the stacks its threads
 * start with), then the stacks and clocks the part leaves to the next.
 * Declines when a part's end does not match what the scans said.
 */
static int follow_part(par *c, part *pt)
{
    for (size_t t = 0; t < pt->nseeds; t++)
        if (c->threads[t].depth != pt->seeds[t].depth)
            return TFMT_PAR_DECLINED; /* a scan and a decode disagree */
    pt->ph_real = tfmt__malloc(NULL, ((size_t)pt->nph + 1) * sizeof(uint32_t));
    if (!pt->ph_real)
        return TFMT_ENOMEM;
    uint32_t k = 0;
    for (size_t t = 0; t < pt->nseeds; t++)
        for (uint32_t j = 0; j < pt->seeds[t].depth; j++)
            pt->ph_real[k++] = c->stacks[t][j];
    /* the last part's new threads (it has no scan) have whole clocks,
       and no part follows to need their stacks */
    size_t n = tfmt__bin_threads(pt->slice);
    if (n > c->nthreads)
        n = c->nthreads;
    for (size_t t = 0; t < n; t++) {
        const uint32_t *st;
        uint32_t depth;
        uint64_t ts;
        tfmt__bin_thread_state(pt->slice, t, &st, &depth, &ts);
        /* in place: the part's placeholders were copied to ph_real */
        uint32_t *real = tfmt__realloc(NULL, c->stacks[t],
                                       ((size_t)depth + 1) * sizeof *real);
        if (!real)
            return TFMT_ENOMEM;
        c->stacks[t] = real;
        for (uint32_t j = 0; j < depth; j++) {
            uint32_t f = st[j];
            real[j] = f < c->nframes ? f : pt->ph_real[f - c->nframes];
        }
        c->threads[t].depth = depth;
        if (t < pt->nseeds) { /* a relative clock: see bin_slice.h */
            if (c->ts[t] > INT64_MAX - ts)
                return TFMT_PAR_DECLINED; /* the reader notes it */
            c->ts[t] += ts;
        } else {
            c->ts[t] = ts;
        }
    }
    return TFMT_OK;
}

/* Every part read cleanly, and the whole agrees with the header. */
static int check_parts(par *c)
{
    uint64_t samples = 0;
    for (size_t i = 0; i < c->n; i++) {
        part *pt = &c->parts[i];
        if (pt->rc != TFMT_OK || tfmt__bin_slice_odd(pt->slice))
            return TFMT_PAR_DECLINED;
        samples += tfmt_bin_samples_read(pt->slice);
    }
    const tfmt_info *info = tfmt_bin_info(c->r);
    size_t threads = tfmt__bin_threads(c->parts[c->n - 1].slice);
    if (samples != info->sample_count || threads != info->thread_count)
        return TFMT_PAR_DECLINED; /* the reader says which is wrong */
    /* from here on, threads[t].depth is that of stacks[t] */
    for (size_t t = 0; t < c->nthreads; t++)
        c->threads[t].depth = 0;
    for (size_t i = 0; i < c->n; i++) {
        int rc = follow_part(c, &c->parts[i]);
        if (rc != TFMT_OK)
            return rc;
    }
    return TFMT_OK;
}

/* ---- the merge, in file order ---- */

static int merge_parts(par *c)
{
    tfmt_profile *p = c->p;
    uint32_t *gmap = tfmt__malloc(NULL, ((size_t)c->nframes + 1) * 4);
    if (!gmap)
        return tfmt__error(&p->err, TFMT_ENOMEM, "out of memory");
    for (size_t f = 0; f < c->nframes; f++)
        gmap[f] = TFMT_NO_ID;
    tfmt__profile_take_info(p, tfmt_bin_info(c->r));
    int rc = TFMT_OK;
    for (size_t i = 0; i < c->n && rc == TFMT_OK; i++) {
        part *pt = &c->parts[i];
        const tfmt_profile *pp = pt->prof;
        uint32_t *ph = tfmt__malloc(NULL, ((size_t)pt->nph + 1) * 4);
        uint32_t *fm = tfmt__malloc(NULL, (pp->nframes + 1) * 4);
        if (!ph || !fm)
            rc = tfmt__error(&p->err, TFMT_ENOMEM, "out of memory");
        for (uint32_t k = 0; rc == TFMT_OK && k < pt->nph; k++)
            ph[k] = gmap[pt->ph_real[k]];
        if (rc == TFMT_OK)
            rc = tfmt__profile_merge(p, pp, ph, pt->nph, fm);
        for (size_t f = 0; rc == TFMT_OK && f < c->nframes; f++) {
            uint32_t lf = pt->fmap[f];
            if (gmap[f] == TFMT_NO_ID && lf < pp->nframes)
                gmap[f] = fm[lf];
        }
        tfmt__free(NULL, ph);
        tfmt__free(NULL, fm);
        tfmt_profile_free(pt->prof); /* the peak: parts and whole */
        pt->prof = NULL;
    }
    tfmt__free(NULL, gmap);
    return rc;
}

static void par_free(par *c)
{
    for (size_t i = 0; i < c->n; i++) {
        part *pt = &c->parts[i];
        tfmt__bin_scan_free(&pt->scan);
        tfmt_bin_free(pt->slice);
        tfmt_profile_free(pt->prof);
        tfmt__free(NULL, pt->fmap);
        tfmt__free(NULL, pt->seeds);
        tfmt__free(NULL, pt->ph_real);
    }
    for (size_t t = 0; t < c->nthreads; t++)
        tfmt__free(NULL, c->stacks[t]);
    tfmt__free(NULL, c->stacks);
    tfmt__free(NULL, c->ts);
    tfmt__free(NULL, c->threads);
    tfmt__free(NULL, c->parts);
    tfmt__tidmap_free(&c->map);
}

/*
 * Everything before the merge leaves p untouched, so any failure there
 * (out of memory included: one reader needs less) declines.
 */
static int run(par *c, uint64_t region, size_t threads, size_t parts)
{
    int rc = cut(c, region, parts);
    if (rc == TFMT_OK)
        rc = run_pool(c, threads);
    if (rc == TFMT_OK)
        rc = check_parts(c);
    if (rc != TFMT_OK)
        return TFMT_PAR_DECLINED;
    rc = merge_parts(c);
    if (rc == TFMT_OK) {
        tfmt__bin_read_by_slices(c->r, tfmt_bin_info(c->r)->sample_count);
        c->p->par_parts = c->n;
    }
    return rc;
}

int tfmt__profile_add_par(tfmt_profile *p, tfmt_bin_reader *r)
{
    p->par_parts = 0;
    uint64_t region = tfmt__bin_region_size(r);
    const tfmt_info *info = tfmt_bin_info(r);
    if (region == 0 || tfmt_bin_samples_read(r) != 0 ||
        tfmt_bin_bytes_read(r) != 0 || info->frame_count >= (1u << 30))
        return TFMT_PAR_DECLINED;
    size_t threads, parts;
    plan(p, region, &threads, &parts);
    if (threads < 2)
        return TFMT_PAR_DECLINED;
    par c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.r = r;
    c.nframes = info->frame_count;
    c.caller = pthread_self();
    tfmt__tidmap_init(&c.map, NULL);
    int rc = run(&c, region, threads, parts);
    par_free(&c);
    return rc;
}
