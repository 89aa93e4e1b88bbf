/* SPDX-License-Identifier: MIT */
/*
 * heat_model.c - the heatmap's per-line model (heat_internal.h says what
 * is counted). Strings are ranked by content once; lines, instructions and
 * functions are then numbered by sorting frames on integer keys, and one
 * walk over the call tree counts everything: a line's total is the subtree
 * weight of its outermost occurrence on a path (an active count per line
 * during the walk), an instruction counts the subtree weight of every
 * node showing it, and each node with a counted frame adds one call edge
 * from its parent's frame.
 */
#include <stdlib.h>

#include "heat_internal.h"

typedef struct hctx {
    tfmt_heatmap *h;
    const tfmt_profile *p;
    tfmt_ptree tree;
    uint32_t *srank;  /* string id -> rank by content */
    uint32_t *sfile;  /* string id -> hfile index (paths) */
    uint8_t *counts;  /* frame -> 1 when it counts (used, valid) */
    int32_t *fl;      /* frame -> normalized line */
    uint32_t *fline;  /* frame -> hline, TFMT_NO_ID */
    uint32_t *finstr; /* frame -> hinstr, TFMT_NO_ID */
    uint32_t *ffn;    /* frame -> hfunc, TFMT_NO_ID */
    uint32_t *order;  /* scratch: frame ids */
    size_t edge_cap;
} hctx;

/* ---- sorting ---- */

int tfmt__heat_key_cmp(const void *va, const void *vb)
{
    const hkey *x = va, *y = vb;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    if (x->c != y->c)
        return x->c < y->c ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

typedef struct sstr {
    const tfmt_profile *p;
    uint32_t id;
} sstr;

static int sstr_cmp(const void *va, const void *vb)
{
    const sstr *x = va, *y = vb;
    return tfmt__pstr_cmp(x->p, x->id, y->id);
}

static int rank_strings(hctx *c)
{
    const tfmt_profile *p = c->p;
    size_t n = p->nstrings ? p->nstrings : 1;
    sstr *v = tfmt__malloc(p->alloc, n * sizeof *v);
    if (!v)
        return TFMT_ENOMEM;
    for (size_t i = 0; i < p->nstrings; i++) {
        v[i].p = p;
        v[i].id = (uint32_t)i;
    }
    qsort(v, p->nstrings, sizeof *v, sstr_cmp);
    for (size_t i = 0; i < p->nstrings; i++)
        c->srank[v[i].id] = (uint32_t)i;
    tfmt__free(p->alloc, v);
    return TFMT_OK;
}

/* ---- which frames count ---- */

static bool file_counts(tfmt_str s, int32_t line)
{
    if (s.len == 0 || s.ptr[0] == '<' || s.ptr[0] == '[')
        return false;
    return !(line == 0 && s.len == 8 && memcmp(s.ptr, "__init__", 8) == 0);
}

/* Frames that may have export counts (the arrays cover p->naggs). */
static size_t agg_frames(const tfmt_profile *p)
{
    return p->naggs < p->nframes ? p->naggs : p->nframes;
}

static void mark_frames(hctx *c)
{
    const tfmt_profile *p = c->p;
    for (size_t i = 0; i < p->nnodes; i++)
        if (p->nodes[i].frame != TFMT_NO_ID)
            c->counts[p->nodes[i].frame] = 1;
    /* frames with counts from JSONL exports (no nodes of their own) */
    for (size_t f = 0; f < agg_frames(p); f++)
        if (p->aggs[f].self || p->aggs[f].cum)
            c->counts[f] = 1;
    c->h->jsonl = p->naggs > 0;
    for (size_t f = 0; f < p->nframes; f++) {
        int32_t line, end_line, col, end_col;
        tfmt__profile_norm_loc(&p->frames[f], &line, &end_line, &col, &end_col);
        c->fl[f] = line;
        if (c->counts[f] &&
            !file_counts(tfmt__profile_str(p, p->frames[f].filename), line))
            c->counts[f] = 0;
    }
}

/* ---- lines and files ---- */

static void add_file(tfmt_heatmap *h, uint32_t name, uint32_t first_line)
{
    hfile *f = &h->files[h->nfiles++];
    memset(f, 0, sizeof *f);
    f->name = name;
    f->line = first_line;
}

/* Number the (file, line) pairs of counted frames, files in path order. */
static int number_lines(hctx *c, hkey *k)
{
    const tfmt_profile *p = c->p;
    tfmt_heatmap *h = c->h;
    size_t n = 0;
    for (size_t f = 0; f < p->nframes; f++)
        if (c->counts[f] && c->fl[f] >= 0)
            k[n++] = (hkey){c->srank[p->frames[f].filename], (uint64_t)c->fl[f],
                            0, (uint32_t)f};
    qsort(k, n, sizeof *k, tfmt__heat_key_cmp);
    h->lines = tfmt__calloc(h->alloc, n ? n : 1, sizeof *h->lines);
    h->files = tfmt__calloc(h->alloc, n ? n : 1, sizeof *h->files);
    if (!h->lines || !h->files)
        return TFMT_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        uint32_t f = k[i].id;
        bool new_file = i == 0 || k[i].a != k[i - 1].a;
        if (new_file) {
            add_file(h, p->frames[f].filename, h->nlines);
            c->sfile[p->frames[f].filename] = h->nfiles - 1;
        }
        if (new_file || k[i].b != k[i - 1].b) {
            hline *l = &h->lines[h->nlines++];
            l->file = h->nfiles - 1;
            l->line = c->fl[f];
            l->fn = TFMT_NO_ID;
            h->files[h->nfiles - 1].nlines++;
        }
        c->fline[f] = h->nlines - 1;
    }
    return TFMT_OK;
}

