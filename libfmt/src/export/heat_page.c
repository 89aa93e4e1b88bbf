/* SPDX-License-Identifier: MIT */
/*
 * heat_page.c - one source file's heatmap page, as CPython's: the file's
 * figures, the legend and switches, then every line of the source with its
 * self and total samples, coloured by CPython's heat level (self by
 * default, total with the switch), its column spans, bytecode panel and
 * caller/callee links. Lines are split where Python's tokenizer splits
 * them (\n, \r\n, \r; CPython's page uses str.splitlines, which also
 * splits at form feeds and other separators and then misnumbers every
 * line after one), a UTF-8 BOM is skipped, and column offsets are bytes
 * of the file as read. Without a source the page lists the sampled lines
 * alone and says why; sampled lines past the end of the source are listed
 * after it and marked. A link to a line (#line-N) opens its bytecode.
 */
#include "heat_internal.h"

typedef struct hpage {
    tfmt_heatmap *h;
    const hfile *f;
    tfmt_buf b;
    tfmt_sink *sink;
    uint32_t next; /* next sampled line of the file (h->lines) */
} hpage;

static int flush(hpage *pg, bool all)
{
    int rc = tfmt__profile_flush(&pg->b, pg->sink, all ? 0 : TFMT_EXPORT_FLUSH);
    return rc == TFMT_OK ? rc : tfmt__heat_fail(pg->h, rc, pg->sink);
}

/* CPython's specialization colour: grey, orange at 50%, green at 100%. */
static int put_spec_colour(tfmt_buf *b, unsigned pct)
{
    double t, r, g, bl, ratio = pct / 100.0;
    if (ratio >= 0.5) {
        t = (ratio - 0.5) * 2;
        r = 255 * (1 - t);
        g = 180 + 75 * t;
        bl = 50 * (1 - t);
    } else {
        t = ratio * 2;
        r = 158 + 97 * t;
        g = 158 + 22 * t;
        bl = 158 - 108 * t;
    }
    return tfmt__buf_printf(b, " style=\"--sp:rgba(%d,%d,%d,%.3g)\"", (int)r,
                            (int)g, (int)bl, 0.15 + 0.25 * ratio);
}

static int put_counts(hpage *pg, const hline *l, int32_t n, bool bc)
{
    tfmt_buf *b = &pg->b;
    uint64_t self = l ? l->self : 0, total = l ? l->total : 0;
    int ls = tfmt__heat_level(self, pg->f->max_self);
    int lt = tfmt__heat_level(total, pg->f->max_total);
    int rc = tfmt__buf_puts(b, "<div class=\"l");
    if (ls)
        rc |= tfmt__buf_printf(b, " s%d", ls);
    if (lt)
        rc |= tfmt__buf_printf(b, " t%d", lt);
    rc |= tfmt__buf_printf(b, "%s%s\" id=\"line-%d\"", self ? "" : " ns",
                           total ? "" : " nt", n);
    if (total)
        rc |= tfmt__buf_printf(b, " title=\"Self: %llu, Total: %llu\"",
                               (unsigned long long)self,
                               (unsigned long long)total);
    if (bc) {
        uint64_t all, spec;
        tfmt__heat_spec(pg->h, l, &all, &spec);
        rc |= put_spec_colour(b, all ? (unsigned)(100 * spec / all) : 0);
    }
    rc |= tfmt__buf_printf(b,
                           "><a class=\"n\" href=\"#line-%d\">%d</a>"
                           "<span class=\"sf\">",
                           n, n);
    if (self)
        rc |= tfmt__buf_put_u64(b, self);
    rc |= tfmt__buf_puts(b, "</span><span class=\"tt\">");
    if (total)
        rc |= tfmt__buf_put_u64(b, total);
    rc |= tfmt__buf_puts(b, "</span>");
    return rc ? TFMT_ENOMEM : TFMT_OK;
}

