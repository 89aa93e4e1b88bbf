/* SPDX-License-Identifier: MIT */
/*
 * heat_html.c - what the heatmap's pages share: the stylesheet (CPython's
 * heat palette and layout, light and dark), text escaping, numbers, the
 * heat level and page names. The pages are plain HTML and CSS: every
 * count and colour is in the markup, and the switches (self or total,
 * hot lines only, specialization, bytecode) are checkboxes styled by CSS,
 * so nothing depends on a script.
 */
#include <math.h>
#include <stdlib.h>

#include "heat_internal.h"
#include "json_escape.h"

tfmt_str tfmt__heat_path(const tfmt_heatmap *h, uint32_t file)
{
    return tfmt__profile_str(h->p, h->files[file].name);
}

int tfmt__heat_origin(tfmt_buf *b, const tfmt_heatmap *h)
{
    const uint8_t *v = h->pyver;
    if (h->jsonl && !v[0]) /* no binary log: no Python version */
        return tfmt__buf_puts(b, "JSONL export");
    int rc = tfmt__buf_printf(b, "Python %u.%u.%u log", v[0], v[1], v[2]);
    return h->jsonl ? rc | tfmt__buf_puts(b, " and JSONL exports") : rc;
}

void tfmt__heat_page_name(char out[32], uint32_t n)
{
    snprintf(out, 32, "file_%04u.html", n);
}

int tfmt__heat_fail(tfmt_heatmap *h, int rc, tfmt_sink *sink)
{
    if (rc == TFMT_ENOMEM)
        return tfmt__error(&h->err, TFMT_ENOMEM, "out of memory");
    if (sink)
        return tfmt__error_take(&h->err, tfmt_sink_error(sink), rc);
    return tfmt__error(&h->err, rc, "heatmap export failed");
}

/* ---- text ---- */

/* A control character shown as its Unicode picture (U+2400 + c). */
static int put_control(tfmt_buf *b, unsigned c)
{
    unsigned cp = c == 0x7f ? 0x2421 : 0x2400 + c;
    char u[3] = {(char)(0xe0 | (cp >> 12)), (char)(0x80 | ((cp >> 6) & 0x3f)),
                 (char)(0x80 | (cp & 0x3f))};
    return tfmt__buf_put(b, u, 3);
}

/* In code, a control character is shown in caret notation ("^L"). */
static int put_caret(tfmt_buf *b, unsigned c)
{
    return tfmt__buf_printf(b,
                            "<span class=\"cc\" title=\"U+%04X\">^%c"
                            "</span>",
                            c, c == 0x7f ? '?' : (char)(c + 0x40));
}

static int put_ascii(tfmt_buf *b, char ch, bool code)
{
    switch (ch) {
    case '&': return tfmt__buf_puts(b, "&amp;");
    case '<': return tfmt__buf_puts(b, "&lt;");
    case '>': return tfmt__buf_puts(b, "&gt;");
    case '"': return tfmt__buf_puts(b, "&quot;");
    case '\t': return tfmt__buf_putc(b, '\t');
    default:
        if (((unsigned char)ch < 0x20 || ch == 0x7f) && code)
            return put_caret(b, (unsigned char)ch);
        if ((unsigned char)ch < 0x20 || ch == 0x7f)
            return put_control(b, (unsigned char)ch);
        return tfmt__buf_putc(b, ch);
    }
}

static int put_text(tfmt_buf *b, const char *s, size_t n, bool code)
{
    const uint8_t *u = (const uint8_t *)s;
    int rc = TFMT_OK;
    for (size_t i = 0; i < n && rc == TFMT_OK;) {
        if (u[i] < 0x80) {
            rc = put_ascii(b, s[i++], code);
            continue;
        }
        size_t bad = 0, k = tfmt__utf8_seq(u + i, n - i, &bad);
        if (k) {
            rc = tfmt__buf_put(b, s + i, k);
            i += k;
        } else {
            rc = tfmt__buf_put(b, "\xef\xbf\xbd", 3);
            i += bad ? bad : 1;
        }
    }
    return rc;
}

