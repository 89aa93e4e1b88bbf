/* SPDX-License-Identifier: MIT */
/*
 * heat_line.c - the parts of one source line's row that come from its
 * instructions and call edges, as CPython 3.15's heatmap shows them:
 *
 *  - column spans: every (column, end column) range of an instruction on
 *    this line (multi-line ranges are not drawn), each byte of the code
 *    belonging to the shortest range covering it (equal lengths: the
 *    leftmost); a span's count is its range's own samples (CPython adds
 *    an instruction's whole count to each of its ranges);
 *  - the bytecode panel: each opcode with its samples (all its ranges),
 *    hottest first, named in the log's Python version, a specialised
 *    variant with the instruction it specialises;
 *  - navigation: callers of the line's function (grouped by calling
 *    function, linked to its hottest calling line) and the functions the
 *    line calls (linked to their first sampled line), hottest first.
 */
#include <stdlib.h>

#include "heat_internal.h"
#include "json_escape.h"

const char *tfmt__heat_opname(const tfmt_heatmap *h, uint8_t op, char tmp[8],
                              const char **base)
{
    const char *name = tfmt_opcode_name(h->pyver[0], h->pyver[1], op);
    *base = NULL;
    if (!name) {
        snprintf(tmp, 8, "<%u>", op);
        return tmp;
    }
    unsigned b = tfmt_opcode_base(h->pyver[0], h->pyver[1], op);
    if (b != op && b != TFMT_NO_OPCODE)
        *base = tfmt_opcode_name(h->pyver[0], h->pyver[1], b);
    return name;
}

void tfmt__heat_spec(const tfmt_heatmap *h, const hline *l, uint64_t *all,
                     uint64_t *spec)
{
    *all = *spec = 0;
    for (uint32_t i = l->instr; i < l->instr + l->ninstr; i++) {
        const char *base;
        char tmp[8];
        tfmt__heat_opname(h, h->instrs[i].opcode, tmp, &base);
        *all += h->instrs[i].count;
        if (base)
            *spec += h->instrs[i].count;
    }
}

/* Hottest first, then by `key`: the order of a line's opcodes and links. */
static int count_desc(uint64_t xcount, uint32_t xkey, uint64_t ycount,
                      uint32_t ykey)
{
    if (xcount != ycount)
        return xcount > ycount ? -1 : 1;
    return xkey < ykey ? -1 : xkey > ykey;
}

/* ---- opcodes of a line, hottest first ---- */

typedef struct hop {
    uint64_t count;
    uint32_t first, n; /* its instrs (one per range) */
    uint8_t op;
} hop;

static int hop_cmp(const void *va, const void *vb)
{
    const hop *x = va, *y = vb;
    return count_desc(x->count, x->op, y->count, y->op);
}

/* The line's opcodes into `out` (instrs are sorted by opcode first). */
static uint32_t line_ops(const tfmt_heatmap *h, const hline *l, hop *out)
{
    uint32_t n = 0;
    for (uint32_t i = l->instr; i < l->instr + l->ninstr; i++) {
        const hinstr *in = &h->instrs[i];
        if (n == 0 || out[n - 1].op != in->opcode)
            out[n++] = (hop){0, i, 0, in->opcode};
        out[n - 1].count += in->count;
        out[n - 1].n++;
    }
    qsort(out, n, sizeof *out, hop_cmp);
    return n;
}

/* ---- column spans ---- */

typedef struct hrange {
    int32_t col, end;
    uint64_t count;
    uint32_t order; /* first opcode (hottest first) showing it */
} hrange;

