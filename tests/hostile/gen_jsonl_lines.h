/* SPDX-License-Identifier: MIT */
/* gen_jsonl_lines.h - gen_hostile's JSONL exports with one huge line. */
#ifndef GEN_JSONL_LINES_H
#define GEN_JSONL_LINES_H

#include <stdio.h>

/*
 * Write case `c` ("jsonl-SHAPE-WHERE", see gen_jsonl_lines.c) with a line
 * of about `mib` MiB to f. Returns 0, or -1 when c is not such a case.
 */
int gen_jsonl_line(const char *c, FILE *f, unsigned long mib);

#endif
