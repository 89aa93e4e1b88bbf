/* SPDX-License-Identifier: MIT */
/*
 * profile_filter.h - the sample and frame filters of tfmt_profile_options
 * (thread, status, rewrite, include/exclude, recursion), applied to
 * samples as they are added to a profile (profile_bin.c) or to a Gecko
 * timeline (export_gecko.c), and the import of a binary log's tables into
 * a profile that both use. Frames here carry PROFILE string ids.
 */
#ifndef TFMT_PROFILE_FILTER_H
#define TFMT_PROFILE_FILTER_H

#include <tachyon/fmt_match.h>

#include "import.h"
#include "profile_internal.h"

typedef struct tfmt_pfilter tfmt_pfilter;

/* Some option drops samples, rewrites names or changes stacks. */
bool tfmt__pfilter_any(const tfmt_profile_options *o);

/*
 * Per-input filter state for `p` (whose options are used). *out is NULL
 * when the options rewrite no names and change no stacks.
 */
int tfmt__pfilter_new(tfmt_profile *p, tfmt_pfilter **out);
void tfmt__pfilter_free(tfmt_pfilter *f);

/*
 * Note a sample batch read from an input in p's filter report, before
 * any test: its thread, status and (with a stack) weight.
 */
void tfmt__pfilter_saw(tfmt_profile *p, uint64_t thread_id, uint8_t status,
                       uint32_t depth, uint64_t weight);

/* The batch (with a stack) passed the thread and status tests. */
void tfmt__pfilter_passed(tfmt_profile *p, uint64_t weight);

/* Thread, status and skip_idle tests on one sample batch. */
bool tfmt__pfilter_sample(const tfmt_profile_options *o, uint64_t thread_id,
                          uint8_t status);

/* Rewrite the names of `pf` (profile ids) in place. f may be NULL. */
int tfmt__pfilter_names(tfmt_pfilter *f, tfmt_frame *pf);

/* True when stacks must go through tfmt__pfilter_stack. f may be NULL. */
bool tfmt__pfilter_stacks(const tfmt_pfilter *f);

/*
 * Filter stack[0..*depth) (profile frame ids, root first) in place: the
 * include/exclude rules, then recursion collapsing. *keep is false when
 * the sample is dropped.
 */
int tfmt__pfilter_stack(tfmt_pfilter *f, uint32_t *stack, uint32_t *depth,
                        bool *keep);

/*
 * A binary log imported into profile `p` (profile_import.c): the reader's
 * tables are mapped into p through p's name filters, and progress goes
 * to p's options' callback. Failures are recorded in p->err.
 */
typedef struct tfmt_pimport {
    tfmt_import im;
    tfmt_profile *p;
    tfmt_pfilter *filter; /* NULL: no name or stack filters */
} tfmt_pimport;

int tfmt__profile_import_open(tfmt_pimport *pi, tfmt_profile *p,
                              tfmt_bin_reader *r);
void tfmt__profile_import_close(tfmt_pimport *pi);

#endif
