/* SPDX-License-Identifier: MIT */
/*
 * report.h - diagnostics of tachyon-validate: collected per file, filtered
 * by --strict / --verbose / -q / --max-errors, and written as text (to
 * stderr or -o's buffer, as they come) or, at the end, as JSON, JUnit XML
 * or GitHub Actions workflow commands (stdout or -o FILE).
 */
#ifndef TV_REPORT_H
#define TV_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <tachyon/fmt.h>

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
    uint8_t hint;         /* a library error's tfmt_hint (tv_add_error) */
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
    FILE *text; /* the text format's lines, as found: stderr (the
                   default), or the buffer of -o FILE */
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

/*
 * Record a library error of a reader as a finding of `rule`: its location,
 * its message and its hint, which the outputs show after the message
 * (tv_diag_hint), as every tool does. Returns as tv_add.
 */
bool tv_add_error(tv_report *rep, tv_file *f, const char *rule,
                  const tfmt_error *e);

/* The next step of `d` on `f` as " (...)" (cli_hint), or "". */
const char *tv_diag_hint(const tv_file *f, const tv_diag *d, char *buf,
                         size_t cap);

/* Mark I/O or memory trouble (an error diagnostic of rule TV001). */
void tv_trouble(tv_report *rep, tv_file *f, const char *msg);

/* True while the file may take more errors. */
bool tv_more(const tv_report *rep, const tv_file *f);

/*
 * End the run: the text format's -v verdicts (to rep->text), or the CI
 * document written to `doc`.
 */
int tv_report_finish(tv_report *rep, FILE *doc);

/* Exit status: 2 trouble, 1 an invalid file, else 0. */
int tv_report_status(const tv_report *rep);

#endif