/* ---- instructions ---- */

static int number_instrs(hctx *c, hkey *k)
{
    const tfmt_profile *p = c->p;
    tfmt_heatmap *h = c->h;
    size_t n = 0;
    for (size_t f = 0; f < p->nframes; f++) {
        const tfmt_frame *fr = &p->frames[f];
        if (c->fline[f] == TFMT_NO_ID || fr->opcode == TFMT_NO_OPCODE)
            continue;
        int32_t line, end_line, col, end_col;
        tfmt__profile_norm_loc(fr, &line, &end_line, &col, &end_col);
        /* Signed fields keep their order once biased into uint32. */
        uint64_t b =
            ((uint64_t)fr->opcode << 32) | ((uint32_t)end_line ^ 0x80000000u);
        uint64_t cc = ((uint64_t)((uint32_t)col ^ 0x80000000u) << 32) |
                      ((uint32_t)end_col ^ 0x80000000u);
        k[n++] = (hkey){c->fline[f], b, cc, (uint32_t)f};
    }
    qsort(k, n, sizeof *k, tfmt__heat_key_cmp);
    h->instrs = tfmt__calloc(h->alloc, n ? n : 1, sizeof *h->instrs);
    if (!h->instrs)
        return TFMT_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        uint32_t f = k[i].id;
        if (i == 0 || k[i].a != k[i - 1].a || k[i].b != k[i - 1].b ||
            k[i].c != k[i - 1].c) {
            hinstr *in = &h->instrs[h->ninstrs++];
            int32_t line;
            tfmt__profile_norm_loc(&p->frames[f], &line, &in->end_line,
                                   &in->col, &in->end_col);
            in->line = (uint32_t)k[i].a;
            in->opcode = p->frames[f].opcode;
            hline *l = &h->lines[in->line];
            if (l->ninstr++ == 0)
                l->instr = h->ninstrs - 1;
        }
        c->finstr[f] = h->ninstrs - 1;
    }
    h->opcodes = h->ninstrs > 0;
    return TFMT_OK;
}

/* ---- functions ---- */

