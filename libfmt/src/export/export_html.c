/* SPDX-License-Identifier: MIT */
/*
 * export_html.c - one self-contained HTML page: the interactive flame
 * graph (the SVG export, inline, scaled to the window) above the "top"
 * tables of the whole profile and of each thread. No external resource.
 */
#include "export_internal.h"

/* HTML text: markup escaped, as the SVG's XML is (fmt_text.h). */
static int put_escaped(tfmt_buf *b, const char *s, size_t n)
{
    return tfmt__text_put(b, s, n, TFMT_TEXT_XML);
}

static int put_head(tfmt_buf *b, const char *title)
{
    int rc = tfmt__buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n"
                               "<head>\n<meta charset=\"utf-8\">\n<title>");
    rc |= put_escaped(b, title, strlen(title));
    return rc |
           tfmt__buf_puts(
               b, "</title>\n<style>\n"
                  "body { margin: 1em; background: #f7f7f2;"
                  " font-family: Verdana, Helvetica, sans-serif; }\n"
                  "h2 { font-size: 15px; margin: 1.5em 0 0.5em; }\n"
                  "pre { font-size: 12px; background: #fff; padding: 0.8em;"
                  " border: 1px solid #ddd; overflow-x: auto; }\n"
                  "</style>\n</head>\n<body>\n");
}

/* The page being written, for put_text. */
typedef struct page {
    tfmt_profile *p;
    tfmt_sink *sink;
    tfmt_buf *b;
} page;

/*
 * A piece of the top tables' text, escaped onto the page and flushed
 * with it: the text of every thread's table is never held at once, nor
 * twice (escaping is per character, so pieces escape as the whole).
 */
static int put_text(void *ctx, tfmt_buf *text)
{
    page *pg = ctx;
    int rc = put_escaped(pg->b, text->data, text->len);
    text->len = 0;
    return rc == TFMT_OK ? tfmt__xflush(pg->p, pg->b, pg->sink, false) : rc;
}

static int put_tables(tfmt_profile *p, const tfmt_export_options *opts,
                      tfmt_buf *b, tfmt_sink *sink)
{
    tfmt_export_options o = TFMT_EXPORT_OPTIONS_INIT;
    if (opts)
        o = *opts;
    o.per_thread = true;
    page pg = {p, sink, b};
    tfmt_buf text;
    tfmt__buf_init(&text, p->alloc);
    int rc = tfmt__buf_puts(b, "<h2>Hottest functions</h2>\n<pre>");
    if (rc == TFMT_OK)
        rc = tfmt__top_text(p, &o, &text, put_text, &pg);
    if (rc == TFMT_OK)
        rc = put_text(&pg, &text);
    if (rc == TFMT_OK)
        rc = tfmt__buf_puts(b, "</pre>\n</body>\n</html>\n");
    tfmt__buf_free(&text);
    return rc;
}

int tfmt_profile_write_html(tfmt_profile *p, tfmt_sink *sink,
                            const tfmt_export_options *opts)
{
    const char *title = opts && opts->title ? opts->title : "Flame Graph";
    tfmt_buf b;
    tfmt__buf_init(&b, p->alloc);
    int rc = put_head(&b, title);
    if (rc == TFMT_OK)
        rc = tfmt__xflush(p, &b, sink, true);
    else
        rc = tfmt__xfail(p, TFMT_ENOMEM, NULL);
    if (rc == TFMT_OK)
        rc = tfmt__svg_write(p, sink, opts, true);
    if (rc == TFMT_OK) {
        rc = put_tables(p, opts, &b, sink);
        if (rc == TFMT_OK)
            rc = tfmt__xflush(p, &b, sink, true);
        else if (rc == TFMT_ENOMEM)
            rc = tfmt__xfail(p, rc, NULL);
    }
    tfmt__buf_free(&b);
    return rc;
}
