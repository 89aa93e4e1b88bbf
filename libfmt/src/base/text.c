/* SPDX-License-Identifier: MIT */
/*
 * text.c - names as inert text (tachyon/fmt_text.h): the one place that
 * decides what a name may carry into a terminal, a markdown comment, a
 * CSV cell or an XML document. The input is cut into units (an ASCII
 * byte, a valid UTF-8 sequence, or one maximal invalid subpart, as
 * tfmt__utf8_seq finds them) and each unit is kept or replaced whole, so
 * a truncated result never ends inside an escape or a character.
 */
#include "text.h"

#include "json_escape.h"

static const char hexdig[] = "0123456789abcdef";

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/* Where one unit of input goes: its own bytes, or `rep` instead. */
typedef struct unit {
    const char *src; /* the input bytes */
    size_t len;      /* their count */
    char rep[32];    /* the replacement, when `nrep` is not 0 */
    size_t nrep;
} unit;

static void put_hex_bytes(unit *u, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        u->rep[u->nrep++] = '\\';
        u->rep[u->nrep++] = 'x';
        u->rep[u->nrep++] = hexdig[p[i] >> 4];
        u->rep[u->nrep++] = hexdig[p[i] & 15];
    }
}

static void put_str(unit *u, const char *s)
{
    size_t n = strlen(s);
    memcpy(u->rep + u->nrep, s, n);
    u->nrep += n;
}

static void put_code_point(unit *u, uint32_t cp)
{
    u->nrep = 0;
    put_str(u, "\\u");
    for (int shift = 12; shift >= 0; shift -= 4)
        u->rep[u->nrep++] = hexdig[(cp >> shift) & 15];
}

static uint32_t decode(const uint8_t *p, size_t len)
{
    if (len == 1)
        return p[0];
    uint32_t cp = p[0] & (0x7fu >> len);
    for (size_t i = 1; i < len; i++)
        cp = cp << 6 | (p[i] & 0x3fu);
    return cp;
}

/* Line and paragraph separators, and the controls that reorder text. */
static bool invisible_control(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x061c || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* An ASCII control in PLAIN style (and the others that build on it). */
static void plain_control(unit *u, uint8_t c)
{
    if (c == '\n')
        put_str(u, "\\n");
    else if (c == '\r')
        put_str(u, "\\r");
    else if (c == '\t')
        put_str(u, "\\t");
    else
        put_hex_bytes(u, &c, 1);
}

static void ascii_unit(unit *u, uint8_t c, tfmt_text_style style)
{
    if (style == TFMT_TEXT_XML) {
        /* a line break as a character reference: the same character to
         * a parser, and the output keeps the name on one line */
        const char *ent = c == '&'    ? "&amp;"
                          : c == '<'  ? "&lt;"
                          : c == '>'  ? "&gt;"
                          : c == '"'  ? "&quot;"
                          : c == '\n' ? "&#10;"
                          : c == '\r' ? "&#13;"
                                      : NULL;
        if (ent)
            put_str(u, ent);
        else if (c < 0x20 && c != '\t')
            put_str(u, REPLACEMENT);
        return;
    }
    if (style == TFMT_TEXT_MARKDOWN && (c == '\n' || c == '\r'))
        put_str(u, " ");
    else if (style == TFMT_TEXT_MARKDOWN && c == '|')
        put_str(u, "\\|");
    else if (style == TFMT_TEXT_MARKDOWN && c == '`')
        put_str(u, "'");
    else if (c == '"' && style == TFMT_TEXT_CSV)
        put_str(u, "\"\"");
    else if (c < 0x20 || c == 0x7f)
        plain_control(u, c);
}

/* The unit at s[0] (n > 0 bytes left): its length and replacement. */
static void next_unit(unit *u, const char *s, size_t n, tfmt_text_style style)
{
    const uint8_t *p = (const uint8_t *)s;
    u->src = s;
    u->nrep = 0;
    if (p[0] < 0x80) {
        u->len = 1;
        ascii_unit(u, p[0], style);
        return;
    }
    size_t bad = 0;
    u->len = tfmt__utf8_seq(p, n, &bad);
    if (u->len == 0) {
        u->len = bad ? bad : 1;
        if (style == TFMT_TEXT_XML)
            put_str(u, REPLACEMENT);
        else
            put_hex_bytes(u, p, u->len);
        return;
    }
    uint32_t cp = decode(p, u->len);
    if (style == TFMT_TEXT_XML && (cp == 0xfffe || cp == 0xffff))
        put_str(u, REPLACEMENT);
    else if (style != TFMT_TEXT_XML && invisible_control(cp))
        put_code_point(u, cp);
}

/* A CSV field needs quotes for a comma, a quote or a formula's start. */
static bool csv_quoted(const char *s, size_t n, bool *formula)
{
    *formula =
        n > 0 && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@');
    return *formula || memchr(s, ',', n) || memchr(s, '"', n);
}

/* Appends to a bounded buffer; counts what would not fit. */
typedef struct bounded {
    char *out;
    size_t cap, len;
    bool full; /* a piece did not fit: later ones are only counted */
} bounded;

static void bput(bounded *b, const char *p, size_t n)
{
    if (b->full || b->cap == 0 || n >= b->cap - b->len) {
        b->full = true;
        return;
    }
    memcpy(b->out + b->len, p, n);
    b->len += n;
}

size_t tfmt_text_escape(char *out, size_t cap, const char *s, size_t n,
                        tfmt_text_style style)
{
    bounded b = {out, cap, 0, false};
    size_t total = 0;
    bool formula = false;
    bool quote = style == TFMT_TEXT_CSV && csv_quoted(s, n, &formula);
    const char *open = formula ? "\"'" : "\"";
    if (quote) {
        bput(&b, open, strlen(open));
        total += strlen(open);
    }
    unit u;
    for (size_t i = 0; i < n; i += u.len) {
        next_unit(&u, s + i, n - i, style);
        const char *p = u.nrep ? u.rep : u.src;
        size_t k = u.nrep ? u.nrep : u.len;
        bput(&b, p, k);
        total += k;
    }
    if (quote) {
        bput(&b, "\"", 1);
        total += 1;
    }
    if (out && cap > 0)
        out[b.len] = '\0';
    return total;
}

int tfmt__text_put(tfmt_buf *b, const char *s, size_t n, tfmt_text_style style)
{
    size_t need = tfmt_text_escape(NULL, 0, s, n, style);
    if (tfmt__buf_reserve(b, need + 1) != TFMT_OK)
        return TFMT_ENOMEM;
    tfmt_text_escape(b->data + b->len, need + 1, s, n, style);
    b->len += need;
    return TFMT_OK;
}