static int number_funcs(hctx *c, hkey *k)
{
    const tfmt_profile *p = c->p;
    tfmt_heatmap *h = c->h;
    size_t n = 0;
    for (size_t f = 0; f < p->nframes; f++)
        if (c->counts[f] && tfmt__profile_str(p, p->frames[f].funcname).len > 0)
            k[n++] = (hkey){c->srank[p->frames[f].filename],
                            c->srank[p->frames[f].funcname], 0, (uint32_t)f};
    qsort(k, n, sizeof *k, tfmt__heat_key_cmp);
    h->funcs = tfmt__calloc(h->alloc, n ? n : 1, sizeof *h->funcs);
    if (!h->funcs)
        return TFMT_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        uint32_t f = k[i].id;
        const tfmt_frame *fr = &p->frames[f];
        int32_t line = c->fl[f];
        if (i == 0 || k[i].a != k[i - 1].a || k[i].b != k[i - 1].b) {
            hfunc *fn = &h->funcs[h->nfuncs++];
            fn->file = c->sfile[fr->filename];
            fn->name = fr->funcname;
            fn->def_line = line;
        }
        hfunc *fn = &h->funcs[h->nfuncs - 1];
        /* The lowest line is nearest the def (CPython takes the first
         * seen, which depends on the sample order). */
        if (line > 0 && (fn->def_line <= 0 || line < fn->def_line))
            fn->def_line = line;
        c->ffn[f] = h->nfuncs - 1;
    }
    return TFMT_OK;
}

/* A line's function: the innermost (highest def line) of its frames'. */
static void line_functions(hctx *c)
{
    tfmt_heatmap *h = c->h;
    for (size_t f = 0; f < c->p->nframes; f++) {
        uint32_t l = c->fline[f], fn = c->ffn[f];
        if (l == TFMT_NO_ID || fn == TFMT_NO_ID)
            continue;
        uint32_t cur = h->lines[l].fn;
        if (cur == TFMT_NO_ID ||
            h->funcs[fn].def_line > h->funcs[cur].def_line ||
            (h->funcs[fn].def_line == h->funcs[cur].def_line && fn < cur))
            h->lines[l].fn = fn;
    }
}

/* ---- the walk ---- */

static int add_edge(hctx *c, uint32_t caller_frame, uint32_t callee,
                    uint64_t weight)
{
    tfmt_heatmap *h = c->h;
    uint32_t line = c->fline[caller_frame], caller = c->ffn[caller_frame];
    if (line == TFMT_NO_ID || caller == TFMT_NO_ID)
        return TFMT_OK;
    if (tfmt__grow(h->alloc, (void **)&h->edges, &c->edge_cap,
                   (size_t)h->nedges + 1, sizeof *h->edges) != TFMT_OK)
        return TFMT_ENOMEM;
    h->edges[h->nedges++] = (hedge){line, caller, callee, weight};
    return TFMT_OK;
}

/* Active counts: per line, per file and per folder on the current path. */
typedef struct hactive {
    uint32_t *line, *file, *dir;
} hactive;

/* A file entering (or leaving) the path enters its folders too. */
static void enter_file(tfmt_heatmap *h, hactive *a, uint32_t file, uint64_t t)
{
    if (a->file[file]++ != 0)
        return;
    h->files[file].total += t;
    if (!h->files[file].shown)
        return;
    for (uint32_t d = h->files[file].dir; d != TFMT_NO_ID;
         d = h->dirs[d].parent)
        if (a->dir[d]++ == 0)
            h->dirs[d].total += t;
}

static void leave_file(tfmt_heatmap *h, hactive *a, uint32_t file)
{
    if (--a->file[file] != 0 || !h->files[file].shown)
        return;
    for (uint32_t d = h->files[file].dir; d != TFMT_NO_ID;
         d = h->dirs[d].parent)
        a->dir[d]--;
}

static int count_node(hctx *c, uint32_t node, hactive *a)
{
    const tfmt_profile *p = c->p;
    tfmt_heatmap *h = c->h;
    const tfmt_pnode *n = &p->nodes[node];
    uint64_t t = c->tree.total[node];
    uint32_t l = c->fline[n->frame];
    if (l != TFMT_NO_ID) {
        hline *hl = &h->lines[l];
        if (a->line[l]++ == 0)
            hl->total += t;
        enter_file(h, a, hl->file, t);
        hl->self += n->self;
    }
    if (c->finstr[n->frame] != TFMT_NO_ID)
        h->instrs[c->finstr[n->frame]].count += t;
    uint32_t callee = c->ffn[n->frame];
    if (callee == TFMT_NO_ID || n->parent == TFMT_NO_ID ||
        p->nodes[n->parent].frame == TFMT_NO_ID)
        return TFMT_OK;
    return add_edge(c, p->nodes[n->parent].frame, callee, t);
}

