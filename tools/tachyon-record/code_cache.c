/* SPDX-License-Identifier: MIT */
/*
 * code_cache.c - an open-addressing table of code objects. CPython 3.11 to
 * 3.13 have no code-object generation counter, so an entry is re-checked
 * on each use against the object's current head (file, name and line
 * table pointers and first line), which the sampler reads for every frame
 * in one batched system call anyway.
 */
#include "code_cache.h"

#include <stdlib.h>
#include <string.h>

#include <tachyon/fmt.h>

#include "pystr.h"
#include "remote_mem.h"

#define CACHE_INITIAL 1024u
#define CACHE_MAX_ENTRIES (1u << 17)
#define BYTECODE_MAX (1u << 20) /* larger code objects: not kept */

/* Slots hold pointers so entries stay put while the table grows. */
struct code_cache {
    code_entry **slots;
    size_t cap, used;
    uint64_t next_serial, loads;
    unsigned major, minor; /* the target's version */
};

static uint64_t u64_at(const uint8_t *p, uint64_t off)
{
    uint64_t v;
    memcpy(&v, p + off, 8);
    return v;
}

static size_t slot_of(uint64_t addr, size_t cap)
{
    uint64_t h = (addr >> 4) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

code_cache *code_cache_new(uint32_t hexversion)
{
    code_cache *c = calloc(1, sizeof *c);
    if (c) {
        c->major = hexversion >> 24;
        c->minor = (hexversion >> 16) & 0xff;
    }
    if (c)
        c->slots = calloc(CACHE_INITIAL, sizeof *c->slots);
    if (!c || !c->slots) {
        free(c);
        return NULL;
    }
    c->cap = CACHE_INITIAL;
    return c;
}

static void entry_release(code_entry *e)
{
    free(e->filename);
    free(e->qualname);
    free(e->linetable);
    free(e->bytecode);
    free(e->starts);
    free(e->tlbc_base);
    e->tlbc_base = NULL;
    e->filename = e->qualname = NULL;
    e->linetable = e->bytecode = e->starts = NULL;
    e->bytecode_len = e->starts_known = 0;
}

/* Mark where instructions start, as far as the opcodes say (an opaque
 * one, such as INSTRUMENTED_LINE, hides its cache units). */
static int map_starts(const code_cache *c, code_entry *e)
{
    size_t units = e->bytecode_len / 2, q = 0;
    e->starts = calloc((units + 7) / 8, 1);
    if (!e->starts)
        return RMEM_OTHER;
    while (q < units) {
        int caches =
            tfmt_opcode_cache_units(c->major, c->minor, e->bytecode[2 * q]);
        if (caches < 0)
            break;
        e->starts[q / 8] |= (uint8_t)(1u << (q % 8));
        q += 1 + (size_t)caches;
    }
    e->starts_known = q < units ? q : units;
    return RMEM_OK;
}

int64_t code_instruction_start(const code_entry *e, int64_t q)
{
    if (!e->starts || q < 0 || (uint64_t)q >= e->starts_known)
        return -1;
    for (int64_t i = q; i >= 0 && q - i < 64; i--)
        if (e->starts[i / 8] & (1u << (i % 8)))
            return i;
    return -1;
}

/* Copy the code object's instructions (ob_size code units of 2 bytes);
 * a code object too large to keep is not an error. */
static int load_bytecode(const code_cache *c, pid_t pid, const py_offsets *o,
                         uint64_t addr, const uint8_t *head, code_entry *e)
{
    uint64_t units = u64_at(head, o->b_size);
    if (units == 0 || units > BYTECODE_MAX / 2)
        return RMEM_OK;
    e->bytecode = malloc(units * 2);
    if (!e->bytecode)
        return RMEM_OTHER;
    e->bytecode_len = units * 2;
    int rc = rmem_read(pid, addr + o->co_code_adaptive, e->bytecode, units * 2);
    return rc == RMEM_OK ? map_starts(c, e) : rc;
}

static void clear_all(code_cache *c)
{
    for (size_t i = 0; i < c->cap; i++) {
        if (c->slots[i])
            entry_release(c->slots[i]);
        free(c->slots[i]);
        c->slots[i] = NULL;
    }
    c->used = 0;
}

void code_cache_free(code_cache *c)
{
    if (!c)
        return;
    clear_all(c);
    free(c->slots);
    free(c);
}

void code_cache_maintain(code_cache *c)
{
    if (c->used >= CACHE_MAX_ENTRIES)
        clear_all(c);
}

/* Grow *end to cover a field at `off` (PYOFF_NONE: absent). */
static void cover(uint64_t *end, uint64_t off, uint64_t width)
{
    if (off != PYOFF_NONE && off + width > *end)
        *end = off + width;
}

size_t code_head_len(const py_offsets *o)
{
    uint64_t end = 0;
    cover(&end, o->ob_type, 8);
    cover(&end, o->b_size, 8); /* ob_size: its code units */
    cover(&end, o->co_filename, 8);
    cover(&end, o->co_qualname, 8);
    cover(&end, o->co_linetable, 8);
    cover(&end, o->co_firstlineno, 4);
    cover(&end, o->co_framesize, 4);
    cover(&end, o->co_nlocalsplus, 4);
    cover(&end, o->co_stacksize, 4);
    return (size_t)end;
}

static int32_t i32_at(const uint8_t *p, uint64_t off)
{
    int32_t v;
    memcpy(&v, p + off, 4);
    return v;
}

/* The frame size in words, from co_framesize or its 3.11 parts. */
static uint32_t frame_words(const py_offsets *o, const uint8_t *head)
{
    int64_t n = o->co_framesize != PYOFF_NONE
                    ? i32_at(head, o->co_framesize)
                    : (int64_t)i32_at(head, o->co_nlocalsplus) +
                          i32_at(head, o->co_stacksize) + o->frame_specials;
    return n > 0 && n < (1 << 24) ? (uint32_t)n : 0;
}

static int grow(code_cache *c)
{
    size_t cap = c->cap * 2;
    code_entry **slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < c->cap; i++) {
        if (!c->slots[i])
            continue;
        size_t j = slot_of(c->slots[i]->addr, cap);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = c->slots[i];
    }
    free(c->slots);
    c->slots = slots;
    c->cap = cap;
    return 0;
}

