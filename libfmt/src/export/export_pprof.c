/* SPDX-License-Identifier: MIT */
/*
 * export_pprof.c - pprof's profile.proto (github.com/google/pprof,
 * proto/profile.proto), gzipped as pprof writes it.
 *
 * Sample types: samples/count and wall/microseconds (count x interval),
 * period wall/microseconds. One function per (file, function), one
 * location per (function, line) in one mapping ("python", resolved),
 * both numbered from 1 in content order
 * (which puts equal keys next to each other); one sample per call path
 * with self weight, locations leaf first, labelled thread_id (numeric).
 * Top-level fields are written as they come (protobuf allows any order):
 * samples stream during the tree walk, the string table goes last, so
 * memory is bounded by unique frames and paths. gzip goes through
 * libarchive's raw-format gzip filter (no timestamp: reproducible).
 */

#include "archive_lazy.h"
#include "export_internal.h"
#include "export_pbuf.h"

enum { S_EMPTY, S_SAMPLES, S_COUNT, S_WALL, S_MICROS, S_TID, S_MAIN, S_FIXED };
static const char *const fixed_strings[S_FIXED] = {
    "", "samples", "count", "wall", "microseconds", "thread_id", "python",
};

typedef struct xctx {
    tfmt_profile *p;
    tfmt_sink *sink;
    struct archive *ar; /* gzip filter, NULL for plain output */
    tfmt_xorder o;
    tfmt_tviews vs;
    uint32_t *floc, *ffunc; /* profile frame -> location / function id */
    uint32_t nlocs, nfuncs;
    uint32_t *pstr; /* profile string -> pprof string index */
    uint32_t *strs; /* pprof index - S_FIXED -> profile string */
    uint32_t nstrs;
    uint64_t *path; /* location ids of the walk, root first */
    size_t cappath;
    tfmt_buf out, msg, sub;
    bool io_failed;
} xctx;

static la_ssize_t gz_write(struct archive *a, void *ctx, const void *buf,
                           size_t n)
{
    xctx *c = ctx;
    (void)a;
    if (tfmt_sink_write(c->sink, buf, n) != TFMT_OK) {
        c->io_failed = true;
        return -1;
    }
    return (la_ssize_t)n;
}

static int gz_open(xctx *c)
{
    if (tfmt__archive_load(NULL) != TFMT_OK)
        return TFMT_EIO;
    c->ar = tfmt__ar()->archive_write_new();
    if (!c->ar)
        return TFMT_ENOMEM;
    struct archive_entry *e = NULL;
    int ok = tfmt__ar()->archive_write_add_filter_gzip(c->ar) == ARCHIVE_OK &&
             tfmt__ar()->archive_write_set_format_raw(c->ar) == ARCHIVE_OK &&
             tfmt__ar()->archive_write_set_bytes_in_last_block(c->ar, 1) ==
                 ARCHIVE_OK &&
             tfmt__ar()->archive_write_set_filter_option(
                 c->ar, "gzip", "timestamp", NULL) == ARCHIVE_OK &&
             tfmt__ar()->archive_write_open2(c->ar, c, NULL, gz_write, NULL,
                                             NULL) == ARCHIVE_OK &&
             (e = tfmt__ar()->archive_entry_new()) != NULL;
    if (ok) {
        tfmt__ar()->archive_entry_set_pathname(e, "profile.pb");
        tfmt__ar()->archive_entry_set_filetype(e, AE_IFREG);
        ok = tfmt__ar()->archive_write_header(c->ar, e) == ARCHIVE_OK;
    }
    tfmt__ar()->archive_entry_free(e);
    return ok ? TFMT_OK : TFMT_EIO;
}

