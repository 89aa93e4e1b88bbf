/* SPDX-License-Identifier: MIT */
/*
 * out_flame.c - --format svg and html: a differential flame graph of the
 * NEW profile, self-contained, readable without a script.
 *
 * The new side's folded stacks (keys root first, threads merged, as
 * collapsed-diff has them) make an icicle: root at the top, widths the
 * new side's samples on each call path. Each box is coloured by the
 * verdict of its key on the table's --metric, so the picture says what
 * the table says: regressed saturated red, improved saturated blue (the
 * larger the change, the deeper), and every other verdict a pale tint of
 * the direction of its change. A box's <title> (the hover text of every
 * viewer) gives the path's samples on both sides, each as a share of its
 * own side, and the key's figures, delta, q-value and verdict.
 *
 * Nothing is rescaled by sampling rate or duration: shares are of each
 * side's own samples and the key figures are the table's (--normalize),
 * so two profiles of the same program at different rates or lengths
 * compare as equal (unlike cpython#154032, where the baseline was scaled
 * by the ratio of sampled wall times).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "diff.h"

#define WIDTH 1200.0
#define MARGIN 10.0
#define FRAME_H 16.0
#define TOP_PAD 64.0
#define CHAR_W 7.0

typedef struct fnode {
    uint32_t parent, child, sibling; /* DIFF_NONE: none */
    const char *key;
    uint32_t len;
    uint32_t row; /* diff row of the key; DIFF_NONE: unknown */
    uint32_t depth;
    uint64_t nself, ntotal, bself, btotal;
    double x; /* in new samples */
} fnode;

typedef struct flame {
    const diff_ctx *c;
    fnode *nodes;
    size_t n, cap;
    uint32_t *slots; /* (parent, key) -> node; DIFF_NONE empty */
    size_t nslots;
    uint32_t *rowslot; /* key text -> row; DIFF_NONE empty */
    size_t nrowslots;
    char **rowtext;
    size_t *rowlen;
    uint32_t levels;
    double scale;
} flame;

/*
 * Key texts come from the profiles, so their hash takes a key drawn once
 * a process: with a fixed hash (FNV-1a, until 0.2) a profile could choose
 * names that all meet in one probe chain, and quadratic time. The tables
 * are looked up, never listed, so nothing drawn depends on the key.
 */
static uint64_t text_key;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static void draw_text_key(void)
{
    if (text_key)
        return;
    if (getrandom(&text_key, sizeof text_key, GRND_NONBLOCK) !=
        (ssize_t)sizeof text_key) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        text_key = mix((uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 32 ^
                       (uint64_t)(uintptr_t)&ts);
    }
    text_key |= 1; /* drawn: never 0 again */
}

static uint64_t hash_text(const char *s, size_t n, uint64_t h)
{
    h ^= text_key ^ n * 0x9e3779b97f4a7c15ULL;
    for (; n >= 8; s += 8, n -= 8) {
        uint64_t v;
        memcpy(&v, s, 8);
        h = mix(h ^ v) + 0x9e3779b97f4a7c15ULL;
    }
    uint64_t tail = 0;
    if (n)
        memcpy(&tail, s, n);
    return mix(h ^ tail);
}

/* ---- key text -> row ---- */

static int index_rows(flame *f)
{
    const diff_result *res = &f->c->res;
    draw_text_key();
    f->nrowslots = 16;
    while (f->nrowslots < res->n * 2 + 2)
        f->nrowslots *= 2;
    f->rowslot = malloc(f->nrowslots * sizeof *f->rowslot);
    f->rowtext = calloc(res->n + 1, sizeof *f->rowtext);
    f->rowlen = calloc(res->n + 1, sizeof *f->rowlen);
    if (!f->rowslot || !f->rowtext || !f->rowlen)
        return -1;
    memset(f->rowslot, 0xff, f->nrowslots * sizeof *f->rowslot);
    for (size_t i = 0; i < res->n; i++) {
        char small[256];
        size_t len;
        char *t = diff_key_full(f->c, &res->rows[i], small, sizeof small, &len);
        f->rowtext[i] = malloc(len + 1);
        if (!f->rowtext[i])
            return -1;
        memcpy(f->rowtext[i], t, len + 1);
        f->rowlen[i] = len;
        if (t != small)
            free(t);
        size_t m = f->nrowslots - 1;
        size_t j = hash_text(f->rowtext[i], len, 0xcbf29ce484222325ULL) & m;
        while (f->rowslot[j] != DIFF_NONE)
            j = (j + 1) & m;
        f->rowslot[j] = (uint32_t)i;
    }
    return 0;
}

