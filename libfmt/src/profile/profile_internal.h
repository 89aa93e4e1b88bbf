/* SPDX-License-Identifier: MIT */
/*
 * profile_internal.h - the layout of tfmt_profile, shared by profile.c (which
 * builds it) and the exporters (profile_jsonl.c, profile_collapsed.c and the
 * viewer formats), which only read it.
 *
 * The profile is a call tree. Each node is one call path: (parent node,
 * frame), under a root node per thread. A node's `self` is the weight of the
 * samples whose stack ended exactly there. Nodes are appended, so a parent's
 * id is always smaller than its children's: a reverse loop over node ids is
 * a bottom-up traversal, and subtree totals need no recursion. With
 * opts.shared_tree every thread borrows the first thread's root (for the
 * writers that do not tell threads apart): a walk from the roots must then
 * take a root once, from the thread that owns it (tfmt__profile_owns_root).
 *
 * Frames are interned on all seven fields (with profile string ids), in the
 * order in which samples first show them, innermost first within a sample:
 * the order CPython's collectors assign ids in. Strings are interned by
 * content in the order frames first need them (filename, then funcname).
 * Strings are stored as CPython sees them after decoding: invalid UTF-8 is
 * replaced by U+FFFD (Python's "replace" rule) when a string is interned,
 * so profile strings are always valid UTF-8 and two byte strings that
 * decode alike are one string.
 *
 * Counting follows CPython's StackTraceCollector: empty stacks are never
 * counted, and with skip_idle a sample without HAS_GIL or ON_CPU is not
 * (profile_filter.c adds tachyon's own filters). A frame no node uses can
 * exist (interned for a sample a stack filter then dropped): exporters
 * that list frames should skip it, as profile_jsonl.c does.
 */
#ifndef TFMT_PROFILE_INTERNAL_H
#define TFMT_PROFILE_INTERNAL_H

#include <tachyon/fmt_profile.h>

#include "internal.h"
#include "spool.h"

#define TFMT_NO_ID UINT32_MAX

typedef struct tfmt_pnode {
    uint32_t parent;   /* TFMT_NO_ID for a thread root */
    uint32_t frame;    /* profile frame id; TFMT_NO_ID for roots */
    uint32_t thread;   /* index into profile.threads (of the
                          root's owner with opts.shared_tree) */
    uint32_t depth;    /* 0 for roots, 1 for outermost frames */
    uint64_t self;     /* weight of samples ending here */
    uint32_t leaf_seq; /* order in which nodes first got self > 0
                          (TFMT_NO_ID while self == 0): the
                          first-seen order of Python's Counters */
    uint32_t pair;     /* opts.thread_leaves (in what was padding):
                          the one thread that counted this leaf,
                          or TFMT_PAIR_TABLE, or TFMT_NO_ID */
} tfmt_pnode;

/* tfmt_pnode.pair of a leaf that several threads counted: their counts
   are in the profile's pair table (profile_leaves.c). */
#define TFMT_PAIR_TABLE (TFMT_NO_ID - 1)

/*
 * A node-table slot: node `id` (TFMT_NO_ID = empty) and 32 bits of its
 * key's hash, so that a probe reads the node (to compare parent and frame)
 * only when those bits match: 8 bytes a slot, not 16, for one node read
 * per hit.
 */
typedef struct tfmt_pslot {
    uint32_t id;
    uint32_t tag;
} tfmt_pslot;

/* The open run of a thread's timeline (profile_timeline.c). */
typedef struct tfmt_prun {
    bool open;
    uint32_t node;        /* leaf node; TFMT_NO_ID: not counted */
    uint64_t start, last; /* timestamps of its first and last sample */
    uint64_t n;           /* samples in the run */
} tfmt_prun;

/*
 * The per-frame totals of the JSONL exports added (profile_agg.c). JSONL
 * has no stacks, so these counts sit beside the call tree: a writer of
 * per-frame or per-function figures adds them to what it counts on the
 * tree (the samples are disjoint), and writers that need stacks refuse a
 * profile that has any (tfmt_profile_has_jsonl).
 */
