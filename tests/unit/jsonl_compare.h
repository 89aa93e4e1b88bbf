/* SPDX-License-Identifier: MIT */
/*
 * jsonl_compare.h - compare two records of the same line field by field:
 * the fast path's or the in-place path's against json-c's (jsonl_ref.c),
 * in test_jsonl_fast, test_jsonl_general and the fuzz targets.
 * Header-only: every function is static.
 */
#ifndef TFMT_TEST_JSONL_COMPARE_H
#define TFMT_TEST_JSONL_COMPARE_H

#include <stdlib.h>
#include <string.h>

#include "jsonl_internal.h"

/* A deep copy of a record, taken before the next parse reuses arrays. */
typedef struct rcopy {
    tfmt_jsonl_record rec;
    tfmt_str text[5]; /* type_name, run_id, kind, scope, mode (copies) */
    tfmt_jsonl_string *strings; /* values copied */
    tfmt_jsonl_frame *frames;
    tfmt_jsonl_agg *entries;
} rcopy;

/* A copy of s with its NUL; ptr NULL stays NULL. */
static tfmt_str dup_str(tfmt_str s)
{
    tfmt_str c = {NULL, s.len};
    if (!s.ptr)
        return c;
    char *p = malloc(s.len + 1);
    memcpy(p, s.ptr, s.len);
    p[s.len] = '\0';
    c.ptr = p;
    return c;
}

static void *dup_mem(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);
    if (n)
        memcpy(q, p, n);
    return q;
}

static void copy_record(rcopy *c, const tfmt_jsonl_record *r)
{
    c->rec = *r;
    const tfmt_str *s[5] = {&r->type_name, &r->run_id, &r->kind, &r->scope,
                            &r->mode};
    for (int i = 0; i < 5; i++)
        c->text[i] = dup_str(*s[i]);
    c->strings = dup_mem(r->strings, r->n_strings * sizeof *r->strings);
    for (size_t i = 0; i < r->n_strings; i++)
        c->strings[i].value = dup_str(r->strings[i].value);
    c->frames = dup_mem(r->frames, r->n_frames * sizeof *r->frames);
    c->entries = dup_mem(r->entries, r->n_entries * sizeof *r->entries);
}

static void free_copy(rcopy *c)
{
    for (int i = 0; i < 5; i++)
        free((char *)c->text[i].ptr);
    for (size_t i = 0; i < c->rec.n_strings; i++)
        free((char *)c->strings[i].value.ptr);
    free(c->strings);
    free(c->frames);
    free(c->entries);
}

/* Equal bytes, both NUL-terminated (or both absent). */
static bool same_str(tfmt_str copy, tfmt_str s)
{
    if (!copy.ptr || !s.ptr)
        return !copy.ptr && !s.ptr;
    return copy.len == s.len && memcmp(copy.ptr, s.ptr, s.len) == 0 &&
           s.ptr[s.len] == '\0';
}

static bool same_frame(const tfmt_jsonl_frame *a, const tfmt_jsonl_frame *b)
{
    return a->id == b->id && a->path_str_id == b->path_str_id &&
           a->func_str_id == b->func_str_id && a->line == b->line &&
           a->end_line == b->end_line && a->col == b->col &&
           a->end_col == b->end_col && a->synthetic == b->synthetic;
}

/* The fast copy `c` equals json-c's record `r`; names the first mismatch. */
static const char *differs(const rcopy *c, const tfmt_jsonl_record *r)
{
    const tfmt_jsonl_record *f = &c->rec;
    if (f->type != r->type || f->v != r->v || f->line != r->line)
        return "type, v or line";
    const tfmt_str s[5] = {r->type_name, r->run_id, r->kind, r->scope, r->mode};
    for (int i = 0; i < 5; i++)
        if (!same_str(c->text[i], s[i]))
            return "a string field";
    if (f->samples_total != r->samples_total ||
        f->sample_interval_usec != r->sample_interval_usec)
        return "samples_total or interval";
    if (f->n_strings != r->n_strings || f->n_frames != r->n_frames ||
        f->n_entries != r->n_entries)
        return "entry counts";
    for (size_t i = 0; i < r->n_strings; i++)
        if (c->strings[i].id != r->strings[i].id ||
            !same_str(c->strings[i].value, r->strings[i].value))
            return "a string entry";
    for (size_t i = 0; i < r->n_frames; i++)
        if (!same_frame(&c->frames[i], &r->frames[i]))
            return "a frame entry";
    for (size_t i = 0; i < r->n_entries; i++)
        if (c->entries[i].frame_id != r->entries[i].frame_id ||
            c->entries[i].self != r->entries[i].self ||
            c->entries[i].cumulative != r->entries[i].cumulative)
            return "an agg entry";
    return NULL;
}

#endif
