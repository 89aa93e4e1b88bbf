/* SPDX-License-Identifier: MIT */
/*
 * export_internal.h - helpers shared by the viewer exporters (export_*.c):
 * Python's float repr, an output buffer flushed to a sink, and a canonical
 * order of the profile (threads, frames, tree siblings) that depends only on
 * content, so profiles merged in any input order export identically.
 */
#ifndef TFMT_EXPORT_INTERNAL_H
#define TFMT_EXPORT_INTERNAL_H

#include <tachyon/fmt_export.h>

#include "profile_internal.h"
#include "json_escape.h"
#include "text.h"
#include "pyrepr.h"

/* Exporters hand their output buffer to the sink in pieces this big. */
#define TFMT_EXPORT_FLUSH (1u << 20)

/* Flush `b` to `sink` once it holds at least `min` bytes (0: always). */
int tfmt__profile_flush(tfmt_buf *b, tfmt_sink *sink, size_t min);

/*
 * Append v as Python's json.dumps writes a float: repr(v) (shortest
 * round-trip, "1e-05"), or NaN, Infinity, -Infinity. The _text form
 * writes at most TFMT_PYREPR_MAX bytes at p and returns the end.
 */
int tfmt__put_pyfloat(tfmt_buf *b, double v);
char *tfmt__json_float(char *p, double v);

/*
 * A content-ordered view of a profile:
 *  - frame_rank[f]: rank of frame f when frames are sorted by filename,
 *    funcname (byte order), then line, end line, column, end column,
 *    opcode;
 *  - threads[i]: thread indices sorted by (thread_id, interpreter_id);
 *  - tree: subtree totals, with every sibling list (and the root list)
 *    re-chained in frame-rank (thread) order, so tfmt__pwalk visits the
 *    tree in content order.
 */
typedef struct tfmt_xorder {
    uint32_t *frame_rank;
    uint32_t *frame_by_rank; /* inverse of frame_rank */
    size_t nused;            /* frames some node uses: ranks below this
                                (a frame of a sample a filter dropped is
                                unused and ranks after them all) */
    uint32_t *threads;
    tfmt_ptree tree;
} tfmt_xorder;

/* Also frees the profile's node index, which no writer needs (the largest
   table of a profile with many call paths; rebuilt if samples come). */
int tfmt__xorder_build(tfmt_profile *p, tfmt_xorder *o);

/*
 * One thread's call tree in content order (export_tview.c), for the
 * writers that split by thread and walk one thread at a time. With a tree
 * per thread it is the thread's subtree of the xorder's tree. With a
 * shared tree and thread leaves it is rebuilt from the thread's (thread,
 * leaf) pairs over the shared nodes, one thread at a time: node ids are
 * the shared tree's, but a node's self weight, total and children are
 * the thread's own. Valid until the next tfmt__tviews_get.
 */
typedef struct tfmt_tview {
    const tfmt_pnode *nodes; /* parent, frame and depth (not self,
                                not thread) */
    const uint64_t *self;    /* per node; NULL: nodes[].self */
    const tfmt_ptree *tree;  /* children in content order, totals */
    uint32_t root, thread;
} tfmt_tview;

static inline uint64_t tfmt__tview_self(const tfmt_tview *v, uint32_t node)
{
    return v->self ? v->self[node] : v->nodes[node].self;
}

typedef struct tfmt_tviews {
    const tfmt_profile *p;
    const tfmt_xorder *o;
    bool rebuild;             /* shared tree with thread leaves */
    uint32_t *start, *leaves; /* thread t's leaves: leaves[start[t] ..
                                 start[t + 1]), each a node it counted
                                 alone, or a pair id with the top bit
                                 set */
    uint32_t *pre;            /* per node: rank in the content preorder */
    uint32_t *by_pre;         /* inverse of pre */
    uint32_t *stamp;          /* per node: the last view (gen) it was in */
    uint32_t gen;             /* views built so far */
    uint32_t *set;            /* the view's nodes, as preorder ranks */
    uint64_t *self;
    tfmt_ptree tree;
} tfmt_tviews;

/*
 * Every thread's leaves in a profile with thread leaves, grouped by thread:
 * thread t's are items[start[t] .. start[t + 1]) (both malloc'd), each a
 * leaf the thread counted alone or a pair of the table; tfmt__tleaf_item
 * gives an item's leaf node and the thread's weight on it.
 */
int tfmt__tleaf_groups(const tfmt_profile *p, uint32_t **start,
                       uint32_t **items);
void tfmt__tleaf_item(const tfmt_profile *p, uint32_t item, uint32_t *leaf,
                      uint64_t *self);

