/* SPDX-License-Identifier: MIT */
/*
 * profile.c - the aggregated profile: interning of strings, frames and
 * threads, and the call tree that counts sample weights (see
 * profile_internal.h for the layout). Binary logs are streamed in by
 * profile_bin.c; the exporters live in the export layer.
 */
#include "profile_internal.h"
#include "json_escape.h"

#define STRING_SEED 0x7461636879736eULL

int tfmt_profile_new(tfmt_profile **out, const tfmt_profile_options *opts)
{
    tfmt_profile_options o;
    memset(&o, 0, sizeof o);
    o.version = TFMT_PROFILE_OPTIONS_VERSION;
    /* A version 1 struct ends before split_status, a version 2 one before
     * shared_tree, a version 3 one before thread_leaves. */
    if (opts && opts->version < 2)
        memcpy(&o, opts, offsetof(tfmt_profile_options, split_status));
    else if (opts && opts->version < 3)
        memcpy(&o, opts, offsetof(tfmt_profile_options, shared_tree));
    else if (opts && opts->version < 4)
        memcpy(&o, opts, offsetof(tfmt_profile_options, thread_leaves));
    else if (opts)
        o = *opts;
    if (!o.shared_tree)
        o.thread_leaves = false; /* a tree per thread says it all */
    *out = NULL;
    tfmt_profile *p = tfmt__calloc(o.alloc, 1, sizeof *p);
    if (!p)
        return TFMT_ENOMEM;
    p->alloc = o.alloc;
    p->opts = o;
    tfmt__buf_init(&p->strbuf, o.alloc);
    tfmt__buf_init(&p->scratch, o.alloc);
    tfmt__idset_init(&p->string_set, o.alloc);
    tfmt__idset_init(&p->frame_set, o.alloc);
    tfmt__idset_init(&p->thread_set, o.alloc);
    p->mode = TFMT_MODE_UNKNOWN;
    p->trunc_frame = TFMT_NO_ID;
    p->par_threads = 1; /* a library starts no threads unless asked */
    p->tl_spool.alloc = o.alloc;
    tfmt__buf_init(&p->tl_spool.rd, o.alloc);
    if (o.nthread_ids) {
        p->tid_seen = tfmt__calloc(o.alloc, o.nthread_ids, sizeof(bool));
        if (!p->tid_seen) {
            tfmt__free(o.alloc, p);
            return TFMT_ENOMEM;
        }
    }
    p->report.thread_seen = p->tid_seen;
    *out = p;
    return TFMT_OK;
}

void tfmt_profile_free(tfmt_profile *p)
{
    if (!p)
        return;
    tfmt__buf_free(&p->strbuf);
    tfmt__buf_free(&p->scratch);
    tfmt__free(p->alloc, p->str_bound);
    tfmt__free(p->alloc, p->frames);
    tfmt__free(p->alloc, p->nodes);
    for (size_t i = 0; i < p->nthreads; i++)
        tfmt__sstream_free(p->alloc, &p->threads[i].tl);
    tfmt__spool_free(&p->tl_spool);
    tfmt__free(p->alloc, p->threads);
    tfmt__free(p->alloc, p->node_slots);
    tfmt__tleaf_free(p);
    tfmt__free(p->alloc, p->aggs);
    tfmt__free(p->alloc, p->agg_listed);
    tfmt__free(p->alloc, p->tid_seen);
    tfmt__idset_free(&p->string_set);
    tfmt__idset_free(&p->frame_set);
    tfmt__idset_free(&p->thread_set);
    tfmt__free(p->alloc, p);
}

uint64_t tfmt_profile_samples(const tfmt_profile *p)
{
    return p->samples_total;
}

void tfmt_profile_filter_report(const tfmt_profile *p, tfmt_filter_report *out)
{
    *out = p->report;
    /* JSONL exports come only without sample filters: not in `read` */
    out->kept = p->samples_total - p->agg_samples;
}

