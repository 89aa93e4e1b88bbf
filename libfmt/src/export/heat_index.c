/* SPDX-License-Identifier: MIT */
/*
 * heat_index.c - the heatmap's index.html, as CPython's: the run's
 * figures (samples, duration, rate, error rate, missed samples), then the
 * files grouped by kind and folder (heat_tree.c), folders before files,
 * each level hottest first, every file linked to its page with its
 * samples and a bar. Sections are open; folders are open when they hold
 * at least 5% of the samples (CPython starts with all but the project
 * collapsed and opens them by script; here <details> elements work
 * without one). A folder's samples count each sample once, however many
 * of its files are on the stack (CPython sums its files'). The tree is
 * walked with an explicit stack: paths from a log may be deep.
 */
#include <stdlib.h>

#include "heat_internal.h"

typedef struct hix {
    tfmt_heatmap *h;
    tfmt_buf b;
    uint32_t *kid, *nkid, *kids;  /* per dir: first child, count; list */
    uint32_t *fil, *nfil, *files; /* per dir: first file, count; list */
    uint64_t top;                 /* the hottest file's samples */
} hix;

/* Children lists: keys (parent, hottest first), then creation order. */
static int group(const tfmt_heatmap *h, hkey *k, uint32_t n, uint32_t *first,
                 uint32_t *count, uint32_t *list)
{
    qsort(k, n, sizeof *k, tfmt__heat_key_cmp);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t parent = (uint32_t)(k[i].a >> 32);
        if (count[parent]++ == 0)
            first[parent] = i;
        list[i] = k[i].id;
    }
    (void)h;
    return TFMT_OK;
}

static int index_tree(hix *x)
{
    tfmt_heatmap *h = x->h;
    size_t nd = h->ndirs + 1, nf = h->nfiles + 1;
    hkey *k = tfmt__malloc(h->alloc, (nd > nf ? nd : nf) * sizeof *k);
    x->kid = tfmt__calloc(h->alloc, nd, sizeof(uint32_t));
    x->nkid = tfmt__calloc(h->alloc, nd, sizeof(uint32_t));
    x->kids = tfmt__calloc(h->alloc, nd, sizeof(uint32_t));
    x->fil = tfmt__calloc(h->alloc, nd, sizeof(uint32_t));
    x->nfil = tfmt__calloc(h->alloc, nd, sizeof(uint32_t));
    x->files = tfmt__calloc(h->alloc, nf, sizeof(uint32_t));
    if (!k || !x->kid || !x->nkid || !x->kids || !x->fil || !x->nfil ||
        !x->files) {
        tfmt__free(h->alloc, k);
        return TFMT_ENOMEM;
    }
    uint32_t n = 0;
    for (uint32_t d = HSEC_COUNT; d < h->ndirs; d++)
        k[n++] = (hkey){((uint64_t)h->dirs[d].parent << 32),
                        UINT64_MAX - h->dirs[d].total, 0, d};
    group(h, k, n, x->kid, x->nkid, x->kids);
    n = 0;
    for (uint32_t i = 0; i < h->npages; i++) {
        const hfile *f = &h->files[h->pages[i]];
        x->top = f->total > x->top ? f->total : x->top;
        k[n++] = (hkey){(uint64_t)f->dir << 32, i, 0, h->pages[i]};
    }
    group(h, k, n, x->fil, x->nfil, x->files);
    tfmt__free(h->alloc, k);
    return TFMT_OK;
}

/* ---- the figures ---- */

static int put_card(tfmt_buf *b, const char *label, const char *value)
{
    return tfmt__buf_printf(b,
                            "<div class=\"card\"><b>%s</b><span>%s"
                            "</span></div>\n",
                            value, label);
}

static int put_rate(tfmt_buf *b, const char *label, bool have, double v)
{
    if (!have)
        return tfmt__buf_printf(b,
                                "<div class=\"card\"><b>N/A</b><span>%s"
                                "</span></div>\n",
                                label);
    const char *cls = v < 5 ? "good" : v < 15 ? "warn" : "bad";
    return tfmt__buf_printf(b,
                            "<div class=\"card\"><b>%.1f%%</b><span>%s"
                            "</span><span class=\"bar %s\"><i style=\"width:"
                            "%.1f%%\"></i></span></div>\n",
                            v, label, cls, v < 100 ? v : 100.0);
}

static int put_cards(hix *x)
{
    tfmt_heatmap *h = x->h;
    const tfmt_stats *st = &h->p->stats;
    tfmt_buf *b = &x->b;
    char v[64];
    int rc = tfmt__buf_puts(b, "<div class=\"cards\">\n");
    snprintf(v, sizeof v, "%u", h->npages);
    rc |= put_card(b, "Files profiled", v);
    rc |= tfmt__buf_puts(b, "<div class=\"card\"><b>");
    rc |= tfmt__heat_count(b, h->p->samples_total);
    rc |= tfmt__buf_puts(b, "</b><span>Samples</span></div>\n");
    snprintf(v, sizeof v, st->present ? "%.1f s" : "N/A", st->duration_s);
    rc |= put_card(b, "Duration", v);
    snprintf(v, sizeof v, st->present ? "%.1f" : "N/A", st->sample_rate);
    rc |= put_card(b, "Samples/sec", v);
    rc |= put_rate(b, "Error rate",
                   st->present && (st->flags & TFMT_STATS_HAS_ERROR_RATE),
                   st->error_rate);
    rc |= put_rate(b, "Missed samples",
                   st->present && (st->flags & TFMT_STATS_HAS_MISSED),
                   st->missed);
    return rc | tfmt__buf_puts(b, "</div>\n");
}