int tfmt__heat_text(tfmt_buf *b, const char *s, size_t n)
{
    return put_text(b, s, n, false);
}

int tfmt__heat_code_text(tfmt_buf *b, const char *s, size_t n)
{
    return put_text(b, s, n, true);
}

int tfmt__heat_count(tfmt_buf *b, uint64_t n)
{
    char d[32];
    int len = snprintf(d, sizeof d, "%llu", (unsigned long long)n);
    int rc = TFMT_OK;
    for (int i = 0; i < len && rc == TFMT_OK; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            rc = tfmt__buf_putc(b, ',');
        if (rc == TFMT_OK)
            rc = tfmt__buf_putc(b, d[i]);
    }
    return rc;
}

int tfmt__heat_level(uint64_t n, uint64_t max)
{
    if (n == 0 || max == 0)
        return 0;
    return tfmt__heat_level_of(log((double)n + 1) / log((double)max + 1));
}

int tfmt__heat_level_of(double x)
{
    /* CPython's page carries the intensity with 3 decimals ("%.3f",
     * correctly rounded) and its script reads the level from that. */
    char d[32];
    snprintf(d, sizeof d, "%.3f", x);
    x = strtod(d, NULL);
    if (x <= 0)
        return 0;
    for (int level = 1; level < 8; level++)
        if (x <= level * 0.125)
            return level;
    return 8;
}

/* ---- the stylesheet ---- */

static const char css_base[] =
    ":root{--blue:#3776ab;--blue2:#4584bb;--gold:#ffd43b;--bg:#fff;"
    "--bg2:#f8f9fa;--bg3:#e9ecef;--bd:#e9ecef;--fg:#2e3338;--fg2:#5a6c7d;"
    "--mut:#6f767e;--acc:#3776ab;--up:#2563eb;--dn:#dc2626;"
    "--hot:255,99,71;--cold:128,128,128;--ul:150,30,0;"
    "--heat-1:#7ba3d1;--heat-2:#a8d0ef;--heat-3:#d6e9f8;--heat-4:#ffe6a8;"
    "--heat-5:#ffd43b;--heat-6:#ffb84d;--heat-7:#ff9966;--heat-8:#ff6347;"
    "--mono:'SF Mono',Monaco,Consolas,'Liberation Mono',monospace;"
    "--sans:'Source Sans Pro','Lucida Grande','Lucida Sans Unicode',"
    "Geneva,Verdana,sans-serif}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--bg2:#161b22;"
    "--bg3:#21262d;--bd:#30363d;--fg:#e6edf3;--fg2:#8b949e;--mut:#757e8a;"
    "--acc:#58a6ff;--up:#58a6ff;--dn:#f87171;--ul:255,170,120;"
    "--heat-1:#4a7ba7;--heat-2:#5a9fa8;--heat-3:#6ab5b5;--heat-4:#7ec488;"
    "--heat-5:#a0d878;--heat-6:#c4de6a;--heat-7:#f4d44d;--heat-8:#ff6b35}}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;font:14px/1.6 var(--sans);color:var(--fg);"
    "background:var(--bg)}\n"
    "a{color:var(--acc)}\n"
    ".top{position:sticky;top:0;z-index:9;display:flex;align-items:center;"
    "gap:12px;height:52px;padding:0 16px;color:#fff;background:"
    "linear-gradient(135deg,var(--blue),var(--blue2));"
    "border-bottom:2px solid var(--gold)}\n"
    ".top .brand{font-weight:700;font-size:16px;color:#fff;"
    "text-decoration:none}\n"
    ".top .sep{width:1px;height:16px;background:rgba(255,255,255,.3)}\n"
    ".top .sub{font:13px var(--mono);overflow:hidden;"
    "text-overflow:ellipsis;white-space:nowrap}\n"
    ".top .back{margin-left:auto;color:#fff;text-decoration:none;"
    "padding:4px 12px;border:1px solid rgba(255,255,255,.3);"
    "border-radius:6px;background:rgba(255,255,255,.12);font-size:13px;"
    "white-space:nowrap}\n"
    "footer{padding:6px 16px;font:11px var(--mono);color:var(--fg2);"
    "background:var(--bg2);border-top:1px solid var(--bd)}\n"
    ".s1,.h1{background:var(--heat-1)}.s2,.h2{background:var(--heat-2)}"
    ".s3,.h3{background:var(--heat-3)}.s4,.h4{background:var(--heat-4)}"
    ".s5,.h5{background:var(--heat-5)}.s6,.h6{background:var(--heat-6)}"
    ".s7,.h7{background:var(--heat-7)}.s8,.h8{background:var(--heat-8)}\n";