uint64_t tfmt_profile_interval_us(const tfmt_profile *p)
{
    return p->interval_us;
}

int tfmt_profile_mode(const tfmt_profile *p)
{
    return p->mode;
}

const tfmt_error *tfmt_profile_error(const tfmt_profile *p)
{
    return &p->err;
}

static int nomem(tfmt_profile *p)
{
    return tfmt__error(&p->err, TFMT_ENOMEM, "out of memory");
}

/* ---- strings ---- */

typedef struct strkey {
    const char *s;
    size_t len;
} strkey;

static bool string_eq(const void *ctx, uint32_t id, const void *key)
{
    const tfmt_profile *p = ctx;
    const strkey *k = key;
    tfmt_str s = tfmt__profile_str(p, id);
    return s.len == k->len && memcmp(s.ptr, k->s, k->len) == 0;
}

/* Store a string without indexing it; *out = its id. */
/* Store a string where room for its entry and bytes was made already. */
static inline bool store_reserved(tfmt_profile *p, const char *s, size_t len,
                                  uint32_t *out)
{
    if (len > UINT32_MAX || p->nstrings >= TFMT_NO_ID - 1 ||
        p->nstrings + 2 > p->capstrings || len > p->strbuf.cap - p->strbuf.len)
        return false;
    uint32_t id = (uint32_t)p->nstrings++;
    memcpy(p->strbuf.data + p->strbuf.len, s, len);
    p->strbuf.len += len;
    p->str_bound[id] = p->strbuf.len - len;
    p->str_bound[id + 1] = p->strbuf.len;
    *out = id;
    return true;
}

static int store_string(tfmt_profile *p, const char *s, size_t len,
                        uint32_t *out)
{
    /* Ids from UINT32_MAX - 1 up are the import maps' sentinels. */
    if (len > UINT32_MAX || p->nstrings >= TFMT_NO_ID - 1)
        return tfmt__error(&p->err, TFMT_ELIMIT, "too many strings");
    if (tfmt__grow(p->alloc, (void **)&p->str_bound, &p->capstrings,
                   p->nstrings + 2, sizeof *p->str_bound) != TFMT_OK)
        return nomem(p);
    uint32_t id = (uint32_t)p->nstrings;
    uint64_t off = p->strbuf.len;
    if (tfmt__buf_put(&p->strbuf, s, len) != TFMT_OK)
        return nomem(p);
    p->str_bound[id] = off;
    p->str_bound[id + 1] = p->strbuf.len;
    p->nstrings++;
    *out = id;
    return TFMT_OK;
}

static int add_string(tfmt_profile *p, const char *s, size_t len, uint64_t h,
                      uint32_t *out)
{
    int rc = store_string(p, s, len, out);
    if (rc == TFMT_OK && tfmt__idset_insert(&p->string_set, h, *out) < 0)
        return nomem(p);
    return rc;
}

/* `s` as Python decodes it: invalid UTF-8 repaired into p->scratch. */
static int decoded(tfmt_profile *p, const char **s, size_t *len)
{
    if (tfmt__utf8_valid(*s, *len))
        return TFMT_OK;
    p->scratch.len = 0;
    if (tfmt__utf8_repair(&p->scratch, *s, *len) != TFMT_OK)
        return nomem(p);
    *s = p->scratch.data;
    *len = p->scratch.len;
    return TFMT_OK;
}

/* Intern valid UTF-8 `s` whose hash is `h`. */
static int intern_hashed(tfmt_profile *p, const char *s, size_t len, uint64_t h,
                         uint32_t *out)
{
    strkey k = {s, len};
    uint32_t id = tfmt__idset_find(&p->string_set, h, &k, string_eq, p);
    if (id != TFMT_NO_ID) {
        *out = id;
        return TFMT_OK;
    }
    return add_string(p, s, len, h, out);
}