static uint32_t find_row(const flame *f, const char *s, size_t n)
{
    size_t m = f->nrowslots - 1;
    for (size_t j = hash_text(s, n, 0xcbf29ce484222325ULL) & m;
         f->rowslot[j] != DIFF_NONE; j = (j + 1) & m) {
        uint32_t r = f->rowslot[j];
        if (f->rowlen[r] == n && memcmp(f->rowtext[r], s, n) == 0)
            return r;
    }
    return DIFF_NONE;
}

/* ---- the tree of call paths ---- */

static uint64_t node_hash(uint32_t parent, const char *s, size_t n)
{
    /* the parent mixed on its own: XORed into the start, a profile could
     * choose names that cancel it */
    return hash_text(s, n, mix(text_key + parent));
}

static int grow_slots(flame *f)
{
    size_t ns = f->nslots ? f->nslots * 2 : 1024;
    uint32_t *s = malloc(ns * sizeof *s);
    if (!s)
        return -1;
    memset(s, 0xff, ns * sizeof *s);
    for (size_t i = 1; i < f->n; i++) {
        size_t j =
            node_hash(f->nodes[i].parent, f->nodes[i].key, f->nodes[i].len) &
            (ns - 1);
        while (s[j] != DIFF_NONE)
            j = (j + 1) & (ns - 1);
        s[j] = (uint32_t)i;
    }
    free(f->slots);
    f->slots = s;
    f->nslots = ns;
    return 0;
}

/* The child of `parent` named s[0..n), created when absent. */
static int child(flame *f, uint32_t parent, const char *s, size_t n,
                 uint32_t *out)
{
    if ((f->n + 1) * 2 > f->nslots && grow_slots(f) < 0)
        return -1;
    size_t m = f->nslots - 1, j = node_hash(parent, s, n) & m;
    for (; f->slots[j] != DIFF_NONE; j = (j + 1) & m) {
        const fnode *x = &f->nodes[f->slots[j]];
        if (x->parent == parent && x->len == n && !memcmp(x->key, s, n)) {
            *out = f->slots[j];
            return 0;
        }
    }
    if (f->n == f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 256;
        fnode *nn = realloc(f->nodes, nc * sizeof *nn);
        if (!nn)
            return -1;
        f->nodes = nn;
        f->cap = nc;
    }
    fnode *x = &f->nodes[f->n];
    memset(x, 0, sizeof *x);
    x->parent = parent;
    x->child = x->sibling = DIFF_NONE;
    x->key = s;
    x->len = (uint32_t)n;
    x->row = find_row(f, s, n);
    x->depth = f->nodes[parent].depth + 1;
    f->slots[j] = (uint32_t)f->n;
    *out = (uint32_t)f->n++;
    return 0;
}

/*
 * The length of the key starting at s (up to end): the shortest run of
 * ';'-separated pieces that is a known key (a name may hold ';'), else
 * the first piece.
 */
static size_t key_len(const flame *f, const char *s, const char *end)
{
    const char *p = s;
    size_t first = 0;
    for (;;) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        size_t n = (size_t)((semi ? semi : end) - s);
        if (!first)
            first = n;
        if (find_row(f, s, n) != DIFF_NONE || !semi)
            return find_row(f, s, n) != DIFF_NONE ? n : first;
        p = semi + 1;
    }
}

/* Add one folded stack's count to the new (side 1) or base (0) side. */
static int add_stack(flame *f, tfmt_str st, uint64_t count, int side)
{
    const char *p = st.ptr, *end = st.ptr + st.len;
    uint32_t node = 0;
    while (p < end) {
        size_t n = key_len(f, p, end);
        if (child(f, node, p, n, &node) < 0)
            return -1;
        p += n + (p + n < end);
    }
    for (uint32_t k = node; k != DIFF_NONE; k = f->nodes[k].parent)
        *(side ? &f->nodes[k].ntotal : &f->nodes[k].btotal) += count;
    *(side ? &f->nodes[node].nself : &f->nodes[node].bself) += count;
    return 0;
}