typedef struct tfmt_pagg {
    uint64_t self, cum; /* summed over the exports (frames that a
                           rewrite or the v1 dialect's twins merge
                           have their cum summed; writers cap it
                           at the exports' samples) */
} tfmt_pagg;

/*
 * With opts.thread_leaves (profile_leaves.c): the weight of the samples
 * of one thread whose stack ended at one node of the shared tree, for
 * the leaves that more than one thread counted. Pairs are appended as
 * they come, the first pair of a leaf being its owner's (the thread
 * that counted it first).
 */
typedef struct tfmt_ptleaf {
    uint32_t thread, node;
    uint64_t self;
} tfmt_ptleaf;

typedef struct tfmt_pthread {
    uint64_t thread_id;
    uint32_t interpreter_id;
    uint8_t status;   /* the samples' status byte with
                         opts.split_status, else 0 */
    uint32_t root;    /* node id of this thread's root */
    uint64_t samples; /* weight counted in this thread */
    tfmt_sstream tl;  /* timeline runs (opts.timeline) */
    tfmt_prun run;
    uint64_t tl_weight; /* sum of the weights written to tl */
} tfmt_pthread;

struct tfmt_profile {
    const tfmt_allocator *alloc;
    tfmt_profile_options opts;
    tfmt_error err;

    tfmt_buf strbuf; /* string bytes, back to back in id order */
    /* String id is strbuf's bytes [str_bound[id], str_bound[id + 1]):
     * nstrings + 1 offsets, 8 bytes a string (capstrings counts them). */
    uint64_t *str_bound;
    size_t nstrings, capstrings;
    tfmt_idset string_set;

    tfmt_frame *frames; /* filename/funcname are profile ids */
    size_t nframes, capframes;
    tfmt_idset frame_set;

    tfmt_pnode *nodes;
    size_t nnodes, capnodes;

    tfmt_pthread *threads;
    size_t nthreads, capthreads;
    tfmt_idset thread_set; /* keyed on (thread_id, interpreter_id,
                              status) */

    uint64_t samples_total; /* counted weight */
    uint64_t interval_us;
    int mode;                  /* tfmt_mode */
    bool have_input;           /* interval/mode were set by an input */
    uint8_t python_version[3]; /* of the first binary log (0.0.0: none) */
    bool python_mixed;         /* a later log had another major.minor */
    tfmt_stats stats;          /* of the first input, if it had any */
    uint64_t start_time_us;    /* of the first input */

    tfmt_spool tl_spool;  /* the timelines' file (opts.timeline) */
    uint32_t trunc_frame; /* the "<truncated>" frame; TFMT_NO_ID
                             until first needed */

    tfmt_pagg *aggs;     /* per frame below naggs; NULL: no JSONL */
    uint8_t *agg_listed; /* per frame below naggs: an export listed
                            it (1), else 0 */
    size_t naggs, capaggs, caplisted;
    uint32_t agg_inputs;  /* JSONL exports added */
    uint64_t agg_samples; /* their samples_total, summed (also in
                             samples_total) */

    uint32_t nleaves;              /* next tfmt_pnode.leaf_seq */
    struct tfmt_pslot *node_slots; /* open addressing on (parent, frame) */
    size_t node_cap, node_count;
    unsigned node_shift;       /* 64 - log2(node_cap) */
    tfmt_buf scratch;          /* string repair space */
    tfmt_filter_report report; /* kept: filled on request */
    bool *tid_seen;            /* per opts.thread_ids entry */
    bool unindexed;            /* string_set and frame_set not built yet
                                  (tfmt__profile_append_*) */
    bool appended;             /* strings were appended unchecked, so two
                                  may have equal content (the index keeps
                                  them apart) */
    tfmt_ptleaf *tleaves;      /* opts.thread_leaves */
    size_t ntleaves, captleaves;
    tfmt_pslot *tleaf_slots; /* open addressing on (thread, node) */
    size_t tleaf_cap;
    unsigned tleaf_shift;
    uint32_t *tleaf_mark; /* per leaf_seq from mark_base: pairs in the
                             table when the leaf was first counted
                             (what came before it); 0 below */
    size_t capmarks;
    uint32_t mark_base;      /* leaves counted before the first pair */
    unsigned par_threads;    /* tfmt_profile_set_threads */
    size_t par_parts;        /* parts of the last binary log added, 0:
                                it was read whole (for tests) */
    uint64_t par_part_bytes; /* tests: the part size to aim at (0: the
                                automatic size, profile_par.c) */
};

