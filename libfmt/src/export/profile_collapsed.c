/* SPDX-License-Identifier: MIT */
/*
 * profile_collapsed.c - CPython's collapsed-stack output, byte for byte.
 *
 * CollapsedStackCollector counts on (root-to-leaf tuple of (filename,
 * lineno, funcname), thread_id): columns, end lines, opcodes and
 * interpreter ids are not in the key, so several tree paths can merge.
 * The tree is first folded onto that key ("cnodes"), then each cnode with
 * a count becomes a line "tid:<id>;<frame>;...;<frame> <count>", sorted by
 * count descending, then by the line text (Python str order, which is
 * UTF-8 byte order), then by first appearance (Python's sort is stable
 * over the Counter's insertion order). collapsed_rank.c finds that order
 * without comparing texts; when it cannot (a frame text with a ';'), the
 * lines are sorted by comparison here.
 */
#include <string.h>

#include "collapsed.h"

static bool ckey_eq(const void *ctx, uint32_t id, const void *key)
{
    return memcmp(&((const cctx *)ctx)->keys[id], key, sizeof(ckey)) == 0;
}

static bool cnode_eq(const void *ctx, uint32_t id, const void *key)
{
    const cnode *a = &((const cctx *)ctx)->nodes[id];
    const cnode *b = key;
    return a->parent == b->parent && a->frame == b->frame && a->tid == b->tid;
}

static int map_frames(cctx *c)
{
    const tfmt_profile *p = c->p;
    for (size_t i = 0; i < p->nframes; i++) {
        const tfmt_frame *f = &p->frames[i];
        ckey k;
        memset(&k, 0, sizeof k);
        k.file = f->filename;
        k.func = f->funcname;
        /* extract_lineno: no location -> 0. */
        k.line = f->lineno == TFMT_NO_LOCATION ? 0 : f->lineno;
        uint64_t h = tfmt__hash_key(((uint64_t)k.file << 32) | k.func);
        h = tfmt__hash_mix(h ^ (uint32_t)k.line);
        uint32_t id = tfmt__idset_find(&c->kset, h, &k, ckey_eq, c);
        if (id == TFMT_NO_ID) {
            id = c->nkeys++;
            c->keys[id] = k;
            if (tfmt__idset_insert(&c->kset, h, id) != TFMT_OK)
                return TFMT_ENOMEM;
        }
        c->fmap[i] = id;
    }
    return TFMT_OK;
}

static int fold_node(cctx *c, const cnode *k, uint32_t *out)
{
    uint64_t h = tfmt__hash_key(((uint64_t)k->parent << 32) | k->frame);
    h = tfmt__hash_mix(h ^ k->tid);
    uint32_t id = tfmt__idset_find(&c->nset, h, k, cnode_eq, c);
    if (id == TFMT_NO_ID) {
        if (tfmt__grow(c->p->alloc, (void **)&c->nodes, &c->capnodes,
                       c->nnodes + 1, sizeof *c->nodes) != TFMT_OK)
            return TFMT_ENOMEM;
        id = (uint32_t)c->nnodes++;
        c->nodes[id] = *k;
        if (tfmt__idset_insert(&c->nset, h, id) != TFMT_OK)
            return TFMT_ENOMEM;
    }
    *out = id;
    return TFMT_OK;
}

/*
 * The fold is the identity when no two frames share a collector key and
 * no two threads a thread id (interpreters apart): then every profile
 * node is its own cnode and no table is needed (the common case, and
 * the one with millions of nodes).
 */
static bool fold_is_identity(const cctx *c)
{
    const tfmt_profile *p = c->p;
    if (c->nkeys != p->nframes)
        return false;
    tfmt_tidmap seen;
    tfmt__tidmap_init(&seen, p->alloc);
    bool ok = true;
    for (size_t i = 0; i < p->nthreads && ok; i++) {
        uint64_t tid = p->threads[i].thread_id;
        ok = tfmt__tidmap_find(&seen, tid, 0) == UINT32_MAX &&
             tfmt__tidmap_insert(&seen, tid, 0, (uint32_t)i) == TFMT_OK;
    }
    tfmt__tidmap_free(&seen);
    return ok;
}

static void copy_tree(cctx *c)
{
    const tfmt_profile *p = c->p;
    for (size_t i = 0; i < p->nnodes; i++) {
        const tfmt_pnode *n = &p->nodes[i];
        cnode *k = &c->nodes[i];
        bool root = n->parent == TFMT_NO_ID;
        k->parent = n->parent;
        k->frame = root ? TFMT_NO_ID : c->fmap[n->frame];
        k->tid = root ? p->threads[n->thread].thread_id : 0;
        k->count = n->self;
        k->first = n->self ? n->leaf_seq : TFMT_NO_ID;
        k->depth = n->depth;
    }
    c->nnodes = p->nnodes;
}