/* One row: line `n`, its sampled data `l` (may be NULL), its code. */
static int put_row(hpage *pg, int32_t n, const hline *l, const char *s,
                   size_t len, const char *code_note)
{
    tfmt_heatmap *h = pg->h;
    tfmt_buf *b = &pg->b;
    bool bc = l && l->total && l->ninstr;
    int rc = put_counts(pg, l, n, bc);
    if (bc)
        rc |= tfmt__buf_printf(b,
                               "<label class=\"bt\" for=\"b-%d\" "
                               "title=\"Show bytecode\"></label>",
                               n);
    else
        rc |= tfmt__buf_puts(b, "<span class=\"bt\"></span>");
    rc |= tfmt__buf_puts(b, "<span class=\"c\">");
    if (code_note)
        rc |= tfmt__buf_printf(b, "<i>%s</i>", code_note);
    else if (rc == TFMT_OK)
        rc = tfmt__heat_code(h, b, l, s, len);
    rc |= tfmt__buf_puts(b, "</span>");
    if (l && rc == TFMT_OK)
        rc = tfmt__heat_nav(h, b, l);
    rc |= tfmt__buf_puts(b, "</div>\n");
    if (bc && rc == TFMT_OK)
        rc = tfmt__heat_panel(h, b, l);
    if (rc != TFMT_OK)
        return tfmt__heat_fail(h, TFMT_ENOMEM, NULL);
    return flush(pg, false);
}

static int put_gap(hpage *pg, const char *text)
{
    if (tfmt__buf_printf(&pg->b, "<div class=\"gap\">%s</div>\n", text))
        return tfmt__heat_fail(pg->h, TFMT_ENOMEM, NULL);
    return TFMT_OK;
}

/* The sampled line numbered `n`, if it is the next one; else NULL. */
static const hline *take(hpage *pg, int32_t n)
{
    const hfile *f = pg->f;
    if (pg->next < f->line + f->nlines && pg->h->lines[pg->next].line == n)
        return &pg->h->lines[pg->next++];
    return NULL;
}

/* Line 0: frames without a location (counted by CPython, never shown). */
static int put_line_zero(hpage *pg)
{
    const hline *l = take(pg, 0);
    if (!l)
        return TFMT_OK;
    return put_row(pg, 0, l, NULL, 0,
                   "(no line number: frames without a "
                   "location)");
}

/* The source's next line (\n, \r\n or \r ends it). */
static bool next_line(const char **pos, const char *end, const char **s,
                      size_t *n)
{
    const char *p = *pos, *q = p;
    if (p >= end)
        return false;
    while (q < end && *q != '\n' && *q != '\r')
        q++;
    *s = p;
    *n = (size_t)(q - p);
    if (q < end && *q++ == '\r' && q < end && *q == '\n')
        q++;
    *pos = q;
    return true;
}

/* Sampled lines not yet shown (no source, or past its end), with a gap
 * row where lines are skipped (after line `after`; -1: no first gap). */
static int put_rest(hpage *pg, int32_t after)
{
    const hfile *f = pg->f;
    int rc = TFMT_OK;
    int32_t prev = after;
    while (rc == TFMT_OK && pg->next < f->line + f->nlines) {
        const hline *l = &pg->h->lines[pg->next++];
        if (prev >= 0 && l->line != prev + 1)
            rc = put_gap(pg, "\xe2\x8b\xae");
        if (rc == TFMT_OK)
            rc = put_row(pg, l->line, l, "", 0, NULL);
        prev = l->line;
    }
    return rc;
}

static int put_source(hpage *pg, const tfmt_heatmap_source *src)
{
    const char *pos = src->text, *end = src->text + src->len, *s;
    size_t n;
    int32_t line = 0;
    int rc = TFMT_OK;
    if (src->len >= 3 && memcmp(pos, "\xef\xbb\xbf", 3) == 0)
        pos += 3;
    while (rc == TFMT_OK && line < INT32_MAX && next_line(&pos, end, &s, &n)) {
        line++;
        rc = put_row(pg, line, take(pg, line), s, n, NULL);
    }
    const hfile *f = pg->f;
    if (rc == TFMT_OK && pg->next < f->line + f->nlines) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "lines past the end of the source (%d "
                 "lines): it may have changed since the recording",
                 line);
        rc = put_gap(pg, msg);
        if (rc == TFMT_OK)
            rc = put_rest(pg, -1);
    }
    return rc;
}

/* ---- the page around the code ---- */

