/* SPDX-License-Identifier: MIT */
/*
 * jsonl_diff.h - one line through the reader's general path
 * (tfmt__jsonl_parse_line: jsonl_syntax.c, jsonl_records.c) and through
 * json-c's (jsonl_ref.c), each on a reader of its own that records its
 * notes; everything a caller can see must agree: status, error (code,
 * check, line, message), the record field by field, the notes in order,
 * and whether the line made the file complete. Header-only, for
 * test_jsonl_general and fuzz_jsonl_general.
 */
#ifndef TFMT_TEST_JSONL_DIFF_H
#define TFMT_TEST_JSONL_DIFF_H

#include <stdio.h>

#include "jsonl_compare.h"
#include "jsonl_ref.h"

typedef struct notes {
    char *text; /* "kind line msg\n" per note */
    size_t len, cap;
} notes;

static inline void on_note_record(void *ctx, tfmt_jsonl_note kind,
                                  const tfmt_error *w)
{
    notes *n = ctx;
    char one[400];
    int k = snprintf(one, sizeof one, "%d %llu %s\n", (int)kind,
                     (unsigned long long)w->line, w->msg);
    if (k < 0)
        return;
    if (n->len + (size_t)k + 1 > n->cap) {
        n->cap = (n->len + (size_t)k + 1) * 2;
        n->text = realloc(n->text, n->cap);
    }
    memcpy(n->text + n->len, one, (size_t)k + 1);
    n->len += (size_t)k;
}

typedef struct jdiff {
    tfmt_source *src;
    tfmt_jsonl_reader *mine, *theirs;
    notes mine_notes, theirs_notes;
    jref ref;
} jdiff;

static inline int jdiff_open(jdiff *d)
{
    memset(d, 0, sizeof *d);
    tfmt_jsonl_options o = TFMT_JSONL_OPTIONS_INIT;
    o.on_note = on_note_record;
    if (tfmt_source_open_memory(&d->src, "", 0, 0, NULL) != TFMT_OK ||
        jref_init(&d->ref) != 0)
        return -1;
    o.note_ctx = &d->mine_notes;
    if (tfmt_jsonl_open(&d->mine, d->src, &o, NULL) != TFMT_OK)
        return -1;
    o.note_ctx = &d->theirs_notes;
    return tfmt_jsonl_open(&d->theirs, d->src, &o, NULL) == TFMT_OK ? 0 : -1;
}

static inline void jdiff_close(jdiff *d)
{
    tfmt_jsonl_free(d->mine);
    tfmt_jsonl_free(d->theirs);
    tfmt_source_free(d->src);
    jref_free(&d->ref);
    free(d->mine_notes.text);
    free(d->theirs_notes.text);
}

static inline bool same_error(const tfmt_error *a, const tfmt_error *b)
{
    return a->code == b->code && a->check == b->check && a->line == b->line &&
           strcmp(a->msg, b->msg) == 0;
}

/*
 * Run line p[0..n) both ways. Returns NULL when they agree, else what
 * differs; *rc gets the general path's status.
 */
static inline const char *jdiff_line(jdiff *d, const char *p, size_t n, int *rc)
{
    d->mine->lines.line++;
    d->theirs->lines.line++;
    d->mine_notes.len = d->theirs_notes.len = 0;
    if (d->mine_notes.text)
        d->mine_notes.text[0] = '\0';
    if (d->theirs_notes.text)
        d->theirs_notes.text[0] = '\0';
    memset(&d->mine->err, 0, sizeof d->mine->err);
    memset(&d->theirs->err, 0, sizeof d->theirs->err);
    d->mine->saw_end = d->theirs->saw_end = false;
    int a = tfmt__jsonl_parse_line(d->mine, p, n);
    int b = jref_parse_line(&d->ref, d->theirs, p, n);
    *rc = a;
    if (a != b)
        return "status";
    if (a < 0 && !same_error(&d->mine->err, &d->theirs->err))
        return "error";
    if (d->mine->saw_end != d->theirs->saw_end)
        return "end seen";
    if (d->mine_notes.len != d->theirs_notes.len ||
        (d->mine_notes.len &&
         memcmp(d->mine_notes.text, d->theirs_notes.text, d->mine_notes.len)))
        return "notes";
    if (a < 0)
        return NULL;
    rcopy c;
    copy_record(&c, &d->mine->rec);
    const char *what = differs(&c, &d->theirs->rec);
    free_copy(&c);
    return what;
}

#endif
