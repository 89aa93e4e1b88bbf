/*
 * unwind_internal.h - what unwind.c and unwind_batch.c share.
 */
#ifndef TREC_UNWIND_INTERNAL_H
#define TREC_UNWIND_INTERNAL_H

#include "unwind.h"

/* Per-thread state of the batched path. */
struct batch_thread {
    uint64_t tstate;
    uint64_t frame;             /* innermost frame */
    uint64_t copy_base, copy_len;
    uint8_t *copy;              /* in the arena, or NULL */
};

uint64_t unwind_u64(const uint8_t *p, uint64_t off);

/* Follow the frame chain from `addr` into t->frames (code, instr), frames
 * inside [copy_base, copy_base + copy_len) read from u->copy_data. */
int unwind_walk_frames(unwinder *u, uint64_t addr, raw_thread *t);

/* Take in one frame read into `fr`: append it to t->frames unless it is
 * a shim or still being set up; *addr gets the caller's frame. */
int unwind_visit_frame(unwinder *u, const uint8_t *fr, raw_thread *t,
                       uint64_t *addr);

#define UNWIND_FRAME_BUF 256
#define UNWIND_MAX_STEPS 4096       /* frames incl. skipped shims */

uint8_t unwind_thread_status(unwinder *u, uint64_t tstate, uint64_t tid,
                             uint64_t gil_holder);

int unwind_batch_init(unwinder *u);
void unwind_batch_free(unwinder *u);

/*
 * Sample every thread of an interpreter whose thread states were listed
 * last time (u->last_tstates), reading all thread states, then all stack
 * copies, then all code-object heads in batched reads. Returns RMEM_FAULT
 * whenever the list changed or anything looks torn: the caller then falls
 * back to walking one thread at a time.
 */
int unwind_batched(unwinder *u, uint64_t head, uint32_t interp_id,
                   uint64_t gil_holder);

/*
 * The whole sample in the common steady state (one interpreter, same
 * threads as last time): the interpreter's fields, the GIL and every
 * thread state in one batched read, then as unwind_batched. Returns
 * RMEM_FAULT when anything changed; unwind_sample then starts over.
 */
int unwind_speculative(unwinder *u);

#endif
