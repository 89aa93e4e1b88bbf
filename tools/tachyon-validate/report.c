/* SPDX-License-Identifier: MIT */
/*
 * report.c - collects diagnostics per file and applies the settings:
 * --strict raises warnings to errors, notes show only with --verbose,
 * -q drops warnings, --max-errors stops a file. In text format each finding
 * is printed to stderr as it is found; the CI formats are written at the end
 * by report_ci.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "report_ci.h"

void tv_report_init(tv_report *rep, const tv_settings *set)
{
    memset(rep, 0, sizeof *rep);
    rep->set = set;
    rep->text = stderr;
}

void tv_report_free(tv_report *rep)
{
    for (size_t i = 0; i < rep->count; i++)
        free(rep->files[i].diags);
    free(rep->files);
    rep->files = NULL;
    rep->count = 0;
}

tv_file *tv_report_file(tv_report *rep, const char *name)
{
    if (rep->count == rep->cap) {
        size_t cap = rep->cap ? rep->cap * 2 : 8;
        tv_file *p = realloc(rep->files, cap * sizeof *p);
        if (!p) {
            rep->oom = true;
            return NULL;
        }
        rep->files = p;
        rep->cap = cap;
    }
    tv_file *f = &rep->files[rep->count++];
    memset(f, 0, sizeof *f);
    f->name = name;
    return f;
}

bool tv_more(const tv_report *rep, const tv_file *f)
{
    return !f->stopped;
}

/* Control characters would break the one-line format. */
static void sanitize(char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            *s = '?';
    }
}

const char *tv_diag_hint(const tv_file *f, const tv_diag *d, char *buf,
                         size_t cap)
{
    return cli_hint(buf, cap, f->name, d->hint);
}

/* Start a line of the text format: "prog: " (stderr: after the progress
 * line is erased). */
static FILE *text_begin(const tv_report *rep)
{
    if (rep->text == stderr) {
        cli_progress_clear();
        fflush(stdout);
    }
    fprintf(rep->text, "%s: ", cli_program());
    return rep->text;
}

static void print_text(const tv_report *rep, const tv_file *f, const tv_diag *d)
{
    static const char *const tags[] = {"note: ", "warning: ", ""};
    char hint[CLI_HINT_MAX];
    FILE *out = text_begin(rep);
    if (d->line)
        fprintf(out, "%s:%llu: ", f->name, (unsigned long long)d->line);
    else if (d->has_offset)
        fprintf(out, "%s: byte %llu: ", f->name, (unsigned long long)d->offset);
    else
        fprintf(out, "%s: ", f->name);
    fprintf(out, "%s%s: %s%s\n", tags[d->severity], d->rule, d->msg,
            tv_diag_hint(f, d, hint, sizeof hint));
}

/* "prog: NAME: message" in the text format's stream. */
static void text_info(const tv_report *rep, const char *name, const char *fmt,
                      ...) CLI_PRINTF(3, 4);
static void text_info(const tv_report *rep, const char *name, const char *fmt,
                      ...)
{
    FILE *out = text_begin(rep);
    va_list ap;
    fprintf(out, "%s: ", name);
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
}

/* The severity after the settings; -1 when the finding is dropped. */
static int effective(const tv_settings *set, const char *rule)
{
    const tv_rule *r = tv_rule_find(rule);
    int sev = r ? (int)r->severity : SEV_ERROR;
    if (sev == SEV_WARNING && set->strict)
        return SEV_ERROR;
    if (sev == SEV_WARNING && set->quiet)
        return -1;
    if (sev == SEV_NOTE && set->verbose < 1)
        return -1;
    return sev;
}

/* Keep the diagnostic (bounded: at most max_errors of each severity). */
static void keep(tv_report *rep, tv_file *f, const tv_diag *d, uint64_t n)
{
    uint64_t limit = rep->set->max_errors;
    if (limit && n > limit)
        return;
    if (f->count == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 16;
        tv_diag *p = realloc(f->diags, cap * sizeof *p);
        if (!p) {
            rep->oom = true;
            return;
        }
        f->diags = p;
        f->cap = cap;
    }
    f->diags[f->count++] = *d;
    if (rep->set->format == FMT_TEXT)
        print_text(rep, f, d);
}