static int put_meta(hix *x)
{
    tfmt_heatmap *h = x->h;
    const tfmt_profile *p = h->p;
    tfmt_buf *b = &x->b;
    const char *mode = tfmt_mode_name(p->mode);
    uint32_t missing = 0;
    for (uint32_t i = 0; i < h->npages; i++)
        missing += h->files[h->pages[i]].source == HSRC_MISSING;
    int rc = tfmt__buf_puts(b, "<p class=\"meta\">");
    rc |= tfmt__heat_origin(b, h);
    rc |= tfmt__buf_printf(b,
                           " \xc2\xb7 interval %llu \xc2\xb5s \xc2\xb7 mode "
                           "%s \xc2\xb7 ",
                           (unsigned long long)p->interval_us,
                           mode ? mode : "unknown");
    if (p->nthreads || !h->jsonl) /* an export has no threads */
        rc |= tfmt__buf_printf(b, "%zu thread%s \xc2\xb7 ", p->nthreads,
                               p->nthreads == 1 ? "" : "s");
    rc |= tfmt__buf_puts(b, h->opcodes ? "opcodes recorded"
                                       : "no opcodes recorded");
    if (h->jsonl)
        rc |= tfmt__buf_puts(b, " \xc2\xb7 counts from JSONL exports: no "
                                "callers, callees or bytecode from them");
    if (missing)
        rc |= tfmt__buf_printf(b, " \xc2\xb7 %u of %u sources not found",
                               missing, h->npages);
    return rc | tfmt__buf_puts(b, "</p>\n");
}

/* ---- the tree ---- */

static const char *const section_names[HSEC_COUNT] = {
    "Project files", "Standard library", "Site packages", "Other files"};

static int put_dir_open(hix *x, uint32_t d)
{
    tfmt_heatmap *h = x->h;
    const hdir *dir = &h->dirs[d];
    tfmt_buf *b = &x->b;
    uint64_t all = h->p->samples_total;
    bool open = dir->parent == TFMT_NO_ID || dir->total * 20 >= all;
    int rc = tfmt__buf_printf(b, "<details class=\"%s\"%s><summary>",
                              dir->parent == TFMT_NO_ID ? "sec" : "dir",
                              open ? " open" : "");
    if (dir->parent == TFMT_NO_ID) {
        rc |= tfmt__buf_puts(b, section_names[dir->section]);
    } else {
        tfmt_str path = tfmt__heat_path(h, dir->file);
        rc |= tfmt__heat_text(b, path.ptr + dir->name_off, dir->name_len);
    }
    rc |= tfmt__buf_printf(b, "<span class=\"ct\">(%u file%s, ", dir->nfiles,
                           dir->nfiles == 1 ? "" : "s");
    rc |= tfmt__heat_count(b, dir->total);
    rc |= tfmt__buf_puts(b, " samples)</span></summary><div class=\"body\">\n");
    return rc;
}

/* The dotted module name: the path below the module root, no ".py". */
static int put_module(tfmt_buf *b, const hfile *f, tfmt_str path)
{
    const char *s = path.ptr + f->mod_off;
    size_t n = path.len - f->mod_off;
    if (n >= 3 && memcmp(s + n - 3, ".py", 3) == 0)
        n -= 3;
    else if (n >= 4 && memcmp(s + n - 4, ".pyw", 4) == 0)
        n -= 4;
    if (n > 9 && memcmp(s + n - 9, "/__init__", 9) == 0)
        n -= 9;
    int rc = TFMT_OK;
    for (size_t i = 0; i < n && rc == TFMT_OK;) {
        size_t j = i;
        while (j < n && s[j] != '/')
            j++;
        rc = tfmt__heat_text(b, s + i, j - i);
        if (j < n && rc == TFMT_OK)
            rc = tfmt__buf_putc(b, '.');
        i = j + 1;
    }
    return rc;
}

static int put_file(hix *x, uint32_t fi)
{
    tfmt_heatmap *h = x->h;
    const hfile *f = &h->files[fi];
    tfmt_buf *b = &x->b;
    tfmt_str path = tfmt__heat_path(h, fi);
    char page[32];
    tfmt__heat_page_name(page, f->page);
    double pct = x->top ? 100.0 * (double)f->total / (double)x->top : 0;
    uint64_t all = h->p->samples_total;
    int rc =
        tfmt__buf_printf(b, "<div class=\"fi\"><a href=\"%s\" title=\"", page);
    rc |= tfmt__heat_text(b, path.ptr, path.len);
    rc |= tfmt__buf_puts(b, "\">");
    rc |= put_module(b, f, path);
    rc |= tfmt__buf_puts(b, "</a>");
    if (f->source == HSRC_MISSING)
        rc |= tfmt__buf_puts(b, "<span class=\"miss\">source not found"
                                "</span>");
    rc |= tfmt__buf_puts(b, "<span class=\"n\">");
    rc |= tfmt__heat_count(b, f->total);
    rc |= tfmt__buf_printf(b,
                           " samples (%.1f%%)</span><span class=\"bar\">"
                           "<i class=\"h%d\" style=\"width:%.0fpx\"></i>"
                           "</span></div>\n",
                           all ? 100.0 * (double)f->total / (double)all : 0.0,
                           tfmt__heat_level_of(pct / 100),
                           pct < 100 ? pct : 100.0);
    return rc;
}