static int range_cmp(const void *va, const void *vb)
{
    const hrange *x = va, *y = vb;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Shortest first, then leftmost: the order ranges claim bytes in. */
static int claim_cmp(const void *va, const void *vb)
{
    const hrange *x = va, *y = vb;
    int32_t a = x->end - x->col, b = y->end - y->col;
    if (a != b)
        return a < b ? -1 : 1;
    return x->col < y->col ? -1 : x->col > y->col;
}

/* The distinct same-line ranges of `l`, counted; returns how many. */
static uint32_t line_ranges(const tfmt_heatmap *h, const hline *l, hrange *r)
{
    uint32_t n = 0;
    for (uint32_t i = l->instr; i < l->instr + l->ninstr; i++) {
        const hinstr *in = &h->instrs[i];
        if (in->col < 0 || in->end_col < 0 ||
            in->end_line != h->lines[in->line].line)
            continue;
        r[n++] = (hrange){in->col, in->end_col, in->count, 0};
    }
    qsort(r, n, sizeof *r, range_cmp);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (m && r[m - 1].col == r[i].col && r[m - 1].end == r[i].end)
            r[m - 1].count += r[i].count;
        else
            r[m++] = r[i];
    }
    return m;
}

static uint32_t find_free(uint32_t *next, uint32_t i)
{
    uint32_t root = i;
    while (next[root] != root)
        root = next[root];
    while (next[i] != root) {
        uint32_t up = next[i];
        next[i] = root;
        i = up;
    }
    return root;
}

/*
 * paint[i] = the range claiming byte i (UINT32_MAX: none). Each byte is
 * claimed once, skipping claimed ones through `next` (union-find), so a
 * line costs its length plus its ranges, however many overlap.
 */
static int paint_line(tfmt_heatmap *h, hrange *r, uint32_t nr, size_t n)
{
    if (n + 1 > h->paint_cap) {
        size_t cap = n + 1;
        uint32_t *p = tfmt__realloc(h->alloc, h->paint, cap * sizeof *p);
        if (!p)
            return TFMT_ENOMEM;
        h->paint = p;
        p = tfmt__realloc(h->alloc, h->next, cap * sizeof *p);
        if (!p)
            return TFMT_ENOMEM;
        h->next = p;
        h->paint_cap = cap;
    }
    for (size_t i = 0; i <= n; i++) {
        h->paint[i] = UINT32_MAX;
        h->next[i] = (uint32_t)i;
    }
    qsort(r, nr, sizeof *r, claim_cmp);
    for (uint32_t k = 0; k < nr; k++) {
        size_t end = (size_t)r[k].end < n ? (size_t)r[k].end : n;
        size_t col = (size_t)r[k].col < n ? (size_t)r[k].col : n;
        for (size_t i = find_free(h->next, (uint32_t)col); i < end;
             i = find_free(h->next, (uint32_t)i)) {
            h->paint[i] = k;
            h->next[i] = (uint32_t)i + 1;
        }
    }
    return TFMT_OK;
}

/* The opcodes drawing range r, CPython's way: three, then "+N more". */
static int span_title(const tfmt_heatmap *h, tfmt_buf *b, const hrange *r,
                      const hop *ops, uint32_t nops, uint64_t line_total)
{
    uint32_t shown = 0, more = 0;
    int rc = TFMT_OK;
    for (uint32_t o = 0; o < nops && rc == TFMT_OK; o++) {
        bool has = false;
        for (uint32_t i = ops[o].first; i < ops[o].first + ops[o].n; i++) {
            const hinstr *in = &h->instrs[i];
            has |= in->col == r->col && in->end_col == r->end &&
                   in->end_line == h->lines[in->line].line;
        }
        if (!has)
            continue;
        if (shown == 3) {
            more++;
            continue;
        }
        const char *base;
        char tmp[8];
        const char *name = tfmt__heat_opname(h, ops[o].op, tmp, &base);
        rc = tfmt__buf_printf(b, "%s%s%s%s%s", shown ? ", " : "", name,
                              base ? " (" : "", base ? base : "",
                              base ? ")" : "");
        shown++;
    }
    if (rc == TFMT_OK && more)
        rc = tfmt__buf_printf(b, " +%u more", more);
    unsigned pct = line_total ? (unsigned)(100 * r->count / line_total) : 0;
    if (rc == TFMT_OK)
        rc = tfmt__buf_printf(b, ": %llu samples, %u%% of the line",
                              (unsigned long long)r->count, pct);
    return rc;
}

