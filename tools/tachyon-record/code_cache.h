/* SPDX-License-Identifier: MIT */
/*
 * code_cache.h - what the recorder knows about the target's code objects,
 * keyed by address, so a steady-state sample reads no strings and no line
 * tables.
 */
#ifndef TREC_CODE_CACHE_H
#define TREC_CODE_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "py_offsets.h"

#define CODE_IDX_UNSET UINT32_MAX

typedef struct code_entry {
    uint64_t addr;   /* 0: empty slot */
    uint64_t serial; /* unique per load; keys derived caches */
    /* Identity checked on every use: an address can be reused. */
    uint64_t filename_ptr, qualname_ptr, linetable_ptr;
    int32_t firstlineno;
    uint32_t framesize; /* words the frame takes in the stack */
    char *filename, *qualname;
    size_t filename_len, qualname_len;
    uint8_t *linetable;
    size_t linetable_len;
    /* Its instructions when first seen (variants may differ now; their
     * families do not), NULL if too large. */
    uint8_t *bytecode;
    size_t bytecode_len;
    /* One bit per code unit: an instruction starts there (the rest are
     * inline caches); `starts_known` units from the start are mapped. */
    uint8_t *starts;
    size_t starts_known;
    uint32_t filename_idx, qualname_idx; /* writer strings, or UNSET */
    /* Free-threaded: where the bytecode copies of the first
     * CODE_TLBC_CACHED thread indices start (0: not known yet), as of
     * the interpreter's tlbc generation `tlbc_gen`; NULL until used. */
    uint64_t *tlbc_base;
    uint32_t tlbc_gen;
} code_entry;

#define CODE_TLBC_CACHED 64

typedef struct code_cache code_cache;

/* `hexversion`: the target's, for its bytecode layout. */
code_cache *code_cache_new(uint32_t hexversion);
void code_cache_free(code_cache *c);

/*
 * Call between samples: empties the cache once it holds too many entries.
 * Entry pointers stay valid until the next call.
 */
void code_cache_maintain(code_cache *c);

/* Bytes of a code object's head the caller reads for code_cache_get. */
size_t code_head_len(const py_offsets *o);

/*
 * Where the instruction holding code unit `q` starts (3.11/3.12 frames
 * point into an instruction's inline caches during a call), or -1 if
 * not known.
 */
int64_t code_instruction_start(const code_entry *e, int64_t q);

/*
 * The entry for the code object at `addr` whose first code_head_len bytes
 * are `head`. Checks the object's type against `code_type`; a hit whose
 * name, file, line table or first line changed is reloaded. Returns a
 * remote_mem status (RMEM_FAULT for a torn or foreign object).
 */
int code_cache_get(code_cache *c, pid_t pid, const py_offsets *o,
                   uint64_t code_type, uint64_t addr, const uint8_t *head,
                   code_entry **out);

/* Entries loaded (misses) so far, for the benchmark. */
uint64_t code_cache_loads(const code_cache *c);

#endif
