/* SPDX-License-Identifier: MIT */
/*
 * collapsed.h - the state of the collapsed-stack writer, shared by
 * profile_collapsed.c (folding, lines, output, and the comparison sort
 * that works for any names) and collapsed_rank.c (the fast order: every
 * line's text ranked once through a trie of frame texts, then a radix
 * sort). Never installed.
 */
#ifndef TFMT_COLLAPSED_H
#define TFMT_COLLAPSED_H

#include "export_internal.h"

typedef struct ckey { /* a frame as the collector keys it */
    uint32_t file, func;
    int32_t line;
} ckey;

typedef struct cnode {
    uint32_t parent; /* TFMT_NO_ID for a thread root */
    uint32_t frame;  /* ckey id; TFMT_NO_ID for roots */
    uint64_t tid;    /* thread_id of a root, else 0 */
    uint64_t count;
    uint32_t first; /* smallest leaf_seq folded in */
    uint32_t depth; /* 0 for roots */
} cnode;

typedef struct cline {
    uint64_t count;
    uint64_t tid;
    size_t off; /* frames at cctx.paths[off..] */
    uint32_t depth;
    uint32_t first;
    uint32_t node; /* its cnode */
} cline;

typedef struct cctx {
    tfmt_profile *p;
    ckey *keys; /* per collapsed frame */
    uint32_t nkeys;
    uint32_t *fmap; /* profile frame -> ckey id */
    cnode *nodes;
    size_t nnodes, capnodes;
    uint32_t *nmap; /* profile node -> cnode id */
    bool identity;  /* the fold is the identity: nmap is not filled */
    tfmt_idset kset, nset;
    void *paths; /* lines' ckey ids, root first */
    bool narrow; /* paths are uint16_t, not uint32_t */
    cline *lines;
    uint32_t *order; /* line indices, sorted (NULL: the
                                       lines are in output order) */
    size_t nlines;
    tfmt_buf ftext; /* ";" + each collapsed frame's text */
    size_t *foff;   /* per ckey: offset into ftext */
} cctx;

/* ---- sorts (collapsed_sort.c) ---- */

/* < 0, 0, > 0 as id a sorts before, with, after id b. */
typedef int (*tfmt_id_cmp)(void *ctx, uint32_t a, uint32_t b);

/* Stable merge sort of the ids v[0..n) by cmp; tmp has room for n. */
void tfmt__collapsed_msort(uint32_t *v, uint32_t *tmp, size_t n,
                           tfmt_id_cmp cmp, void *ctx);

/*
 * Stable radix sort of the ids v[0..n), largest count first: id i's
 * count is the uint64_t at (const char *)counts + i * stride.
 */
int tfmt__collapsed_by_count(const tfmt_allocator *a, uint32_t *v, size_t n,
                             const void *counts, size_t stride);

/*
 * Put the cnodes that are lines (count > 0) in output order (count
 * descending, text, first appearance) into c->order, c->nlines of them,
 * without comparing texts line against line. Returns TFMT_OK,
 * TFMT_ENOMEM, or TFMT_DONE when some frame text holds a ';' (then the
 * text order is not the trie's, and the caller sorts by comparison).
 * Needs c->nodes and the frame texts.
 */
int tfmt__collapsed_rank_order(cctx *c);

/*
 * pos[i] for every cnode i: the rank of its text (its frames' texts, root
 * first, after its root's "tid:N") in byte order, equal for equal texts.
 * TFMT_DONE when some frame text holds a ';' (as above).
 */
int tfmt__collapsed_rank_pos(cctx *c, uint32_t *pos);

/*
 * The lines of a profile with a shared tree and thread leaves, written to
 * `sink` (collapsed_threads.c): c is folded from the shared tree, with
 * c->nmap (or the identity, c->identity) from profile nodes to cnodes and
 * the frame texts rendered.
 */
int tfmt__collapsed_threads(cctx *c, tfmt_sink *sink, bool *io_failed);

#endif
