/* SPDX-License-Identifier: MIT */
/*
 * record.h - one recording from start to a finalized log.
 */
#ifndef TREC_RECORD_H
#define TREC_RECORD_H

#include "options.h"

#include <stdint.h>

/* The header's profiling config word for these options (spec 1.9). */
uint32_t rec_config_word(const rec_options *opts);

/* Record as `opts` says; returns the process exit code. */
int run_record(const rec_options *opts);

#endif
