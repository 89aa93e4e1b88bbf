/* SPDX-License-Identifier: MIT */
/*
 * report_ci.c - the machine-readable outputs of tachyon-validate, written
 * to stdout at the end of a run: one JSON document, a JUnit XML report (one
 * test case per file), or GitHub Actions workflow commands (one annotation
 * per finding, shown on the file in the pull request).
 */
#include <stdio.h>
#include <string.h>

#include <tachyon/fmt.h>

#include "cli.h"
#include "report_ci.h"

static const char *const sev_names[] = {"note", "warning", "error"};

/* The characters of a JSON string, without the quotes. */
static void json_chars(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
}

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    json_chars(out, s);
    fputc('"', out);
}

/* A finding's message and its next step, as the text format shows them. */
static void message(FILE *out, const tv_file *f, const tv_diag *d,
                    void (*esc)(FILE *, const char *))
{
    char hint[CLI_HINT_MAX];
    esc(out, d->msg);
    esc(out, tv_diag_hint(f, d, hint, sizeof hint));
}

static void json_diag(FILE *out, const tv_file *f, const tv_diag *d)
{
    fprintf(out, "{\"rule\":\"%s\",\"severity\":\"%s\"", d->rule,
            sev_names[d->severity]);
    if (d->line)
        fprintf(out, ",\"line\":%llu", (unsigned long long)d->line);
    if (d->has_offset)
        fprintf(out, ",\"offset\":%llu", (unsigned long long)d->offset);
    fputs(",\"message\":\"", out);
    message(out, f, d, json_chars);
    fputs("\"}", out);
}

static void json_file(FILE *out, const tv_file *f)
{
    fputs("{\"file\":", out);
    json_str(out, f->name);
    fputs(",\"format\":", out);
    if (f->format)
        json_str(out, f->format);
    else
        fputs("null", out);
    fprintf(out,
            ",\"valid\":%s,\"errors\":%llu,\"warnings\":%llu,"
            "\"notes\":%llu,\"stopped\":%s,\"diagnostics\":[",
            !f->trouble && !f->errors ? "true" : "false",
            (unsigned long long)f->errors, (unsigned long long)f->warnings,
            (unsigned long long)f->notes, f->stopped ? "true" : "false");
    for (size_t i = 0; i < f->count; i++) {
        if (i)
            fputc(',', out);
        json_diag(out, f, &f->diags[i]);
    }
    fputs("]}", out);
}

int tv_write_json(const tv_report *rep, FILE *out)
{
    bool valid = true;
    for (size_t i = 0; i < rep->count; i++)
        valid = valid && !rep->files[i].trouble && !rep->files[i].errors;
    fprintf(out,
            "{\"tool\":\"tachyon-validate\",\"version\":\"%s\","
            "\"valid\":%s,\"files\":[",
            tfmt_version(), valid ? "true" : "false");
    for (size_t i = 0; i < rep->count; i++) {
        if (i)
            fputc(',', out);
        json_file(out, &rep->files[i]);
    }
    fputs("]}\n", out);
    return 0;
}

static void xml_str(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
    }
}

/* "NAME:LINE: RULE: msg" / "NAME: byte N: RULE: msg", as in text mode. */
static void located(FILE *out, const tv_file *f, const tv_diag *d,
                    void (*esc)(FILE *, const char *))
{
    char loc[64] = "";
    if (d->line)
        snprintf(loc, sizeof loc, ":%llu", (unsigned long long)d->line);
    else if (d->has_offset)
        snprintf(loc, sizeof loc, ": byte %llu", (unsigned long long)d->offset);
    esc(out, f->name);
    static const char *const tags[] = {"note: ", "warning: ", ""};
    fprintf(out, "%s: %s%s: ", loc, tags[d->severity], d->rule);
    message(out, f, d, esc);
}

static void junit_case(FILE *out, const tv_file *f)
{
    fputs("    <testcase classname=\"tachyon-validate\" name=\"", out);
    xml_str(out, f->name);
    fputs("\">\n", out);
    if (f->trouble || f->errors) {
        const tv_diag *first = NULL;
        for (size_t i = 0; i < f->count && !first; i++)
            first = f->diags[i].severity == SEV_ERROR ? &f->diags[i] : NULL;
        fprintf(out, "      <%s type=\"%s\" message=\"",
                f->trouble ? "error" : "failure",
                first ? first->rule : "TV000");
        if (first)
            message(out, f, first, xml_str);
        else
            xml_str(out, "invalid");
        fputs("\">", out);
        for (size_t i = 0; i < f->count; i++) {
            located(out, f, &f->diags[i], xml_str);
            fputc('\n', out);
        }
        fprintf(out, "</%s>\n", f->trouble ? "error" : "failure");
    } else if (f->count) {
        fputs("      <system-out>", out);
        for (size_t i = 0; i < f->count; i++) {
            located(out, f, &f->diags[i], xml_str);
            fputc('\n', out);
        }
        fputs("</system-out>\n", out);
    }
    fputs("    </testcase>\n", out);
}

int tv_write_junit(const tv_report *rep, FILE *out)
{
    size_t failures = 0, errors = 0;
    for (size_t i = 0; i < rep->count; i++) {
        if (rep->files[i].trouble)
            errors++;
        else if (rep->files[i].errors)
            failures++;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out,
            "<testsuites name=\"tachyon-validate\" tests=\"%zu\" "
            "failures=\"%zu\" errors=\"%zu\">\n",
            rep->count, failures, errors);
    fprintf(out,
            "  <testsuite name=\"tachyon-validate\" tests=\"%zu\" "
            "failures=\"%zu\" errors=\"%zu\">\n",
            rep->count, failures, errors);
    for (size_t i = 0; i < rep->count; i++)
        junit_case(out, &rep->files[i]);
    fputs("  </testsuite>\n</testsuites>\n", out);
    return 0;
}

/* Workflow-command escaping: data escapes %, CR, LF; properties also , : */
static void gh_escape(FILE *out, const char *s, bool property)
{
    for (; *s; s++) {
        if (*s == '%')
            fputs("%25", out);
        else if (*s == '\r')
            fputs("%0D", out);
        else if (*s == '\n')
            fputs("%0A", out);
        else if (property && *s == ':')
            fputs("%3A", out);
        else if (property && *s == ',')
            fputs("%2C", out);
        else
            fputc(*s, out);
    }
}

/* A workflow command's data part. */
static void gh_data(FILE *out, const char *s)
{
    gh_escape(out, s, false);
}

int tv_write_github(const tv_report *rep, FILE *out)
{
    static const char *const cmds[] = {"notice", "warning", "error"};
    for (size_t i = 0; i < rep->count; i++) {
        const tv_file *f = &rep->files[i];
        for (size_t k = 0; k < f->count; k++) {
            const tv_diag *d = &f->diags[k];
            fprintf(out, "::%s file=", cmds[d->severity]);
            gh_escape(out, f->name, true);
            if (d->line)
                fprintf(out, ",line=%llu", (unsigned long long)d->line);
            fprintf(out, ",title=tachyon-validate %s::", d->rule);
            if (d->has_offset && !d->line)
                fprintf(out, "byte %llu: ", (unsigned long long)d->offset);
            message(out, f, d, gh_data);
            fputc('\n', out);
        }
    }
    return 0;
}