static int span_open(tfmt_heatmap *h, tfmt_buf *b, const hrange *r,
                     uint64_t max, uint64_t total, const hop *ops,
                     uint32_t nops)
{
    double x = max ? (double)r->count / (double)max : 0;
    int k = x > 0.825 ? 4 : x > 0.65 ? 3 : x > 0.475 ? 2 : x > 0.3 ? 1 : 0;
    int rc = tfmt__buf_printf(b,
                              "<span class=\"x k%d\" data-c=\"%d-%d\" "
                              "data-n=\"%llu\" title=\"",
                              k, r->col, r->end, (unsigned long long)r->count);
    if (rc == TFMT_OK) {
        tfmt_buf t;
        tfmt__buf_init(&t, h->alloc);
        rc = span_title(h, &t, r, ops, nops, total);
        if (rc == TFMT_OK)
            rc = tfmt__heat_text(b, t.data, t.len);
        tfmt__buf_free(&t);
    }
    return rc == TFMT_OK ? tfmt__buf_puts(b, "\">") : rc;
}

/* Write [s, s+n) a character at a time, opening a span where the range
 * claiming the character's first byte changes. */
static int put_spans(tfmt_heatmap *h, tfmt_buf *b, const char *s, size_t n,
                     const hrange *r, uint32_t nr, const hop *ops,
                     uint32_t nops)
{
    uint64_t max = 0, total = 0;
    for (uint32_t k = 0; k < nr; k++) {
        total += r[k].count;
        max = r[k].count > max ? r[k].count : max;
    }
    uint32_t cur = UINT32_MAX;
    int rc = TFMT_OK;
    for (size_t i = 0; i < n && rc == TFMT_OK;) {
        size_t bad = 0, k = s[i] & 0x80 ? tfmt__utf8_seq((const uint8_t *)s + i,
                                                         n - i, &bad)
                                        : 1;
        if (k == 0)
            k = bad ? bad : 1;
        uint32_t here = h->paint[i];
        if (here != cur) {
            if (cur != UINT32_MAX)
                rc = tfmt__buf_puts(b, "</span>");
            if (rc == TFMT_OK && here != UINT32_MAX)
                rc = span_open(h, b, &r[here], max, total, ops, nops);
            cur = here;
        }
        if (rc == TFMT_OK)
            rc = tfmt__heat_code_text(b, s + i, k);
        i += k;
    }
    if (rc == TFMT_OK && cur != UINT32_MAX)
        rc = tfmt__buf_puts(b, "</span>");
    return rc;
}

int tfmt__heat_code(tfmt_heatmap *h, tfmt_buf *b, const hline *l, const char *s,
                    size_t n)
{
    if (!l || l->ninstr == 0 || l->total == 0)
        return tfmt__heat_code_text(b, s, n);
    hrange *r = (hrange *)(void *)h->tmp_b;
    hop *ops = (hop *)(void *)h->tmp_a;
    uint32_t nr = line_ranges(h, l, r);
    if (nr == 0)
        return tfmt__heat_code_text(b, s, n);
    uint32_t nops = line_ops(h, l, ops);
    int rc = paint_line(h, r, nr, n);
    return rc == TFMT_OK ? put_spans(h, b, s, n, r, nr, ops, nops) : rc;
}

/* ---- the bytecode panel ---- */

static int put_columns(const tfmt_heatmap *h, tfmt_buf *b, const hop *op)
{
    int rc = TFMT_OK;
    uint32_t shown = 0;
    for (uint32_t i = op->first; i < op->first + op->n && rc == TFMT_OK; i++) {
        const hinstr *in = &h->instrs[i];
        if (in->col < 0)
            continue;
        int32_t line = h->lines[in->line].line;
        if (in->end_line == line)
            rc = tfmt__buf_printf(b, "%s%d-%d", shown ? ", " : "", in->col,
                                  in->end_col);
        else
            rc = tfmt__buf_printf(b, "%s%d-%d:%d", shown ? ", " : "", in->col,
                                  in->end_line, in->end_col);
        shown++;
    }
    return rc;
}

