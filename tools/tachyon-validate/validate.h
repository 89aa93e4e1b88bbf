/* SPDX-License-Identifier: MIT */
/* validate.h - tachyon-validate's options and its run function. */
#ifndef TV_VALIDATE_H
#define TV_VALIDATE_H

#include "cli.h"

typedef struct tv_options {
    cli_list files;
    const char *format;     /* text|json|junit|github */
    const char *output;     /* -o FILE: the report goes there */
    int force;              /* -f: replace FILE */
    const char *max_errors; /* decimal, default 100, 0 = no limit */
    const char *max_line;   /* JSONL line limit in bytes */
    cli_reader_args reader; /* --max-threads */
    int strict;
    int quiet;
    int verbose;
    int list_rules;
    cli_input_limits limits; /* --max-input-size, --max-input-ratio */
} tv_options;

/* options.c: the option table and what it fills. */
extern tv_options tv_opts;
extern const cli_spec tv_spec;

/* Validate every file; returns the exit status (0 valid, 1 invalid, 2). */
int run_validate(const tv_options *opts);

#endif