static int put_files(hix *x, uint32_t d)
{
    if (x->nfil[d] == 0)
        return TFMT_OK;
    int rc = tfmt__buf_puts(&x->b, "<div class=\"files\">\n");
    for (uint32_t i = x->fil[d]; i < x->fil[d] + x->nfil[d]; i++)
        rc |= put_file(x, x->files[i]);
    return rc | tfmt__buf_puts(&x->b, "</div>\n");
}

/* One section: folders depth first (an explicit stack), then files. A
 * buffer failure is TFMT_ENOMEM, a sink's is its own status. */
static int put_section(hix *x, uint32_t sec, uint32_t *stack, uint32_t *cursor,
                       tfmt_sink *sink)
{
    if (put_dir_open(x, sec))
        return TFMT_ENOMEM;
    uint32_t depth = 1;
    stack[0] = sec;
    cursor[0] = 0;
    while (depth > 0) {
        uint32_t d = stack[depth - 1];
        if (cursor[depth - 1] < x->nkid[d]) {
            uint32_t kid = x->kids[x->kid[d] + cursor[depth - 1]++];
            if (put_dir_open(x, kid))
                return TFMT_ENOMEM;
            stack[depth] = kid;
            cursor[depth++] = 0;
            continue;
        }
        if (put_files(x, d) || tfmt__buf_puts(&x->b, "</div></details>\n"))
            return TFMT_ENOMEM;
        depth--;
        int rc = tfmt__profile_flush(&x->b, sink, TFMT_EXPORT_FLUSH);
        if (rc != TFMT_OK)
            return rc;
    }
    return TFMT_OK;
}

static int put_tree(hix *x, tfmt_sink *sink)
{
    tfmt_heatmap *h = x->h;
    uint32_t *stack = tfmt__malloc(h->alloc, (h->ndirs + 1) * sizeof *stack);
    uint32_t *cursor = tfmt__malloc(h->alloc, (h->ndirs + 1) * sizeof *cursor);
    int rc = stack && cursor ? TFMT_OK : TFMT_ENOMEM;
    for (uint32_t sec = 0; sec < HSEC_COUNT && rc == TFMT_OK; sec++)
        if (h->dirs[sec].nfiles > 0)
            rc = put_section(x, sec, stack, cursor, sink);
    tfmt__free(h->alloc, stack);
    tfmt__free(h->alloc, cursor);
    return rc;
}

static int put_index(hix *x, tfmt_sink *sink)
{
    static const char title[] = "Tachyon heatmap report";
    int rc = tfmt__heat_head(&x->b, title, sizeof title - 1, false);
    rc |= tfmt__buf_puts(&x->b,
                         "<body>\n<header class=\"top\"><span "
                         "class=\"brand\">tachyon</span><span class=\"sep\">"
                         "</span><span class=\"sub\">Heatmap report</span>"
                         "</header>\n<main>\n");
    rc |= put_cards(x);
    rc |= put_meta(x);
    rc |= tfmt__buf_puts(&x->b, "<h2>Profiled files</h2>\n");
    if (rc != TFMT_OK)
        return TFMT_ENOMEM;
    rc = put_tree(x, sink);
    if (rc != TFMT_OK)
        return rc;
    rc = tfmt__buf_puts(&x->b, "</main>\n<footer>tachyon-conv --to heatmap"
                               "</footer>\n</body>\n</html>\n");
    return rc ? TFMT_ENOMEM : TFMT_OK;
}

int tfmt_heatmap_write_index(tfmt_heatmap *h, tfmt_sink *sink)
{
    if (!h || !sink)
        return h ? tfmt__error(&h->err, TFMT_EINVAL, "no sink") : TFMT_EINVAL;
    hix x;
    memset(&x, 0, sizeof x);
    x.h = h;
    tfmt__buf_init(&x.b, h->alloc);
    int rc = index_tree(&x);
    if (rc == TFMT_OK)
        rc = put_index(&x, sink);
    if (rc == TFMT_OK)
        rc = tfmt__profile_flush(&x.b, sink, 0);
    if (rc != TFMT_OK)
        rc = tfmt__heat_fail(h, rc, rc == TFMT_ENOMEM ? NULL : sink);
    void *v[] = {x.kid, x.nkid, x.kids, x.fil, x.nfil, x.files};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        tfmt__free(h->alloc, v[i]);
    tfmt__buf_free(&x.b);
    return rc;
}