static int put_stat(tfmt_buf *b, const char *label, uint64_t n)
{
    int rc = tfmt__buf_puts(b, "<div class=\"st\"><b>");
    rc |= tfmt__heat_count(b, n);
    rc |= tfmt__buf_printf(b, "</b><span>%s</span></div>\n", label);
    return rc;
}

static int put_top(hpage *pg)
{
    tfmt_heatmap *h = pg->h;
    tfmt_buf *b = &pg->b;
    tfmt_str path = tfmt__profile_str(h->p, pg->f->name);
    uint64_t all = h->p->samples_total;
    int rc = tfmt__buf_puts(b, "<body>\n<input type=\"checkbox\" "
                               "id=\"m-total\" class=\"sw\"><input "
                               "type=\"checkbox\" id=\"m-hot\" class=\"sw\">");
    if (h->opcodes)
        rc |= tfmt__buf_puts(b, "<input type=\"checkbox\" id=\"m-spec\" "
                                "class=\"sw\"><input type=\"checkbox\" "
                                "id=\"m-bc\" class=\"sw\">");
    rc |=
        tfmt__buf_puts(b, "\n<header class=\"top\"><a class=\"brand\" "
                          "href=\"index.html\">tachyon</a><span class=\"sep\">"
                          "</span><span class=\"sub\">");
    rc |= tfmt__heat_text(b, path.ptr, path.len);
    rc |= tfmt__buf_puts(b,
                         "</span><a class=\"back\" href=\"index.html\">"
                         "Back to index</a></header>\n<div class=\"stats\">\n");
    rc |= put_stat(b, "Self samples", pg->f->self);
    rc |= put_stat(b, "Total samples", pg->f->total);
    rc |= put_stat(b, "Lines hit", pg->f->nlines);
    rc |= tfmt__buf_printf(b,
                           "<div class=\"st\"><b>%.1f%%</b><span>Of all "
                           "samples</span></div>\n",
                           all ? 100.0 * (double)pg->f->total / (double)all
                               : 0.0);
    rc |= put_stat(b, "Max self", pg->f->max_self);
    rc |= put_stat(b, "Max total", pg->f->max_total);
    rc |= tfmt__buf_puts(b, "</div>\n");
    return rc;
}

static int put_toggle(tfmt_buf *b, const char *id, const char *title,
                      const char *a, const char *bname)
{
    return tfmt__buf_printf(b,
                            "<label for=\"%s\" class=\"tg\" title=\"%s\">"
                            "<span class=\"a\">%s</span><i></i><span "
                            "class=\"b\">%s</span></label>\n",
                            id, title, a, bname);
}

static int put_legend(hpage *pg)
{
    tfmt_buf *b = &pg->b;
    int rc = tfmt__buf_puts(b, "<div class=\"legend\"><span>Intensity:"
                               "</span><span class=\"grad\"></span><span>cold "
                               "\xe2\x86\x92 hot</span>\n");
    rc |= put_toggle(b, "m-total", "Colour lines by self or by total samples",
                     "Self", "Total");
    rc |= put_toggle(b, "m-hot", "Hide the lines without samples", "Show all",
                     "Hot only");
    if (pg->h->opcodes) {
        rc |= put_toggle(b, "m-spec",
                         "Colour lines by the share of "
                         "specialized instructions",
                         "Heat", "Specialization");
        rc |= put_toggle(b, "m-bc", "Open every bytecode panel", "Bytecode",
                         "All open");
    }
    return rc | tfmt__buf_puts(b, "</div>\n");
}

