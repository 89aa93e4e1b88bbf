/* SPDX-License-Identifier: MIT */
/*
 * collapsed_rank.c - the output order of the collapsed lines (count
 * descending, then the line text in byte order, then first appearance)
 * without comparing line texts: with a million lines of equal counts a
 * comparison sort compares long common prefixes twenty times per line,
 * and that was most of the export's time.
 *
 * A line's text is "tid:N" followed by one chunk ";<frame text>" per
 * level, so the texts are the paths of a trie whose edges are chunks
 * (cnodes whose frames print alike are one trie node). Where no frame
 * text holds a ';', the byte order of all the texts is a depth-first walk
 * of that trie that orders each node's children by two strings per
 * child: its chunk (the child's own text, which ends there) and its chunk
 * with ';' appended (standing for every text below the child, all of
 * which go on with ';'). No chunk then starts with another chunk plus
 * ';', so comparing those strings decides every pair of texts the walk
 * puts in order. The strings come from a few thousand distinct frame
 * texts: they are ranked once, the walk sorts integers, and the lines
 * sort by (count, walk position, first appearance) with radix passes.
 * Frame texts with a ';' leave the order to the comparison sort.
 */
#include <string.h>

#include "collapsed.h"

typedef struct rctx {
    cctx *c;
    const tfmt_allocator *a;
    uint32_t *tk;     /* ckey -> text key */
    uint32_t *tk_key; /* text key -> a ckey with that text */
    uint32_t ntk;
    uint32_t *rank; /* item (2 * text key + variant, then
                                   roots) -> rank; variant 1: with ';' */
    uint8_t *sub;   /* rank -> 1 for a "texts below" item */
    uint32_t nroots;
    uint64_t *root_tid;
    uint32_t *tpar, *ttk; /* per trie node: parent, text key */
    uint32_t *cmap;       /* cnode -> trie node */
    uint32_t ntrie;
    uint32_t *off;   /* items of trie node t: [off[t], off[t+1])
                                   (t = ntrie: the roots) */
    uint64_t *items; /* rank << 32 | child */
    uint32_t *pos;   /* trie node -> walk position */
} rctx;

static void *alloc_n(rctx *r, size_t n, size_t elem)
{
    if (n && n > SIZE_MAX / elem)
        return NULL;
    return tfmt__malloc(r->a, (n ? n : 1) * elem);
}

static void rctx_free(rctx *r)
{
    void *v[] = {r->tk,  r->tk_key, r->rank, r->sub,   r->root_tid, r->tpar,
                 r->ttk, r->cmap,   r->off,  r->items, r->pos};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        tfmt__free(r->a, v[i]);
}

/* ---- frame texts ---- */

static tfmt_str chunk(const cctx *c, uint32_t key)
{
    tfmt_str s = {c->ftext.data + c->foff[key],
                  c->foff[key + 1] - c->foff[key]};
    return s;
}

static bool any_semicolon(const cctx *c)
{
    for (uint32_t k = 0; k < c->nkeys; k++) {
        tfmt_str s = chunk(c, k);
        if (s.len > 1 && memchr(s.ptr + 1, ';', s.len - 1))
            return true;
    }
    return false;
}

static bool text_eq(const void *ctx, uint32_t id, const void *key)
{
    const rctx *r = ctx;
    tfmt_str a = chunk(r->c, r->tk_key[id]);
    const tfmt_str *b = key;
    return a.len == b->len && memcmp(a.ptr, b->ptr, a.len) == 0;
}

/* Frames that print alike (same basename, name, line) share a text key. */
static int text_keys(rctx *r)
{
    cctx *c = r->c;
    tfmt_idset set;
    tfmt__idset_init(&set, r->a);
    r->tk = alloc_n(r, c->nkeys, sizeof *r->tk);
    r->tk_key = alloc_n(r, c->nkeys, sizeof *r->tk_key);
    int rc = r->tk && r->tk_key ? TFMT_OK : TFMT_ENOMEM;
    for (uint32_t k = 0; k < c->nkeys && rc == TFMT_OK; k++) {
        tfmt_str s = chunk(c, k);
        uint64_t h = tfmt__hash_text(s.ptr, s.len, 0x636f6c);
        uint32_t id = tfmt__idset_find(&set, h, &s, text_eq, r);
        if (id == TFMT_NO_ID) {
            id = r->ntk++;
            r->tk_key[id] = k;
            rc = tfmt__idset_insert(&set, h, id);
        }
        r->tk[k] = id;
    }
    tfmt__idset_free(&set);
    return rc;
}