/* Borrow profile string `id`. */
static inline tfmt_str tfmt__profile_str(const tfmt_profile *p, uint32_t id)
{
    uint64_t off = p->str_bound[id];
    tfmt_str s = {p->strbuf.data + off, (size_t)(p->str_bound[id + 1] - off)};
    return s;
}

/*
 * Count one batch of samples whose stack is given in PROFILE frame ids,
 * root first; creates the thread and the nodes as needed. Used by
 * tfmt_profile_add_bin and by other inputs (JSONL has no stacks).
 */
int tfmt__profile_add_stack(tfmt_profile *p, uint64_t thread_id,
                            uint32_t interpreter_id, const uint32_t *stack,
                            uint32_t depth, uint64_t weight);
/* The same, giving the thread index and leaf node (TFMT_NO_ID when the
   stack was empty and nothing was counted), for samples of status byte
   `status` (kept apart only with opts.split_status). */
int tfmt__profile_add_stack_at(tfmt_profile *p, uint64_t thread_id,
                               uint32_t interpreter_id, uint8_t status,
                               const uint32_t *stack, uint32_t depth,
                               uint64_t weight, uint32_t *thread,
                               uint32_t *leaf);
/* add_stack_at without the thread and leaf. */
int tfmt__profile_add_status(tfmt_profile *p, uint64_t thread_id,
                             uint32_t interpreter_id, uint8_t status,
                             const uint32_t *stack, uint32_t depth,
                             uint64_t weight);

/* ---- binary logs on several threads (profile_par.c) ---- */

/*
 * Frame ids from here up stand, in the profile of one part of a log, for
 * the frames the part inherits (bin_slice.h); profile_merge.c resolves
 * them. Real frame ids stay below (the driver checks the frame count).
 */
#define TFMT_PAR_PLACEHOLDER 0x80000000u
/* tfmt__profile_add_par's answer when the log is better read whole. */
#define TFMT_PAR_DECLINED 1

/*
 * Add binary log r to p on several threads, when p's options and r allow
 * it; TFMT_PAR_DECLINED (r untouched) when they do not, or when anything
 * in the log needs the whole-file reader's exact error or note.
 */
int tfmt__profile_add_par(tfmt_profile *p, tfmt_bin_reader *r);
/* Stream a slice into p (profile_bin.c; see add_reader there). */
int tfmt__profile_add_slice(tfmt_profile *p, tfmt_bin_reader *r,
                            uint32_t placeholders, uint32_t **fmap);
/* The first input's interval, mode and statistics, as add_bin takes. */
void tfmt__profile_take_info(tfmt_profile *p, const tfmt_info *info);
/*
 * Add the profile `part` of one part of a log to p, as if its samples
 * came now: frames, threads, nodes and leaves in the order the part first
 * showed them. ph[k] is p's frame for placeholder k. *fmap_out[i] gets p's
 * id of part frame i (part->nframes entries).
 */
int tfmt__profile_merge(tfmt_profile *p, const tfmt_profile *part,
                        const uint32_t *ph, uint32_t nph, uint32_t *fmap_out);

/* ---- timelines (profile_timeline.c), with opts.timeline ---- */

/*
 * `n` samples of profile thread `thread` at `ts` (in order): counted at
 * leaf node `node`, or not counted (TFMT_NO_ID). Consecutive samples of
 * one node make one run.
 */
int tfmt__profile_tl_add(tfmt_profile *p, uint32_t thread, uint32_t node,
                         const uint64_t *ts, uint32_t n);
/* The end of an input: every open run ends, one `interval_us` after its
   last sample (a run not counted is dropped). */
int tfmt__profile_tl_close(tfmt_profile *p, uint64_t interval_us);
/* fn(ctx, node, weight) for each run of `thread`, in order. */
int tfmt__profile_tl_each(tfmt_profile *p, uint32_t thread,
                          int (*fn)(void *ctx, uint32_t node, uint64_t weight),
                          void *ctx);