static int build(flame *f)
{
    f->nodes = calloc(1, sizeof *f->nodes);
    if (!f->nodes || index_rows(f) < 0)
        return -1;
    f->n = f->cap = 1;
    f->nodes[0] = (fnode){DIFF_NONE, DIFF_NONE, DIFF_NONE, "all", 3, DIFF_NONE,
                          0,         0,         0,         0,     0, 0};
    for (int side = 0; side < 2; side++) {
        const tfmt_flat *fl = side ? f->c->new_.flat : f->c->base.flat;
        for (size_t i = 0; i < tfmt_flat_stack_count(fl); i++) {
            tfmt_str st;
            uint64_t count;
            tfmt_flat_stack_at(fl, i, &st, &count);
            if (add_stack(f, st, count, side) < 0)
                return -1;
        }
    }
    return 0;
}

static const flame *sort_ctx;

static int by_parent_key(const void *a, const void *b)
{
    const fnode *x = &sort_ctx->nodes[*(const uint32_t *)a];
    const fnode *y = &sort_ctx->nodes[*(const uint32_t *)b];
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    size_t n = x->len < y->len ? x->len : y->len;
    int r = memcmp(x->key, y->key, n);
    return r ? r : (x->len > y->len) - (x->len < y->len);
}

/* Children in key order, then each box's x (in new samples). */
static int layout(flame *f)
{
    uint32_t *ids = malloc(f->n * sizeof *ids);
    if (!ids)
        return -1;
    for (size_t i = 1; i < f->n; i++)
        ids[i - 1] = (uint32_t)i;
    sort_ctx = f;
    qsort(ids, f->n - 1, sizeof *ids, by_parent_key);
    for (size_t i = f->n - 1; i-- > 0;) {
        fnode *x = &f->nodes[ids[i]];
        x->sibling = f->nodes[x->parent].child;
        f->nodes[x->parent].child = ids[i];
    }
    free(ids);
    /* parents come before children in node order */
    f->levels = 1;
    for (size_t i = 0; i < f->n; i++) {
        const fnode *x = &f->nodes[i];
        double next = x->x;
        for (uint32_t k = x->child; k != DIFF_NONE; k = f->nodes[k].sibling) {
            f->nodes[k].x = next;
            next += (double)f->nodes[k].ntotal;
        }
        if (x->ntotal && (double)x->ntotal * f->scale >= 0.1 &&
            x->depth + 1 > f->levels)
            f->levels = x->depth + 1;
    }
    return 0;
}

/* ---- output ---- */

/* XML text: markup escaped, what XML 1.0 cannot carry as U+FFFD. */
static void put_xml(diff_out *o, const char *s, size_t n)
{
    diff_out_text(o, s, n, TFMT_TEXT_XML);
}

/* The function part of a key (after the file's last ':'), for labels. */
static tfmt_str label_of(const flame *f, const fnode *x)
{
    tfmt_str s = {x->key, x->len};
    if (x->row == DIFF_NONE)
        return s;
    tfmt_flat_row k;
    diff_row_key(f->c, &f->c->res.rows[x->row], &k);
    return k.func;
}

static void put_label(diff_out *o, tfmt_str name, double w)
{
    double room = (w - 6) / CHAR_W;
    if (room < 3)
        return;
    size_t fit = (size_t)room, chars = 0, i = 0, cut = 0;
    while (i < name.len) {
        if (chars == fit - 2)
            cut = i;
        i++;
        while (i < name.len && ((unsigned char)name.ptr[i] & 0xc0) == 0x80)
            i++;
        chars++;
    }
    if (chars <= fit) {
        put_xml(o, name.ptr, name.len);
        return;
    }
    put_xml(o, name.ptr, cut);
    diff_out_lit(o, "..");
}

