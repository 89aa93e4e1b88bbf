/* SPDX-License-Identifier: MIT */
/*
 * async_store.c - the storage of one sample's task graph: the tasks with
 * an index by address, copies of task objects, the pool of coroutine
 * frames and the names. Each grows by doubling up to a bound fixed in
 * async_graph.h, so that no count read from the target sizes an
 * allocation, and is emptied, not freed, between samples; and the state's
 * life and accessors.
 */
#include <stdlib.h>
#include <string.h>

#include "async_graph.h"

/* Names of a sample in all, at most. */
#define NAMES_MAX (16u << 20)

static uint32_t hash_addr(uint64_t addr, uint32_t nslots)
{
    uint64_t h = (addr >> 4) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32) & (nslots - 1);
}

/* Grow `*p` (elements of `size` bytes, *cap of them) to hold `need`. */
static int grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    uint32_t n = *cap ? *cap : 256;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, (size_t)n * size);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* An index of `n` entries wants twice as many slots; rebuilt when
 * it grows. `key(i)` gives entry i's address. */
static int reindex(uint32_t **slots, uint32_t *nslots, uint32_t n,
                   const void *owner, uint64_t (*key)(const void *, uint32_t))
{
    if (2 * (n + 1) <= *nslots)
        return 0;
    uint32_t ns = *nslots ? *nslots : 1024;
    while (ns < 2 * (n + 1))
        ns *= 2;
    uint32_t *s = calloc(ns, sizeof *s);
    if (!s)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t h = hash_addr(key(owner, i), ns);
        while (s[h])
            h = (h + 1) & (ns - 1);
        s[h] = i + 1;
    }
    free(*slots);
    *slots = s;
    *nslots = ns;
    return 0;
}

static uint64_t task_key(const void *owner, uint32_t i)
{
    return ((const async_state *)owner)->tasks[i].addr;
}

static uint64_t copy_key(const void *owner, uint32_t i)
{
    return ((const async_copies *)owner)->addr[i];
}

static uint32_t lookup(const uint32_t *slots, uint32_t nslots, uint64_t addr,
                       const void *owner,
                       uint64_t (*key)(const void *, uint32_t))
{
    if (!nslots)
        return ASYNC_NONE;
    for (uint32_t h = hash_addr(addr, nslots);; h = (h + 1) & (nslots - 1)) {
        if (!slots[h])
            return ASYNC_NONE;
        if (key(owner, slots[h] - 1) == addr)
            return slots[h] - 1;
    }
}

static void insert(uint32_t *slots, uint32_t nslots, uint64_t addr,
                   uint32_t idx)
{
    uint32_t h = hash_addr(addr, nslots);
    while (slots[h])
        h = (h + 1) & (nslots - 1);
    slots[h] = idx + 1;
}

async_state *async_new(async_mode mode)
{
    async_state *a = calloc(1, sizeof *a);
    if (a)
        a->mode = mode;
    return a;
}

void async_free(async_state *a)
{
    if (!a)
        return;
    free(a->tasks);
    free(a->index);
    free(a->frames);
    free(a->names);
    free(a->leaves);
    free(a->memo);
    free(a->name_jobs);
    free(a->name_data);
    async_copies_free(&a->copies);
    free(a);
}

async_mode async_get_mode(const async_state *a)
{
    return a ? a->mode : ASYNC_MODE_OFF;
}

const async_counters *async_get_counters(const async_state *a)
{
    return &a->counters;
}

const char *async_error(const async_state *a)
{
    return a && a->bad ? a->error : NULL;
}

const char *async_where(const async_state *a)
{
    return a && a->found ? a->off.where : NULL;
}

uint64_t async_running_task_offset(const async_state *a)
{
    return a->off.ts_running_task;
}

void async_reset(async_state *a)
{
    a->ntasks = a->nframes = a->nleaves = 0;
    a->names_len = 0;
    a->truncated = false;
    if (a->index)
        memset(a->index, 0, (size_t)a->nindex * sizeof *a->index);
    async_copies_reset(&a->copies);
}

uint32_t async_find_task(const async_state *a, uint64_t addr)
{
    return lookup(a->index, a->nindex, addr, a, task_key);
}

