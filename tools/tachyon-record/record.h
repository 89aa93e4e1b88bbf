/*
 * record.h - one recording from start to a finalized log.
 */
#ifndef TREC_RECORD_H
#define TREC_RECORD_H

#include "options.h"

/* Record as `opts` says; returns the process exit code. */
int run_record(const rec_options *opts);

#endif