/*
 * Building blocks of tfmt__profile_add_stack for inputs that track their
 * own paths (profile_bin.c): the thread index of (thread_id,
 * interpreter_id, status; status counts only with opts.split_status) and
 * the child node of `parent` for `frame`, each created
 * when absent, and counting `weight` (> 0) samples of profile thread
 * `thread` ending at node `leaf`.
 */
int tfmt__profile_thread(tfmt_profile *p, uint64_t thread_id,
                         uint32_t interpreter_id, uint8_t status,
                         uint32_t *out);
/* Multiply-shift by an odd secret: one multiply, top bits index the
 * table. */
static inline size_t tfmt__profile_slot(const tfmt_profile *p, uint64_t key)
{
    return (size_t)((key * tfmt__hash_odd) >> p->node_shift);
}

/* A slot's tag: a second multiply, whose top bits are not the index's. */
static inline uint32_t tfmt__profile_tag(uint64_t key)
{
    return (uint32_t)(((key ^ (key >> 31)) * 0xbf58476d1ce4e5b9ULL) >> 32);
}

/* True when slot `s` (not empty) holds the node of (parent, frame). */
static inline bool tfmt__profile_slot_is(const tfmt_profile *p,
                                         const tfmt_pslot *s, uint32_t tag,
                                         uint32_t parent, uint32_t frame)
{
    return s->tag == tag && p->nodes[s->id].parent == parent &&
           p->nodes[s->id].frame == frame;
}

int tfmt__profile_child_slow(tfmt_profile *p, uint32_t parent, uint32_t frame,
                             uint32_t *out);
static inline int tfmt__profile_child(tfmt_profile *p, uint32_t parent,
                                      uint32_t frame, uint32_t *out)
{
    /* The lookup is inlined (it runs for every changed frame); creating a
     * node, or the first lookup, goes out of line. */
    uint64_t key = ((uint64_t)parent << 32) | frame;
    if (p->node_cap) {
        size_t mask = p->node_cap - 1;
        uint32_t tag = tfmt__profile_tag(key);
        for (size_t i = tfmt__profile_slot(p, key);; i = (i + 1) & mask) {
            const tfmt_pslot *s = &p->node_slots[i];
            if (s->id == TFMT_NO_ID)
                break;
            if (tfmt__profile_slot_is(p, s, tag, parent, frame)) {
                *out = s->id;
                return TFMT_OK;
            }
        }
    }
    return tfmt__profile_child_slow(p, parent, frame, out);
}
/* The count without the thread's own (profile_merge.c adds the threads'
   counts apart: a leaf of a shared tree has no one thread). */
static inline void tfmt__profile_count_leaf(tfmt_profile *p, uint32_t leaf,
                                            uint64_t weight)
{
    tfmt_pnode *n = &p->nodes[leaf];
    if (n->leaf_seq == TFMT_NO_ID)
        n->leaf_seq = p->nleaves++;
    n->self += weight;
    p->samples_total += weight;
}
/* tfmt__profile_count through the pair table (opts.thread_leaves). */
int tfmt__profile_count_paired(tfmt_profile *p, uint32_t thread, uint32_t leaf,
                               uint64_t weight);
static inline int tfmt__profile_count(tfmt_profile *p, uint32_t thread,
                                      uint32_t leaf, uint64_t weight)
{
    /* A leaf its thread counted alone before costs one compare. */
    if (p->opts.thread_leaves && p->nodes[leaf].pair != thread)
        return tfmt__profile_count_paired(p, thread, leaf, weight);
    tfmt__profile_count_leaf(p, leaf, weight);
    p->threads[thread].samples += weight;
    return TFMT_OK;
}

/* True when profile thread `t` owns its root (always, but for the threads
   that borrow the first one's with opts.shared_tree). */
static inline bool tfmt__profile_owns_root(const tfmt_profile *p, uint32_t t)
{
    return p->nodes[p->threads[t].root].thread == t;
}

