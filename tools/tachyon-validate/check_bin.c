/* SPDX-License-Identifier: MIT */
/*
 * check_bin.c - the binary rules of tachyon-validate. The library reader
 * makes every check (CPython's and the extra ones: footer size, statistics
 * block, thread count, trailing bytes, zstd frame, indices, sample count);
 * this file decodes the whole file and maps each check to its rule id,
 * with the reader's own message (and next step), as every tool prints it.
 * Decoding stops at the first structural error; non-fatal findings arrive
 * as notes.
 */
#include "check.h"

typedef struct bstate {
    tv_report *rep;
    tv_file *f;
} bstate;

static void on_note(void *ctx, tfmt_note kind, const tfmt_error *where)
{
    bstate *s = ctx;
    tv_add(s->rep, s->f, tv_bin_note_rule((int)kind), 0, where->has_offset,
           where->offset, "%s", where->msg);
}

static void bin_error(bstate *s, int rc, const tfmt_error *e)
{
    if (rc == TFMT_EIO || rc == TFMT_ENOMEM || rc == TFMT_EINVAL) {
        tv_trouble(s->rep, s->f, e->msg);
        return;
    }
    /* A limit of the input (size, ratio) is TV005; the thread limit is a
     * rule of the log's records (TV228). */
    bool input_limit = rc == TFMT_ELIMIT && e->check != TFMT_BCHK_THREAD_LIMIT;
    const char *rule =
        input_limit ? R_INPUT_LIMIT : tv_bin_check_rule(e->check);
    tv_add_error(s->rep, s->f, rule, e);
}

void tv_check_bin(tv_report *rep, tv_file *f, const tv_input *in)
{
    bstate s = {rep, f};
    f->format = "binary";
    tfmt_bin_options o = TFMT_BIN_OPTIONS_INIT;
    if (in->bin)
        o = *in->bin;
    o.on_note = on_note;
    o.note_ctx = &s;
    tfmt_bin_reader *r = NULL;
    tfmt_error err;
    int rc = tfmt_bin_open(&r, in->src, &o, &err);
    if (rc < 0) {
        bin_error(&s, rc, &err);
        return;
    }
    const tfmt_sample *sample;
    do {
        rc = tfmt_bin_next(r, &sample);
    } while (rc == TFMT_OK);
    if (rc < 0)
        bin_error(&s, rc, tfmt_bin_error(r));
    tfmt_bin_free(r);
}