/* Deliver c->out (everything when `all`, else past the threshold). */
static int emit(xctx *c, bool all)
{
    if (c->out.len == 0 || (!all && c->out.len < TFMT_EXPORT_FLUSH))
        return TFMT_OK;
    int rc = TFMT_OK;
    if (c->ar) {
        if (tfmt__ar()->archive_write_data(c->ar, c->out.data, c->out.len) < 0)
            rc = TFMT_EIO;
    } else if (tfmt_sink_write(c->sink, c->out.data, c->out.len) != TFMT_OK) {
        c->io_failed = true;
        rc = TFMT_EIO;
    }
    c->out.len = 0;
    return rc;
}

static uint32_t pstring(xctx *c, uint32_t s)
{
    if (c->pstr[s] == TFMT_NO_ID) {
        c->strs[c->nstrs] = s;
        c->pstr[s] = S_FIXED + c->nstrs++;
    }
    return c->pstr[s];
}

/* Function and location ids in content order; interns their strings. */
static void number_frames(xctx *c)
{
    const tfmt_profile *p = c->p;
    const tfmt_frame *prev = NULL;
    for (size_t r = 0; r < c->o.nused; r++) {
        uint32_t id = c->o.frame_by_rank[r];
        const tfmt_frame *f = &p->frames[id];
        bool same_func = prev && prev->filename == f->filename &&
                         prev->funcname == f->funcname;
        if (!same_func) {
            c->nfuncs++;
            pstring(c, f->funcname);
            pstring(c, f->filename);
        }
        if (!same_func || prev->lineno != f->lineno)
            c->nlocs++;
        c->ffunc[id] = c->nfuncs;
        c->floc[id] = c->nlocs;
        prev = f;
    }
}

static int put_value_type(xctx *c, uint32_t field, uint64_t type, uint64_t unit)
{
    c->sub.len = 0;
    int rc = tfmt__pb_uint(&c->sub, 1, type);
    rc |= tfmt__pb_uint(&c->sub, 2, unit);
    return rc | tfmt__pb_bytes(&c->out, field, c->sub.data, c->sub.len);
}

static int put_sample(xctx *c, const tfmt_tview *v, uint32_t node,
                      uint32_t depth)
{
    const tfmt_profile *p = c->p;
    uint64_t n = tfmt__tview_self(v, node);
    uint64_t values[2] = {n, n * p->interval_us};
    /* location ids leaf first: reverse the root-first path in place */
    for (uint32_t i = 0, j = depth - 1; i < j; i++, j--) {
        uint64_t t = c->path[i];
        c->path[i] = c->path[j];
        c->path[j] = t;
    }
    c->msg.len = 0;
    c->sub.len = 0;
    int rc = tfmt__pb_packed(&c->msg, 1, c->path, depth);
    for (uint32_t i = 0, j = depth - 1; i < j; i++, j--) {
        uint64_t t = c->path[i];
        c->path[i] = c->path[j];
        c->path[j] = t;
    }
    rc |= tfmt__pb_packed(&c->msg, 2, values, 2);
    rc |= tfmt__pb_uint(&c->sub, 1, S_TID);
    rc |= tfmt__pb_uint(&c->sub, 3, p->threads[v->thread].thread_id);
    rc |= tfmt__pb_bytes(&c->msg, 3, c->sub.data, c->sub.len);
    rc |= tfmt__pb_bytes(&c->out, 2, c->msg.data, c->msg.len);
    return rc ? TFMT_ENOMEM : emit(c, false);
}

/* A sample per call path of the thread with self weight, in a walk. */
static int put_thread(xctx *c, const tfmt_tview *v)
{
    const tfmt_profile *p = c->p;
    tfmt_pwalk w;
    tfmt__pwalk_sub(&w, v->nodes, v->tree, v->root);
    uint32_t node;
    int dir, rc = TFMT_OK;
    while (rc == TFMT_OK && (dir = tfmt__pwalk_next(&w, &node)) != 0) {
        const tfmt_pnode *n = &v->nodes[node];
        if (n->frame == TFMT_NO_ID || dir < 0)
            continue;
        if (n->depth > c->cappath &&
            tfmt__grow(p->alloc, (void **)&c->path, &c->cappath, n->depth,
                       sizeof *c->path) != TFMT_OK)
            return TFMT_ENOMEM;
        c->path[n->depth - 1] = c->floc[n->frame];
        if (tfmt__tview_self(v, node) > 0)
            rc = put_sample(c, v, node, n->depth);
    }
    return rc;
}