/* Verdict colours: saturated for regressed/improved, pale otherwise. */
static void put_fill(diff_out *o, const flame *f, const fnode *x)
{
    if (x->row == DIFF_NONE) {
        diff_out_lit(o, "rgb(200,200,200)");
        return;
    }
    int m = f->c->set->metric;
    const diff_row *r = &f->c->res.rows[x->row];
    diff_fig fig;
    diff_figure(f->c, r, m, &fig);
    double mag = fabs(fig.delta) / 10.0; /* 10 points: deepest */
    mag = mag > 1 ? 1 : mag;
    int v = r->verdict[m], lo = (int)(110 - 90 * mag);
    if (v == V_REGRESSED)
        diff_out_printf(o, "rgb(230,%d,%d)", lo, lo);
    else if (v == V_IMPROVED)
        diff_out_printf(o, "rgb(%d,%d,235)", lo, lo + 20);
    else if (fig.delta > 0)
        diff_out_lit(o, "rgb(250,226,222)");
    else if (fig.delta < 0)
        diff_out_lit(o, "rgb(224,228,250)");
    else
        diff_out_lit(o, "rgb(236,236,232)");
}

static double pct(uint64_t n, uint64_t total)
{
    return total ? 100.0 * (double)n / (double)total : 0.0;
}

static void put_title(diff_out *o, const flame *f, const fnode *x)
{
    const tfmt_flat_info *bi = tfmt_flat_get_info(f->c->base.flat);
    const tfmt_flat_info *ni = tfmt_flat_get_info(f->c->new_.flat);
    put_xml(o, x->key, x->len);
    diff_out_printf(o,
                    "\nthis path: base %llu samples (%.2f%%), new %llu "
                    "(%.2f%%)",
                    (unsigned long long)x->btotal, pct(x->btotal, bi->samples),
                    (unsigned long long)x->ntotal, pct(x->ntotal, ni->samples));
    if (x->row == DIFF_NONE)
        return;
    int m = f->c->set->metric;
    diff_fig fig;
    diff_figure(f->c, &f->c->res.rows[x->row], m, &fig);
    char q[32];
    if (!diff_fmt_num(q, sizeof q, fig.q, 3))
        snprintf(q, sizeof q, "-");
    diff_out_printf(o, "\n%s: base %.2f%%, new %.2f%% (%+.2f pp), q %s: %s",
                    m == M_SELF ? "self" : "cumulative", fig.base_pct,
                    fig.new_pct, fig.delta, q, diff_verdict_name(fig.verdict));
}

static void put_box(diff_out *o, const flame *f, const fnode *x, uint32_t i)
{
    double w = (double)x->ntotal * f->scale;
    double px = MARGIN + x->x * f->scale, y = TOP_PAD + x->depth * FRAME_H;
    diff_out_printf(o, "<g class=\"f\" data-d=\"%u\"><title>", x->depth);
    if (i == 0)
        diff_out_lit(o, "all");
    else
        put_title(o, f, x);
    diff_out_printf(o,
                    "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
                    "height=\"%.1f\" rx=\"2\" fill=\"",
                    px, y, w, FRAME_H - 1);
    put_fill(o, f, x);
    diff_out_printf(o, "\"/><text x=\"%.2f\" y=\"%.1f\">", px + 3,
                    y + FRAME_H - 4.5);
    put_label(o, i ? label_of(f, x) : (tfmt_str){"all", 3}, w);
    diff_out_lit(o, "</text></g>\n");
}

