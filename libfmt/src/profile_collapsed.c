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
 * over the Counter's insertion order).
 */
#include <stdlib.h>

#include "profile_internal.h"

#define FLUSH_AT (1u << 20)

typedef struct ckey {               /* a frame as the collector keys it */
    uint32_t file, func;
    int32_t line;
} ckey;

typedef struct cnode {
    uint32_t parent;                /* TFMT_NO_ID for a thread root */
    uint32_t frame;                 /* ckey id; TFMT_NO_ID for roots */
    uint64_t tid;                   /* thread_id of a root, else 0 */
    uint64_t count;
    uint32_t first;                 /* smallest leaf_seq folded in */
} cnode;

typedef struct cline {
    const char *s;
    size_t off, len;
    uint64_t count;
    uint32_t first;
} cline;

typedef struct cctx {
    tfmt_profile *p;
    ckey *keys;                     /* per collapsed frame */
    uint32_t nkeys;
    uint32_t *fmap;                 /* profile frame -> ckey id */
    cnode *nodes;
    size_t nnodes, capnodes;
    uint32_t *nmap;                 /* profile node -> cnode id */
    tfmt_idset kset, nset;
    uint32_t *path;
    size_t cappath;
    cline *lines;
    size_t nlines;
    tfmt_buf text;                  /* the lines, back to back */
    tfmt_buf ftext;                 /* each collapsed frame's text */
    size_t *foff;                   /* per ckey: offset into ftext */
} cctx;

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
        uint64_t h = tfmt__hash_mix(((uint64_t)k.file << 32) | k.func);
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
    uint64_t h = tfmt__hash_mix(((uint64_t)k->parent << 32) | k->frame);
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

