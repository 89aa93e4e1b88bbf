/* SPDX-License-Identifier: MIT */
/*
 * heat_tree.c - the index's grouping of files, as CPython's heatmap
 * shows it: a section per kind of file, then folders by module path.
 *
 * CPython decides the kind from the paths of the interpreter that
 * exports (its stdlib, site-packages and sys.path), which on a replay is
 * not the machine that recorded. Here it comes from the path alone:
 * below ".../site-packages/" or ".../dist-packages/" is site-packages,
 * below ".../lib/pythonX.Y/" the standard library, other Python files are
 * the project, anything else "other". A project's (or other's) module
 * path starts below the deepest folder all its files share. As in CPython,
 * "pkg/__init__.py" is the module "pkg", shown as a file beside the
 * folder "pkg".
 *
 * Files are sorted by (kind, folder path compared folder by folder,
 * name), then the folders are built like a trie from the sorted list: no
 * searching, n log n for n files.
 */
#include <stdlib.h>

#include "heat_internal.h"

typedef struct tsort {
    const char *s;       /* the path */
    uint32_t doff, dlen; /* its folder part */
    uint32_t noff, nlen; /* its name */
    uint8_t sec;
    uint32_t file;
} tsort;

static bool ends_with(tfmt_str s, const char *suffix)
{
    size_t n = strlen(suffix);
    return s.len >= n && memcmp(s.ptr + s.len - n, suffix, n) == 0;
}

/* Length of "/lib/pythonX.Y/" (or X.Yt) at s[i], else 0. */
static size_t stdlib_at(const char *s, size_t n, size_t i)
{
    static const char pre[] = "/lib/python";
    size_t j = i + sizeof pre - 1;
    if (n < j || memcmp(s + i, pre, sizeof pre - 1) != 0)
        return 0;
    size_t d = j;
    while (j < n && s[j] >= '0' && s[j] <= '9')
        j++;
    if (j == d || j >= n || s[j] != '.')
        return 0;
    d = ++j;
    while (j < n && s[j] >= '0' && s[j] <= '9')
        j++;
    if (j == d)
        return 0;
    if (j < n && s[j] == 't')
        j++;
    return j < n && s[j] == '/' ? j + 1 - i : 0;
}

/* The file's kind; *rel: where its module path starts (0 = not yet). */
static uint8_t classify(tfmt_str s, uint32_t *rel)
{
    static const char *const site[] = {"/site-packages/", "/dist-packages/"};
    size_t best = 0;
    for (size_t m = 0; m < 2; m++) {
        size_t k = strlen(site[m]);
        for (size_t i = 0; i + k <= s.len; i++)
            if (memcmp(s.ptr + i, site[m], k) == 0 && i + k > best)
                best = i + k;
    }
    if (best) {
        *rel = (uint32_t)best;
        return HSEC_SITE;
    }
    for (size_t i = 0; i < s.len; i++) {
        size_t k = stdlib_at(s.ptr, s.len, i);
        if (k) {
            *rel = (uint32_t)(i + k);
            return HSEC_STDLIB;
        }
    }
    *rel = 0;
    return ends_with(s, ".py") || ends_with(s, ".pyw") ? HSEC_PROJECT
                                                       : HSEC_OTHER;
}

/* The longest folder prefix ("a/b/") that `path` shares with `prefix`. */
static size_t common_dir(tfmt_str prefix, size_t plen, tfmt_str path)
{
    size_t n = plen < path.len ? plen : path.len, last = 0;
    for (size_t i = 0; i < n && prefix.ptr[i] == path.ptr[i]; i++)
        if (path.ptr[i] == '/')
            last = i + 1;
    return last;
}

/* Project and other files start below the folder they all share. */
static void strip_common(tfmt_heatmap *h, tsort *v, uint32_t n)
{
    for (uint8_t sec = HSEC_PROJECT; sec <= HSEC_OTHER; sec += 3) {
        tfmt_str first = {NULL, 0};
        size_t plen = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (v[i].sec != sec)
                continue;
            tfmt_str s = tfmt__heat_path(h, v[i].file);
            if (!first.ptr) {
                first = s;
                plen = s.len;
            }
            plen = common_dir(first, plen, s);
        }
        for (uint32_t i = 0; i < n; i++)
            if (v[i].sec == sec)
                v[i].doff = (uint32_t)plen;
    }
}

/* Folder part and name of a path below v->doff. */
static void split_name(tsort *v, size_t len)
{
    const char *s = v->s;
    size_t q = len;
    while (q > v->doff && s[q - 1] != '/')
        q--;
    v->noff = (uint32_t)q;
    v->nlen = (uint32_t)(len - q);
    v->dlen = (uint32_t)(q > v->doff ? q - 1 - v->doff : 0);
    tfmt_str name = {s + q, len - q};
    if (ends_with(name, ".py"))
        v->nlen -= 3;
    else if (ends_with(name, ".pyw"))
        v->nlen -= 4;
    if (v->nlen != 8 || memcmp(s + v->noff, "__init__", 8) != 0 || v->dlen == 0)
        return;
    /* pkg/__init__.py is the module pkg: named after its folder. */
    size_t end = v->doff + v->dlen, b = end;
    while (b > v->doff && s[b - 1] != '/')
        b--;
    v->noff = (uint32_t)b;
    v->nlen = (uint32_t)(end - b);
    v->dlen = (uint32_t)(b > v->doff ? b - 1 - v->doff : 0);
}