static void put_svg(diff_out *o, const flame *f, bool embedded)
{
    double h = TOP_PAD + f->levels * FRAME_H + 10;
    const diff_settings *s = f->c->set;
    if (!embedded)
        diff_out_lit(o, "<?xml version=\"1.0\" standalone=\"no\"?>\n");
    diff_out_printf(o,
                    "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\""
                    " width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\""
                    ">\n<style>text { font-family: Verdana, Helvetica, "
                    "sans-serif; font-size: 12px; } .t { font-size: 17px; "
                    "text-anchor: middle; } g.f:hover rect { stroke: #000; "
                    "stroke-width: 0.5; }</style>\n<rect width=\"100%%\" "
                    "height=\"100%%\" fill=\"#f7f7f2\"/>\n",
                    WIDTH, h, WIDTH, h);
    diff_out_printf(o,
                    "<text class=\"t\" x=\"%.0f\" y=\"24\">Differential flame"
                    " graph (new profile)</text>\n<text x=\"%.0f\" y=\"42\">"
                    "width: new samples; colour: %s verdict of the key (%s, "
                    "%s): red regressed, blue improved, pale: not "
                    "significant</text>\n",
                    WIDTH / 2, MARGIN,
                    s->metric == M_SELF ? "self" : "cumulative",
                    diff_key_name(s->key), diff_norm_name(s->norm));
    /* base samples whose call path the new side never showed */
    uint64_t gone = 0;
    for (size_t i = 1; i < f->n; i++)
        if (!f->nodes[i].ntotal)
            gone += f->nodes[i].bself;
    diff_out_printf(
        o,
        "<text x=\"%.0f\" y=\"58\">base %llu samples, new %llu "
        "samples; %llu base samples on paths absent from new (not drawn); "
        "hover a box for both sides' figures</text>\n",
        MARGIN,
        (unsigned long long)tfmt_flat_get_info(f->c->base.flat)->samples,
        (unsigned long long)tfmt_flat_get_info(f->c->new_.flat)->samples,
        (unsigned long long)gone);
    for (size_t i = 0; i < f->n; i++) {
        const fnode *x = &f->nodes[i];
        if (x->ntotal && (double)x->ntotal * f->scale >= 0.1)
            put_box(o, f, x, (uint32_t)i);
    }
    diff_out_lit(o, "</svg>\n");
}

/* HTML: the graph above the rows that did not stay unchanged. */
static void put_html(diff_out *o, const flame *f)
{
    const diff_ctx *c = f->c;
    diff_out_lit(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
                    "charset=\"utf-8\">\n<title>tachyon-diff: differential "
                    "flame graph</title>\n<style>body { margin: 1em; "
                    "background: #f7f7f2; font-family: Verdana, Helvetica, "
                    "sans-serif; font-size: 13px; } svg { width: 100%; "
                    "height: auto; } table { border-collapse: collapse; } "
                    "td, th { padding: 2px 8px; text-align: right; } "
                    "td:first-child { text-align: left; } .regressed { "
                    "color: #b00; } .improved { color: #00b; }</style>\n"
                    "</head>\n<body>\n");
    put_svg(o, f, true);
    diff_out_lit(o, "<h3>Keys that did not stay unchanged</h3>\n<table>\n"
                    "<tr><th>key</th><th>base %</th><th>new %</th>"
                    "<th>delta pp</th><th>q</th><th>verdict</th></tr>\n");
    int m = c->set->metric;
    for (size_t i = 0; i < c->res.n; i++) {
        const diff_row *r = diff_sorted(&c->res, i);
        if (r->verdict[m] == V_UNCHANGED)
            continue;
        diff_fig fig;
        diff_figure(c, r, m, &fig);
        char q[32];
        if (!diff_fmt_num(q, sizeof q, fig.q, 3))
            snprintf(q, sizeof q, "-");
        size_t row = (size_t)(r - c->res.rows);
        diff_out_lit(o, "<tr><td>");
        put_xml(o, f->rowtext[row], f->rowlen[row]);
        diff_out_printf(o,
                        "</td><td>%.2f</td><td>%.2f</td><td>%+.2f</td>"
                        "<td>%s</td><td class=\"%s\">%s</td></tr>\n",
                        fig.base_pct, fig.new_pct, fig.delta, q,
                        diff_verdict_name(fig.verdict),
                        diff_verdict_name(fig.verdict));
    }
    diff_out_lit(o, "</table>\n</body>\n</html>\n");
}

static void flame_free(flame *f)
{
    for (size_t i = 0; f->rowtext && i < f->c->res.n; i++)
        free(f->rowtext[i]);
    free(f->rowtext);
    free(f->rowlen);
    free(f->rowslot);
    free(f->slots);
    free(f->nodes);
}

int diff_write_flame(diff_out *o, const diff_ctx *c, bool html)
{
    flame f;
    memset(&f, 0, sizeof f);
    f.c = c;
    uint64_t total = tfmt_flat_get_info(c->new_.flat)->samples;
    f.scale = (WIDTH - 2 * MARGIN) / (double)(total ? total : 1);
    int rc = build(&f);
    if (rc == 0)
        rc = layout(&f);
    if (rc == 0) {
        if (html)
            put_html(o, &f);
        else
            put_svg(o, &f, false);
    }
    flame_free(&f);
    return rc;
}