static int walk(hctx *c)
{
    const tfmt_profile *p = c->p;
    tfmt_heatmap *h = c->h;
    hactive a;
    a.line = tfmt__calloc(h->alloc, h->nlines + 1, sizeof *a.line);
    a.file = tfmt__calloc(h->alloc, h->nfiles + 1, sizeof *a.file);
    a.dir = tfmt__calloc(h->alloc, h->ndirs + 1, sizeof *a.dir);
    int rc = a.line && a.file && a.dir ? TFMT_OK : TFMT_ENOMEM;
    tfmt_pwalk w;
    tfmt__pwalk_init(&w, p, &c->tree);
    uint32_t node;
    int dir;
    while (rc == TFMT_OK && (dir = tfmt__pwalk_next(&w, &node)) != 0) {
        uint32_t f = p->nodes[node].frame;
        if (f == TFMT_NO_ID)
            continue;
        if (dir > 0) {
            rc = count_node(c, node, &a);
        } else if (c->fline[f] != TFMT_NO_ID) {
            a.line[c->fline[f]]--;
            leave_file(h, &a, h->lines[c->fline[f]].file);
        }
    }
    tfmt__free(h->alloc, a.line);
    tfmt__free(h->alloc, a.file);
    tfmt__free(h->alloc, a.dir);
    return rc;
}

/* ---- JSONL exports: per-frame totals, no stacks ---- */

static uint64_t cap_add(uint64_t a, uint64_t b, uint64_t cap)
{
    uint64_t s = a > UINT64_MAX - b ? UINT64_MAX : a + b;
    return s < cap ? s : cap;
}

/*
 * Line totals from the exports' frames: the frames of one line (they
 * differ in columns or function) sorted by (line, function); a function's
 * frames on the line are summed (one activation of a function is at one
 * column at a time) and the line takes its largest function's sum (a
 * function defined on the line, a lambda or a generator, runs under the
 * caller's frame of that line), capped at the exports' samples. Exact
 * unless a function's columns of the line were on one stack (recursion:
 * fib(n - 1) + fib(n - 2)), where it counts a sample twice.
 */
static int export_lines(hctx *c, uint64_t *lt)
{
    const tfmt_profile *p = c->p;
    tfmt_heatmap *h = c->h;
    size_t n = 0, nf = agg_frames(p);
    hkey *k = tfmt__malloc(h->alloc, (nf + 1) * sizeof *k);
    if (!k)
        return TFMT_ENOMEM;
    for (size_t f = 0; f < nf; f++)
        if (c->fline[f] != TFMT_NO_ID)
            k[n++] = (hkey){c->fline[f], c->ffn[f], 0, (uint32_t)f};
    qsort(k, n, sizeof *k, tfmt__heat_key_cmp);
    uint64_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const tfmt_pagg *a = &p->aggs[k[i].id];
        h->lines[k[i].a].self += a->self;
        bool same = i > 0 && k[i].a == k[i - 1].a && k[i].b == k[i - 1].b;
        run = cap_add(same ? run : 0, a->cum, p->agg_samples);
        lt[k[i].a] = run > lt[k[i].a] ? run : lt[k[i].a];
    }
    tfmt__free(h->alloc, k);
    return TFMT_OK;
}

/*
 * An export's frames add their self and cumulative counts to their lines:
 * self exactly, totals as export_lines says. A file's share (and a
 * folder's) is its largest line total: a lower bound, exact when one line
 * of it (a caller's) is on the stack of all its samples. These add to
 * what the call tree gave (the samples are disjoint).
 */