static void count(tv_file *f, int sev, uint64_t **n)
{
    if (sev == SEV_ERROR)
        *n = &f->errors;
    else if (sev == SEV_WARNING)
        *n = &f->warnings;
    else
        *n = &f->notes;
    (**n)++;
}

/* Keep, count and (text format) print `d`; false once the file stops. */
static bool add(tv_report *rep, tv_file *f, tv_diag *d)
{
    if (f->stopped)
        return false;
    int sev = effective(rep->set, d->rule);
    if (sev < 0)
        return true;
    d->severity = (tv_severity)sev;
    sanitize(d->msg);
    uint64_t *n;
    count(f, sev, &n);
    keep(rep, f, d, *n);
    uint64_t limit = rep->set->max_errors;
    if (sev == SEV_ERROR && limit && f->errors >= limit) {
        f->stopped = true;
        if (rep->set->format == FMT_TEXT)
            text_info(rep, f->name, "too many errors, stopping after %llu",
                      (unsigned long long)limit);
        return false;
    }
    return true;
}

bool tv_add(tv_report *rep, tv_file *f, const char *rule, uint64_t line,
            bool has_offset, uint64_t offset, const char *fmt, ...)
{
    tv_diag d;
    memset(&d, 0, sizeof d);
    d.rule = rule;
    d.line = line;
    d.has_offset = has_offset;
    d.offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d.msg, sizeof d.msg, fmt, ap);
    va_end(ap);
    return add(rep, f, &d);
}

bool tv_add_error(tv_report *rep, tv_file *f, const char *rule,
                  const tfmt_error *e)
{
    tv_diag d;
    memset(&d, 0, sizeof d);
    d.rule = rule;
    d.hint = e->hint;
    d.line = e->line;
    d.has_offset = e->has_offset && !e->line;
    d.offset = e->offset;
    snprintf(d.msg, sizeof d.msg, "%s",
             e->msg[0] ? e->msg : tfmt_strerror(e->code));
    return add(rep, f, &d);
}

void tv_trouble(tv_report *rep, tv_file *f, const char *msg)
{
    f->trouble = true;
    tv_add(rep, f, R_IO, 0, false, 0, "%s", msg);
}

static bool file_ok(const tv_file *f)
{
    return !f->trouble && f->errors == 0;
}

/* -v verdicts for the text format. */
static void text_verdicts(const tv_report *rep)
{
    for (size_t i = 0; i < rep->count; i++) {
        const tv_file *f = &rep->files[i];
        if (file_ok(f))
            text_info(rep, f->name, "valid %s file", f->format);
        else if (!f->trouble)
            text_info(rep, f->name, "invalid: %llu error%s, %llu warning%s",
                      (unsigned long long)f->errors, f->errors == 1 ? "" : "s",
                      (unsigned long long)f->warnings,
                      f->warnings == 1 ? "" : "s");
    }
}

int tv_report_finish(tv_report *rep, FILE *doc)
{
    switch (rep->set->format) {
    case FMT_JSON: return tv_write_json(rep, doc);
    case FMT_JUNIT: return tv_write_junit(rep, doc);
    case FMT_GITHUB: return tv_write_github(rep, doc);
    default:
        if (rep->set->verbose >= 1)
            text_verdicts(rep);
        return 0;
    }
}

int tv_report_status(const tv_report *rep)
{
    int status = CLI_EXIT_OK;
    if (rep->oom)
        return CLI_EXIT_TROUBLE;
    for (size_t i = 0; i < rep->count; i++) {
        const tv_file *f = &rep->files[i];
        if (f->trouble)
            return CLI_EXIT_TROUBLE;
        if (f->errors)
            status = CLI_EXIT_DATA;
    }
    return status;
}
