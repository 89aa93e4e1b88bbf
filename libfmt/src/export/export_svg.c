/* SPDX-License-Identifier: MIT */
/*
 * export_svg.c - a self-contained interactive flame graph SVG.
 *
 * Everything is drawn by the C code, labels included, so the picture is
 * complete where no script runs (an <img>, an image viewer, a code-review
 * preview): root "all" at the TOP (an icicle, so the roots are what the
 * file shows first, however deep the stacks), one box per thread below
 * it, then the call tree, siblings in content order, widths proportional
 * to subtree totals. Each label is the function name cut to what fits the
 * box (about 7 px a character, ".." when cut), as the script re-cuts it
 * when zooming. Boxes narrower than 0.1 px are left out, which bounds the
 * file by what can be seen, and the height ends at the deepest box drawn.
 * Colours: a warm hue per file (hash of the name), blue for synthetic
 * frames (<GC>, <native>, <truncated>, "<...>" files), grey for the root
 * and threads. The inline script (export_svg_script.h) only adds hover
 * details, click to zoom and regex search.
 */
#include "export_internal.h"
#include "export_svg_script.h"

#define WIDTH 1200.0
#define MARGIN 10.0
#define FRAME_H 16.0
#define TOP_PAD 64.0 /* title, summary, hover details */
#define BOTTOM_PAD 10.0
#define CHAR_W 7.0 /* label width per character (12px Verdana) */

typedef struct vctx {
    tfmt_profile *p;
    bool embedded; /* inside an HTML page */
    tfmt_sink *sink;
    tfmt_xorder o;
    tfmt_tviews vs;
    double scale; /* px per sample */
    double height;
    uint32_t levels; /* levels drawn (root = 0) */
    double *next;    /* per level: x of the next box, in samples */
    tfmt_buf out;
} vctx;