static int add_exports(hctx *c)
{
    tfmt_heatmap *h = c->h;
    if (!h->jsonl)
        return TFMT_OK;
    uint64_t *lt = tfmt__calloc(h->alloc, h->nlines + 1, sizeof *lt);
    uint64_t *ft = tfmt__calloc(h->alloc, h->nfiles + 1, sizeof *ft);
    uint64_t *dt = tfmt__calloc(h->alloc, h->ndirs + 1, sizeof *dt);
    int rc = lt && ft && dt ? export_lines(c, lt) : TFMT_ENOMEM;
    for (uint32_t l = 0; rc == TFMT_OK && l < h->nlines; l++) {
        uint32_t fi = h->lines[l].file;
        h->lines[l].total += lt[l];
        ft[fi] = lt[l] > ft[fi] ? lt[l] : ft[fi];
    }
    for (uint32_t fi = 0; rc == TFMT_OK && fi < h->nfiles; fi++) {
        h->files[fi].total += ft[fi];
        if (!h->files[fi].shown)
            continue;
        for (uint32_t d = h->files[fi].dir; d != TFMT_NO_ID;
             d = h->dirs[d].parent)
            dt[d] = ft[fi] > dt[d] ? ft[fi] : dt[d];
    }
    for (uint32_t d = 0; rc == TFMT_OK && d < h->ndirs; d++)
        h->dirs[d].total += dt[d];
    tfmt__free(h->alloc, lt);
    tfmt__free(h->alloc, ft);
    tfmt__free(h->alloc, dt);
    return rc;
}

/* ---- edges: merged, indexed by caller line and by callee ---- */

static int edge_cmp(const void *va, const void *vb)
{
    const hedge *x = va, *y = vb;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->callee != y->callee)
        return x->callee < y->callee ? -1 : 1;
    return x->caller < y->caller ? -1 : x->caller > y->caller;
}

/* Edges in callee order (callee, caller, line), and each function's. */
static int index_callers(tfmt_heatmap *h)
{
    uint32_t n = h->nedges;
    hkey *k = tfmt__malloc(h->alloc, (n ? n : 1) * sizeof *k);
    h->by_callee = tfmt__malloc(h->alloc, (n ? n : 1) * sizeof(uint32_t));
    if (!k || !h->by_callee) {
        tfmt__free(h->alloc, k);
        return TFMT_ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++)
        k[i] =
            (hkey){h->edges[i].callee, h->edges[i].caller, h->edges[i].line, i};
    qsort(k, n, sizeof *k, tfmt__heat_key_cmp);
    for (uint32_t i = 0; i < n; i++) {
        h->by_callee[i] = k[i].id;
        hfunc *fn = &h->funcs[h->edges[k[i].id].callee];
        if (fn->ncaller++ == 0)
            fn->caller = i;
    }
    tfmt__free(h->alloc, k);
    return TFMT_OK;
}

static int index_edges(tfmt_heatmap *h)
{
    if (h->nedges) /* none from an export alone: edges is NULL */
        qsort(h->edges, h->nedges, sizeof *h->edges, edge_cmp);
    uint32_t n = 0;
    for (uint32_t i = 0; i < h->nedges; i++) {
        if (n && edge_cmp(&h->edges[n - 1], &h->edges[i]) == 0)
            h->edges[n - 1].count += h->edges[i].count;
        else
            h->edges[n++] = h->edges[i];
    }
    h->nedges = n;
    for (uint32_t i = 0; i < n; i++) {
        hline *l = &h->lines[h->edges[i].line];
        if (l->ncallee++ == 0)
            l->callee = i;
    }
    return index_callers(h);
}

/* ---- files: totals and pages ---- */

/* Files with a page: not CPython's placeholders '~', '.' and '...'. */
static void mark_shown(tfmt_heatmap *h)
{
    for (uint32_t i = 0; i < h->nfiles; i++) {
        tfmt_str s = tfmt__heat_path(h, i);
        h->files[i].shown = !((s.len == 1 && s.ptr[0] == '~') ||
                              (s.len == 1 && s.ptr[0] == '.') ||
                              (s.len == 3 && memcmp(s.ptr, "...", 3) == 0));
    }
}

static void file_stats(tfmt_heatmap *h)
{
    for (uint32_t i = 0; i < h->nfiles; i++) {
        hfile *f = &h->files[i];
        for (uint32_t j = f->line; j < f->line + f->nlines; j++) {
            const hline *l = &h->lines[j];
            f->self += l->self;
            f->line_sum += l->total;
            f->max_self = l->self > f->max_self ? l->self : f->max_self;
            f->max_total = l->total > f->max_total ? l->total : f->max_total;
        }
    }
}

/* Pages: hottest file first (samples with the file on the stack), then
 * by path. Files are already in path order. */