int tfmt__tviews_init(tfmt_tviews *vs, const tfmt_profile *p,
                      const tfmt_xorder *o);
int tfmt__tviews_get(tfmt_tviews *vs, uint32_t thread, tfmt_tview *out);
void tfmt__tviews_free(tfmt_tviews *vs);

/*
 * Add the JSONL exports' per-frame totals (their samples are not in the
 * tree) to per-key figures: self[key[f]] and cum[key[f]] for every frame
 * f an export listed (key[f] < nkeys). Frames that share a key (its
 * lines, its columns) have their cumulative counts summed, so recursion
 * through two of them counts a sample twice; each key's share is capped
 * at the exports' samples.
 */
int tfmt__xadd_exports(const tfmt_profile *p, const uint32_t *key,
                       uint32_t nkeys, uint64_t *self, uint64_t *cum);
void tfmt__xorder_free(const tfmt_profile *p, tfmt_xorder *o);

/* Byte-order comparison of two profile strings. */
int tfmt__pstr_cmp(const tfmt_profile *p, uint32_t a, uint32_t b);

/* The basename of a profile string (after the last '/'). */
tfmt_str tfmt__pstr_basename(const tfmt_profile *p, uint32_t id);

/*
 * The "top" table as text appended to `out`; after each thread's table,
 * flush(ctx, out) may hand the text on and empty `out` (NULL: keep it
 * all), so a table per thread never holds all threads' text at once. And
 * the flame graph SVG, `embedded` in an HTML page (no XML declaration,
 * scaled to the page width).
 */
typedef int (*tfmt_text_flush)(void *ctx, tfmt_buf *text);
int tfmt__top_text(tfmt_profile *p, const tfmt_export_options *opts,
                   tfmt_buf *out, tfmt_text_flush flush, void *ctx);
/* The pieces of the top table (export_top.c). */
#define TFMT_TOP_COLUMNS                                                       \
    "  self%       self  cumul%      cumul  function  file\n"
int tfmt__top_header(tfmt_buf *out, const tfmt_profile *p);
int tfmt__top_row(tfmt_buf *out, const tfmt_profile *p, const tfmt_frame *names,
                  uint64_t self, uint64_t cum, uint64_t total);
/*
 * The whole-profile table of a profile without a call tree, rows picked
 * by selection (export_top_direct.c). Returns TFMT_OK, 1 when it leaves
 * the profile to tfmt__top_text's content walk (nothing appended), or
 * TFMT_ENOMEM.
 */
int tfmt__top_direct(tfmt_profile *p, uint32_t limit, tfmt_buf *out);
/* The same by walking every frame in content order (any profile). */
int tfmt__top_walk(tfmt_profile *p, const tfmt_export_options *opts,
                   tfmt_buf *out, tfmt_text_flush flush, void *ctx);
/*
 * Whether two functions in use (of frames an export listed) of a
 * tree-less profile have file and function names of equal content under
 * different string ids, or may have (1), or not (0); TFMT_ENOMEM
 * (top_twins.c). ffn[f] is the function of frame f, fn_frame[fn] a frame
 * of function fn; room is scratch of 2 * nfn 8-byte words.
 */
int tfmt__top_twins(const tfmt_profile *p, const uint32_t *ffn,
                    const uint32_t *fn_frame, uint32_t nfn, uint64_t *room);
/* The hash of its names (a string's under seed 0, a function name's under
 * its file name's hash); tests make names collide with it. */
uint64_t tfmt__name_hash(const char *s, size_t n, uint64_t seed);
int tfmt__svg_write(tfmt_profile *p, tfmt_sink *sink,
                    const tfmt_export_options *opts, bool embedded);

/*
 * Writers that need stacks (collapsed, speedscope, pprof, svg, html):
 * TFMT_OK, or TFMT_EINVAL recorded on the profile when it holds the
 * totals of a JSONL export.
 */
int tfmt__xneed_stacks(tfmt_profile *p);

/*
 * Writers whose output tells threads apart (collapsed, clickhouse, and
 * through tfmt_tviews speedscope, pprof, svg, html, top per thread):
 * TFMT_OK, or TFMT_EINVAL recorded on the profile when it was built with
 * opts.shared_tree but without thread_leaves.
 */
int tfmt__xneed_views(tfmt_profile *p);

/* Write the buffer to the sink when it holds TFMT_EXPORT_FLUSH bytes. */
int tfmt__xflush(tfmt_profile *p, tfmt_buf *b, tfmt_sink *sink, bool all);

/* Record an out-of-memory or sink failure on the profile. */
int tfmt__xfail(tfmt_profile *p, int rc, tfmt_sink *sink);

#endif
