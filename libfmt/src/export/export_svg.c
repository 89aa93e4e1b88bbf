/*
 * export_svg.c - a self-contained interactive flame graph SVG.
 *
 * Layout in the C code (so the picture is right even where scripts do not
 * run): root "all" at the bottom, one box per thread above it, then the
 * call tree, siblings in content order, widths proportional to subtree
 * totals. Boxes narrower than 0.1 px are left out, which bounds the file
 * by what can be seen. Colours: a warm hue per file (hash of the name),
 * blue for synthetic frames (<GC>, <native>, "<...>" files), grey for the
 * root and threads. The inline script (export_svg_script.h) adds hover
 * details, click to zoom and regex search.
 */
#include "export_internal.h"
#include "export_svg_script.h"

#define WIDTH 1200.0
#define MARGIN 10.0
#define FRAME_H 16.0
#define TOP_PAD 50.0
#define BOTTOM_PAD 34.0

typedef struct vctx {
    tfmt_profile *p;
    bool embedded;          /* inside an HTML page */
    tfmt_sink *sink;
    tfmt_xorder o;
    double scale;           /* px per sample */
    double height;
    uint32_t levels;
    double *next;           /* per level: x of the next box, in samples */
    tfmt_buf out;
} vctx;

/* XML text: escape markup, drop characters XML 1.0 cannot carry. */
static int put_xml(tfmt_buf *b, const char *s, size_t n)
{
    int rc = TFMT_OK;
    for (size_t i = 0; i < n && rc == TFMT_OK; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '&': rc = tfmt__buf_puts(b, "&amp;"); break;
        case '<': rc = tfmt__buf_puts(b, "&lt;"); break;
        case '>': rc = tfmt__buf_puts(b, "&gt;"); break;
        case '"': rc = tfmt__buf_puts(b, "&quot;"); break;
        default:
            rc = c < 0x20 && c != '\t' ? tfmt__buf_putc(b, '?')
                                       : tfmt__buf_putc(b, (char)c);
        }
    }
    return rc;
}

static uint32_t fnv(tfmt_str s)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < s.len; i++)
        h = (h ^ (unsigned char)s.ptr[i]) * 16777619u;
    return h;
}

static int put_color(tfmt_buf *b, const tfmt_profile *p, const tfmt_frame *f)
{
    tfmt_str file = f ? tfmt__profile_str(p, f->filename) : (tfmt_str){0, 0};
    if (!f)
        return tfmt__buf_puts(b, "rgb(200,200,200)");
    uint32_t h = fnv(file);
    if (file.len == 0 || file.ptr[0] == '<' || file.ptr[0] == '~')
        return tfmt__buf_printf(b, "rgb(%u,%u,230)", 80 + h % 60,
                                150 + (h >> 8) % 60);
    /* red..yellow: red 205-255, green 60-200, blue 30-80 */
    return tfmt__buf_printf(b, "rgb(%u,%u,%u)", 205 + h % 51,
                            60 + (h >> 8) % 141, 30 + (h >> 16) % 51);
}

static int put_box(vctx *c, uint32_t level, double x, uint64_t total,
                   const tfmt_frame *f, const char *label)
{
    tfmt_buf *b = &c->out;
    const tfmt_profile *p = c->p;
    tfmt_str name = f ? tfmt__profile_str(p, f->funcname)
                      : (tfmt_str){label, strlen(label)};
    double y = c->height - BOTTOM_PAD - (level + 1) * FRAME_H;
    int rc = tfmt__buf_printf(b, "<g class=\"f\" data-d=\"%u\" data-n=\"",
                              level);
    rc |= put_xml(b, name.ptr, name.len);
    rc |= tfmt__buf_puts(b, "\"><title>");
    rc |= put_xml(b, name.ptr, name.len);
    if (f) {
        tfmt_str file = tfmt__profile_str(p, f->filename);
        rc |= tfmt__buf_puts(b, " (");
        rc |= put_xml(b, file.ptr, file.len);
        if (f->lineno > 0)
            rc |= tfmt__buf_printf(b, ":%d", (int)f->lineno);
        rc |= tfmt__buf_putc(b, ')');
    }
    double share = 100.0 * (double)total / (double)p->samples_total;
    rc |= tfmt__buf_printf(b, "\n%llu samples, %.2f%%</title><rect x=\"%.2f"
                           "\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                           "rx=\"2\" fill=\"", (unsigned long long)total,
                           share, x * c->scale, y, (double)total * c->scale,
                           FRAME_H - 1);
    rc |= put_color(b, p, f);
    rc |= tfmt__buf_printf(b, "\"/><text x=\"%.2f\" y=\"%.1f\"></text></g>\n",
                           x * c->scale + 3, y + FRAME_H - 4.5);
    return rc;
}