/* XML text: markup escaped, what XML 1.0 cannot carry as U+FFFD. */
static int put_xml(tfmt_buf *b, const char *s, size_t n)
{
    return tfmt__text_put(b, s, n, TFMT_TEXT_XML);
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

/* UTF-8 characters (code points) of s, stopping at `stop`. */
static size_t chars_in(const char *s, size_t n, size_t stop, size_t *bytes)
{
    size_t count = 0, i = 0;
    while (i < n && count < stop) {
        i++;
        while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
            i++;
        count++;
    }
    *bytes = i;
    return count;
}

/*
 * The label of a box `w` px wide: the name when it fits, else its first
 * characters and "..", nothing below 3 characters (the script's fit()).
 */
static int put_label(tfmt_buf *b, tfmt_str name, double w)
{
    double room = (w - 6) / CHAR_W;
    if (room < 3)
        return TFMT_OK;
    size_t fit = (size_t)room, bytes;
    if (chars_in(name.ptr, name.len, fit + 1, &bytes) <= fit)
        return put_xml(b, name.ptr, name.len);
    chars_in(name.ptr, name.len, fit - 2, &bytes);
    int rc = put_xml(b, name.ptr, bytes);
    return rc ? rc : tfmt__buf_puts(b, "..");
}

static int put_box(vctx *c, uint32_t level, double x, uint64_t total,
                   const tfmt_frame *f, const char *label)
{
    tfmt_buf *b = &c->out;
    const tfmt_profile *p = c->p;
    tfmt_str name = f ? tfmt__profile_str(p, f->funcname)
                      : (tfmt_str){label, strlen(label)};
    double y = TOP_PAD + level * FRAME_H;
    double w = (double)total * c->scale;
    int rc =
        tfmt__buf_printf(b, "<g class=\"f\" data-d=\"%u\" data-n=\"", level);
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
    rc |= tfmt__buf_printf(b,
                           "\n%llu samples, %.2f%%</title><rect x=\"%.2f"
                           "\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                           "rx=\"2\" fill=\"",
                           (unsigned long long)total, share, x * c->scale, y, w,
                           FRAME_H - 1);
    rc |= put_color(b, p, f);
    rc |= tfmt__buf_printf(b, "\"/><text x=\"%.2f\" y=\"%.1f\">",
                           x * c->scale + 3, y + FRAME_H - 4.5);
    rc |= put_label(b, name, w);
    return rc | tfmt__buf_puts(b, "</text></g>\n");
}

/*
 * Every node of a thread at least 0.1 px wide, in a walk of the content
 * order; next[level] is where the next box of a level starts (in samples).
 */
static int put_thread(vctx *c, const tfmt_tview *v)
{
    const tfmt_profile *p = c->p;
    double min = 0.1 / c->scale;
    tfmt_pwalk w;
    tfmt__pwalk_sub(&w, v->nodes, v->tree, v->root);
    uint32_t node;
    int dir, rc = TFMT_OK;
    char label[64];
    while (rc == TFMT_OK && (dir = tfmt__pwalk_next(&w, &node)) != 0) {
        if (dir < 0)
            continue;
        const tfmt_pnode *n = &v->nodes[node];
        uint32_t level = n->depth + 1;
        uint64_t total = v->tree->total[node];
        if (level >= c->levels)
            continue; /* below the deepest box drawn: too narrow */
        double x = c->next[level];
        c->next[level] += (double)total;
        c->next[level + 1] = x;
        if ((double)total < min || total == 0)
            continue;
        const tfmt_frame *f = NULL;
        if (n->frame == TFMT_NO_ID)
            snprintf(label, sizeof label, "thread %llu",
                     (unsigned long long)p->threads[v->thread].thread_id);
        else
            f = &p->frames[n->frame];
        rc = put_box(c, level, x, total, f, label);
        if (rc == TFMT_OK)
            rc = tfmt__xflush(c->p, &c->out, c->sink, false);
    }
    return rc;
}

/*
 * The deepest level of a thread's tree at least 0.1 px wide (a narrower
 * node is not drawn, and neither is anything below it).
 */
static uint32_t deepest(const vctx *c, const tfmt_tview *v)
{
    double min = 0.1 / c->scale;
    tfmt_pwalk w;
    tfmt__pwalk_sub(&w, v->nodes, v->tree, v->root);
    uint32_t node, maxd = 0;
    int dir;
    while ((dir = tfmt__pwalk_next(&w, &node)) != 0) {
        uint64_t total = v->tree->total[node];
        if (dir > 0 && total && (double)total >= min &&
            v->nodes[node].depth > maxd)
            maxd = v->nodes[node].depth;
    }
    return maxd;
}

/*
 * Each thread in thread order: pass 0 finds the levels to draw, pass 1
 * draws (a thread's view is built again for each pass).
 */
static int each_thread(vctx *c, int pass)
{
    const tfmt_profile *p = c->p;
    int rc = TFMT_OK;
    uint32_t maxd = 0;
    for (size_t i = 0; i < p->nthreads && rc == TFMT_OK; i++) {
        uint32_t t = c->o.threads[i];
        tfmt_tview v;
        rc = tfmt__tviews_get(&c->vs, t, &v);
        if (rc != TFMT_OK)
            break;
        if (pass == 0) {
            uint32_t d = deepest(c, &v);
            maxd = d > maxd ? d : maxd;
        } else {
            rc = put_thread(c, &v);
        }
    }
    if (pass == 0)
        c->levels = maxd + 2; /* "all", then threads at depth 0 */
    return rc;
}

static int put_head(vctx *c, const char *title)
{
    tfmt_buf *b = &c->out;
    double w = WIDTH - 2 * MARGIN;
    int rc =
        c->embedded
            ? tfmt__buf_printf(
                  b,
                  "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
                  "width=\"100%%\" viewBox=\"0 0 %.0f %.0f\" "
                  "data-w=\"%.0f\">\n",
                  WIDTH, c->height, w)
            : tfmt__buf_printf(
                  b,
                  "<?xml version=\"1.0\" standalone=\"no\"?>\n"
                  "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
                  "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                  "data-w=\"%.0f\">\n",
                  WIDTH, c->height, WIDTH, c->height, w);
    rc |= tfmt__buf_puts(b, tfmt__svg_style);
    rc |= tfmt__buf_puts(b, tfmt__svg_script);
    rc |= tfmt__buf_printf(b,
                           "<rect width=\"100%%\" height=\"100%%\" "
                           "fill=\"#f7f7f2\"/>\n<text id=\"title\" "
                           "x=\"%.0f\" y=\"24\">",
                           WIDTH / 2);
    rc |= put_xml(b, title, strlen(title));
    rc |= tfmt__buf_printf(
        b,
        "</text>\n<text x=\"%.0f\" y=\"40\">%llu "
        "sample%s, %zu thread%s, interval %llu us (click a box to zoom, "
        "Ctrl-F or Search to find)</text>\n",
        MARGIN, (unsigned long long)c->p->samples_total,
        c->p->samples_total == 1 ? "" : "s", c->p->nthreads,
        c->p->nthreads == 1 ? "" : "s", (unsigned long long)c->p->interval_us);
    rc |= tfmt__buf_printf(
        b,
        "<text id=\"unzoom\" class=\"btn hide\" "
        "x=\"%.0f\" y=\"24\">Reset Zoom</text>\n<text id=\"search\" "
        "class=\"btn\" x=\"%.0f\" y=\"24\">Search</text>\n"
        "<text id=\"details\" x=\"%.0f\" y=\"%.0f\"> </text>\n"
        "<text id=\"matched\" x=\"%.0f\" y=\"%.0f\"> </text>\n",
        MARGIN, WIDTH - MARGIN - 60, MARGIN, TOP_PAD - 8, WIDTH - MARGIN - 130,
        TOP_PAD - 8);
    return rc |
           tfmt__buf_printf(b, "<g transform=\"translate(%.0f,0)\">\n", MARGIN);
}

static int write_svg(vctx *c, const char *title)
{
    const tfmt_profile *p = c->p;
    uint64_t total = p->samples_total ? p->samples_total : 1;
    c->scale = (WIDTH - 2 * MARGIN) / (double)total;
    int rc = each_thread(c, 0);
    if (rc != TFMT_OK)
        return rc;
    c->next = tfmt__calloc(p->alloc, (size_t)c->levels + 2, sizeof *c->next);
    if (!c->next)
        return TFMT_ENOMEM;
    c->height = TOP_PAD + BOTTOM_PAD + c->levels * FRAME_H;
    rc = put_head(c, title);
    if (rc == TFMT_OK && p->samples_total)
        rc = put_box(c, 0, 0, p->samples_total, NULL, "all");
    if (rc == TFMT_OK)
        rc = each_thread(c, 1);
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
    if (tfmt__xneed_stacks(p) != TFMT_OK || tfmt__xneed_views(p) != TFMT_OK)
        return TFMT_EINVAL;
    vctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.embedded = embedded;
    c.sink = sink;
    tfmt__buf_init(&c.out, p->alloc);
    const char *title = opts && opts->title ? opts->title : "Flame Graph";
    int rc = tfmt__xorder_build(p, &c.o);
    if (rc == TFMT_OK)
        rc = tfmt__tviews_init(&c.vs, p, &c.o);
    if (rc == TFMT_OK)
        rc = write_svg(&c, title);
    if (rc == TFMT_OK)
        rc = tfmt__xflush(p, &c.out, sink, true);
    else if (rc == TFMT_ENOMEM)
        rc = tfmt__xfail(p, rc, NULL);
    tfmt__free(p->alloc, c.next);
    tfmt__buf_free(&c.out);
    tfmt__tviews_free(&c.vs);
    tfmt__xorder_free(p, &c.o);
    return rc;
}