uint32_t async_add_task(async_state *a, uint64_t addr, uint64_t tid,
                        uint32_t interp_id, bool *oom)
{
    uint32_t i = async_find_task(a, addr);
    if (i != ASYNC_NONE)
        return i;
    if (a->ntasks >= ASYNC_MAX_TASKS) {
        a->truncated = true;
        return ASYNC_NONE;
    }
    if (grow((void **)&a->tasks, &a->tasks_cap, a->ntasks + 1,
             sizeof *a->tasks) != 0 ||
        reindex(&a->index, &a->nindex, a->ntasks + 1, a, task_key) != 0) {
        *oom = true;
        return ASYNC_NONE;
    }
    i = a->ntasks++;
    a->tasks[i] = (async_task){.addr = addr,
                               .tid = tid,
                               .interp_id = interp_id,
                               .thread = ASYNC_NONE,
                               .copy = ASYNC_NONE,
                               .parent_idx = ASYNC_NONE,
                               .name_off = ASYNC_NONE};
    insert(a->index, a->nindex, addr, i);
    return i;
}

uint32_t async_copy_find(const async_copies *c, uint64_t addr)
{
    return lookup(c->slots, c->nslots, addr, c, copy_key);
}

uint8_t *async_copy_buf(const async_copies *c, uint32_t idx, size_t len)
{
    return c->buf + (size_t)idx * len;
}

uint8_t *async_copy_new(async_copies *c, uint64_t addr, size_t len,
                        uint32_t *idx)
{
    uint32_t cap = c->cap;
    if (grow((void **)&c->addr, &cap, c->n + 1, sizeof *c->addr) != 0)
        return NULL;
    if (cap != c->cap) {
        uint8_t *b = realloc(c->buf, (size_t)cap * len);
        if (!b)
            return NULL;
        c->buf = b;
        c->cap = cap;
    }
    if (reindex(&c->slots, &c->nslots, c->n + 1, c, copy_key) != 0)
        return NULL;
    *idx = c->n++;
    c->addr[*idx] = addr;
    insert(c->slots, c->nslots, addr, *idx);
    return c->buf + (size_t)*idx * len;
}

void async_copies_reset(async_copies *c)
{
    c->n = 0;
    if (c->slots)
        memset(c->slots, 0, (size_t)c->nslots * sizeof *c->slots);
}

void async_copies_free(async_copies *c)
{
    free(c->addr);
    free(c->buf);
    free(c->slots);
    memset(c, 0, sizeof *c);
}

raw_frame *async_frame_new(async_state *a, uint32_t *idx)
{
    if (a->nframes >= ASYNC_MAX_FRAMES ||
        grow((void **)&a->frames, &a->frames_cap, a->nframes + 1,
             sizeof *a->frames) != 0)
        return NULL;
    *idx = a->nframes++;
    return &a->frames[*idx];
}

int async_name_put(async_state *a, const char *s, size_t len, uint32_t *off)
{
    size_t need = a->names_len + len + 1;
    if (need > NAMES_MAX)
        return -1;
    if (need > a->names_cap) {
        size_t cap = a->names_cap ? a->names_cap : 4096;
        while (cap < need)
            cap *= 2;
        char *n = realloc(a->names, cap);
        if (!n)
            return -1;
        a->names = n;
        a->names_cap = cap;
    }
    memcpy(a->names + a->names_len, s, len);
    a->names[a->names_len + len] = '\0';
    *off = (uint32_t)a->names_len;
    a->names_len = need;
    return 0;
}

/* Pieces are merged into one range when no more than this apart: less
 * than a page, so a range never spans a page none of its pieces is on
 * (which might not be mapped). */
#define MERGE_GAP 1024u
#define RANGE_MAX (64u << 10)
#define STAGING_MAX (64u << 20)

static int read_plain(pid_t pid, const rmem_piece *p, size_t n)
{
    for (size_t at = 0; at < n; at += ASYNC_BATCH) {
        size_t k = n - at < ASYNC_BATCH ? n - at : ASYNC_BATCH;
        int rc = rmem_readv(pid, p + at, k);
        if (rc != RMEM_OK)
            return rc;
    }
    return RMEM_OK;
}

/* A piece's address and index, sorted together (no indirection in the
 * comparison). */
typedef struct keyed {
    uint64_t addr;
    uint32_t idx;
} keyed;

/* Sort k[0..n) by address: least significant digit first, 12 bits a
 * pass over the 48 bits of a user-space address (the rest, if any, by a
 * last pass), each pass stable; `tmp` holds n. Linear, where qsort's
 * comparisons cost the most of a large round. */