/* ---- ranking the strings the walk compares ---- */

/* Byte order of a then b, each followed by ';' when its flag is set. */
static int cmp_text(tfmt_str a, bool sa, tfmt_str b, bool sb)
{
    size_t m = a.len < b.len ? a.len : b.len;
    int d = memcmp(a.ptr, b.ptr, m);
    if (d != 0)
        return d;
    size_t la = a.len + sa, lb = b.len + sb;
    if (la == m || lb == m) /* one of them ends here */
        return la < lb ? -1 : la > lb;
    /* The longer text's next byte against the other's ';'. */
    int ca = a.len > m ? (unsigned char)a.ptr[m] : ';';
    int cb = b.len > m ? (unsigned char)b.ptr[m] : ';';
    return ca != cb ? (ca < cb ? -1 : 1) : (la < lb ? -1 : la > lb);
}

/* Decimal digits of a thread id: the part of "tid:N" that differs. */
static tfmt_str tid_text(uint64_t tid, char buf[24])
{
    char *o = buf + 24;
    do {
        *--o = (char)('0' + tid % 10);
        tid /= 10;
    } while (tid);
    tfmt_str s = {o, (size_t)(buf + 24 - o)};
    return s;
}

/* Item i's string: a frame text key's chunk or a root's digits. */
static tfmt_str item_text(const rctx *r, uint32_t i, char buf[24])
{
    uint32_t nframe_items = 2 * r->ntk;
    if (i < nframe_items)
        return chunk(r->c, r->tk_key[i / 2]);
    return tid_text(r->root_tid[(i - nframe_items) / 2], buf);
}

static int cmp_items(void *ctx, uint32_t x, uint32_t y)
{
    const rctx *r = ctx;
    char bx[24], by[24];
    return cmp_text(item_text(r, x, bx), x & 1, item_text(r, y, by), y & 1);
}

/*
 * Rank every frame item (per text key: its chunk, its chunk + ';') and
 * every root item ("tid:N" and "tid:N;", by their digits) in one order;
 * frame and root items never meet in one sibling list.
 */
static int rank_items(rctx *r)
{
    size_t n = 2 * ((size_t)r->ntk + r->nroots);
    if (n > UINT32_MAX)
        return TFMT_ENOMEM;
    uint32_t *v = alloc_n(r, n, sizeof *v), *tmp = alloc_n(r, n, 4);
    r->rank = alloc_n(r, n, sizeof *r->rank);
    r->sub = alloc_n(r, n, 1);
    int rc = v && tmp && r->rank && r->sub ? TFMT_OK : TFMT_ENOMEM;
    if (rc == TFMT_OK) {
        for (uint32_t i = 0; i < n; i++)
            v[i] = i;
        tfmt__collapsed_msort(v, tmp, n, cmp_items, r);
        for (uint32_t i = 0; i < n; i++) {
            r->rank[v[i]] = i;
            r->sub[i] = v[i] & 1;
        }
    }
    tfmt__free(r->a, v);
    tfmt__free(r->a, tmp);
    return rc;
}

/* ---- the trie ---- */

typedef struct tslot {
    uint64_t key; /* parent << 32 | text key */
    uint32_t id1; /* trie node + 1; 0: empty */
} tslot;

static uint32_t trie_find(tslot *t, size_t mask, uint64_t key, size_t *at)
{
    size_t i = (size_t)(tfmt__hash_key(key) & mask);
    while (t[i].id1 && t[i].key != key)
        i = (i + 1) & mask;
    *at = i;
    return t[i].id1;
}

/*
 * Trie nodes in cnode order (parents first). A root (one per thread id)
 * is its own node; the child of trie node p for text key k is shared by
 * every cnode that reaches it. Without text keys shared by several frames
 * the trie is the cnode tree itself.
 */