/* Fold every profile node onto its collector key, parents first. */
static int fold_tree(cctx *c)
{
    if (fold_is_identity(c)) {
        copy_tree(c);
        c->identity = true;
        return TFMT_OK;
    }
    const tfmt_profile *p = c->p;
    for (size_t i = 0; i < p->nnodes; i++) {
        const tfmt_pnode *n = &p->nodes[i];
        cnode k = {TFMT_NO_ID, TFMT_NO_ID, 0, 0, TFMT_NO_ID, 0};
        if (n->parent == TFMT_NO_ID) {
            k.tid = p->threads[n->thread].thread_id;
        } else {
            k.parent = c->nmap[n->parent];
            k.frame = c->fmap[n->frame];
            k.depth = c->nodes[k.parent].depth + 1;
        }
        uint32_t id;
        if (fold_node(c, &k, &id) != TFMT_OK)
            return TFMT_ENOMEM;
        c->nmap[i] = id;
        c->nodes[id].count += n->self;
        if (n->self && n->leaf_seq < c->nodes[id].first)
            c->nodes[id].first = n->leaf_seq;
    }
    return TFMT_OK;
}

/* basename(filename):funcname:lineno, or funcname for "~" frames at 0. */
static int put_frame_text(tfmt_buf *b, const tfmt_profile *p, const ckey *k)
{
    tfmt_str file = tfmt__profile_str(p, k->file);
    tfmt_str func = tfmt__profile_str(p, k->func);
    if (file.len == 1 && file.ptr[0] == '~' && k->line == 0)
        return tfmt__buf_put(b, func.ptr, func.len);
    size_t base = file.len;
    while (base > 0 && file.ptr[base - 1] != '/')
        base--;
    if (tfmt__buf_put(b, file.ptr + base, file.len - base) != TFMT_OK ||
        tfmt__buf_putc(b, ':') != TFMT_OK ||
        tfmt__buf_put(b, func.ptr, func.len) != TFMT_OK ||
        tfmt__buf_putc(b, ':') != TFMT_OK)
        return TFMT_ENOMEM;
    return tfmt__buf_put_i64(b, k->line);
}

/*
 * Render every collapsed frame's text once, each after its ";" separator
 * so that a line is "tid:<id>" plus whole chunks (foff[nkeys] ends the
 * last).
 */
static int render_frames(cctx *c)
{
    c->foff = tfmt__malloc(c->p->alloc, (c->nkeys + 1) * sizeof *c->foff);
    if (!c->foff)
        return TFMT_ENOMEM;
    for (uint32_t i = 0; i < c->nkeys; i++) {
        c->foff[i] = c->ftext.len;
        if (tfmt__buf_putc(&c->ftext, ';') != TFMT_OK ||
            put_frame_text(&c->ftext, c->p, &c->keys[i]) != TFMT_OK)
            return TFMT_ENOMEM;
    }
    c->foff[c->nkeys] = c->ftext.len;
    return TFMT_OK;
}

/*
 * Most profiles have fewer than 65536 collapsed frames: their paths (the
 * bulk of the memory left) take two bytes a level instead of four.
 */
static inline uint32_t path_get(const cctx *c, size_t i)
{
    return c->narrow ? ((const uint16_t *)c->paths)[i]
                     : ((const uint32_t *)c->paths)[i];
}

static inline void path_set(cctx *c, size_t i, uint32_t f)
{
    if (c->narrow)
        ((uint16_t *)c->paths)[i] = (uint16_t)f;
    else
        ((uint32_t *)c->paths)[i] = f;
}

/*
 * One line per cnode with a count. Its text is never materialised (23 MB
 * for a 4M-sample profile, mostly page faults): the line keeps its frames
 * as collapsed-frame ids, root first, at paths[off .. off + depth - 1].
 */
static void collect_line(cctx *c, uint32_t leaf, size_t off, cline *l)
{
    uint32_t x = leaf;
    l->off = off;
    l->depth = c->nodes[leaf].depth;
    l->count = c->nodes[leaf].count;
    l->first = c->nodes[leaf].first;
    l->node = leaf;
    for (size_t i = l->depth; i-- > 0; x = c->nodes[x].parent)
        path_set(c, off + i, c->nodes[x].frame);
    l->tid = c->nodes[x].tid;
}

static int sort_lines(cctx *c);

