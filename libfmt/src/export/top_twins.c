/* SPDX-License-Identifier: MIT */
/*
 * top_twins.c - whether two functions of a tree-less profile have names
 * of equal content under different string ids ("twins"), for
 * export_top_direct.c, which takes functions by their id pairs.
 *
 * Only appended strings can be equal under two ids (interned ones are one
 * id per content). An exporter writes each string once, so the strings
 * are checked first, in id order (one pass over their bytes, no pointer
 * chased): if no two are equal, no two functions can be twins. Only when
 * some are (an export defined a string twice, or two exports were read)
 * are the functions in use checked.
 *
 * Both checks partition the items by hash and look for equal hashes
 * within each partition, comparing content only then. Hashes from a file
 * can be made to collide; a probe that meets too many slots answers
 * "maybe twins", which sends the table to the content walk (a sort): the
 * check stays linear whatever the names.
 */
#include "export_internal.h"

/*
 * A name's hash, for these sets only (nothing else sees it, so it need
 * not be tfmt__hash_bytes, which run ids depend on): most names are
 * short, and up to 16 bytes two overlapping loads take them whole, with
 * one mix where the general hash mixes every 8 bytes.
 */
static uint64_t text_hash(const char *s, size_t n, uint64_t seed)
{
    if (n > 16)
        return tfmt__hash_bytes(s, n, seed);
    uint64_t a = 0, b = 0;
    if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        a = x;
        b = y;
    } else if (n > 0) { /* the first, middle and last bytes: all of them */
        a = (uint64_t)(uint8_t)s[0] | (uint64_t)(uint8_t)s[n / 2] << 8 |
            (uint64_t)(uint8_t)s[n - 1] << 16;
    }
    return tfmt__hash_mix(((a ^ seed) * 0x9e3779b97f4a7c15ULL) ^
                          ((b + n) * 0xc2b2ae3d27d4eb4fULL));
}

uint64_t tfmt__name_hash(const char *s, size_t n, uint64_t seed)
{
    return text_hash(s, n, seed);
}

/*
 * The hashes of recent file names by string id, direct-mapped: a profile
 * has far fewer files than functions, so most functions find theirs here
 * and only their function name is hashed.
 */
#define FILE_HASHES 4096 /* 48 KB */
typedef struct file_hashes {
    uint32_t id1[FILE_HASHES]; /* string id + 1; 0: empty */
    uint64_t hash[FILE_HASHES];
} file_hashes;

/* Items are hashed a batch at a time (one indirect call a batch). */
#define BATCH 64

/*
 * What is checked: items 0 to n - 1, strings or functions. hash() gives
 * a batch's hashes (pass 0, then again in pass 1) and sets a bit of
 * *live for each item to check; same() compares two items' content.
 */
typedef struct twins twins;
struct twins {
    const tfmt_profile *p;
    uint32_t n;
    const uint64_t *(*hash)(twins *w, uint32_t first, uint32_t n, int pass,
                            uint64_t *live);
    bool (*same)(const twins *w, uint32_t a, uint32_t b);
    uint64_t h[BATCH]; /* a batch's hashes, when not kept */
    /* functions only */
    const uint32_t *fn_frame;
    const uint8_t *used;
    file_hashes *fh;
    uint64_t *kept; /* hashes of pass 0, 8 bytes a function */
};

/* ---- strings ---- */

static const uint64_t *string_hashes(twins *w, uint32_t first, uint32_t n,
                                     int pass, uint64_t *live)
{
    (void)pass;
    for (uint32_t k = 0; k < n; k++) {
        tfmt_str s = tfmt__profile_str(w->p, first + k);
        w->h[k] = text_hash(s.ptr, s.len, 0);
    }
    *live = n == BATCH ? UINT64_MAX : ((uint64_t)1 << n) - 1;
    return w->h;
}

static bool same_string(const twins *w, uint32_t a, uint32_t b)
{
    return !tfmt__pstr_cmp(w->p, a, b);
}

/* ---- functions (in use) ---- */

static uint64_t names_hash(const twins *w, uint32_t fn)
{
    const tfmt_frame *fr = &w->p->frames[w->fn_frame[fn]];
    file_hashes *fh = w->fh;
    uint32_t k = (uint32_t)(fr->filename * 2654435761u) >> 20; /* 12 bits */
    if (fh->id1[k] != fr->filename + 1) {
        tfmt_str a = tfmt__profile_str(w->p, fr->filename);
        fh->hash[k] = text_hash(a.ptr, a.len, 0);
        fh->id1[k] = fr->filename + 1;
    }
    tfmt_str b = tfmt__profile_str(w->p, fr->funcname);
    return text_hash(b.ptr, b.len, fh->hash[k]);
}

/* Pass 1 takes the hashes kept by pass 0: computing them again reads
 * four arrays for each function. */
static const uint64_t *function_hashes(twins *w, uint32_t first, uint32_t n,
                                       int pass, uint64_t *live)
{
    *live = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (!w->used[first + k])
            continue;
        *live |= (uint64_t)1 << k;
        if (pass == 0)
            w->kept[first + k] = names_hash(w, first + k);
    }
    return w->kept + first;
}