static code_entry **find_slot(code_cache *c, uint64_t addr)
{
    size_t i = slot_of(addr, c->cap);
    while (c->slots[i] && c->slots[i]->addr != addr)
        i = (i + 1) & (c->cap - 1);
    return &c->slots[i];
}

static int same_identity(const code_entry *e, const py_offsets *o,
                         const uint8_t *head)
{
    int32_t first;
    memcpy(&first, head + o->co_firstlineno, 4);
    return e->filename && e->filename_ptr == u64_at(head, o->co_filename) &&
           e->qualname_ptr == u64_at(head, o->co_qualname) &&
           e->linetable_ptr == u64_at(head, o->co_linetable) &&
           e->firstlineno == first;
}

/* Read names and line table into `e`, whose old contents are released. */
static int load(code_cache *c, pid_t pid, const py_offsets *o, uint64_t addr,
                const uint8_t *head, code_entry *e)
{
    entry_release(e);
    e->filename_ptr = u64_at(head, o->co_filename);
    e->qualname_ptr = u64_at(head, o->co_qualname);
    e->linetable_ptr = u64_at(head, o->co_linetable);
    memcpy(&e->firstlineno, head + o->co_firstlineno, 4);
    e->framesize = frame_words(o, head);
    e->filename_idx = e->qualname_idx = CODE_IDX_UNSET;
    e->serial = ++c->next_serial;
    int rc =
        pystr_read(pid, o, e->filename_ptr, &e->filename, &e->filename_len);
    if (rc == RMEM_OK)
        rc =
            pystr_read(pid, o, e->qualname_ptr, &e->qualname, &e->qualname_len);
    if (rc == RMEM_OK)
        rc = pybytes_read(pid, o, e->linetable_ptr, &e->linetable,
                          &e->linetable_len);
    if (rc == RMEM_OK)
        rc = load_bytecode(c, pid, o, addr, head, e);
    if (rc != RMEM_OK) {
        entry_release(e); /* filename NULL: never matches */
        return rc;
    }
    c->loads++;
    return RMEM_OK;
}

int code_cache_get(code_cache *c, pid_t pid, const py_offsets *o,
                   uint64_t code_type, uint64_t addr, const uint8_t *head,
                   code_entry **out)
{
    if (u64_at(head, o->ob_type) != code_type)
        return RMEM_FAULT;
    code_entry **slot = find_slot(c, addr);
    if (*slot && same_identity(*slot, o, head)) {
        *out = *slot;
        return RMEM_OK;
    }
    if (!*slot) {
        if ((c->used + 1) * 4 > c->cap * 3) {
            if (grow(c) != 0)
                return RMEM_OTHER;
            slot = find_slot(c, addr);
        }
        *slot = calloc(1, sizeof **slot);
        if (!*slot)
            return RMEM_OTHER;
        (*slot)->addr = addr;
        c->used++;
    }
    int rc = load(c, pid, o, addr, head, *slot);
    if (rc == RMEM_OK)
        *out = *slot;
    return rc;
}

uint64_t code_cache_loads(const code_cache *c)
{
    return c->loads;
}