static const char css_index[] =
    "main{padding:20px 3%}\n"
    ".cards{display:grid;grid-template-columns:repeat(3,1fr);gap:12px;"
    "margin-bottom:12px}\n"
    ".card{border:2px solid var(--bd);border-radius:10px;padding:10px 16px}\n"
    ".card b{display:block;font:800 1.35em var(--mono);color:var(--acc)}\n"
    ".card span{font-size:10px;font-weight:600;text-transform:uppercase;"
    "letter-spacing:.3px;color:var(--mut)}\n"
    ".card .bar{display:block;height:8px;background:var(--bg3);"
    "border-radius:4px;overflow:hidden;margin-top:4px}\n"
    ".card .bar i{display:block;height:100%}.good i{background:#28a745}"
    ".warn i{background:#ff9800}.bad i{background:#dc3545}\n"
    ".meta{color:var(--fg2);font-size:13px;margin:4px 0 0}\n"
    "h2{font-size:18px;margin:18px 0 12px;padding-bottom:8px;"
    "border-bottom:2px solid var(--gold)}\n"
    "details.sec{border:1px solid var(--bd);border-radius:8px;"
    "margin-bottom:12px;overflow:hidden}\n"
    "details.sec>summary{padding:10px 16px;color:#fff;font-weight:600;"
    "cursor:pointer;background:linear-gradient(135deg,var(--blue),"
    "var(--blue2))}\n"
    ".ct{font:12px var(--mono);opacity:.85;margin-left:10px}\n"
    ".body{padding:6px 12px}\n"
    "details.dir>summary{padding:5px 12px;margin:4px 0;"
    "background:var(--bg2);border:1px solid var(--bd);border-radius:6px;"
    "cursor:pointer;font-size:13px;font-weight:500}\n"
    "details.dir>.body{padding:0 0 0 20px}\n"
    ".fi{display:flex;align-items:center;gap:12px;padding:5px 12px;"
    "margin:3px 0;border:1px solid var(--bd);border-radius:6px}\n"
    ".fi a{flex:1;min-width:0;font-weight:500;text-decoration:none;"
    "overflow:hidden;text-overflow:ellipsis;white-space:nowrap}\n"
    ".fi .n{width:230px;text-align:right;font:600 12px var(--mono);"
    "color:var(--fg2);white-space:nowrap}\n"
    ".fi .bar{width:104px}.fi .bar i{display:block;height:14px;"
    "border-radius:2px}\n"
    ".miss{font-size:11px;color:#b35400;border:1px solid #e0a800;"
    "border-radius:4px;padding:0 6px;white-space:nowrap}\n";

