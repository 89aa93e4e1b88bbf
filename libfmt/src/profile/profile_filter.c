/* SPDX-License-Identifier: MIT */
/*
 * profile_filter.c - the filters of tfmt_profile_options (see
 * fmt_profile.h for their meaning). Rewritten names are interned into the
 * profile once per (string, field); include/exclude verdicts are computed
 * once per profile frame. Stacks are filtered in place, so filtering needs
 * no memory per sample.
 */
#include "profile_filter.h"

#define F_DONE 1
#define F_INCLUDED 2
#define F_EXCLUDED 4

struct tfmt_pfilter {
    tfmt_profile *p;
    tfmt_match *rules, *focus;
    bool rewrite;      /* rules has REWRITE rules */
    bool names;        /* there are include or exclude rules */
    bool includes;     /* focus has INCLUDE rules */
    uint32_t *smap[2]; /* per field: string -> rewritten string */
    size_t capsmap[2];
    uint8_t *flags; /* per profile frame: F_* */
    size_t capflags;
};

static size_t count(tfmt_match *m, tfmt_match_kind k)
{
    return m ? tfmt_match_count(m, k) : 0;
}

/* The options rewrite names or change stacks: a tfmt_pfilter is needed. */
static bool changes_frames(const tfmt_profile_options *o)
{
    return count(o->rules, TFMT_MATCH_REWRITE) > 0 ||
           count(o->rules, TFMT_MATCH_EXCLUDE) > 0 ||
           count(o->focus, TFMT_MATCH_INCLUDE) > 0 || o->collapse_recursion;
}

bool tfmt__pfilter_any(const tfmt_profile_options *o)
{
    return changes_frames(o) || o->skip_idle || o->nthread_ids > 0 ||
           o->status_all != 0 || o->status_none != 0;
}

int tfmt__pfilter_new(tfmt_profile *p, tfmt_pfilter **out)
{
    const tfmt_profile_options *o = &p->opts;
    *out = NULL;
    if (!changes_frames(o))
        return TFMT_OK;
    bool rewrite = count(o->rules, TFMT_MATCH_REWRITE) > 0;
    bool names = count(o->rules, TFMT_MATCH_EXCLUDE) > 0 ||
                 count(o->focus, TFMT_MATCH_INCLUDE) > 0;
    tfmt_pfilter *f = tfmt__calloc(p->alloc, 1, sizeof *f);
    if (!f)
        return tfmt__error(&p->err, TFMT_ENOMEM, "out of memory");
    f->p = p;
    f->rules = o->rules;
    f->focus = o->focus;
    f->rewrite = rewrite;
    f->names = names;
    f->includes = count(o->focus, TFMT_MATCH_INCLUDE) > 0;
    *out = f;
    return TFMT_OK;
}

void tfmt__pfilter_free(tfmt_pfilter *f)
{
    if (!f)
        return;
    const tfmt_allocator *a = f->p->alloc;
    tfmt__free(a, f->smap[0]);
    tfmt__free(a, f->smap[1]);
    tfmt__free(a, f->flags);
    tfmt__free(a, f);
}

void tfmt__pfilter_saw(tfmt_profile *p, uint64_t thread_id, uint8_t status,
                       uint32_t depth, uint64_t weight)
{
    const tfmt_profile_options *o = &p->opts;
    p->report.status_seen |= status;
    /* saturating: query results can say anything */
    uint64_t n = p->report.read;
    if (depth > 0)
        p->report.read = n > UINT64_MAX - weight ? UINT64_MAX : n + weight;
    for (size_t i = 0; i < o->nthread_ids; i++)
        if (o->thread_ids[i] == thread_id)
            p->tid_seen[i] = true;
}

void tfmt__pfilter_passed(tfmt_profile *p, uint64_t weight)
{
    uint64_t n = p->report.passed;
    p->report.passed = n > UINT64_MAX - weight ? UINT64_MAX : n + weight;
}

bool tfmt__pfilter_sample(const tfmt_profile_options *o, uint64_t thread_id,
                          uint8_t status)
{
    if (o->skip_idle && !(status & (TFMT_STATUS_HAS_GIL | TFMT_STATUS_ON_CPU)))
        return false;
    if ((status & o->status_all) != o->status_all ||
        (status & o->status_none) != 0)
        return false;
    if (o->nthread_ids == 0)
        return true;
    for (size_t i = 0; i < o->nthread_ids; i++)
        if (o->thread_ids[i] == thread_id)
            return true;
    return false;
}

/* Grow a per-id array of TFMT_NO_ID (or zero) entries to hold `need`. */
static int grow_map(tfmt_profile *p, void **arr, size_t *cap, size_t need,
                    size_t elem, int fill)
{
    if (need <= *cap)
        return TFMT_OK;
    size_t old = *cap;
    if (tfmt__grow(p->alloc, arr, cap, need, elem) != TFMT_OK)
        return tfmt__error(&p->err, TFMT_ENOMEM, "out of memory");
    memset((char *)*arr + old * elem, fill, (*cap - old) * elem);
    return TFMT_OK;
}