static int build_trie(rctx *r)
{
    cctx *c = r->c;
    size_t n = c->nnodes, cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    bool same = r->ntk == c->nkeys;
    tslot *t = same ? NULL : tfmt__calloc(r->a, cap, sizeof *t);
    r->tpar = alloc_n(r, n, sizeof *r->tpar);
    r->ttk = alloc_n(r, n, sizeof *r->ttk);
    r->cmap = alloc_n(r, n, sizeof *r->cmap);
    if ((!same && !t) || !r->tpar || !r->ttk || !r->cmap) {
        tfmt__free(r->a, t);
        return TFMT_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const cnode *cn = &c->nodes[i];
        uint32_t parent =
            cn->parent == TFMT_NO_ID ? TFMT_NO_ID : r->cmap[cn->parent];
        uint32_t k = cn->parent == TFMT_NO_ID ? TFMT_NO_ID : r->tk[cn->frame];
        size_t at = 0;
        uint32_t id1 = 0;
        uint64_t key = (uint64_t)parent << 32 | k;
        if (t && parent != TFMT_NO_ID)
            id1 = trie_find(t, cap - 1, key, &at);
        if (!id1) {
            id1 = ++r->ntrie;
            r->tpar[id1 - 1] = parent;
            r->ttk[id1 - 1] = k;
            if (t && parent != TFMT_NO_ID) {
                t[at].key = key;
                t[at].id1 = id1;
            }
        }
        r->cmap[i] = id1 - 1;
    }
    tfmt__free(r->a, t);
    return TFMT_OK;
}

static int root_tids(rctx *r)
{
    r->root_tid = alloc_n(r, r->ntrie, sizeof *r->root_tid);
    if (!r->root_tid)
        return TFMT_ENOMEM;
    for (size_t i = 0; i < r->c->nnodes; i++)
        if (r->c->nodes[i].parent == TFMT_NO_ID)
            r->root_tid[r->nroots++] = r->c->nodes[i].tid;
    return TFMT_OK;
}

/* ---- sibling lists ---- */

