/* SPDX-License-Identifier: MIT */
/*
 * jsonl_ref.h - the JSONL reader's former general path on json-c
 * (jsonl_ref.c), the reference for the differential tests.
 */
#ifndef TFMT_TEST_JSONL_REF_H
#define TFMT_TEST_JSONL_REF_H

#include "jsonl_internal.h"

struct json_object;
struct json_tokener;

typedef struct jref {
    struct json_tokener *tok;
    struct json_object *obj; /* the tree behind the last record */
} jref;

int jref_init(jref *j);
void jref_free(jref *j);
/*
 * Parse p[0..n) with json-c and convert it into r->rec as the library
 * did before: the record, r->err and the notes (through r's on_note).
 */
int jref_parse_line(jref *j, tfmt_jsonl_reader *r, const char *p, size_t n);

#endif
