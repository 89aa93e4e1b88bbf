/* SPDX-License-Identifier: MIT */
/*
 * profile_merge.c - add the profile of one part of a binary log to the
 * profile of the parts before it (profile_par.c decodes the parts on
 * several threads, then merges them here in file order).
 *
 * The result must be the profile one reader would have built, id for id:
 * frames (and the strings they name) are numbered in the order samples
 * first showed them, nodes in the order paths first appeared, leaves in
 * the order they were first counted. A part's own profile numbers its
 * frames, nodes and leaves in that order within the part, so replaying
 * them in the part's order after the parts before gives the order of the
 * whole file: an item new to the whole profile keeps its place among the
 * part's other new items. Placeholder frames (what the part inherits)
 * are resolved to frames the parts before already have.
 */
#include "profile_internal.h"

static int nomem(tfmt_profile *p)
{
    return tfmt__error(&p->err, TFMT_ENOMEM, "out of memory");
}

/* Intern part frame f's strings (filename, then funcname) and f in p. */
static int merge_frame(tfmt_profile *p, const tfmt_profile *part, uint32_t f,
                       uint32_t *out)
{
    tfmt_frame fr = part->frames[f];
    tfmt_str file = tfmt__profile_str(part, fr.filename);
    tfmt_str func = tfmt__profile_str(part, fr.funcname);
    int rc = tfmt__profile_intern_string(p, file.ptr, file.len, &fr.filename);
    if (rc == TFMT_OK)
        rc = tfmt__profile_intern_string(p, func.ptr, func.len, &fr.funcname);
    if (rc == TFMT_OK)
        rc = tfmt__profile_intern_frame(p, &fr, out);
    if (rc == TFMT_OK && f == part->trunc_frame)
        p->trunc_frame = *out;
    return rc;
}

/* p's thread for part thread t, created when new: tmap[t]. */
static int merge_thread(tfmt_profile *p, const tfmt_profile *part, uint32_t t,
                        uint32_t *tmap)
{
    const tfmt_pthread *th = &part->threads[t];
    return tfmt__profile_thread(p, th->thread_id, th->interpreter_id,
                                th->status, &tmap[t]);
}

/* p's node for part node n, whose parent is mapped already. */
static int merge_node(tfmt_profile *p, const tfmt_profile *part, uint32_t n,
                      const uint32_t *fmap, const uint32_t *ph, uint32_t nph,
                      uint32_t *nmap, uint32_t *tmap)
{
    const tfmt_pnode *pn = &part->nodes[n];
    if (pn->parent == TFMT_NO_ID) {
        int rc = merge_thread(p, part, pn->thread, tmap);
        if (rc == TFMT_OK)
            nmap[n] = p->threads[tmap[pn->thread]].root;
        return rc;
    }
    uint32_t frame;
    if (pn->frame >= TFMT_PAR_PLACEHOLDER) {
        uint32_t k = pn->frame - TFMT_PAR_PLACEHOLDER;
        if (k >= nph || ph[k] == TFMT_NO_ID)
            return tfmt__error(&p->err, TFMT_EINVAL,
                               "parallel read: unresolved frame");
        frame = ph[k];
    } else {
        frame = fmap[pn->frame];
    }
    return tfmt__profile_child(p, nmap[pn->parent], frame, &nmap[n]);
}

/*
 * Count the part's leaves in p in the order the part first counted them,
 * each with its whole weight, and with thread leaves each pair just
 * before its weight (tfmt__pfirst: so p numbers leaves and orders pairs
 * as one reader would); then each thread's samples (with
 * opts.shared_tree a leaf is no one thread's).
 */
static int merge_counts(tfmt_profile *p, const tfmt_profile *part,
                        const uint32_t *nmap, const uint32_t *tmap)
{
    tfmt_pfirst it;
    if (tfmt__pfirst_init(&it, part) != TFMT_OK)
        return nomem(p);
    uint32_t t, leaf;
    uint64_t w;
    int rc;
    while ((rc = tfmt__pfirst_next(&it, &t, &leaf, &w)) == TFMT_OK) {
        if (p->opts.thread_leaves &&
            (rc = tfmt__tleaf_add(p, tmap[t], nmap[leaf], w)) != TFMT_OK)
            break;
        tfmt__profile_count_leaf(p, nmap[leaf], w);
    }
    tfmt__pfirst_free(&it);
    if (rc == TFMT_EINVAL)
        return tfmt__error(&p->err, rc, "parallel read: leaf of no thread");
    if (rc != TFMT_DONE)
        return rc;
    for (size_t i = 0; i < part->nthreads; i++)
        p->threads[tmap[i]].samples += part->threads[i].samples;
    return TFMT_OK;
}

static void merge_report(tfmt_profile *p, const tfmt_profile *part)
{
    p->report.read = tfmt__sat_add(p->report.read, part->report.read);
    p->report.passed = tfmt__sat_add(p->report.passed, part->report.passed);
    p->report.status_seen |= part->report.status_seen;
}

int tfmt__profile_merge(tfmt_profile *p, const tfmt_profile *part,
                        const uint32_t *ph, uint32_t nph, uint32_t *fmap_out)
{
    int rc = TFMT_OK;
    for (size_t f = 0; f < part->nframes && rc == TFMT_OK; f++)
        rc = merge_frame(p, part, (uint32_t)f, &fmap_out[f]);
    uint32_t *nmap =
        rc == TFMT_OK
            ? tfmt__malloc(p->alloc, (part->nnodes + 1) * sizeof *nmap)
            : NULL;
    uint32_t *tmap =
        rc == TFMT_OK
            ? tfmt__malloc(p->alloc, (part->nthreads + 1) * sizeof *tmap)
            : NULL;
    if (rc == TFMT_OK && (!nmap || !tmap))
        rc = nomem(p);
    /* A shared tree has one root: its threads are taken first, in the
     * part's order (no node is made but p's first root, as when read
     * whole); else each thread comes with its root, among the nodes. */
    for (size_t t = 0;
         p->opts.shared_tree && t < part->nthreads && rc == TFMT_OK; t++)
        rc = merge_thread(p, part, (uint32_t)t, tmap);
    for (size_t n = 0; n < part->nnodes && rc == TFMT_OK; n++)
        rc = merge_node(p, part, (uint32_t)n, fmap_out, ph, nph, nmap, tmap);
    if (rc == TFMT_OK)
        rc = merge_counts(p, part, nmap, tmap);
    if (rc == TFMT_OK)
        merge_report(p, part);
    tfmt__free(p->alloc, nmap);
    tfmt__free(p->alloc, tmap);
    return rc;
}
