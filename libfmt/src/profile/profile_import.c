/* SPDX-License-Identifier: MIT */
/*
 * profile_import.c - a profile as the model of an import (import.h): the
 * reader's strings are interned into the profile (repaired as Python
 * decodes them), and its frames after the profile's name filters rewrote
 * their names. Binary logs streamed into a profile (profile_bin.c) and
 * into a Gecko timeline (export_gecko.c, whose frames live in a private
 * profile) both map their tables through this one client.
 */
#include "profile_filter.h"

static int intern_string(void *ctx, const char *s, size_t len, uint32_t *out)
{
    tfmt_pimport *pi = ctx;
    return tfmt__profile_intern_string(pi->p, s, len, out);
}

static int intern_frame(void *ctx, uint32_t index, const tfmt_frame *f,
                        uint32_t *out)
{
    tfmt_pimport *pi = ctx;
    tfmt_frame pf = *f;
    (void)index;
    if (pi->p->opts.no_lines) {
        /* one frame per (file, function), as py-spy's --nolineno */
        pf.lineno = pf.end_lineno = TFMT_NO_LOCATION;
        pf.column = pf.end_column = TFMT_NO_LOCATION;
        pf.opcode = TFMT_NO_OPCODE;
    }
    int rc = tfmt__pfilter_names(pi->filter, &pf);
    return rc == TFMT_OK ? tfmt__profile_intern_frame(pi->p, &pf, out) : rc;
}

static const tfmt_import_ops profile_ops = {intern_string, intern_frame};

int tfmt__profile_import_open(tfmt_pimport *pi, tfmt_profile *p,
                              tfmt_bin_reader *r)
{
    memset(pi, 0, sizeof *pi);
    pi->p = p;
    int rc = tfmt__import_open(&pi->im, r, &profile_ops, pi, p->alloc, &p->err);
    pi->im.progress = p->opts.progress;
    pi->im.progress_ctx = p->opts.progress_ctx;
    return rc == TFMT_OK ? tfmt__pfilter_new(p, &pi->filter) : rc;
}

void tfmt__profile_import_close(tfmt_pimport *pi)
{
    tfmt__import_close(&pi->im);
    tfmt__pfilter_free(pi->filter);
    pi->filter = NULL;
}