static int number_pages(tfmt_heatmap *h)
{
    hkey *k = tfmt__malloc(h->alloc, (h->nfiles + 1) * sizeof *k);
    h->pages = tfmt__malloc(h->alloc, (h->nfiles + 1) * sizeof *h->pages);
    if (!k || !h->pages) {
        tfmt__free(h->alloc, k);
        return TFMT_ENOMEM;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < h->nfiles; i++)
        if (h->files[i].shown)
            k[n++] = (hkey){UINT64_MAX - h->files[i].total, i, 0, i};
    qsort(k, n, sizeof *k, tfmt__heat_key_cmp);
    for (uint32_t i = 0; i < n; i++) {
        h->pages[i] = k[i].id;
        h->files[k[i].id].page = i;
    }
    h->npages = n;
    tfmt__free(h->alloc, k);
    return TFMT_OK;
}

/* ---- the whole build ---- */

static int alloc_ctx(hctx *c)
{
    const tfmt_profile *p = c->p;
    const tfmt_allocator *a = p->alloc;
    size_t ns = p->nstrings + 1, nf = p->nframes + 1;
    c->srank = tfmt__malloc(a, ns * sizeof *c->srank);
    c->sfile = tfmt__malloc(a, ns * sizeof *c->sfile);
    c->counts = tfmt__calloc(a, nf, 1);
    c->fl = tfmt__malloc(a, nf * sizeof *c->fl);
    c->fline = tfmt__malloc(a, nf * sizeof *c->fline);
    c->finstr = tfmt__malloc(a, nf * sizeof *c->finstr);
    c->ffn = tfmt__malloc(a, nf * sizeof *c->ffn);
    if (!c->srank || !c->sfile || !c->counts || !c->fl || !c->fline ||
        !c->finstr || !c->ffn)
        return TFMT_ENOMEM;
    memset(c->sfile, 0xff, ns * sizeof *c->sfile);
    memset(c->fline, 0xff, nf * sizeof *c->fline);
    memset(c->finstr, 0xff, nf * sizeof *c->finstr);
    memset(c->ffn, 0xff, nf * sizeof *c->ffn);
    return tfmt__ptree_build(p, &c->tree);
}

static void free_ctx(hctx *c)
{
    const tfmt_allocator *a = c->p->alloc;
    void *v[] = {c->srank, c->sfile,  c->counts, c->fl,
                 c->fline, c->finstr, c->ffn};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        tfmt__free(a, v[i]);
    tfmt__ptree_free(c->p, &c->tree);
}

static int number_all(hctx *c)
{
    hkey *k = tfmt__malloc(c->p->alloc, (c->p->nframes + 1) * sizeof *k);
    if (!k)
        return TFMT_ENOMEM;
    mark_frames(c);
    int rc = number_lines(c, k);
    if (rc == TFMT_OK)
        rc = number_instrs(c, k);
    if (rc == TFMT_OK)
        rc = number_funcs(c, k);
    tfmt__free(c->p->alloc, k);
    if (rc == TFMT_OK)
        line_functions(c);
    return rc;
}

int tfmt__heat_build(tfmt_heatmap *h)
{
    hctx c;
    memset(&c, 0, sizeof c);
    c.h = h;
    c.p = h->p;
    int rc = alloc_ctx(&c);
    if (rc == TFMT_OK)
        rc = rank_strings(&c);
    if (rc == TFMT_OK)
        rc = number_all(&c);
    if (rc == TFMT_OK) {
        mark_shown(h);
        rc = tfmt__heat_tree(h);
    }
    if (rc == TFMT_OK)
        rc = walk(&c);
    if (rc == TFMT_OK)
        rc = add_exports(&c);
    if (rc == TFMT_OK)
        rc = index_edges(h);
    if (rc == TFMT_OK) {
        file_stats(h);
        rc = number_pages(h);
    }
    free_ctx(&c);
    return rc;
}

void tfmt__heat_free_model(tfmt_heatmap *h)
{
    void *v[] = {h->files, h->pages, h->lines,     h->instrs,
                 h->funcs, h->edges, h->by_callee, h->dirs};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        tfmt__free(h->alloc, v[i]);
}
