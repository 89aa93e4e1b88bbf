/* SPDX-License-Identifier: MIT */
/* model.c - names of the sample model's enumerations, and frames as hash
 * keys (one hash and one equality for every table of frames). */
#include "internal.h"

const char *tfmt_mode_name(int mode)
{
    /* CPython's constants.PROFILING_MODE_NAMES, indexed by mode. */
    static const char *const NAMES[] = {"wall", "cpu", "gil", "all",
                                        "exception"};
    if (mode < 0 || mode >= (int)(sizeof NAMES / sizeof NAMES[0]))
        return NULL;
    return NAMES[mode];
}

uint64_t tfmt__frame_hash(const tfmt_frame *f)
{
    uint64_t h = tfmt__hash_key(((uint64_t)f->filename << 32) | f->funcname);
    h = tfmt__hash_mix(
        h ^ (((uint64_t)(uint32_t)f->lineno << 32) | (uint32_t)f->end_lineno));
    h = tfmt__hash_mix(
        h ^ (((uint64_t)(uint32_t)f->column << 32) | (uint32_t)f->end_column));
    return tfmt__hash_mix(h ^ f->opcode);
}

bool tfmt__frame_same(const tfmt_frame *a, const tfmt_frame *b)
{
    return a->filename == b->filename && a->funcname == b->funcname &&
           a->lineno == b->lineno && a->end_lineno == b->end_lineno &&
           a->column == b->column && a->end_column == b->end_column &&
           a->opcode == b->opcode;
}