/* Folder paths compare folder by folder: '/' sorts before any byte. */
static int dir_cmp(const tsort *x, const tsort *y)
{
    uint32_t n = x->dlen < y->dlen ? x->dlen : y->dlen;
    for (uint32_t i = 0; i < n; i++) {
        unsigned a = (uint8_t)x->s[x->doff + i], b = (uint8_t)y->s[y->doff + i];
        a = a == '/' ? 0 : a + 1;
        b = b == '/' ? 0 : b + 1;
        if (a != b)
            return a < b ? -1 : 1;
    }
    return x->dlen < y->dlen ? -1 : x->dlen > y->dlen;
}

static int tsort_cmp(const void *va, const void *vb)
{
    const tsort *x = va, *y = vb;
    if (x->sec != y->sec)
        return x->sec < y->sec ? -1 : 1;
    int c = dir_cmp(x, y);
    if (c)
        return c;
    return x->file < y->file ? -1 : x->file > y->file; /* path order */
}

/* ---- building the folders ---- */

typedef struct tbuild {
    tfmt_heatmap *h;
    size_t cap;
    uint32_t *stack; /* open folders, section first */
    uint32_t depth;
    size_t stack_cap;
} tbuild;

static int new_dir(tbuild *b, uint32_t parent, uint8_t sec, uint32_t file,
                   uint32_t off, uint32_t len)
{
    tfmt_heatmap *h = b->h;
    if (tfmt__grow(h->alloc, (void **)&h->dirs, &b->cap, (size_t)h->ndirs + 1,
                   sizeof *h->dirs) != TFMT_OK)
        return TFMT_ENOMEM;
    h->dirs[h->ndirs++] = (hdir){parent, sec, file, off, len, 0, 0};
    return TFMT_OK;
}

static bool same_name(const tfmt_heatmap *h, uint32_t d, const char *s,
                      uint32_t off, uint32_t len)
{
    const hdir *x = &h->dirs[d];
    tfmt_str p = tfmt__heat_path(h, x->file);
    return x->name_len == len && memcmp(p.ptr + x->name_off, s + off, len) == 0;
}

/* Open the folders of v below its section, reusing the open ones. */
static int enter(tbuild *b, const tsort *v)
{
    tfmt_heatmap *h = b->h;
    uint32_t level = 1, i = v->doff, end = v->doff + v->dlen;
    if (b->depth == 0 || h->dirs[b->stack[0]].section != v->sec) {
        b->stack[0] = v->sec;
        b->depth = 1;
    }
    while (i < end) {
        uint32_t j = i;
        while (j < end && v->s[j] != '/')
            j++;
        if (j > i) {
            if (level < b->depth &&
                same_name(h, b->stack[level], v->s, i, j - i)) {
                level++;
            } else {
                b->depth = level;
                if (new_dir(b, b->stack[level - 1], v->sec, v->file, i,
                            j - i) != TFMT_OK)
                    return TFMT_ENOMEM;
                b->stack[level++] = h->ndirs - 1;
                b->depth = level;
            }
        }
        i = j + 1;
    }
    b->depth = level;
    return TFMT_OK;
}

static int build(tbuild *b, tsort *v, uint32_t n)
{
    tfmt_heatmap *h = b->h;
    for (uint8_t s = 0; s < HSEC_COUNT; s++)
        if (new_dir(b, TFMT_NO_ID, s, 0, 0, 0) != TFMT_OK)
            return TFMT_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        size_t need = (size_t)v[i].dlen + 2;
        if (tfmt__grow(h->alloc, (void **)&b->stack, &b->stack_cap, need,
                       sizeof *b->stack) != TFMT_OK)
            return TFMT_ENOMEM;
        if (enter(b, &v[i]) != TFMT_OK)
            return TFMT_ENOMEM;
        hfile *f = &h->files[v[i].file];
        f->dir = b->stack[b->depth - 1];
        f->mod_off = v[i].doff;
        f->name_off = v[i].noff;
        f->name_len = v[i].nlen;
        for (uint32_t d = f->dir; d != TFMT_NO_ID; d = h->dirs[d].parent)
            h->dirs[d].nfiles++;
    }
    return TFMT_OK;
}

int tfmt__heat_tree(tfmt_heatmap *h)
{
    tsort *v = tfmt__malloc(h->alloc, (h->nfiles + 1) * sizeof *v);
    if (!v)
        return TFMT_ENOMEM;
    uint32_t n = 0;
    for (uint32_t i = 0; i < h->nfiles; i++) {
        if (!h->files[i].shown)
            continue;
        tfmt_str s = tfmt__heat_path(h, i);
        v[n].s = s.ptr;
        v[n].file = i;
        v[n].sec = classify(s, &v[n].doff);
        n++;
    }
    strip_common(h, v, n);
    for (uint32_t i = 0; i < n; i++)
        split_name(&v[i], tfmt__heat_path(h, v[i].file).len);
    qsort(v, n, sizeof *v, tsort_cmp);
    tbuild b;
    memset(&b, 0, sizeof b);
    b.h = h;
    int rc = build(&b, v, n);
    tfmt__free(h->alloc, b.stack);
    tfmt__free(h->alloc, v);
    return rc;
}