static int put_op_row(tfmt_heatmap *h, tfmt_buf *b, const hop *op, uint64_t max)
{
    const char *base;
    char tmp[8];
    const char *name = tfmt__heat_opname(h, op->op, tmp, &base);
    int rc = tfmt__buf_printf(b, "<tr data-op=\"%u\"><td>", op->op);
    rc |= tfmt__heat_text(b, name, strlen(name));
    if (base)
        rc |= tfmt__buf_printf(b,
                               " <small>(%s)</small><span class=\"spz\">"
                               "SPECIALIZED</span>",
                               base);
    rc |= tfmt__buf_printf(b,
                           "</td><td class=\"k\">%llu</td><td><span "
                           "class=\"hb\"><i style=\"width:%.1f%%\"></i>"
                           "</span></td><td>",
                           (unsigned long long)op->count,
                           max ? 100.0 * (double)op->count / (double)max : 0);
    rc |= put_columns(h, b, op);
    rc |= tfmt__buf_puts(b, "</td></tr>\n");
    return rc ? TFMT_ENOMEM : TFMT_OK;
}

static int put_spec_summary(tfmt_heatmap *h, tfmt_buf *b, const hop *ops,
                            uint32_t n)
{
    uint64_t all = 0, spec = 0;
    uint32_t nspec = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *base;
        char tmp[8];
        tfmt__heat_opname(h, ops[i].op, tmp, &base);
        all += ops[i].count;
        if (base) {
            spec += ops[i].count;
            nspec++;
        }
    }
    unsigned pct = all ? (unsigned)((200 * spec + all) / (2 * all)) : 0;
    const char *cls = pct >= 67 ? "hi" : pct >= 33 ? "md" : "lo";
    return tfmt__buf_printf(b,
                            "<div class=\"spc %s\">%u%% specialized "
                            "<small>(%u/%u instructions, %llu/%llu samples)"
                            "</small></div>\n",
                            cls, pct, nspec, n, (unsigned long long)spec,
                            (unsigned long long)all);
}

int tfmt__heat_panel(tfmt_heatmap *h, tfmt_buf *b, const hline *l)
{
    hop *ops = (hop *)(void *)h->tmp_a;
    uint32_t n = line_ops(h, l, ops);
    int rc = tfmt__buf_printf(b,
                              "<input type=\"checkbox\" id=\"b-%d\" "
                              "class=\"bx\"><div class=\"bc\">",
                              l->line);
    if (rc == TFMT_OK)
        rc = put_spec_summary(h, b, ops, n);
    if (rc == TFMT_OK)
        rc = tfmt__buf_puts(b, "<table><tr><th>Instruction</th><th>Samples"
                               "</th><th>Heat</th><th>Columns</th></tr>\n");
    for (uint32_t i = 0; i < n && rc == TFMT_OK; i++)
        rc = put_op_row(h, b, &ops[i], ops[0].count);
    return rc == TFMT_OK ? tfmt__buf_puts(b, "</table></div>\n") : rc;
}

/* ---- callers and callees ---- */

typedef struct hnav {
    uint64_t count;
    uint32_t fn;  /* the linked function */
    int32_t line; /* the line linked to */
} hnav;

static int nav_cmp(const void *va, const void *vb)
{
    const hnav *x = va, *y = vb;
    return count_desc(x->count, x->fn, y->count, y->fn);
}

static bool has_page(const tfmt_heatmap *h, uint32_t fn, int32_t line)
{
    uint32_t f = h->funcs[fn].file;
    return f != TFMT_NO_ID && h->files[f].shown && line > 0;
}