/* Every node at least 0.1 px wide, in a walk of the content order. */
static int put_tree(vctx *c)
{
    const tfmt_profile *p = c->p;
    double min = 0.1 / c->scale;
    tfmt_pwalk w;
    tfmt__pwalk_init(&w, p, &c->o.tree);
    uint32_t node;
    int dir, rc = TFMT_OK;
    char label[64];
    while (rc == TFMT_OK && (dir = tfmt__pwalk_next(&w, &node)) != 0) {
        if (dir < 0)
            continue;
        const tfmt_pnode *n = &p->nodes[node];
        uint32_t level = n->depth + 1;
        uint64_t total = c->o.tree.total[node];
        double x = c->next[level];
        c->next[level] += (double)total;
        c->next[level + 1] = x;
        if ((double)total < min || total == 0)
            continue;
        const tfmt_frame *f = NULL;
        if (n->frame == TFMT_NO_ID)
            snprintf(label, sizeof label, "thread %llu",
                     (unsigned long long)p->threads[n->thread].thread_id);
        else
            f = &p->frames[n->frame];
        rc = put_box(c, level, x, total, f, label);
        if (rc == TFMT_OK)
            rc = tfmt__xflush(c->p, &c->out, c->sink, false);
    }
    return rc;
}

static int put_head(vctx *c, const char *title)
{
    tfmt_buf *b = &c->out;
    double w = WIDTH - 2 * MARGIN;
    int rc = c->embedded ? tfmt__buf_printf(b,
        "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
        "width=\"100%%\" viewBox=\"0 0 %.0f %.0f\" data-w=\"%.0f\">\n",
        WIDTH, c->height, w) : tfmt__buf_printf(b,
        "<?xml version=\"1.0\" standalone=\"no\"?>\n"
        "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
        "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
        "data-w=\"%.0f\">\n", WIDTH, c->height, WIDTH, c->height, w);
    rc |= tfmt__buf_puts(b, tfmt__svg_style);
    rc |= tfmt__buf_puts(b, tfmt__svg_script);
    rc |= tfmt__buf_printf(b, "<rect width=\"100%%\" height=\"100%%\" "
                           "fill=\"#f7f7f2\"/>\n<text id=\"title\" "
                           "x=\"%.0f\" y=\"24\">", WIDTH / 2);
    rc |= put_xml(b, title, strlen(title));
    rc |= tfmt__buf_printf(b, "</text>\n<text x=\"%.0f\" y=\"44\">%llu "
        "samples, %zu threads, interval %llu us (click a box to zoom, "
        "Ctrl-F or Search to find)</text>\n", MARGIN,
        (unsigned long long)c->p->samples_total, c->p->nthreads,
        (unsigned long long)c->p->interval_us);
    rc |= tfmt__buf_printf(b, "<text id=\"unzoom\" class=\"btn hide\" "
        "x=\"%.0f\" y=\"24\">Reset Zoom</text>\n<text id=\"search\" "
        "class=\"btn\" x=\"%.0f\" y=\"24\">Search</text>\n"
        "<text id=\"details\" x=\"%.0f\" y=\"%.0f\"> </text>\n"
        "<text id=\"matched\" x=\"%.0f\" y=\"%.0f\"> </text>\n",
        MARGIN, WIDTH - MARGIN - 60, MARGIN, c->height - 12,
        WIDTH - MARGIN - 130, c->height - 12);
    return rc | tfmt__buf_printf(b, "<g transform=\"translate(%.0f,0)\">\n",
                                 MARGIN);
}

static int write_svg(vctx *c, const char *title)
{
    const tfmt_profile *p = c->p;
    uint32_t maxd = 0;
    for (size_t i = 0; i < p->nnodes; i++)
        if (p->nodes[i].depth > maxd)
            maxd = p->nodes[i].depth;
    c->levels = maxd + 3;
    c->next = tfmt__calloc(p->alloc, c->levels + 1, sizeof *c->next);
    if (!c->next)
        return TFMT_ENOMEM;
    uint64_t total = p->samples_total ? p->samples_total : 1;
    c->scale = (WIDTH - 2 * MARGIN) / (double)total;
    c->height = TOP_PAD + BOTTOM_PAD + (maxd + 2) * FRAME_H;
    int rc = put_head(c, title);
    if (rc == TFMT_OK && p->samples_total)
        rc = put_box(c, 0, 0, p->samples_total, NULL, "all");
    if (rc == TFMT_OK)
        rc = put_tree(c);
    return rc ? rc : tfmt__buf_puts(&c->out, "</g>\n</svg>\n");
}

int tfmt_profile_write_svg(tfmt_profile *p, tfmt_sink *sink,
                           const tfmt_export_options *opts)
{
    return tfmt__svg_write(p, sink, opts, false);
}

int tfmt__svg_write(tfmt_profile *p, tfmt_sink *sink,
                    const tfmt_export_options *opts, bool embedded)
{
    vctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.embedded = embedded;
    c.sink = sink;
    tfmt__buf_init(&c.out, p->alloc);
    const char *title = opts && opts->title ? opts->title : "Flame Graph";
    int rc = tfmt__xorder_build(p, &c.o);
    if (rc == TFMT_OK)
        rc = write_svg(&c, title);
    if (rc == TFMT_OK)
        rc = tfmt__xflush(p, &c.out, sink, true);
    else if (rc == TFMT_ENOMEM)
        rc = tfmt__xfail(p, rc, NULL);
    tfmt__free(p->alloc, c.next);
    tfmt__buf_free(&c.out);
    tfmt__xorder_free(p, &c.o);
    return rc;
}