int tfmt__profile_intern_string(tfmt_profile *p, const char *s, size_t len,
                                uint32_t *out)
{
    /* Store what Python would decode: repair invalid UTF-8 first. */
    int rc = tfmt__profile_index(p);
    if (rc == TFMT_OK)
        rc = decoded(p, &s, &len);
    if (rc != TFMT_OK)
        return rc;
    return intern_hashed(p, s, len, tfmt__hash_text(s, len, STRING_SEED), out);
}

#define BATCH 16

int tfmt__profile_intern_strings(tfmt_profile *p, const tfmt_str *s, size_t n,
                                 uint32_t *out)
{
    int irc = tfmt__profile_index(p);
    if (irc != TFMT_OK)
        return irc;
    for (size_t i = 0; i < n; i += BATCH) {
        size_t m = n - i < BATCH ? n - i : BATCH;
        uint64_t h[BATCH];
        bool ok[BATCH];
        for (size_t j = 0; j < m; j++) {
            ok[j] = tfmt__utf8_valid(s[i + j].ptr, s[i + j].len);
            h[j] = tfmt__hash_text(s[i + j].ptr, s[i + j].len, STRING_SEED);
            tfmt__idset_prefetch(&p->string_set, h[j]);
        }
        for (size_t j = 0; j < m; j++) {
            const tfmt_str *x = &s[i + j];
            int rc = ok[j] ? intern_hashed(p, x->ptr, x->len, h[j], &out[i + j])
                           : tfmt__profile_intern_string(p, x->ptr, x->len,
                                                         &out[i + j]);
            if (rc != TFMT_OK)
                return rc;
        }
    }
    return TFMT_OK;
}

/* ---- frames ---- */

static bool frame_eq(const void *ctx, uint32_t id, const void *key)
{
    return tfmt__frame_same(&((const tfmt_profile *)ctx)->frames[id], key);
}

static int intern_frame_hashed(tfmt_profile *p, const tfmt_frame *f, uint64_t h,
                               uint32_t *out)
{
    uint32_t id = tfmt__idset_find(&p->frame_set, h, f, frame_eq, p);
    if (id != TFMT_NO_ID) {
        *out = id;
        return TFMT_OK;
    }
    if (p->nframes >= TFMT_NO_ID - 1)
        return tfmt__error(&p->err, TFMT_ELIMIT, "too many frames");
    if (tfmt__grow(p->alloc, (void **)&p->frames, &p->capframes, p->nframes + 1,
                   sizeof *p->frames) != TFMT_OK)
        return nomem(p);
    id = (uint32_t)p->nframes;
    if (tfmt__idset_insert(&p->frame_set, h, id) != TFMT_OK)
        return nomem(p);
    p->frames[id] = *f;
    p->nframes++;
    *out = id;
    return TFMT_OK;
}

int tfmt__profile_trunc_frame(tfmt_profile *p, uint32_t *out)
{
    if (p->trunc_frame == TFMT_NO_ID) {
        tfmt_frame f = {0,
                        0,
                        TFMT_NO_LOCATION,
                        TFMT_NO_LOCATION,
                        TFMT_NO_LOCATION,
                        TFMT_NO_LOCATION,
                        TFMT_NO_OPCODE};
        int rc = tfmt__profile_intern_string(p, "~", 1, &f.filename);
        if (rc == TFMT_OK)
            rc = tfmt__profile_intern_string(p, "<truncated>", 11, &f.funcname);
        if (rc == TFMT_OK)
            rc = tfmt__profile_intern_frame(p, &f, &p->trunc_frame);
        if (rc != TFMT_OK)
            return rc;
    }
    *out = p->trunc_frame;
    return TFMT_OK;
}

int tfmt__profile_intern_frame(tfmt_profile *p, const tfmt_frame *f,
                               uint32_t *out)
{
    int rc = tfmt__profile_index(p);
    if (rc != TFMT_OK)
        return rc;
    return intern_frame_hashed(p, f, tfmt__frame_hash(f), out);
}