static int rewrite_one(tfmt_pfilter *f, int field, uint32_t *id)
{
    tfmt_profile *p = f->p;
    int rc = grow_map(p, (void **)&f->smap[field], &f->capsmap[field],
                      p->nstrings, sizeof(uint32_t), 0xff);
    if (rc != TFMT_OK)
        return rc;
    if (f->smap[field][*id] != TFMT_NO_ID) {
        *id = f->smap[field][*id];
        return TFMT_OK;
    }
    tfmt_str s = tfmt__profile_str(p, *id);
    const char *out;
    size_t len;
    rc = tfmt_match_rewrite(f->rules, field ? TFMT_MATCH_FUNC : TFMT_MATCH_FILE,
                            s.ptr, s.len, &out, &len, &p->err);
    uint32_t to = *id;
    if (rc == TFMT_OK && out != s.ptr)
        rc = tfmt__profile_intern_string(p, out, len, &to);
    if (rc != TFMT_OK)
        return rc;
    /* interning may have grown the string table past the map */
    f->smap[field][*id] = to;
    *id = to;
    return TFMT_OK;
}

int tfmt__pfilter_names(tfmt_pfilter *f, tfmt_frame *pf)
{
    if (!f || !f->rewrite)
        return TFMT_OK;
    int rc = rewrite_one(f, 0, &pf->filename);
    return rc == TFMT_OK ? rewrite_one(f, 1, &pf->funcname) : rc;
}

bool tfmt__pfilter_stacks(const tfmt_pfilter *f)
{
    return f && (f->names || f->p->opts.collapse_recursion);
}

static int frame_flags(tfmt_pfilter *f, uint32_t frame, uint8_t *out)
{
    tfmt_profile *p = f->p;
    int rc = grow_map(p, (void **)&f->flags, &f->capflags, p->nframes, 1, 0);
    if (rc != TFMT_OK)
        return rc;
    if (!(f->flags[frame] & F_DONE)) {
        const tfmt_frame *fr = &p->frames[frame];
        tfmt_str file = tfmt__profile_str(p, fr->filename);
        tfmt_str func = tfmt__profile_str(p, fr->funcname);
        bool inc = true, keep = true;
        if (f->focus)
            rc = tfmt_match_filter(f->focus, file.ptr, file.len, func.ptr,
                                   func.len, &inc, &p->err);
        if (rc == TFMT_OK && f->rules)
            rc = tfmt_match_filter(f->rules, file.ptr, file.len, func.ptr,
                                   func.len, &keep, &p->err);
        if (rc != TFMT_OK)
            return rc;
        f->flags[frame] =
            F_DONE | (inc ? F_INCLUDED : 0) | (keep ? 0 : F_EXCLUDED);
        p->report.include_matched |= inc && f->includes;
        p->report.exclude_matched |= !keep;
    }
    *out = f->flags[frame];
    return TFMT_OK;
}

static int apply_names(tfmt_pfilter *f, uint32_t *stack, uint32_t *depth,
                       bool *keep)
{
    bool drop_frames = f->p->opts.drop_frames, any_inc = false;
    uint32_t n = 0;
    for (uint32_t i = 0; i < *depth; i++) {
        uint8_t fl;
        int rc = frame_flags(f, stack[i], &fl);
        if (rc != TFMT_OK)
            return rc;
        bool ok = (fl & F_INCLUDED) && !(fl & F_EXCLUDED);
        if (!drop_frames && (fl & F_EXCLUDED)) {
            *keep = false;
            return TFMT_OK;
        }
        any_inc |= (fl & F_INCLUDED) != 0;
        if (!drop_frames || ok)
            stack[n++] = stack[i];
    }
    *depth = n;
    *keep = n > 0 && any_inc;
    return TFMT_OK;
}

/* Runs of frames of one function (direct recursion) keep the innermost. */
static void collapse(const tfmt_profile *p, uint32_t *stack, uint32_t *depth)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < *depth; i++) {
        if (n > 0) {
            const tfmt_frame *a = &p->frames[stack[n - 1]];
            const tfmt_frame *b = &p->frames[stack[i]];
            if (a->filename == b->filename && a->funcname == b->funcname) {
                stack[n - 1] = stack[i];
                continue;
            }
        }
        stack[n++] = stack[i];
    }
    *depth = n;
}

int tfmt__pfilter_stack(tfmt_pfilter *f, uint32_t *stack, uint32_t *depth,
                        bool *keep)
{
    *keep = *depth > 0;
    if (f->names) {
        int rc = apply_names(f, stack, depth, keep);
        if (rc != TFMT_OK || !*keep)
            return rc;
    }
    if (f->p->opts.collapse_recursion)
        collapse(f->p, stack, depth);
    return TFMT_OK;
}
