/* SPDX-License-Identifier: MIT */
/*
 * dump.h - --dump: one snapshot of every thread, printed traceback-style.
 */
#ifndef TREC_DUMP_H
#define TREC_DUMP_H

#include <stdio.h>

#include "unwind.h"

/*
 * Take one sample of every thread of the process `u` reads (retrying a
 * torn walk a few times) and print it to `out` as CPython 3.15's
 * `python -m profiling.sampling --dump` does, without colours: per
 * thread its status and its frames innermost last, each with its file,
 * line, function and source line (opcodes too if u->cfg.opcodes).
 * Returns a remote_mem status.
 */
int dump_threads(unwinder *u, FILE *out);

#endif
