/* SPDX-License-Identifier: MIT */
/*
 * out.c - tachyon-diff's output: a buffer flushed to a tfmt_sink (stdout,
 * or a file written atomically), plus the number and string formatting
 * the writers share. A write error is remembered and reported once, at
 * close.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

#define FLUSH_AT DIFF_OUT_FLUSH

static const char *sink_path(const diff_settings *set)
{
    const char *p = set->opts->output;
    return (p && strcmp(p, "-") != 0) ? p : NULL;
}

int diff_out_open(diff_out *o, const diff_settings *set)
{
    tfmt_error err;
    memset(o, 0, sizeof *o);
    memset(&err, 0, sizeof err);
    unsigned flags = set->opts->force ? TFMT_SINK_FORCE : 0;
    if (cli_sink_open(&o->sink, sink_path(set), flags, &err) < 0) {
        cli_report(cli_output_name(set->opts->output), &err);
        return CLI_EXIT_TROUBLE;
    }
    return CLI_EXIT_OK;
}

static void flush(diff_out *o)
{
    if (!o->failed && o->len && tfmt_sink_write(o->sink, o->buf, o->len) < 0)
        o->failed = true;
    o->len = 0;
}

static bool reserve(diff_out *o, size_t n)
{
    if (o->len + n <= o->cap)
        return true;
    size_t cap = o->cap ? o->cap : 4096;
    while (cap < o->len + n)
        cap *= 2;
    char *b = realloc(o->buf, cap);
    if (!b) {
        o->failed = true;
        return false;
    }
    o->buf = b;
    o->cap = cap;
    return true;
}

void diff_out_write(diff_out *o, const char *s, size_t n)
{
    if (!reserve(o, n))
        return;
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    if (o->len >= FLUSH_AT)
        flush(o);
}

void diff_out_text(diff_out *o, const char *s, size_t n, tfmt_text_style st)
{
    size_t need = tfmt_text_escape(NULL, 0, s, n, st);
    if (!reserve(o, need + 1))
        return;
    tfmt_text_escape(o->buf + o->len, need + 1, s, n, st);
    o->len += need;
    if (o->len >= FLUSH_AT)
        flush(o);
}

void diff_out_printf(diff_out *o, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        diff_out_write(o, small, (size_t)n);
        return;
    }
    if (!reserve(o, (size_t)n + 1))
        return;
    va_start(ap, fmt);
    vsnprintf(o->buf + o->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    o->len += (size_t)n;
}

int diff_out_close(diff_out *o, const diff_settings *set)
{
    flush(o);
    int code = CLI_EXIT_OK;
    if (o->failed || tfmt_sink_finish(o->sink) < 0) {
        const tfmt_error *e = tfmt_sink_error(o->sink);
        if (e && e->code < 0)
            cli_report(cli_output_name(set->opts->output), e);
        else
            cli_file_fail(2, cli_output_name(set->opts->output),
                          "write failed");
        code = CLI_EXIT_TROUBLE;
    }
    cli_sink_free(o->sink);
    free(o->buf);
    memset(o, 0, sizeof *o);
    return code;
}

/* JSON string: escapes quote, backslash and control bytes only. */
void diff_out_json_str(diff_out *o, const char *s, size_t n)
{
    diff_out_lit(o, "\"");
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x20 && ch != '"' && ch != '\\')
            continue;
        diff_out_write(o, s + run, i - run);
        run = i + 1;
        if (ch == '"' || ch == '\\')
            diff_out_printf(o, "\\%c", ch);
        else if (ch == '\n')
            diff_out_write(o, "\\n", 2);
        else if (ch == '\t')
            diff_out_write(o, "\\t", 2);
        else
            diff_out_printf(o, "\\u%04x", ch);
    }
    diff_out_put(o, s + run, n - run);
    diff_out_lit(o, "\"");
}

void diff_out_str(diff_out *o, const char *s)
{
    diff_out_put(o, s, strlen(s));
}

void diff_out_u64(diff_out *o, uint64_t v)
{
    char buf[20];
    char *p = buf + sizeof buf;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    diff_out_put(o, p, (size_t)(buf + sizeof buf - p));
}

void diff_out_i64(diff_out *o, int64_t v)
{
    if (v < 0)
        diff_out_write(o, "-", 1);
    /* 0 - v in unsigned: INT64_MIN has no positive int64_t. */
    diff_out_u64(o, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

void diff_out_delta(diff_out *o, uint64_t base, uint64_t new_)
{
    if (new_ < base)
        diff_out_write(o, "-", 1);
    diff_out_u64(o, new_ < base ? base - new_ : new_ - base);
}

/*
 * Finite `v` with `prec` decimals, or -prec significant digits when
 * prec < 0, as snprintf prints it; fmtnum.c's exact formatter when it
 * takes the value, printf otherwise. Returns the length.
 */
static size_t fmt_finite(char *buf, size_t cap, double v, int prec)
{
    size_t n = 0;
    if (cap >= DIFF_FMT_CAP)
        n = prec >= 0 ? diff_fmt_fixed(buf, v, prec)
                      : diff_fmt_general(buf, v, -prec);
    if (n)
        return n;
    if (prec >= 0)
        snprintf(buf, cap, "%.*f", prec, v);
    else
        snprintf(buf, cap, "%.*g", -prec, v);
    return strlen(buf);
}

/* A negative that prints as zero ("-0.00") loses its sign. */
static size_t unsign_zero(char *buf, size_t n)
{
    if (n == 0 || buf[0] != '-' || strspn(buf + 1, "0.") != n - 1)
        return n;
    memmove(buf, buf + 1, n);
    return n - 1;
}

/*
 * Format `v` with `prec` decimals, or -prec significant digits when
 * prec < 0, into buf; "-0.00" loses its sign. Returns false when v is
 * not finite.
 */
bool diff_fmt_num(char *buf, size_t cap, double v, int prec)
{
    if (!isfinite(v)) {
        snprintf(buf, cap, "null");
        return false;
    }
    unsign_zero(buf, fmt_finite(buf, cap, v, prec));
    return true;
}

/* As diff_fmt_num, with a '+' on values that do not print as zero. */
void diff_fmt_delta(char *buf, size_t cap, double v, int prec)
{
    char tmp[64];
    diff_fmt_num(tmp, sizeof tmp, v, prec);
    bool zero = strspn(tmp, "0.") == strlen(tmp);
    snprintf(buf, cap, "%s%s", v > 0 && !zero ? "+" : "", tmp);
}

/* A JSON number (see diff_fmt_num), or null when it is not finite. */
void diff_out_num(diff_out *o, double v, int prec)
{
    char buf[64];
    if (!isfinite(v)) {
        diff_out_lit(o, "null");
        return;
    }
    size_t n = fmt_finite(buf, sizeof buf, v, prec);
    diff_out_put(o, buf, unsign_zero(buf, n));
}

/* "new" (only in new), "vanished" (only in base) or "both". */
const char *diff_row_status(const diff_row *r)
{
    if (r->bi == DIFF_NONE)
        return "new";
    return r->ni == DIFF_NONE ? "vanished" : "both";
}

size_t diff_shown(const diff_ctx *c, size_t n)
{
    return c->set->top && c->set->top < n ? c->set->top : n;
}