/*
 * The lines of the cnodes in `which` (n of them), or of every cnode with
 * a count when `which` is NULL. Sized exactly up front: the paths are
 * most of the memory left.
 */
static int collect_lines(cctx *c, const uint32_t *which, size_t n)
{
    size_t total = 0;
    if (!which) {
        n = 0;
        for (size_t i = 0; i < c->nnodes; i++) {
            n += c->nodes[i].count > 0;
            total += c->nodes[i].count > 0 ? c->nodes[i].depth : 0;
        }
    } else {
        for (size_t i = 0; i < n; i++)
            total += c->nodes[which[i]].depth;
    }
    const tfmt_allocator *a = c->p->alloc;
    c->narrow = c->nkeys <= (uint32_t)UINT16_MAX + 1;
    size_t width = c->narrow ? sizeof(uint16_t) : sizeof(uint32_t);
    if (total > SIZE_MAX / width)
        return TFMT_ENOMEM;
    c->lines = tfmt__malloc(a, (n ? n : 1) * sizeof *c->lines);
    c->paths = tfmt__malloc(a, (total ? total : 1) * width);
    if (!c->lines || !c->paths)
        return TFMT_ENOMEM;
    size_t off = 0;
    c->nlines = 0;
    for (size_t i = 0; i < (which ? n : c->nnodes); i++) {
        uint32_t id = which ? which[i] : (uint32_t)i;
        if (c->nodes[id].count == 0)
            continue;
        collect_line(c, id, off, &c->lines[c->nlines]);
        off += c->lines[c->nlines++].depth;
    }
    return TFMT_OK;
}

/*
 * The lines in output order: ranked through the trie when the frame
 * texts allow it (collapsed_rank.c; the lines are then collected in that
 * order), else collected and sorted by comparison.
 */
static int ordered_lines(cctx *c)
{
    int rc = tfmt__collapsed_rank_order(c);
    if (rc == TFMT_OK) {
        uint32_t *which = c->order;
        c->order = NULL;
        rc = collect_lines(c, which, c->nlines);
        tfmt__free(c->p->alloc, which);
        return rc;
    }
    if (rc == TFMT_DONE)
        rc = collect_lines(c, NULL, 0);
    return rc == TFMT_OK ? sort_lines(c) : rc;
}