/* The threads in thread order. */
static int put_samples(xctx *c)
{
    int rc = TFMT_OK;
    for (size_t i = 0; i < c->p->nthreads && rc == TFMT_OK; i++) {
        uint32_t t = c->o.threads[i];
        tfmt_tview v;
        rc = tfmt__tviews_get(&c->vs, t, &v);
        if (rc == TFMT_OK)
            rc = put_thread(c, &v);
    }
    return rc;
}

static int put_location(xctx *c, const tfmt_frame *f, uint32_t id,
                        uint32_t func)
{
    c->msg.len = 0;
    c->sub.len = 0;
    int rc = tfmt__pb_uint(&c->msg, 1, id);
    rc |= tfmt__pb_uint(&c->msg, 2, 1); /* the one mapping */
    rc |= tfmt__pb_uint(&c->sub, 1, func);
    if (f->lineno > 0)
        rc |= tfmt__pb_uint(&c->sub, 2, (uint64_t)f->lineno);
    rc |= tfmt__pb_bytes(&c->msg, 4, c->sub.data, c->sub.len);
    return rc | tfmt__pb_bytes(&c->out, 4, c->msg.data, c->msg.len);
}

static int put_function(xctx *c, const tfmt_frame *f, uint32_t id)
{
    c->msg.len = 0;
    int rc = tfmt__pb_uint(&c->msg, 1, id);
    rc |= tfmt__pb_uint(&c->msg, 2, c->pstr[f->funcname]);
    rc |= tfmt__pb_uint(&c->msg, 3, c->pstr[f->funcname]);
    rc |= tfmt__pb_uint(&c->msg, 4, c->pstr[f->filename]);
    return rc | tfmt__pb_bytes(&c->out, 5, c->msg.data, c->msg.len);
}

/* Locations, then functions, each once, in id order. */
static int put_tables(xctx *c)
{
    const tfmt_profile *p = c->p;
    int rc = TFMT_OK;
    for (int pass = 0; pass < 2 && rc == TFMT_OK; pass++) {
        uint32_t last = 0;
        for (size_t r = 0; r < c->o.nused && rc == TFMT_OK; r++) {
            uint32_t id = c->o.frame_by_rank[r];
            uint32_t v = pass ? c->ffunc[id] : c->floc[id];
            if (v == last)
                continue;
            last = v;
            rc = pass ? put_function(c, &p->frames[id], v)
                      : put_location(c, &p->frames[id], v, c->ffunc[id]);
            if (rc == TFMT_OK)
                rc = emit(c, false);
        }
    }
    return rc;
}

/*
 * One mapping, "python", with symbols, files and lines resolved: pprof
 * then neither looks for a main binary nor tries to symbolize.
 */
static int put_mapping(xctx *c)
{
    c->msg.len = 0;
    int rc = tfmt__pb_uint(&c->msg, 1, 1);
    rc |= tfmt__pb_uint(&c->msg, 5, S_MAIN);
    rc |= tfmt__pb_uint(&c->msg, 7, 1); /* has_functions */
    rc |= tfmt__pb_uint(&c->msg, 8, 1); /* has_filenames */
    rc |= tfmt__pb_uint(&c->msg, 9, 1); /* has_line_numbers */
    return rc | tfmt__pb_bytes(&c->out, 3, c->msg.data, c->msg.len);
}

static int put_trailer(xctx *c)
{
    int rc = put_mapping(c);
    rc |= put_value_type(c, 11, S_WALL, S_MICROS);
    rc |= tfmt__pb_uint(&c->out, 12, c->p->interval_us);
    rc |= tfmt__pb_uint(&c->out, 14, S_WALL);
    for (int i = 0; i < S_FIXED; i++)
        rc |= tfmt__pb_bytes(&c->out, 6, fixed_strings[i],
                             strlen(fixed_strings[i]));
    for (uint32_t i = 0; i < c->nstrs && rc == TFMT_OK; i++) {
        tfmt_str s = tfmt__profile_str(c->p, c->strs[i]);
        rc = tfmt__pb_bytes(&c->out, 6, s.ptr, s.len);
        if (rc == TFMT_OK)
            rc = emit(c, false);
    }
    return rc;
}