int tfmt__profile_intern_frames(tfmt_profile *p, const tfmt_frame *f, size_t n,
                                uint32_t *out)
{
    int irc = tfmt__profile_index(p);
    if (irc != TFMT_OK)
        return irc;
    for (size_t i = 0; i < n; i += BATCH) {
        size_t m = n - i < BATCH ? n - i : BATCH;
        uint64_t h[BATCH];
        for (size_t j = 0; j < m; j++) {
            h[j] = tfmt__frame_hash(&f[i + j]);
            tfmt__idset_prefetch(&p->frame_set, h[j]);
        }
        for (size_t j = 0; j < m; j++) {
            int rc = intern_frame_hashed(p, &f[i + j], h[j], &out[i + j]);
            if (rc != TFMT_OK)
                return rc;
        }
    }
    return TFMT_OK;
}

/* ---- tables without their index (a first JSONL export) ---- */

int tfmt__profile_append_strings(tfmt_profile *p, const tfmt_str *s, size_t n,
                                 bool valid, uint32_t *out)
{
    /* Room for the batch at once (a repaired string may need more). */
    size_t bytes = 0;
    for (size_t j = 0; j < n; j++)
        bytes += s[j].len;
    if (tfmt__grow(p->alloc, (void **)&p->str_bound, &p->capstrings,
                   p->nstrings + n + 1, sizeof *p->str_bound) != TFMT_OK ||
        tfmt__buf_reserve(&p->strbuf, bytes) != TFMT_OK)
        return nomem(p);
    for (size_t j = 0; j < n; j++) {
        const char *x = s[j].ptr;
        size_t len = s[j].len;
        int rc = valid ? TFMT_OK : decoded(p, &x, &len);
        if (rc == TFMT_OK && !store_reserved(p, x, len, &out[j]))
            rc = store_string(p, x, len, &out[j]);
        if (rc != TFMT_OK)
            return rc;
    }
    p->appended = true;
    p->unindexed = true;
    return TFMT_OK;
}

int tfmt__profile_append_frames(tfmt_profile *p, const tfmt_frame *f, size_t n,
                                uint32_t *out)
{
    if (p->nframes + n >= TFMT_NO_ID - 1)
        return tfmt__error(&p->err, TFMT_ELIMIT, "too many frames");
    if (tfmt__grow(p->alloc, (void **)&p->frames, &p->capframes, p->nframes + n,
                   sizeof *p->frames) != TFMT_OK)
        return nomem(p);
    for (size_t j = 0; j < n; j++) {
        out[j] = (uint32_t)p->nframes;
        p->frames[p->nframes++] = f[j];
    }
    p->unindexed = true;
    return TFMT_OK;
}

/*
 * Index every string and frame, the first of equal ones winning; a batch
 * of probes is prefetched at a time. A table's entries are named by id:
 * `hash` gives an entry's hash, `key` the key its set's `eq` takes (a
 * string's is built in *tmp). Inline, so that both calls are inlined with
 * their callbacks, as the two loops were before they were one.
 */
typedef uint64_t (*entry_hash)(const tfmt_profile *p, uint32_t id);
typedef const void *(*entry_key)(const tfmt_profile *p, uint32_t id,
                                 strkey *tmp);

static inline int index_table(tfmt_profile *p, tfmt_idset *set, size_t n,
                              entry_hash hash, entry_key key, tfmt_idset_eq eq)
{
    for (size_t i = 0; i < n; i += BATCH) {
        size_t m = n - i < BATCH ? n - i : BATCH;
        uint64_t h[BATCH];
        for (size_t j = 0; j < m; j++) {
            h[j] = hash(p, (uint32_t)(i + j));
            tfmt__idset_prefetch(set, h[j]);
        }
        for (size_t j = 0; j < m; j++) {
            uint32_t id = (uint32_t)(i + j);
            strkey tmp;
            if (tfmt__idset_find(set, h[j], key(p, id, &tmp), eq, p) ==
                    TFMT_NO_ID &&
                tfmt__idset_insert(set, h[j], id) != TFMT_OK)
                return nomem(p);
        }
    }
    return TFMT_OK;
}