/* Decimal digits of v at the end of buf[20]; returns the first digit. */
static char *u64_digits(char *buf, uint64_t v)
{
    char *o = buf + 20;
    do {
        *--o = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return o;
}

/*
 * A read position in a line's text after "tid:": the rest (p, n) of the
 * current chunk, then one chunk per remaining level (";frame"). Chunks are
 * never empty, so n == 0 means "at a chunk boundary".
 */
typedef struct ccur {
    size_t base, depth, level; /* frames at paths[base + level..] */
    const char *p;
    size_t n;
    char dec[20];
} ccur;

static void cur_init(ccur *u, const cctx *c, const cline *l, bool tid)
{
    u->base = l->off;
    u->depth = l->depth;
    u->level = 0;
    u->n = 0;
    if (tid) {
        u->p = u64_digits(u->dec, l->tid);
        u->n = (size_t)(u->dec + 20 - u->p);
    }
}

static bool cur_next(const cctx *c, ccur *u)
{
    if (u->level == u->depth)
        return false;
    uint32_t f = path_get(c, u->base + u->level++);
    u->p = c->ftext.data + c->foff[f];
    u->n = c->foff[f + 1] - c->foff[f];
    return true;
}

/* Both at chunk boundaries: frames with one id have one text, skip them. */
static void cur_skip_same(const cctx *c, ccur *a, ccur *b)
{
    while (a->level < a->depth && b->level < b->depth &&
           path_get(c, a->base + a->level) == path_get(c, b->base + b->level)) {
        a->level++;
        b->level++;
    }
}

/*
 * memcmp order of the two full texts (a proper prefix first), compared
 * chunk against chunk wherever the chunk boundaries fall: "f:1" is a
 * prefix of "f:10", so ";" (0x3b) after it meets "0" (0x30).
 */
static int cur_cmp(const cctx *c, ccur *a, ccur *b)
{
    for (;;) {
        if (a->n == 0 && b->n == 0)
            cur_skip_same(c, a, b);
        if (a->n == 0 && !cur_next(c, a))
            return b->n == 0 && !cur_next(c, b) ? 0 : -1;
        if (b->n == 0 && !cur_next(c, b))
            return 1;
        size_t m = a->n < b->n ? a->n : b->n;
        int r = memcmp(a->p, b->p, m);
        if (r != 0)
            return r;
        a->p += m;
        a->n -= m;
        b->p += m;
        b->n -= m;
    }
}

/* count descending, line text (bytes), first appearance. */
static int cmp_lines(const cctx *c, const cline *x, const cline *y)
{
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    /* Equal tids have equal digits: start both after them. */
    bool tid = x->tid != y->tid;
    ccur a, b;
    cur_init(&a, c, x, tid);
    cur_init(&b, c, y, tid);
    int r = cur_cmp(c, &a, &b);
    if (r != 0)
        return r;
    return x->first < y->first ? -1 : x->first > y->first;
}

static int cmp_line_ids(void *ctx, uint32_t a, uint32_t b)
{
    const cctx *c = ctx;
    return cmp_lines(c, &c->lines[a], &c->lines[b]);
}

/* The line indices sorted (by line indices, 4 bytes a move, not a cline). */
static int sort_lines(cctx *c)
{
    size_t n = c->nlines;
    const tfmt_allocator *a = c->p->alloc;
    c->order = tfmt__malloc(a, (n ? n : 1) * sizeof *c->order);
    uint32_t *tmp = tfmt__malloc(a, (n ? n : 1) * sizeof *tmp);
    if (!c->order || !tmp) {
        tfmt__free(a, tmp);
        return TFMT_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        c->order[i] = (uint32_t)i;
    tfmt__collapsed_msort(c->order, tmp, n, cmp_line_ids, c);
    tfmt__free(a, tmp);
    return TFMT_OK;
}

/*
 * Lines go out in text order within a count, so a line mostly starts
 * like the one before it: that part is copied from the previous line in
 * the buffer in one piece (the frames are compared by id, not by text),
 * and only the rest is assembled chunk by chunk. `lvl[i]` is where the
 * previous line's text ends after its i-th frame.
 */
typedef struct lwriter {
    tfmt_buf out;
    const cline *prev; /* NULL: not in the buffer any more */
    size_t prev_at;    /* its offset in out */
    size_t *lvl;       /* deepest line + 1 offsets */
} lwriter;

static size_t common_frames(const cctx *c, const cline *a, const cline *b)
{
    size_t n = a->depth < b->depth ? a->depth : b->depth, k = 0;
    while (k < n && path_get(c, a->off + k) == path_get(c, b->off + k))
        k++;
    return k;
}

static int put_line(const cctx *c, lwriter *w, const cline *l)
{
    char dec[20], *tid = u64_digits(dec, l->tid);
    size_t tlen = (size_t)(dec + 20 - tid), need = 4 + tlen + 22;
    for (size_t i = 0; i < l->depth; i++) {
        uint32_t f = path_get(c, l->off + i);
        need += c->foff[f + 1] - c->foff[f];
    }
    if (tfmt__buf_reserve(&w->out, need) != TFMT_OK)
        return TFMT_ENOMEM;
    char *base = w->out.data + w->out.len, *o = base;
    size_t k = 0;
    if (w->prev && w->prev->tid == l->tid)
        k = common_frames(c, w->prev, l);
    if (k > 0) {
        memcpy(o, w->out.data + w->prev_at, w->lvl[k]);
        o += w->lvl[k];
    } else {
        memcpy(o, "tid:", 4);
        memcpy(o + 4, tid, tlen);
        o += 4 + tlen;
        w->lvl[0] = (size_t)(o - base);
    }
    for (size_t i = k; i < l->depth; i++) {
        uint32_t f = path_get(c, l->off + i);
        size_t n = c->foff[f + 1] - c->foff[f];
        memcpy(o, c->ftext.data + c->foff[f], n);
        o += n;
        w->lvl[i + 1] = (size_t)(o - base);
    }
    *o++ = ' ';
    char *cnt = u64_digits(dec, l->count);
    memcpy(o, cnt, (size_t)(dec + 20 - cnt));
    o += dec + 20 - cnt;
    *o++ = '\n';
    w->prev = l;
    w->prev_at = w->out.len;
    w->out.len += (size_t)(o - base);
    return TFMT_OK;
}

static int write_lines(cctx *c, tfmt_sink *sink, bool *io_failed)
{
    lwriter w;
    int rc = TFMT_OK;
    tfmt__buf_init(&w.out, c->p->alloc);
    w.prev = NULL;
    w.prev_at = 0;
    size_t deepest = 0;
    for (size_t i = 0; i < c->nlines; i++)
        deepest = c->lines[i].depth > deepest ? c->lines[i].depth : deepest;
    w.lvl = tfmt__malloc(c->p->alloc, (deepest + 1) * sizeof *w.lvl);
    if (!w.lvl)
        rc = TFMT_ENOMEM;
    for (size_t i = 0; i < c->nlines && rc == TFMT_OK; i++) {
        const cline *l = &c->lines[c->order ? c->order[i] : i];
        if (put_line(c, &w, l) != TFMT_OK) {
            rc = TFMT_ENOMEM;
        } else if (w.out.len >= TFMT_EXPORT_FLUSH) {
            w.prev = NULL;
            if (tfmt__profile_flush(&w.out, sink, 0) != TFMT_OK) {
                *io_failed = true;
                rc = TFMT_EIO;
            }
        }
    }
    if (rc == TFMT_OK && tfmt__profile_flush(&w.out, sink, 0) != TFMT_OK) {
        *io_failed = true;
        rc = TFMT_EIO;
    }
    tfmt__buf_free(&w.out);
    tfmt__free(c->p->alloc, w.lvl);
    return rc;
}

static int ctx_init(cctx *c, tfmt_profile *p)
{
    const tfmt_allocator *a = p->alloc;
    size_t nf = p->nframes ? p->nframes : 1;
    size_t nn = p->nnodes ? p->nnodes : 1;
    memset(c, 0, sizeof *c);
    c->p = p;
    tfmt__idset_init(&c->kset, a);
    tfmt__idset_init(&c->nset, a);
    tfmt__buf_init(&c->ftext, a);
    c->keys = tfmt__malloc(a, nf * sizeof *c->keys);
    c->fmap = tfmt__malloc(a, nf * sizeof *c->fmap);
    c->nmap = tfmt__malloc(a, nn * sizeof *c->nmap);
    /* At most one cnode per profile node: no regrowth while folding. */
    c->nodes = tfmt__malloc(a, nn * sizeof *c->nodes);
    c->capnodes = nn;
    if (!c->keys || !c->fmap || !c->nmap || !c->nodes)
        return TFMT_ENOMEM;
    return TFMT_OK;
}

/* Free what only folding needs, before the lines take their memory. */
static void drop_fold_state(cctx *c)
{
    const tfmt_allocator *a = c->p->alloc;
    tfmt__free(a, c->fmap);
    tfmt__free(a, c->nmap);
    c->fmap = c->nmap = NULL;
    tfmt__idset_free(&c->kset);
    tfmt__idset_free(&c->nset);
}

static void ctx_free(cctx *c)
{
    const tfmt_allocator *a = c->p->alloc;
    tfmt__free(a, c->keys);
    tfmt__free(a, c->fmap);
    tfmt__free(a, c->nodes);
    tfmt__free(a, c->nmap);
    tfmt__free(a, c->paths);
    tfmt__free(a, c->lines);
    tfmt__free(a, c->order);
    tfmt__idset_free(&c->kset);
    tfmt__idset_free(&c->nset);
    tfmt__buf_free(&c->ftext);
    tfmt__free(a, c->foff);
}

int tfmt_profile_write_collapsed(tfmt_profile *p, tfmt_sink *sink)
{
    if (!p || !sink)
        return TFMT_EINVAL;
    if (tfmt__xneed_stacks(p) != TFMT_OK || tfmt__xneed_views(p) != TFMT_OK)
        return TFMT_EINVAL;
    /* The node index is the largest table left: not needed here. */
    tfmt__profile_drop_index(p);
    /* A tree shared by threads is folded alike, then each thread's lines
     * come from its leaves (one thread's tree is the shared one). */
    bool shared = p->opts.shared_tree && p->nthreads > 1;
    cctx c;
    bool io_failed = false;
    int rc = ctx_init(&c, p);
    if (rc == TFMT_OK)
        rc = map_frames(&c);
    if (rc == TFMT_OK)
        rc = fold_tree(&c);
    if (rc == TFMT_OK)
        rc = render_frames(&c);
    if (rc == TFMT_OK && shared)
        rc = tfmt__collapsed_threads(&c, sink, &io_failed);
    drop_fold_state(&c);
    if (rc == TFMT_OK && !shared)
        rc = ordered_lines(&c);
    /* The lines hold all the rest needs of the cnodes. */
    tfmt__free(p->alloc, c.nodes);
    c.nodes = NULL;
    if (rc == TFMT_OK && !shared)
        rc = write_lines(&c, sink, &io_failed);
    if (io_failed) {
        rc = tfmt__error_take(&p->err, tfmt_sink_error(sink), TFMT_EIO);
    } else if (rc != TFMT_OK) {
        rc = tfmt__error(&p->err, rc, "out of memory");
    }
    ctx_free(&c);
    return rc;
}
