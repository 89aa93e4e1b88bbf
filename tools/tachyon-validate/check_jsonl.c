/* SPDX-License-Identifier: MIT */
/*
 * check_jsonl.c - the JSONL checks of tachyon-validate. The library's
 * reader checks each line on its own (and keeps going after a bad one)
 * and every record against the records before it (the rulebook of
 * schemas/RULES.md, jsonl_rules.c, which every tool applies); this file
 * turns each finding into a report line with its rule id, so that every
 * finding of a file is reported, not just the first.
 */
#include <string.h>

#include "check.h"

typedef struct jstate {
    tv_report *rep;
    tv_file *f;
} jstate;

/* The rule of a reader check; a check without one is a syntax error. */
static const char *check_rule(int check)
{
    const char *rule = tfmt_jsonl_rule(check);
    return rule ? rule : R_SYNTAX;
}

/* A finding of the library's cross-record rules. */
static void on_finding(void *ctx, const tfmt_error *w)
{
    jstate *s = ctx;
    tv_add(s->rep, s->f, check_rule(w->check), w->line, false, 0, "%s", w->msg);
}

static void on_note(void *ctx, tfmt_jsonl_note kind, const tfmt_error *w)
{
    jstate *s = ctx;
    const char *rule = kind == TFMT_JNOTE_UNKNOWN_TYPE    ? R_UNKNOWN_TYPE
                       : kind == TFMT_JNOTE_UNKNOWN_FIELD ? R_UNKNOWN_FIELD
                                                          : R_NO_NEWLINE;
    tv_add(s->rep, s->f, rule, w->line, false, 0, "%s", w->msg);
}

/* A reader failure: a finding on its line, or trouble (I/O, memory). */
static void reader_error(jstate *s, int rc, const tfmt_error *e, uint64_t lines)
{
    if (rc == TFMT_EIO || rc == TFMT_ENOMEM || rc == TFMT_EINVAL) {
        tv_trouble(s->rep, s->f, e->msg);
        return;
    }
    if (e->check == TFMT_JCHK_INCOMPLETE && lines == 0) {
        /* no line at all: the library's words for an empty input */
        tfmt_detection empty = {TFMT_KIND_EMPTY, 0, {0}};
        tfmt_error why;
        tfmt_detect_error(&empty, &why);
        tv_add_error(s->rep, s->f, R_EMPTY, &why);
        return;
    }
    tv_add_error(s->rep, s->f, check_rule(e->check), e);
}

/* Errors after which the reader goes on with the next line. */
static bool line_local(int check)
{
    return check >= TFMT_JCHK_LINE_LENGTH && check <= TFMT_JCHK_RANGE;
}

void tv_check_jsonl(tv_report *rep, tv_file *f, const tv_input *in)
{
    jstate s = {rep, f};
    f->format = "jsonl";
    tfmt_jsonl_options o = TFMT_JSONL_OPTIONS_INIT;
    o.keep_going = true;
    o.max_line = in->max_line;
    o.on_note = on_note;
    o.note_ctx = &s;
    o.on_finding = on_finding;
    o.finding_ctx = &s;
    tfmt_jsonl_reader *r = NULL;
    tfmt_error err;
    int rc = tfmt_jsonl_open(&r, in->src, &o, &err);
    if (rc < 0) {
        tv_trouble(rep, f, err.msg);
        return;
    }
    const tfmt_jsonl_record *rec;
    while (tv_more(rep, f)) {
        rc = tfmt_jsonl_next(r, &rec);
        if (rc == TFMT_DONE)
            break;
        if (rc < 0)
            reader_error(&s, rc, tfmt_jsonl_error(r), tfmt_jsonl_lines(r));
        if (rc < 0 && !line_local(tfmt_jsonl_error(r)->check))
            break;
    }
    tfmt_jsonl_free(r);
}