static uint64_t string_hash_at(const tfmt_profile *p, uint32_t id)
{
    tfmt_str x = tfmt__profile_str(p, id);
    return tfmt__hash_text(x.ptr, x.len, STRING_SEED);
}

static const void *string_key_at(const tfmt_profile *p, uint32_t id,
                                 strkey *tmp)
{
    tfmt_str x = tfmt__profile_str(p, id);
    *tmp = (strkey){x.ptr, x.len};
    return tmp;
}

static uint64_t frame_hash_at(const tfmt_profile *p, uint32_t id)
{
    return tfmt__frame_hash(&p->frames[id]);
}

static const void *frame_key_at(const tfmt_profile *p, uint32_t id, strkey *tmp)
{
    return &p->frames[id];
}

int tfmt__profile_index(tfmt_profile *p)
{
    if (!p->unindexed)
        return TFMT_OK;
    tfmt__idset_free(&p->string_set);
    tfmt__idset_free(&p->frame_set);
    if (tfmt__idset_reserve(&p->string_set, p->nstrings) != TFMT_OK ||
        tfmt__idset_reserve(&p->frame_set, p->nframes) != TFMT_OK)
        return nomem(p);
    int rc = index_table(p, &p->string_set, p->nstrings, string_hash_at,
                         string_key_at, string_eq);
    if (rc == TFMT_OK)
        rc = index_table(p, &p->frame_set, p->nframes, frame_hash_at,
                         frame_key_at, frame_eq);
    if (rc == TFMT_OK)
        p->unindexed = false;
    return rc;
}

/* ---- nodes and threads ---- */

/*
 * Nodes are found by (parent, frame) in an open-addressing table whose
 * slots hold the id and a tag of the key's hash: a miss costs the slot's
 * cache line, a hit the node's too (this is the hot path of every changed
 * frame).
 */
static inline uint32_t node_find(const tfmt_profile *p, uint32_t parent,
                                 uint32_t frame, size_t *slot)
{
    uint64_t key = ((uint64_t)parent << 32) | frame;
    uint32_t tag = tfmt__profile_tag(key);
    size_t mask = p->node_cap - 1;
    size_t i = tfmt__profile_slot(p, key);
    for (;; i = (i + 1) & mask) {
        const tfmt_pslot *s = &p->node_slots[i];
        if (s->id == TFMT_NO_ID ||
            tfmt__profile_slot_is(p, s, tag, parent, frame))
            break;
    }
    *slot = i;
    return p->node_slots[i].id;
}

/* Put node `id` (not a root) in the first free slot of its probe run. */
static void node_put(tfmt_profile *p, uint32_t id)
{
    const tfmt_pnode *n = &p->nodes[id];
    uint64_t key = ((uint64_t)n->parent << 32) | n->frame;
    size_t j = tfmt__profile_slot(p, key);
    while (p->node_slots[j].id != TFMT_NO_ID)
        j = (j + 1) & (p->node_cap - 1);
    p->node_slots[j].id = id;
    p->node_slots[j].tag = tfmt__profile_tag(key);
}

static int new_node(tfmt_profile *p, uint32_t parent, uint32_t frame,
                    uint32_t thread, uint32_t *out)
{
    if (p->nnodes >= TFMT_NO_ID)
        return tfmt__error(&p->err, TFMT_ELIMIT, "too many call paths");
    if (p->nnodes == p->capnodes &&
        tfmt__grow(p->alloc, (void **)&p->nodes, &p->capnodes, p->nnodes + 1,
                   sizeof *p->nodes) != TFMT_OK)
        return nomem(p);
    uint32_t id = (uint32_t)p->nnodes++;
    tfmt_pnode *n = &p->nodes[id];
    n->parent = parent;
    n->frame = frame;
    n->thread = thread;
    n->depth = parent == TFMT_NO_ID ? 0 : p->nodes[parent].depth + 1;
    n->self = 0;
    n->leaf_seq = TFMT_NO_ID;
    n->pair = TFMT_NO_ID;
    *out = id;
    return TFMT_OK;
}

