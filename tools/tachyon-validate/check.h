/* SPDX-License-Identifier: MIT */
/*
 * check.h - the checkers of tachyon-validate. Each reads one opened
 * source to its end (or to --max-errors) and records every finding in `f`.
 */
#ifndef TV_CHECK_H
#define TV_CHECK_H

#include <tachyon/fmt.h>

#include "report.h"

typedef struct tv_input {
    tfmt_source *src;            /* nothing read yet (tfmt_detect peeks) */
    size_t max_line;             /* JSONL line limit, 0 default */
    const tfmt_bin_options *bin; /* reader limits (NULL: defaults) */
} tv_input;

void tv_check_jsonl(tv_report *rep, tv_file *f, const tv_input *in);
void tv_check_bin(tv_report *rep, tv_file *f, const tv_input *in);
void tv_check_rows(tv_report *rep, tv_file *f, const tv_input *in);

#endif