/* Callers of the line's function, one per calling function. */
static uint32_t callers(tfmt_heatmap *h, const hline *l, hnav *out)
{
    if (l->fn == TFMT_NO_ID)
        return 0;
    const hfunc *fn = &h->funcs[l->fn];
    uint32_t n = 0;
    uint64_t best = 0;
    for (uint32_t i = fn->caller; i < fn->caller + fn->ncaller; i++) {
        const hedge *e = &h->edges[h->by_callee[i]];
        if (n == 0 || out[n - 1].fn != e->caller) {
            out[n++] = (hnav){0, e->caller, h->lines[e->line].line};
            best = 0;
        }
        out[n - 1].count += e->count;
        if (e->count > best) {
            best = e->count;
            out[n - 1].line = h->lines[e->line].line;
        }
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (has_page(h, out[i].fn, out[i].line))
            out[m++] = out[i];
    qsort(out, m, sizeof *out, nav_cmp);
    return m;
}

/* The functions this line calls. */
static uint32_t callees(tfmt_heatmap *h, const hline *l, hnav *out)
{
    uint32_t n = 0;
    for (uint32_t i = l->callee; i < l->callee + l->ncallee; i++) {
        const hedge *e = &h->edges[i];
        if (n == 0 || out[n - 1].fn != e->callee)
            out[n++] = (hnav){0, e->callee, h->funcs[e->callee].def_line};
        out[n - 1].count += e->count;
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (has_page(h, out[i].fn, out[i].line))
            out[m++] = out[i];
    qsort(out, m, sizeof *out, nav_cmp);
    return m;
}

static int put_link(tfmt_heatmap *h, tfmt_buf *b, const hnav *v)
{
    char page[32];
    tfmt__heat_page_name(page, h->files[h->funcs[v->fn].file].page);
    return tfmt__buf_printf(b, "href=\"%s#line-%d\"", page, v->line);
}

static int put_item(tfmt_heatmap *h, tfmt_buf *b, const hnav *v)
{
    const hfunc *fn = &h->funcs[v->fn];
    tfmt_str name = tfmt__profile_str(h->p, fn->name);
    tfmt_str file = tfmt__pstr_basename(h->p, h->files[fn->file].name);
    int rc = tfmt__buf_puts(b, "<a ");
    rc |= put_link(h, b, v);
    rc |= tfmt__buf_printf(b, "><i>%llu</i>", (unsigned long long)v->count);
    rc |= tfmt__heat_text(b, name.ptr, name.len);
    rc |= tfmt__buf_puts(b, "<small>");
    rc |= tfmt__heat_text(b, file.ptr, file.len);
    rc |= tfmt__buf_printf(b, ":%d</small></a>", v->line);
    return rc ? TFMT_ENOMEM : TFMT_OK;
}

/* One linked function: a button; several: a menu. */
static int put_button(tfmt_heatmap *h, tfmt_buf *b, const hnav *v, uint32_t n,
                      bool up)
{
    const char *cls = up ? "up" : "dn",
               *arrow = up ? "\xe2\x96\xb2" : "\xe2\x96\xbc";
    const char *what = up ? "caller" : "callee";
    int rc = TFMT_OK;
    if (n == 1) {
        tfmt_str name = tfmt__profile_str(h->p, h->funcs[v->fn].name);
        rc |= tfmt__buf_printf(b, "<a class=\"%s\" ", cls);
        rc |= put_link(h, b, v);
        rc |= tfmt__buf_printf(b, " title=\"Go to %s: ", what);
        rc |= tfmt__heat_text(b, name.ptr, name.len);
        rc |= tfmt__buf_printf(b, " (%llu samples)\">%s</a>",
                               (unsigned long long)v->count, arrow);
        return rc ? TFMT_ENOMEM : TFMT_OK;
    }
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += v[i].count;
    rc |= tfmt__buf_printf(b,
                           "<details class=\"mn\"><summary class=\"%s\" "
                           "title=\"%u %ss (%llu samples)\">%s</summary>"
                           "<div class=\"menu\">",
                           cls, n, what, (unsigned long long)sum, arrow);
    for (uint32_t i = 0; i < n && rc == TFMT_OK; i++)
        rc = put_item(h, b, &v[i]);
    rc |= tfmt__buf_puts(b, "</div></details>");
    return rc ? TFMT_ENOMEM : TFMT_OK;
}

int tfmt__heat_nav(tfmt_heatmap *h, tfmt_buf *b, const hline *l)
{
    hnav *v = (hnav *)(void *)h->tmp_a;
    int rc = tfmt__buf_puts(b, "<div class=\"nv\">");
    uint32_t n = callers(h, l, v);
    if (n && rc == TFMT_OK)
        rc = put_button(h, b, v, n, true);
    n = callees(h, l, v);
    if (n && rc == TFMT_OK)
        rc = put_button(h, b, v, n, false);
    return rc == TFMT_OK ? tfmt__buf_puts(b, "</div>") : rc;
}