static void drop_node_index(tfmt_profile *p)
{
    tfmt__free(p->alloc, p->node_slots);
    p->node_slots = NULL;
    p->node_cap = p->node_count = 0;
}

void tfmt__profile_drop_index(tfmt_profile *p)
{
    drop_node_index(p);
    tfmt__tleaf_drop_index(p);
}

/*
 * Build the node index with `ncap` slots (a power of two) from the nodes
 * themselves, in id order: every node but the roots is indexed whenever
 * the table exists. The old table is freed first, so old and new are
 * never held together; on failure the index stays dropped.
 */
static int node_index(tfmt_profile *p, size_t ncap)
{
    drop_node_index(p);
    /* Check before multiplying: the product must not wrap. */
    if (ncap > SIZE_MAX / 2 / sizeof(tfmt_pslot))
        return TFMT_ENOMEM;
    tfmt_pslot *ns = tfmt__malloc_table(p->alloc, ncap, sizeof *ns);
    if (!ns)
        return TFMT_ENOMEM;
    for (size_t i = 0; i < ncap; i++) {
        ns[i].id = TFMT_NO_ID;
        ns[i].tag = 0;
    }
    p->node_slots = ns;
    p->node_cap = ncap;
    p->node_shift = 64 - (unsigned)__builtin_ctzll((unsigned long long)ncap);
    for (size_t i = 0; i < p->nnodes; i++) {
        if (p->nodes[i].parent == TFMT_NO_ID)
            continue;
        node_put(p, (uint32_t)i);
        p->node_count++;
    }
    return TFMT_OK;
}

/* Room in the index for one more node, the load kept at most 1/2: built
   (after tfmt__profile_drop_index) or at least doubled when needed. */
static int node_room(tfmt_profile *p)
{
    if (p->node_cap && (p->node_count + 1) * 2 <= p->node_cap)
        return TFMT_OK;
    size_t cap = 1024;
    while (cap < 2 * (p->nnodes + 1))
        cap *= 2;
    return node_index(p, cap);
}

/* The child of `parent` for `frame`, created when absent. */
int tfmt__profile_child_slow(tfmt_profile *p, uint32_t parent, uint32_t frame,
                             uint32_t *out)
{
    size_t slot;
    if (node_room(p) != TFMT_OK)
        return nomem(p);
    uint32_t id = node_find(p, parent, frame, &slot);
    if (id != TFMT_NO_ID) {
        *out = id;
        return TFMT_OK;
    }
    int rc = new_node(p, parent, frame, p->nodes[parent].thread, &id);
    if (rc != TFMT_OK)
        return rc;
    p->node_slots[slot].id = id;
    p->node_slots[slot].tag =
        tfmt__profile_tag(((uint64_t)parent << 32) | frame);
    p->node_count++;
    *out = id;
    return TFMT_OK;
}

typedef struct threadkey {
    uint64_t thread_id;
    uint32_t interpreter_id;
    uint8_t status;
} threadkey;

static bool thread_eq(const void *ctx, uint32_t id, const void *key)
{
    const tfmt_pthread *t = &((const tfmt_profile *)ctx)->threads[id];
    const threadkey *k = key;
    return t->thread_id == k->thread_id &&
           t->interpreter_id == k->interpreter_id && t->status == k->status;
}