static bool same_function(const twins *w, uint32_t f, uint32_t g)
{
    const tfmt_frame *x = &w->p->frames[w->fn_frame[f]];
    const tfmt_frame *y = &w->p->frames[w->fn_frame[g]];
    return !tfmt__pstr_cmp(w->p, x->filename, y->filename) &&
           !tfmt__pstr_cmp(w->p, x->funcname, y->funcname);
}

/* ---- partitions ---- */

/*
 * Items are partitioned by the top bits of their hash (2,000 to 4,000
 * items a partition), each partition's items being an 8-byte entry: the
 * next 32 bits of the hash (its key) and the item. Then each partition's
 * keys go through a set small enough for the L2 cache. Every access is
 * to a cache or in order, where a set or bitmap over all items, probed
 * at random, cost a cache miss an item: 17.5 ms for the 1,050,000
 * functions of bench/jsonl_bench.sh's export, 7 ms this way.
 *
 * A partition first gets a fixed share of the entries, a quarter more
 * than its part of them (ten standard deviations and more), so one pass
 * hashes and places the items. Hashes that fill a share (made to
 * collide, or too little room) are placed again in a layout counted
 * first.
 */
#define PART_ITEMS_LOG2 12
#define MAX_PART_BITS 12

typedef struct parts {
    unsigned bits;   /* partition: the top `bits` bits of a hash */
    uint32_t *start; /* partition k's room: start[k] to start[k + 1] */
    uint32_t *end;   /* its entries: start[k] to end[k] */
    uint64_t *entry; /* key << 32 | item, by partition */
} parts;

static uint32_t part_of(const parts *pt, uint64_t h)
{
    return pt->bits ? (uint32_t)(h >> (64 - pt->bits)) : 0;
}

static uint64_t entry_of(const parts *pt, uint64_t h, uint32_t item)
{
    return (h << pt->bits) >> 32 << 32 | item;
}

static uint32_t batch_size(const twins *w, uint32_t first)
{
    return w->n - first < BATCH ? w->n - first : BATCH;
}

/* How many live items each partition has, in start[k + 1]. */
static void count_parts(twins *w, parts *pt, int pass)
{
    for (uint32_t first = 0; first < w->n; first += BATCH) {
        uint64_t live;
        const uint64_t *h =
            w->hash(w, first, batch_size(w, first), pass, &live);
        for (uint32_t k = 0; k < BATCH; k++)
            if (live >> k & 1)
                pt->start[part_of(pt, h[k]) + 1]++;
    }
}

/* Each live item's entry into its partition; false when an entry found
 * its partition's room full (every hash is taken still: a function's
 * pass 0 keeps them). */
static bool fill_parts(twins *w, parts *pt, int pass)
{
    bool fits = true;
    for (uint32_t first = 0; first < w->n; first += BATCH) {
        uint64_t live;
        const uint64_t *h =
            w->hash(w, first, batch_size(w, first), pass, &live);
        for (uint32_t k = 0; k < BATCH; k++) {
            if (!(live >> k & 1))
                continue;
            uint32_t q = part_of(pt, h[k]);
            if (pt->end[q] == pt->start[q + 1])
                fits = false;
            else
                pt->entry[pt->end[q]++] = entry_of(pt, h[k], first + k);
        }
    }
    return fits;
}

/*
 * A set of one partition's entries by key: a slot holds the entry's
 * position + 1 and its key. Slots of earlier partitions (positions below
 * the partition's start) count as free, so the set is never cleared. At
 * most a quarter of the slots are used, so a probe longer than
 * PROBE_LIMIT slots (about 10^-18 likely a probe for honest hashes) means
 * hashes made to collide. Calling that "may be twins" costs only time:
 * the content walk makes the same table.
 */
#define PROBE_LIMIT 64

typedef struct setslot {
    uint32_t pos1, key;
} setslot;

/* Partition [s, e): 1 when two entries of equal key have equal content
 * (or a probe was too long to tell), else 0. */
static int part_twins(const twins *w, const parts *pt, setslot *set,
                      uint32_t mask, uint32_t s, uint32_t e)
{
    for (uint32_t j = s; j < e; j++) {
        uint32_t key = (uint32_t)(pt->entry[j] >> 32), at = key & mask;
        for (unsigned probes = 0; set[at].pos1 > s; probes++) {
            if (probes == PROBE_LIMIT)
                return 1;
            if (set[at].key == key &&
                w->same(w, (uint32_t)pt->entry[set[at].pos1 - 1],
                        (uint32_t)pt->entry[j]))
                return 1;
            at = (at + 1) & mask;
        }
        set[at] = (setslot){j + 1, key};
    }
    return 0;
}

