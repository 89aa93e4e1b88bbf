/*
 * idset.h - a set of uint32 ids (open addressing). Its size is bounded by
 * the ids the input defines, each of which costs the input several bytes.
 */
#ifndef TV_IDSET_H
#define TV_IDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tv_idset {
    uint64_t *slots;        /* 0 empty, else id + 1 */
    size_t cap;             /* power of two */
    size_t count;
} tv_idset;

void tv_idset_free(tv_idset *s);
bool tv_idset_has(const tv_idset *s, uint32_t id);
/* Insert; returns 1 if added, 0 if present, -1 when out of memory. */
int tv_idset_add(tv_idset *s, uint32_t id);
/* Call fn for every id (in no particular order). */
void tv_idset_each(const tv_idset *s, void (*fn)(void *, uint32_t),
                   void *ctx);

#endif
