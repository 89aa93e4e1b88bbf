/* SPDX-License-Identifier: MIT */
/*
 * report.h - diagnostics of tachyon-validate: collected per file, filtered
 * by --strict / --verbose / -q / --max-errors, and written as text (stderr,
 * as they come) or, at the end, as JSON, JUnit XML or GitHub Actions
 * workflow commands (stdout).
 */
#ifndef TV_REPORT_H
#define TV_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "rules.h"

typedef enum { FMT_TEXT, FMT_JSON, FMT_JUNIT, FMT_GITHUB } tv_format;

typedef struct tv_settings {
    tv_format format;
    bool strict;         /* warnings count as errors */
    int verbose;         /* >= 1: notes and per-file verdicts */
    bool quiet;          /* drop warnings (not with --strict) */
    uint64_t max_errors; /* per file; 0 = no limit */
} tv_settings;

typedef struct tv_diag {
    const char *rule;
    tv_severity severity; /* after --strict */
    uint64_t line;        /* 0: none */
    bool has_offset;
    uint64_t offset;
    char msg[320];
} tv_diag;

typedef struct tv_file {
    const char *name;   /* as shown: path or "<stdin>" */
    const char *format; /* "jsonl", "binary" or NULL (not determined) */
    tv_diag *diags;
    size_t count;
    size_t cap;
    uint64_t errors;
    uint64_t warnings;
    uint64_t notes;
    bool trouble; /* I/O or memory trouble: exit status 2 */
    bool stopped; /* --max-errors reached */
} tv_file;

typedef struct tv_report {
    const tv_settings *set;
    tv_file *files;
    size_t count;
    size_t cap;
    bool oom;
} tv_report;

void tv_report_init(tv_report *rep, const tv_settings *set);
void tv_report_free(tv_report *rep);

/* Start the next file; returns it (NULL when out of memory). */
tv_file *tv_report_file(tv_report *rep, const char *name);

/*
 * Record a finding of `rule` on `f` (line 0 / has_offset false when it has
 * no location). Returns false once the file hit --max-errors, so checkers
 * can stop.
 */
bool tv_add(tv_report *rep, tv_file *f, const char *rule, uint64_t line,
            bool has_offset, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* Mark I/O or memory trouble (an error diagnostic of rule TV001). */
void tv_trouble(tv_report *rep, tv_file *f, const char *msg);

/* True while the file may take more errors. */
bool tv_more(const tv_report *rep, const tv_file *f);

/* Print the end-of-run output (text verdicts or the CI document). */
int tv_report_finish(tv_report *rep);

/* Exit status: 2 trouble, 1 an invalid file, else 0. */
int tv_report_status(const tv_report *rep);

#endif