static int write_all(xctx *c)
{
    number_frames(c);
    int rc = put_value_type(c, 1, S_SAMPLES, S_COUNT);
    rc |= put_value_type(c, 1, S_WALL, S_MICROS);
    if (rc == TFMT_OK)
        rc = put_samples(c);
    if (rc == TFMT_OK)
        rc = put_tables(c);
    if (rc == TFMT_OK)
        rc = put_trailer(c);
    if (rc == TFMT_OK)
        rc = emit(c, true);
    if (rc == TFMT_OK && c->ar &&
        tfmt__ar()->archive_write_close(c->ar) != ARCHIVE_OK)
        rc = TFMT_EIO;
    return rc;
}

static int alloc_all(xctx *c)
{
    const tfmt_profile *p = c->p;
    size_t nf = p->nframes ? p->nframes : 1;
    size_t ns = p->nstrings ? p->nstrings : 1;
    c->floc = tfmt__malloc(p->alloc, nf * sizeof *c->floc);
    c->ffunc = tfmt__malloc(p->alloc, nf * sizeof *c->ffunc);
    c->pstr = tfmt__malloc(p->alloc, ns * sizeof *c->pstr);
    c->strs = tfmt__malloc(p->alloc, ns * sizeof *c->strs);
    if (!c->floc || !c->ffunc || !c->pstr || !c->strs)
        return TFMT_ENOMEM;
    memset(c->pstr, 0xff, ns * sizeof *c->pstr);
    return TFMT_OK;
}

static void free_all(xctx *c)
{
    const tfmt_allocator *a = c->p->alloc;
    if (c->ar)
        tfmt__ar()->archive_write_free(c->ar);
    tfmt__free(a, c->floc);
    tfmt__free(a, c->ffunc);
    tfmt__free(a, c->pstr);
    tfmt__free(a, c->strs);
    tfmt__free(a, c->path);
    tfmt__buf_free(&c->out);
    tfmt__buf_free(&c->msg);
    tfmt__buf_free(&c->sub);
    tfmt__tviews_free(&c->vs);
    tfmt__xorder_free(c->p, &c->o);
}

int tfmt_profile_write_pprof(tfmt_profile *p, tfmt_sink *sink,
                             const tfmt_export_options *opts)
{
    if (tfmt__xneed_stacks(p) != TFMT_OK || tfmt__xneed_views(p) != TFMT_OK)
        return TFMT_EINVAL;
    xctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.sink = sink;
    tfmt__buf_init(&c.out, p->alloc);
    tfmt__buf_init(&c.msg, p->alloc);
    tfmt__buf_init(&c.sub, p->alloc);
    int rc = tfmt__xorder_build(p, &c.o);
    if (rc == TFMT_OK)
        rc = tfmt__tviews_init(&c.vs, p, &c.o);
    if (rc == TFMT_OK)
        rc = alloc_all(&c);
    if (rc == TFMT_OK && (!opts || opts->gzip))
        rc = gz_open(&c);
    if (rc == TFMT_OK)
        rc = write_all(&c);
    if (rc != TFMT_OK && c.io_failed)
        rc = tfmt__xfail(p, rc, sink);
    else if (rc == TFMT_EIO)
        rc = tfmt__error(&p->err, TFMT_EIO, "gzip: %s",
                         c.ar && tfmt__ar()->archive_error_string(c.ar)
                             ? tfmt__ar()->archive_error_string(c.ar)
                             : "failed");
    else if (rc != TFMT_OK)
        rc = tfmt__xfail(p, TFMT_ENOMEM, NULL);
    free_all(&c);
    return rc;
}