static const char css_file[] =
    ".sw{display:none}\n"
    ".stats{display:grid;grid-template-columns:repeat(auto-fit,"
    "minmax(120px,1fr));gap:12px;padding:12px 24px;background:var(--bg2);"
    "border-bottom:1px solid var(--bd)}\n"
    ".st{background:var(--bg);border:1px solid var(--bd);border-radius:8px;"
    "padding:8px;text-align:center}\n"
    ".st b{display:block;font:700 1.3em var(--mono);color:var(--acc)}\n"
    ".st span{font-size:10px;text-transform:uppercase;letter-spacing:.3px;"
    "color:var(--mut)}\n"
    ".legend{display:flex;flex-wrap:wrap;align-items:center;gap:18px;"
    "padding:8px 24px;background:var(--bg2);border-bottom:1px solid "
    "var(--bd);font-size:13px}\n"
    ".grad{width:150px;height:18px;border-radius:4px;border:1px solid "
    "var(--bd);background:linear-gradient(90deg,var(--bg3),var(--heat-2) "
    "25%,var(--heat-4) 50%,var(--heat-6) 75%,var(--heat-8))}\n"
    ".tg{display:inline-flex;align-items:center;gap:6px;cursor:pointer;"
    "user-select:none;font-size:12px;color:var(--mut)}\n"
    ".tg i{position:relative;width:34px;height:18px;border-radius:10px;"
    "background:var(--bg3);border:2px solid var(--bd)}\n"
    ".tg i::after{content:'';position:absolute;top:1px;left:1px;width:12px;"
    "height:12px;border-radius:50%;background:var(--fg2);"
    "transition:left .15s}\n"
    ".tg .a{color:var(--fg);font-weight:600}\n"
    ".note{margin:10px 24px;padding:8px 14px;border-left:4px solid #e0a800;"
    "background:rgba(255,193,7,.12);font-size:13px}\n"
    ".code{font:13px/1.5 var(--mono);padding-bottom:32px}\n"
    ".hd,.l{display:grid;grid-template-columns:4.5em 4.5em 5.5em 1.8em "
    "minmax(0,1fr) auto;align-items:start}\n"
    ".hd{position:sticky;top:54px;z-index:5;background:var(--bg3);"
    "font:600 11px/2 var(--sans);text-transform:uppercase;"
    "color:var(--fg2);border-bottom:1px solid var(--bd)}\n"
    ".hd span,.l>*{padding:0 8px}\n"
    ".l{scroll-margin-top:90px}.l:target{outline:2px solid var(--gold);"
    "outline-offset:-2px}\n"
    ".n,.sf,.tt{text-align:right;color:var(--mut);text-decoration:none;"
    "border-right:1px solid var(--bd)}\n"
    ".sf,.tt{font-weight:600;color:var(--fg2)}\n"
    ".c{white-space:pre;tab-size:8;overflow-x:auto}\n"
    ".gap{padding:1px 16px;font:italic 12px var(--sans);color:var(--mut);"
    "background:var(--bg2)}\n"
    ".bt{cursor:pointer;color:var(--acc);text-align:center;padding:0}\n"
    "label.bt::before{content:'\\25b6';font-size:10px}\n"
    ".l:has(+.bx:checked) label.bt::before{content:'\\25bc'}\n"
    ".bx{display:none}\n"
    ".bc{display:none;margin:2px 8px 6px 14.5em;padding:6px 12px;"
    "border:1px solid var(--bd);border-radius:6px;background:var(--bg2);"
    "font:12px/1.5 var(--mono)}\n"
    ".bx:checked+.bc,.l:target+.bx+.bc{display:block}\n"
    ".bc table{border-collapse:collapse}.bc th,.bc td{padding:0 14px 0 0;"
    "text-align:left;white-space:nowrap}.bc th{font:600 11px var(--sans);"
    "color:var(--fg2)}.bc td.k{text-align:right}\n"
    ".bc small{color:var(--mut)}.spz{font:9px var(--sans);padding:0 4px;"
    "border-radius:3px;margin-left:6px;background:rgba(40,167,69,.15);"
    "color:#28a745}\n"
    ".spc{font-family:var(--sans);font-weight:600}.spc.hi{color:#1a7f37}"
    ".spc.md{color:#b08800}.spc.lo{color:var(--mut)}\n"
    ".hb{display:inline-block;width:110px;height:8px;background:var(--bg3);"
    "border-radius:4px;overflow:hidden;vertical-align:middle}"
    ".hb i{display:block;height:100%;background:var(--heat-7)}\n"
    ".x{border-bottom:2px solid transparent}"
    ".x.k0{border-bottom:1px dotted rgba(var(--cold),.8)}"
    ".x.k1,.x.k2{border-bottom-color:rgba(var(--ul),.5)}"
    ".x.k3,.x.k4{border-bottom-color:rgba(var(--ul),.95)}\n"
    ".cc{color:var(--mut);font-size:85%}\n"
    ".nv{display:flex;gap:3px;padding-right:8px;align-self:center}\n"
    ".nv a,.nv summary{display:inline-block;width:20px;text-align:center;"
    "border-radius:4px;font-size:10px;line-height:18px;color:#fff;"
    "text-decoration:none;cursor:pointer;list-style:none}\n"
    ".nv summary::-webkit-details-marker{display:none}\n"
    ".up{background:var(--up)}.dn{background:var(--dn)}\n"
    ".mn{position:relative}.menu{position:absolute;right:0;top:20px;"
    "z-index:20;min-width:280px;max-height:300px;overflow:auto;"
    "background:var(--bg);border:1px solid var(--bd);border-radius:6px;"
    "box-shadow:0 6px 18px rgba(0,0,0,.2);font:12px/1.4 var(--sans)}\n"
    ".menu a{display:block;width:auto;color:var(--fg);text-align:left;"
    "padding:4px 10px;font-size:12px;line-height:1.4;"
    "border-bottom:1px solid var(--bd);border-radius:0}\n"
    ".menu i{float:right;font-style:normal;color:var(--fg2);"
    "margin-left:12px}.menu small{display:block;color:var(--mut)}\n";