/* Every partition through one set, sized for the largest at 1/4 load. */
static int scan_parts(const twins *w, const parts *pt)
{
    uint32_t most = 0, nparts = (uint32_t)1 << pt->bits;
    for (uint32_t k = 0; k < nparts; k++)
        if (pt->end[k] - pt->start[k] > most)
            most = pt->end[k] - pt->start[k];
    size_t cap = 16;
    while (cap < 4 * (size_t)most)
        cap *= 2;
    setslot *set = tfmt__calloc_table(w->p->alloc, cap, sizeof *set);
    if (!set)
        return TFMT_ENOMEM;
    int rc = 0;
    for (uint32_t k = 0; k < nparts && !rc; k++)
        rc =
            part_twins(w, pt, set, (uint32_t)cap - 1, pt->start[k], pt->end[k]);
    tfmt__free(w->p->alloc, set);
    return rc;
}

/* Room for the entries in fixed shares, when `room` holds them. */
static bool fixed_shares(const twins *w, parts *pt, uint64_t *room,
                         size_t room_words)
{
    uint32_t nparts = (uint32_t)1 << pt->bits;
    size_t part = w->n >> pt->bits, share = part + part / 4 + 16;
    if (share * nparts > room_words || share * nparts > UINT32_MAX)
        return false;
    for (uint32_t k = 0; k <= nparts; k++)
        pt->start[k] = (uint32_t)(k * share);
    memcpy(pt->end, pt->start, nparts * sizeof *pt->end);
    pt->entry = room;
    return true;
}

/* Room for the entries as counted (pass 0 or 1 of w's hashes). */
static int counted_shares(twins *w, parts *pt, int pass, uint64_t *room,
                          size_t room_words)
{
    uint32_t nparts = (uint32_t)1 << pt->bits;
    memset(pt->start, 0, (nparts + 1) * sizeof *pt->start);
    count_parts(w, pt, pass);
    for (uint32_t k = 0; k < nparts; k++)
        pt->start[k + 1] += pt->start[k];
    memcpy(pt->end, pt->start, nparts * sizeof *pt->end);
    size_t live = pt->start[nparts];
    pt->entry = live <= room_words
                    ? room
                    : tfmt__malloc_table(w->p->alloc, live, sizeof *pt->entry);
    return pt->entry ? TFMT_OK : TFMT_ENOMEM;
}

/*
 * Whether two of w's items may be equal (1), or not (0); TFMT_ENOMEM.
 * room: scratch of room_words 8-byte words for the entries (allocated
 * when too small).
 */
static int find_twins(twins *w, uint64_t *room, size_t room_words)
{
    parts pt = {0, NULL, NULL, NULL};
    while (pt.bits < MAX_PART_BITS && (w->n >> (pt.bits + PART_ITEMS_LOG2)) > 0)
        pt.bits++;
    uint32_t nparts = (uint32_t)1 << pt.bits;
    pt.start =
        tfmt__malloc(w->p->alloc, (2 * (size_t)nparts + 1) * sizeof *pt.start);
    if (!pt.start)
        return TFMT_ENOMEM;
    pt.end = pt.start + nparts + 1;
    int rc = TFMT_OK;
    bool fixed = fixed_shares(w, &pt, room, room_words);
    if (!fixed || !fill_parts(w, &pt, 0)) {
        /* pass 1 takes the hashes that a function's pass 0 kept */
        rc = counted_shares(w, &pt, fixed ? 1 : 0, room, room_words);
        if (rc == TFMT_OK)
            fill_parts(w, &pt, 1);
    }
    if (rc == TFMT_OK)
        rc = scan_parts(w, &pt);
    if (pt.entry != room)
        tfmt__free(w->p->alloc, pt.entry);
    tfmt__free(w->p->alloc, pt.start);
    return rc;
}

/* Which functions have a frame an export listed (the frames in use). */
static uint8_t *used_functions(const tfmt_profile *p, const uint32_t *ffn,
                               uint32_t nfn)
{
    uint8_t *used = tfmt__calloc_table(p->alloc, (size_t)nfn + 1, 1);
    for (size_t f = 0; used && f < p->naggs && f < p->nframes; f++)
        if (p->agg_listed[f])
            used[ffn[f]] = 1;
    return used;
}

static int function_twins(const tfmt_profile *p, const uint32_t *ffn,
                          const uint32_t *fn_frame, uint32_t nfn,
                          uint64_t *room)
{
    twins w = {.p = p,
               .n = nfn,
               .hash = function_hashes,
               .same = same_function,
               .fn_frame = fn_frame,
               .kept = room};
    uint8_t *used = used_functions(p, ffn, nfn);
    file_hashes *fh = tfmt__calloc(p->alloc, 1, sizeof *fh);
    int rc = TFMT_ENOMEM;
    if (used && fh) {
        w.used = used;
        w.fh = fh;
        rc = find_twins(&w, room + nfn, nfn);
    }
    tfmt__free(p->alloc, fh);
    tfmt__free(p->alloc, used);
    return rc;
}

int tfmt__top_twins(const tfmt_profile *p, const uint32_t *ffn,
                    const uint32_t *fn_frame, uint32_t nfn, uint64_t *room)
{
    if (!p->appended)
        return 0;
    twins strings = {.p = p,
                     .n = (uint32_t)p->nstrings,
                     .hash = string_hashes,
                     .same = same_string};
    int rc = find_twins(&strings, room, 2 * (size_t)nfn);
    return rc == 1 ? function_twins(p, ffn, fn_frame, nfn, room) : rc;
}