static int put_notes(hpage *pg, const tfmt_heatmap_source *src)
{
    tfmt_heatmap *h = pg->h;
    tfmt_buf *b = &pg->b;
    int rc = TFMT_OK;
    if (!src || !src->text) {
        rc |= tfmt__buf_puts(b, "<div class=\"note\"><b>Source not "
                                "available.</b> ");
        if (src && src->note)
            rc |= tfmt__heat_text(b, src->note, strlen(src->note));
        rc |= tfmt__buf_puts(b, " Only the sampled lines are listed, with "
                                "their counts.</div>\n");
    }
    if (h->jsonl)
        rc |= tfmt__buf_puts(b, "<div class=\"note\">Counts from JSONL "
                                "exports, which have per-line totals but no "
                                "stacks and no opcodes: their samples give no "
                                "callers, callees or bytecode. A line's total "
                                "from them counts a sample twice when a "
                                "function was on its stack at two columns of "
                                "the line (recursion), and the file's total "
                                "samples are its largest line total.</div>\n");
    if (h->opcodes && h->pymixed)
        rc |= tfmt__buf_printf(b,
                               "<div class=\"note\">The inputs were "
                               "recorded by several Python versions: opcodes "
                               "are named as in Python %u.%u, the first "
                               "input's.</div>\n",
                               h->pyver[0], h->pyver[1]);
    else if (h->opcodes && !h->pyver[0])
        rc |=
            tfmt__buf_puts(b, "<div class=\"note\">The input does not say "
                              "which Python recorded it: opcodes are shown by "
                              "number.</div>\n");
    else if (h->opcodes && !tfmt_opcode_name(h->pyver[0], h->pyver[1], 1) &&
             !tfmt_opcode_name(h->pyver[0], h->pyver[1], 2))
        rc |= tfmt__buf_printf(b,
                               "<div class=\"note\">No opcode names are "
                               "known for Python %u.%u: opcodes are shown by "
                               "number.</div>\n",
                               h->pyver[0], h->pyver[1]);
    return rc;
}

static int put_footer(hpage *pg, const tfmt_heatmap_source *src)
{
    tfmt_buf *b = &pg->b;
    int rc = tfmt__buf_puts(b, "<footer>tachyon-conv --to heatmap "
                               "\xc2\xb7 ");
    rc |= tfmt__heat_origin(b, pg->h);
    if (src && src->text && src->origin) {
        rc |= tfmt__buf_puts(b, " \xc2\xb7 source read from ");
        rc |= tfmt__heat_text(b, src->origin, strlen(src->origin));
    }
    return rc | tfmt__buf_puts(b, "</footer>\n</body>\n</html>\n");
}

static int put_page(hpage *pg, const tfmt_heatmap_source *src)
{
    tfmt_heatmap *h = pg->h;
    tfmt_str path = tfmt__profile_str(h->p, pg->f->name);
    tfmt_buf title;
    tfmt__buf_init(&title, h->alloc);
    int rc = tfmt__buf_put(&title, path.ptr, path.len);
    rc |= tfmt__buf_puts(&title, " - Heatmap");
    if (rc == TFMT_OK)
        rc = tfmt__heat_head(&pg->b, title.data, title.len, true);
    tfmt__buf_free(&title);
    rc |= put_top(pg);
    rc |= put_legend(pg);
    rc |= put_notes(pg, src);
    rc |=
        tfmt__buf_puts(&pg->b, "<div class=\"code\">\n<div class=\"hd\">"
                               "<span>Line</span><span>Self</span><span>Total"
                               "</span><span></span><span>Code</span></div>\n");
    if (rc != TFMT_OK)
        return tfmt__heat_fail(h, TFMT_ENOMEM, NULL);
    rc = put_line_zero(pg);
    if (rc == TFMT_OK)
        rc = src && src->text ? put_source(pg, src) : put_rest(pg, 0);
    if (rc == TFMT_OK && tfmt__buf_puts(&pg->b, "</div>\n"))
        rc = tfmt__heat_fail(h, TFMT_ENOMEM, NULL);
    if (rc == TFMT_OK && put_footer(pg, src))
        rc = tfmt__heat_fail(h, TFMT_ENOMEM, NULL);
    return rc == TFMT_OK ? flush(pg, true) : rc;
}

int tfmt_heatmap_write_page(tfmt_heatmap *h, size_t i,
                            const tfmt_heatmap_source *src, tfmt_sink *sink)
{
    if (!h || !sink || i >= h->npages)
        return h ? tfmt__error(&h->err, TFMT_EINVAL, "no such page")
                 : TFMT_EINVAL;
    hpage pg;
    memset(&pg, 0, sizeof pg);
    pg.h = h;
    pg.f = &h->files[h->pages[i]];
    pg.next = pg.f->line;
    pg.sink = sink;
    tfmt__buf_init(&pg.b, h->alloc);
    int rc = put_page(&pg, src);
    tfmt__buf_free(&pg.b);
    if (rc == TFMT_OK)
        h->files[h->pages[i]].source =
            src && src->text ? HSRC_FOUND : HSRC_MISSING;
    return rc;
}