/*
 * Free the (parent, frame) -> node index, the largest table of a profile
 * with many call paths, which exporters do not need, and the index of
 * the thread leaves. They are rebuilt should samples be added again.
 */
void tfmt__profile_drop_index(tfmt_profile *p);

/* ---- thread leaves (profile_leaves.c), with opts.thread_leaves ---- */

/*
 * Add `weight` to the pair (profile thread, shared-tree leaf node), just
 * before the leaf's own count (tfmt__profile_count_leaf): a leaf one
 * thread counted holds that thread's count as its self, and the first
 * count of a second thread moves it into the pair table.
 */
int tfmt__tleaf_add(tfmt_profile *p, uint32_t thread, uint32_t leaf,
                    uint64_t weight);
void tfmt__tleaf_drop_index(tfmt_profile *p);

/*
 * Every (thread, leaf) pair of a profile in the order it was first
 * counted, with its whole weight: with thread leaves, each leaf's first
 * count (its owner pair, or the leaf itself when one thread counted it)
 * merged with the other pairs by the leaves' marks; else each leaf, of
 * its tree's thread. What one reader counted first comes first, whatever
 * the parts.
 */
typedef struct tfmt_pfirst {
    const tfmt_profile *p;
    uint32_t *order; /* leaf_seq -> node */
    uint32_t *own;   /* per node of the table: its owner pair */
    uint32_t i;      /* next leaf */
    size_t j;        /* next pair */
} tfmt_pfirst;

int tfmt__pfirst_init(tfmt_pfirst *it, const tfmt_profile *p);
/* TFMT_OK, TFMT_DONE at the end, TFMT_EINVAL for a leaf of no thread. */
int tfmt__pfirst_next(tfmt_pfirst *it, uint32_t *thread, uint32_t *leaf,
                      uint64_t *weight);
void tfmt__pfirst_free(tfmt_pfirst *it);
void tfmt__tleaf_free(tfmt_profile *p);

/*
 * The synthetic "<truncated>" frame (file "~", no location) that
 * mark_truncated puts at the root of a stack cut at TFMT_MAX_DEPTH,
 * interned on first use.
 */
int tfmt__profile_trunc_frame(tfmt_profile *p, uint32_t *out);

/* True when the options mark the stack of a sample `depth` deep. */
static inline bool tfmt__profile_truncated(const tfmt_profile *p,
                                           uint32_t depth)
{
    return p->opts.mark_truncated && depth >= TFMT_MAX_DEPTH;
}

/* Intern a string / frame (frame strings are profile ids) into `p`. */
int tfmt__profile_intern_string(tfmt_profile *p, const char *s, size_t len,
                                uint32_t *out);
int tfmt__profile_intern_frame(tfmt_profile *p, const tfmt_frame *f,
                               uint32_t *out);
/*
 * The same in batches (a JSONL export's tables): hashed and prefetched
 * first, then interned, so the table waits for memory once per batch.
 */
int tfmt__profile_intern_strings(tfmt_profile *p, const tfmt_str *s, size_t n,
                                 uint32_t *out);
int tfmt__profile_intern_frames(tfmt_profile *p, const tfmt_frame *f, size_t n,
                                uint32_t *out);
/*
 * Append without looking up or indexing (the tables of a first JSONL
 * export, whose entries CPython writes once each, into an empty profile):
 * the profile is then `unindexed`, and every intern function first builds
 * the index (tfmt__profile_index; equal entries map to the first). So a
 * single export costs no hash table at all. Strings are repaired as
 * Python decodes them, unless the caller knows them `valid` already.
 */
int tfmt__profile_append_strings(tfmt_profile *p, const tfmt_str *s, size_t n,
                                 bool valid, uint32_t *out);
int tfmt__profile_append_frames(tfmt_profile *p, const tfmt_frame *f, size_t n,
                                uint32_t *out);
int tfmt__profile_index(tfmt_profile *p);

/* The JSONL totals of frame `f`, or NULL when no export listed it. */
static inline const tfmt_pagg *tfmt__profile_agg(const tfmt_profile *p,
                                                 uint32_t f)
{
    return f < p->naggs && p->agg_listed[f] ? &p->aggs[f] : NULL;
}