/* Fold every profile node onto its collector key, parents first. */
static int fold_tree(cctx *c)
{
    const tfmt_profile *p = c->p;
    for (size_t i = 0; i < p->nnodes; i++) {
        const tfmt_pnode *n = &p->nodes[i];
        cnode k = {TFMT_NO_ID, TFMT_NO_ID, 0, 0, TFMT_NO_ID};
        if (n->parent == TFMT_NO_ID) {
            k.tid = p->threads[n->thread].thread_id;
        } else {
            k.parent = c->nmap[n->parent];
            k.frame = c->fmap[n->frame];
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

/* Render every collapsed frame's text once (foff[nkeys] ends the last). */
static int render_frames(cctx *c)
{
    c->foff = tfmt__malloc(c->p->alloc, (c->nkeys + 1) * sizeof *c->foff);
    if (!c->foff)
        return TFMT_ENOMEM;
    for (uint32_t i = 0; i < c->nkeys; i++) {
        c->foff[i] = c->ftext.len;
        if (put_frame_text(&c->ftext, c->p, &c->keys[i]) != TFMT_OK)
            return TFMT_ENOMEM;
    }
    c->foff[c->nkeys] = c->ftext.len;
    return TFMT_OK;
}

/*
 * The cnode path of `leaf`, root first, into c->path; *depth gets its
 * length and *bytes the length of its frames' texts plus separators.
 */
static int collect_path(cctx *c, uint32_t leaf, size_t *depth,
                        size_t *bytes)
{
    size_t d = 0, n = 0;
    for (uint32_t x = leaf; c->nodes[x].parent != TFMT_NO_ID;
         x = c->nodes[x].parent) {
        uint32_t f = c->nodes[x].frame;
        n += c->foff[f + 1] - c->foff[f] + 1;
        d++;
    }
    if (d > c->cappath &&
        tfmt__grow(c->p->alloc, (void **)&c->path, &c->cappath, d,
                   sizeof *c->path) != TFMT_OK)
        return TFMT_ENOMEM;
    uint32_t x = leaf;
    for (size_t i = d; i-- > 0; x = c->nodes[x].parent)
        c->path[i] = x;
    *depth = d;
    *bytes = n;
    return TFMT_OK;
}

static int render_line(cctx *c, uint32_t leaf, cline *l)
{
    size_t depth, bytes;
    if (collect_path(c, leaf, &depth, &bytes) != TFMT_OK)
        return TFMT_ENOMEM;
    uint32_t root = c->nodes[c->path[0]].parent;
    l->off = c->text.len;
    if (tfmt__buf_puts(&c->text, "tid:") != TFMT_OK ||
        tfmt__buf_put_u64(&c->text, c->nodes[root].tid) != TFMT_OK ||
        tfmt__buf_reserve(&c->text, bytes) != TFMT_OK)
        return TFMT_ENOMEM;
    char *o = c->text.data + c->text.len;
    for (size_t i = 0; i < depth; i++) {
        uint32_t f = c->nodes[c->path[i]].frame;
        size_t n = c->foff[f + 1] - c->foff[f];
        *o++ = ';';
        if (n)
            memcpy(o, c->ftext.data + c->foff[f], n);
        o += n;
    }
    c->text.len = (size_t)(o - c->text.data);
    l->len = c->text.len - l->off;
    l->count = c->nodes[leaf].count;
    l->first = c->nodes[leaf].first;
    return TFMT_OK;
}

static int render_lines(cctx *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nnodes; i++)
        n += c->nodes[i].count > 0;
    c->lines = tfmt__malloc(c->p->alloc, (n ? n : 1) * sizeof *c->lines);
    if (!c->lines)
        return TFMT_ENOMEM;
    for (size_t i = 0; i < c->nnodes; i++) {
        if (c->nodes[i].count == 0)
            continue;
        if (render_line(c, (uint32_t)i, &c->lines[c->nlines]) != TFMT_OK)
            return TFMT_ENOMEM;
        c->nlines++;
    }
    for (size_t i = 0; i < c->nlines; i++)
        c->lines[i].s = c->text.data + c->lines[i].off;
    return TFMT_OK;
}

static int cmp_lines(const void *a, const void *b)
{
    const cline *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    int r = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);
    if (r != 0)
        return r;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

static int write_lines(cctx *c, tfmt_sink *sink, bool *io_failed)
{
    tfmt_buf out;
    int rc = TFMT_OK;
    tfmt__buf_init(&out, c->p->alloc);
    for (size_t i = 0; i < c->nlines && rc == TFMT_OK; i++) {
        const cline *l = &c->lines[i];
        if (tfmt__buf_put(&out, l->s, l->len) != TFMT_OK ||
            tfmt__buf_putc(&out, ' ') != TFMT_OK ||
            tfmt__buf_put_u64(&out, l->count) != TFMT_OK ||
            tfmt__buf_putc(&out, '\n') != TFMT_OK) {
            rc = TFMT_ENOMEM;
        } else if (tfmt__profile_flush(&out, sink, FLUSH_AT) != TFMT_OK) {
            *io_failed = true;
            rc = TFMT_EIO;
        }
    }
    if (rc == TFMT_OK && tfmt__profile_flush(&out, sink, 0) != TFMT_OK) {
        *io_failed = true;
        rc = TFMT_EIO;
    }
    tfmt__buf_free(&out);
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
    tfmt__buf_init(&c->text, a);
    tfmt__buf_init(&c->ftext, a);
    c->keys = tfmt__malloc(a, nf * sizeof *c->keys);
    c->fmap = tfmt__malloc(a, nf * sizeof *c->fmap);
    c->nmap = tfmt__malloc(a, nn * sizeof *c->nmap);
    if (!c->keys || !c->fmap || !c->nmap)
        return TFMT_ENOMEM;
    return TFMT_OK;
}

static void ctx_free(cctx *c)
{
    const tfmt_allocator *a = c->p->alloc;
    tfmt__free(a, c->keys);
    tfmt__free(a, c->fmap);
    tfmt__free(a, c->nodes);
    tfmt__free(a, c->nmap);
    tfmt__free(a, c->path);
    tfmt__free(a, c->lines);
    tfmt__idset_free(&c->kset);
    tfmt__idset_free(&c->nset);
    tfmt__buf_free(&c->text);
    tfmt__buf_free(&c->ftext);
    tfmt__free(a, c->foff);
}

int tfmt_profile_write_collapsed(tfmt_profile *p, tfmt_sink *sink)
{
    if (!p || !sink)
        return TFMT_EINVAL;
    cctx c;
    bool io_failed = false;
    int rc = ctx_init(&c, p);
    if (rc == TFMT_OK)
        rc = map_frames(&c);
    if (rc == TFMT_OK)
        rc = fold_tree(&c);
    if (rc == TFMT_OK)
        rc = render_frames(&c);
    if (rc == TFMT_OK)
        rc = render_lines(&c);
    if (rc == TFMT_OK) {
        qsort(c.lines, c.nlines, sizeof *c.lines, cmp_lines);
        rc = write_lines(&c, sink, &io_failed);
    }
    if (io_failed) {
        p->err = *tfmt_sink_error(sink);
        rc = p->err.code < 0 ? p->err.code : TFMT_EIO;
    } else if (rc != TFMT_OK) {
        rc = tfmt__error(&p->err, rc, "out of memory");
    }
    ctx_free(&c);
    return rc;
}