static void radix_sort(keyed *k, keyed *tmp, uint32_t n)
{
    static uint32_t count[1u << 12];
    uint64_t all = 0;
    for (uint32_t i = 0; i < n; i++)
        all |= k[i].addr;
    for (unsigned shift = 0; shift < 64 && (all >> shift); shift += 12) {
        memset(count, 0, sizeof count);
        for (uint32_t i = 0; i < n; i++)
            count[(k[i].addr >> shift) & 0xfff]++;
        uint32_t at = 0;
        for (uint32_t d = 0; d < (1u << 12); d++) {
            uint32_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (uint32_t i = 0; i < n; i++)
            tmp[count[(k[i].addr >> shift) & 0xfff]++] = k[i];
        memcpy(k, tmp, (size_t)n * sizeof *k);
    }
}

/* Scratch of read_merged, kept between calls. */
typedef struct merge_scratch {
    keyed *order, *tmp;
    uint32_t order_cap, tmp_cap;
    rmem_piece *ranges;
    uint32_t ranges_cap;
    uint8_t *staging;
    size_t staging_cap;
} merge_scratch;

/* The ranges covering the sorted pieces; 0, or -1 when the staging they
 * need is too large or cannot be had. */
static int plan_ranges(merge_scratch *m, const rmem_piece *p, uint32_t n,
                       uint32_t *nr)
{
    size_t total = 0;
    *nr = 0;
    for (uint32_t i = 0; i < n; i++) {
        const rmem_piece *q = &p[m->order[i].idx];
        rmem_piece *r = *nr ? &m->ranges[*nr - 1] : NULL;
        uint64_t end = q->addr + q->len;
        if (r && q->addr <= r->addr + r->len + MERGE_GAP &&
            end - r->addr <= RANGE_MAX) {
            if (end > r->addr + r->len) {
                total += end - (r->addr + r->len);
                r->len = end - r->addr;
            }
            continue;
        }
        m->ranges[(*nr)++] = (rmem_piece){q->addr, NULL, q->len};
        total += q->len;
    }
    if (total > STAGING_MAX)
        return -1;
    if (total > m->staging_cap) {
        uint8_t *b = realloc(m->staging, total);
        if (!b)
            return -1;
        m->staging = b;
        m->staging_cap = total;
    }
    uint8_t *at = m->staging;
    for (uint32_t k = 0; k < *nr; k++) {
        m->ranges[k].buf = at;
        at += m->ranges[k].len;
    }
    return 0;
}

/* Pieces sorted by address and merged into ranges where they are close:
 * a batch of thousands of small objects allocated side by side (tasks,
 * coroutines) costs the kernel a few pages, not a page per object. */
static int read_merged(pid_t pid, const rmem_piece *p, uint32_t n)
{
    static merge_scratch m;
    uint32_t nr, r = 0;
    if (grow((void **)&m.order, &m.order_cap, n, sizeof *m.order) != 0 ||
        grow((void **)&m.tmp, &m.tmp_cap, n, sizeof *m.tmp) != 0 ||
        grow((void **)&m.ranges, &m.ranges_cap, n, sizeof *m.ranges) != 0)
        return read_plain(pid, p, n);
    bool sorted = true;
    for (uint32_t i = 0; i < n; i++) {
        m.order[i] = (keyed){p[i].addr, i};
        sorted &= i == 0 || p[i - 1].addr <= p[i].addr;
    }
    if (!sorted)
        radix_sort(m.order, m.tmp, n);
    if (plan_ranges(&m, p, n, &nr) != 0)
        return read_plain(pid, p, n);
    int rc = read_plain(pid, m.ranges, nr);
    for (uint32_t i = 0; rc == RMEM_OK && i < n; i++) {
        const rmem_piece *q = &p[m.order[i].idx];
        while (q->addr + q->len > m.ranges[r].addr + m.ranges[r].len)
            r++;
        memcpy(q->buf,
               (uint8_t *)m.ranges[r].buf + (q->addr - m.ranges[r].addr),
               q->len);
    }
    return rc;
}

int async_read(unwinder *u, const rmem_piece *p, size_t n)
{
    int rc = n < 16 || n > UINT32_MAX ? read_plain(u->pid, p, n)
                                      : read_merged(u->pid, p, (uint32_t)n);
    u->as->counters.rounds++;
    return rc;
}