/* a + b, stopping at UINT64_MAX (counts from files can be hostile). */
static inline uint64_t tfmt__sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---- tree helpers (profile_tree.c), for the exporters ---- */

/*
 * used[f] = 1 for every frame a call path uses or a JSONL export listed,
 * 0 for the others (interned for samples a filter then dropped), which
 * writers that list frames leave out. `used` has nframes bytes.
 */
void tfmt__profile_used(const tfmt_profile *p, uint8_t *used);

/*
 * Child lists and subtree totals of the call tree, derived in O(nodes)
 * from the parent links. Children (and the thread roots) are chained in
 * node-id order, i.e. in the order the samples first showed them.
 */
typedef struct tfmt_ptree {
    uint32_t *first_child;  /* per node; TFMT_NO_ID for a leaf */
    uint32_t *next_sibling; /* per node; TFMT_NO_ID for the last */
    uint32_t first_root;    /* first thread root; TFMT_NO_ID if none */
    uint64_t *total;        /* per node: self plus all descendants */
} tfmt_ptree;

int tfmt__ptree_build(const tfmt_profile *p, tfmt_ptree *out);
void tfmt__ptree_free(const tfmt_profile *p, tfmt_ptree *t);

/*
 * A depth-first walk over every thread's tree without recursion or a
 * stack: tfmt__pwalk_next returns 1 when it enters *node (parents before
 * children), -1 when it leaves it (after all its descendants), 0 at the
 * end. Roots are visited too (their frame is TFMT_NO_ID).
 */
typedef struct tfmt_pwalk {
    const tfmt_pnode *nodes;
    const tfmt_ptree *t;
    uint32_t cur;
    uint32_t stop; /* the walk ends on leaving it (TFMT_NO_ID: none) */
    bool entering;
} tfmt_pwalk;

void tfmt__pwalk_init(tfmt_pwalk *w, const tfmt_profile *p,
                      const tfmt_ptree *t);
/* A walk of the subtree of `root` alone, over node array `nodes`. */
void tfmt__pwalk_sub(tfmt_pwalk *w, const tfmt_pnode *nodes,
                     const tfmt_ptree *t, uint32_t root);
int tfmt__pwalk_next(tfmt_pwalk *w, uint32_t *node);

/*
 * Write the frames of `node` root first into out[0..depth-1] (depth =
 * nodes[node].depth, at most `cap`); returns the depth, or 0 when the path
 * does not fit.
 */
uint32_t tfmt__profile_path(const tfmt_profile *p, uint32_t node, uint32_t *out,
                            uint32_t cap);

/*
 * The location CPython's collectors see for a frame: a frame whose lineno
 * is TFMT_NO_LOCATION has location None, which normalize_location turns
 * into (0, 0, -1, -1); other frames keep their four values.
 */
static inline void tfmt__profile_norm_loc(const tfmt_frame *f, int32_t *line,
                                          int32_t *end_line, int32_t *col,
                                          int32_t *end_col)
{
    bool none = f->lineno == TFMT_NO_LOCATION;
    *line = none ? 0 : f->lineno;
    *end_line = none ? 0 : f->end_lineno;
    *col = none ? -1 : f->column;
    *end_col = none ? -1 : f->end_column;
}

/*
 * A frame's location as CPython's JSONL collector keys it (flat_bin.c and
 * flat_profile.c merge frames that differ only in their opcode by it):
 * the fields JSONL leaves out (end line <= 0, negative columns) compare
 * equal whatever their value.
 */
typedef struct tfmt_jloc {
    uint32_t file, func;
    int32_t line, end_line, col, end_col;
} tfmt_jloc;

static inline tfmt_jloc tfmt__profile_jsonl_loc(const tfmt_frame *fr)
{
    tfmt_jloc l = {fr->filename, fr->funcname, 0, 0, 0, 0};
    tfmt__profile_norm_loc(fr, &l.line, &l.end_line, &l.col, &l.end_col);
    if (l.end_line <= 0)
        l.end_line = -1;
    if (l.col < 0)
        l.col = -1;
    if (l.end_col < 0)
        l.end_col = -1;
    return l;
}

#endif