static int add_thread(tfmt_profile *p, const threadkey *k, uint64_t h,
                      uint32_t *out)
{
    if (tfmt__grow(p->alloc, (void **)&p->threads, &p->capthreads,
                   p->nthreads + 1, sizeof *p->threads) != TFMT_OK)
        return nomem(p);
    uint32_t id = (uint32_t)p->nthreads;
    /* With a shared tree, later threads borrow the first thread's root. */
    bool own = !p->opts.shared_tree || id == 0;
    uint32_t root = own ? TFMT_NO_ID : p->threads[0].root;
    int rc = own ? new_node(p, TFMT_NO_ID, TFMT_NO_ID, id, &root) : TFMT_OK;
    if (rc != TFMT_OK)
        return rc;
    if (tfmt__idset_insert(&p->thread_set, h, id) != TFMT_OK) {
        /* Drop the root just appended: no thread would own it. */
        p->nnodes -= own;
        return nomem(p);
    }
    tfmt_pthread *t = &p->threads[id];
    memset(t, 0, sizeof *t);
    t->thread_id = k->thread_id;
    t->interpreter_id = k->interpreter_id;
    t->status = k->status;
    t->root = root;
    p->nthreads++;
    *out = id;
    return TFMT_OK;
}

/*
 * Profile thread index of (thread_id, interpreter_id, status), created if
 * new; status is 0 unless the profile splits by status.
 */
int tfmt__profile_thread(tfmt_profile *p, uint64_t thread_id,
                         uint32_t interpreter_id, uint8_t status, uint32_t *out)
{
    if (!p->opts.split_status)
        status = 0;
    threadkey k = {thread_id, interpreter_id, status};
    uint64_t h = tfmt__hash_key(thread_id) ^
                 tfmt__hash_mix(((uint64_t)status << 32 | interpreter_id) + 1);
    uint32_t id = tfmt__idset_find(&p->thread_set, h, &k, thread_eq, p);
    if (id != TFMT_NO_ID) {
        *out = id;
        return TFMT_OK;
    }
    return add_thread(p, &k, h, out);
}

int tfmt__profile_count_paired(tfmt_profile *p, uint32_t thread, uint32_t leaf,
                               uint64_t weight)
{
    int rc = tfmt__tleaf_add(p, thread, leaf, weight);
    if (rc != TFMT_OK)
        return rc;
    tfmt__profile_count_leaf(p, leaf, weight);
    p->threads[thread].samples += weight;
    return TFMT_OK;
}

int tfmt__profile_add_stack_at(tfmt_profile *p, uint64_t thread_id,
                               uint32_t interpreter_id, uint8_t status,
                               const uint32_t *stack, uint32_t depth,
                               uint64_t weight, uint32_t *thread,
                               uint32_t *leaf)
{
    *thread = *leaf = TFMT_NO_ID;
    /* CPython's collectors never count an empty stack. */
    if (depth == 0 || weight == 0)
        return TFMT_OK;
    int rc = tfmt__profile_thread(p, thread_id, interpreter_id, status, thread);
    if (rc != TFMT_OK)
        return rc;
    uint32_t node = p->threads[*thread].root;
    for (uint32_t i = 0; i < depth; i++) {
        if (stack[i] >= p->nframes)
            return tfmt__error(&p->err, TFMT_EINVAL, "frame id out of range");
        rc = tfmt__profile_child(p, node, stack[i], &node);
        if (rc != TFMT_OK)
            return rc;
    }
    *leaf = node;
    return tfmt__profile_count(p, *thread, node, weight);
}

int tfmt__profile_add_stack(tfmt_profile *p, uint64_t thread_id,
                            uint32_t interpreter_id, const uint32_t *stack,
                            uint32_t depth, uint64_t weight)
{
    return tfmt__profile_add_status(p, thread_id, interpreter_id, 0, stack,
                                    depth, weight);
}

int tfmt__profile_add_status(tfmt_profile *p, uint64_t thread_id,
                             uint32_t interpreter_id, uint8_t status,
                             const uint32_t *stack, uint32_t depth,
                             uint64_t weight)
{
    uint32_t thread, leaf;
    return tfmt__profile_add_stack_at(p, thread_id, interpreter_id, status,
                                      stack, depth, weight, &thread, &leaf);
}