static void sort_small(uint64_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint64_t x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* LSD radix sort of the ranks (the high 32 bits), 8 bits a pass. */
static void sort_wide(uint64_t *v, uint64_t *tmp, size_t n)
{
    uint64_t *src = v, *dst = tmp;
    for (unsigned shift = 32; shift < 64; shift += 8) {
        size_t cnt[257] = {0};
        for (size_t i = 0; i < n; i++)
            cnt[((src[i] >> shift) & 0xff) + 1]++;
        if (cnt[((src[0] >> shift) & 0xff) + 1] == n)
            continue; /* one digit value: nothing moves */
        for (int d = 0; d < 256; d++)
            cnt[d + 1] += cnt[d];
        for (size_t i = 0; i < n; i++)
            dst[cnt[(src[i] >> shift) & 0xff]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
}

/*
 * Two items per trie node in its parent's list (the roots' list is
 * number ntrie), each list sorted by rank.
 */
static int sibling_lists(rctx *r)
{
    uint32_t n = r->ntrie, root_item = 2 * r->ntk, ri = 0;
    r->off = tfmt__calloc(r->a, (size_t)n + 2, sizeof *r->off);
    r->items = alloc_n(r, 2 * (size_t)n, sizeof *r->items);
    if (!r->off || !r->items)
        return TFMT_ENOMEM;
    for (uint32_t t = 0; t < n; t++)
        r->off[(r->tpar[t] == TFMT_NO_ID ? n : r->tpar[t]) + 1] += 2;
    for (uint32_t p = 0; p <= n; p++)
        r->off[p + 1] += r->off[p];
    uint32_t *fill = alloc_n(r, (size_t)n + 1, sizeof *fill);
    if (!fill)
        return TFMT_ENOMEM;
    memcpy(fill, r->off, ((size_t)n + 1) * sizeof *fill);
    for (uint32_t t = 0; t < n; t++) {
        bool root = r->tpar[t] == TFMT_NO_ID;
        uint32_t p = root ? n : r->tpar[t];
        uint32_t item = root ? root_item + 2 * ri++ : 2 * r->ttk[t];
        for (uint32_t v = 0; v < 2; v++)
            r->items[fill[p]++] = (uint64_t)r->rank[item + v] << 32 | t;
    }
    size_t big = 0;
    for (uint32_t p = 0; p <= n; p++)
        big = r->off[p + 1] - r->off[p] > big ? r->off[p + 1] - r->off[p] : big;
    uint64_t *tmp = big > 32 ? alloc_n(r, big, sizeof *tmp) : NULL;
    for (uint32_t p = 0; p <= n; p++) {
        size_t len = r->off[p + 1] - r->off[p];
        if (len > 32 && tmp)
            sort_wide(r->items + r->off[p], tmp, len);
        else
            sort_small(r->items + r->off[p], len);
    }
    tfmt__free(r->a, fill);
    tfmt__free(r->a, tmp);
    return big > 32 && !tmp ? TFMT_ENOMEM : TFMT_OK;
}

/*
 * The walk: a node's own item gives it the next position, its "texts
 * below" item enters its list. Depth is bounded by the stack depth.
 */
static int walk(rctx *r, uint32_t max_depth)
{
    r->pos = alloc_n(r, r->ntrie, sizeof *r->pos);
    uint32_t *at = alloc_n(r, (size_t)max_depth + 2, sizeof *at);
    uint32_t *end = alloc_n(r, (size_t)max_depth + 2, sizeof *end);
    if (!r->pos || !at || !end) {
        tfmt__free(r->a, at);
        tfmt__free(r->a, end);
        return TFMT_ENOMEM;
    }
    uint32_t sp = 0, next = 0;
    at[0] = r->off[r->ntrie];
    end[0] = r->off[r->ntrie + 1];
    for (;;) {
        if (at[sp] == end[sp]) {
            if (sp-- == 0)
                break;
            continue;
        }
        uint64_t it = r->items[at[sp]++];
        uint32_t t = (uint32_t)it;
        if (!r->sub[it >> 32])
            r->pos[t] = next++;
        else if (r->off[t] != r->off[t + 1]) {
            sp++;
            at[sp] = r->off[t];
            end[sp] = r->off[t + 1];
        }
    }
    tfmt__free(r->a, at);
    tfmt__free(r->a, end);
    return TFMT_OK;
}

/* ---- the lines ---- */

/* Insertion sort of cnode ids by first appearance (short runs). */
static void by_first(const cnode *l, uint32_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t x = v[i];
        size_t j = i;
        for (; j > 0 && l[v[j - 1]].first > l[x].first; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/*
 * The line cnodes (count > 0) by walk position (several cnodes of one
 * trie node have the same text: by first appearance), then stably by
 * count.
 */
static int order_lines(rctx *r)
{
    cctx *c = r->c;
    size_t n = 0;
    uint32_t *end = tfmt__calloc(r->a, (size_t)r->ntrie + 1, 4);
    if (!end)
        return TFMT_ENOMEM;
    for (size_t i = 0; i < c->nnodes; i++) {
        if (c->nodes[i].count) {
            end[r->pos[r->cmap[i]] + 1]++;
            n++;
        }
    }
    c->order = alloc_n(r, n, sizeof *c->order);
    if (!c->order) {
        tfmt__free(r->a, end);
        return TFMT_ENOMEM;
    }
    for (uint32_t p = 0; p < r->ntrie; p++)
        end[p + 1] += end[p];
    for (size_t i = 0; i < c->nnodes; i++)
        if (c->nodes[i].count)
            c->order[end[r->pos[r->cmap[i]]]++] = (uint32_t)i;
    /* end[p] is now where text p's lines end, and text p + 1's begin. */
    for (uint32_t p = 0, from = 0; p < r->ntrie; from = end[p++])
        if (end[p] - from > 1)
            by_first(c->nodes, c->order + from, end[p] - from);
    tfmt__free(r->a, end);
    c->nlines = n;
    return tfmt__collapsed_by_count(r->a, c->order, n, &c->nodes[0].count,
                                    sizeof(cnode));
}

static uint32_t max_depth(const cctx *c)
{
    uint32_t d = 0;
    for (size_t i = 0; i < c->nnodes; i++)
        d = c->nodes[i].depth > d ? c->nodes[i].depth : d;
    return d;
}

/* The trie of c's cnodes and its walk (r->pos, r->cmap). */
static int rank_walk(rctx *r, cctx *c)
{
    if (any_semicolon(c) || c->nnodes >= UINT32_MAX / 2)
        return TFMT_DONE;
    memset(r, 0, sizeof *r);
    r->c = c;
    r->a = c->p->alloc;
    int rc = text_keys(r);
    if (rc == TFMT_OK)
        rc = build_trie(r);
    if (rc == TFMT_OK)
        rc = root_tids(r);
    if (rc == TFMT_OK)
        rc = rank_items(r);
    if (rc == TFMT_OK)
        rc = sibling_lists(r);
    if (rc == TFMT_OK)
        rc = walk(r, max_depth(c));
    return rc;
}

int tfmt__collapsed_rank_order(cctx *c)
{
    rctx r;
    int rc = rank_walk(&r, c);
    if (rc == TFMT_DONE)
        return rc;
    if (rc == TFMT_OK)
        rc = order_lines(&r);
    rctx_free(&r);
    return rc;
}

int tfmt__collapsed_rank_pos(cctx *c, uint32_t *pos)
{
    rctx r;
    int rc = rank_walk(&r, c);
    if (rc == TFMT_DONE)
        return rc;
    for (size_t i = 0; rc == TFMT_OK && i < c->nnodes; i++)
        pos[i] = r.pos[r.cmap[i]];
    rctx_free(&r);
    return rc;
}
