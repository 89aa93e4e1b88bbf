/*
 * profile_internal.h - the layout of tfmt_profile, shared by profile.c (which
 * builds it) and the exporters (profile_jsonl.c, profile_collapsed.c and the
 * viewer formats), which only read it.
 *
 * The profile is a call tree. Each node is one call path: (parent node,
 * frame), under a root node per thread. A node's `self` is the weight of the
 * samples whose stack ended exactly there. Nodes are appended, so a parent's
 * id is always smaller than its children's: a reverse loop over node ids is
 * a bottom-up traversal, and subtree totals need no recursion.
 *
 * Frames are interned on all seven fields (with profile string ids), in the
 * order in which samples first show them, innermost first within a sample:
 * the order CPython's collectors assign ids in. Strings are interned by
 * content in the order frames first need them (filename, then funcname).
 */
#ifndef TFMT_PROFILE_INTERNAL_H
#define TFMT_PROFILE_INTERNAL_H

#include "internal.h"

#define TFMT_NO_ID UINT32_MAX

typedef struct tfmt_pstring {
    uint64_t off;               /* into profile.strbuf */
    uint32_t len;
} tfmt_pstring;

typedef struct tfmt_pnode {
    uint32_t parent;            /* TFMT_NO_ID for a thread root */
    uint32_t frame;             /* profile frame id; TFMT_NO_ID for roots */
    uint32_t thread;            /* index into profile.threads */
    uint32_t depth;             /* 0 for roots, 1 for outermost frames */
    uint64_t self;              /* weight of samples ending here */
} tfmt_pnode;

typedef struct tfmt_pthread {
    uint64_t thread_id;
    uint32_t interpreter_id;
    uint32_t root;              /* node id of this thread's root */
    uint64_t samples;           /* weight counted in this thread */
} tfmt_pthread;

struct tfmt_profile {
    const tfmt_allocator *alloc;
    tfmt_profile_options opts;
    tfmt_error err;

    tfmt_buf strbuf;            /* string bytes, back to back */
    tfmt_pstring *strings;
    size_t nstrings, capstrings;
    tfmt_idset string_set;

    tfmt_frame *frames;         /* filename/funcname are profile ids */
    size_t nframes, capframes;
    tfmt_idset frame_set;

    tfmt_pnode *nodes;
    size_t nnodes, capnodes;
    tfmt_idset node_set;        /* keyed on (parent, frame) */

    tfmt_pthread *threads;
    size_t nthreads, capthreads;
    tfmt_idset thread_set;      /* keyed on (thread_id, interpreter_id) */

    uint64_t samples_total;     /* counted weight */
    uint64_t interval_us;
    int mode;                   /* tfmt_mode */
    bool have_input;            /* interval/mode were set by an input */
    tfmt_stats stats;           /* of the first input, if it had any */
    uint64_t start_time_us;     /* of the first input */
};

/* Borrow profile string `id`. */
static inline tfmt_str tfmt__profile_str(const tfmt_profile *p, uint32_t id)
{
    tfmt_str s = {p->strbuf.data + p->strings[id].off, p->strings[id].len};
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

/* Intern a string / frame (frame strings are profile ids) into `p`. */
int tfmt__profile_intern_string(tfmt_profile *p, const char *s, size_t len,
                                uint32_t *out);
int tfmt__profile_intern_frame(tfmt_profile *p, const tfmt_frame *f,
                               uint32_t *out);

#endif