/* The switches: checkbox `id` on shows its label's second word. */
static int css_switch(tfmt_buf *b, const char *id)
{
    return tfmt__buf_printf(
        b,
        "#%s:checked~.legend [for=%s] i{background:var(--acc);"
        "border-color:var(--acc)}#%s:checked~.legend [for=%s] i::after"
        "{left:17px;background:#fff}#%s:checked~.legend [for=%s] .a"
        "{color:var(--mut);font-weight:400}#%s:checked~.legend [for=%s] .b"
        "{color:var(--fg);font-weight:600}\n",
        id, id, id, id, id, id, id, id);
}

/* What the switches do to the code. */
static int css_modes(tfmt_buf *b)
{
    int rc = tfmt__buf_puts(b, "#m-total:checked~.code .l{background:none}");
    for (int l = 1; l <= 8 && rc == TFMT_OK; l++)
        rc = tfmt__buf_printf(b,
                              "#m-total:checked~.code .t%d"
                              "{background:var(--heat-%d)}",
                              l, l);
    static const char rest[] =
        "\n#m-spec:checked~.code .l{background:var(--sp,transparent)}\n"
        "#m-spec:checked~.code .x.k0{background:rgba(var(--cold),.1)}"
        "#m-spec:checked~.code .x.k1{background:rgba(var(--hot),.3)}"
        "#m-spec:checked~.code .x.k2{background:rgba(var(--hot),.4)}"
        "#m-spec:checked~.code .x.k3{background:rgba(var(--hot),.5)}"
        "#m-spec:checked~.code .x.k4{background:rgba(var(--hot),.6)}\n"
        "#m-total:not(:checked)~#m-hot:checked~.code .ns,"
        "#m-total:checked~#m-hot:checked~.code .nt,"
        "#m-hot:checked~.code .gap{display:none}\n"
        "#m-bc:checked~.code .bc{display:block}\n";
    return rc == TFMT_OK ? tfmt__buf_puts(b, rest) : rc;
}

int tfmt__heat_head(tfmt_buf *b, const char *title, size_t title_len,
                    bool file_page)
{
    int rc =
        tfmt__buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                          "<meta charset=\"utf-8\">\n<meta name=\"viewport\""
                          " content=\"width=device-width, "
                          "initial-scale=1\">\n<title>");
    rc |= tfmt__heat_text(b, title, title_len);
    rc |= tfmt__buf_puts(b, "</title>\n<style>\n");
    rc |= tfmt__buf_puts(b, css_base);
    rc |= tfmt__buf_puts(b, file_page ? css_file : css_index);
    static const char *const ids[] = {"m-total", "m-hot", "m-spec", "m-bc"};
    for (size_t i = 0; file_page && i < 4; i++)
        rc |= css_switch(b, ids[i]);
    if (file_page)
        rc |= css_modes(b);
    rc |= tfmt__buf_puts(b, "</style>\n</head>\n");
    return rc ? TFMT_ENOMEM : TFMT_OK;
}
