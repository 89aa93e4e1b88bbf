/* SPDX-License-Identifier: MIT */
/*
 * unwind_status.c - the status byte of a thread, with the meaning each bit
 * has in CPython 3.15's profiler:
 *   HAS_GIL        the GIL is locked and this thread took it last; in a
 *                  free-threaded build (no GIL), its thread state is
 *                  attached: it runs Python code or may (a call that
 *                  would release the GIL detaches it), as CPython 3.15's
 *                  profiler reports it there;
 *   ON_CPU         it ran since its previous sample and is runnable now
 *                  (thread_status.c), not merely "runnable";
 *   UNKNOWN        its scheduler state could not be read;
 *   HAS_EXCEPTION  an exception is being raised in it, or it is handling
 *                  one (sys.exc_info() would not be empty);
 *   MAIN_THREAD    its native id is the process id;
 *   GIL_REQUESTED  waiting for the GIL: only 3.15 records it (its
 *                  thread state's gil_requested; untested here), 3.11-3.14
 *                  do not.
 */
#include <string.h>

#include <tachyon/fmt.h>

#include "remote_mem.h"
#include "unwind.h"

/* Exception stack items followed at most (generators nest them). */
#define EXC_DEPTH 32

static bool is_value(const unwinder *u, uint64_t v)
{
    return v != 0 && v != u->none_obj;
}

/*
 * Whether sys.exc_info() would be non-empty: the topmost item of the
 * thread's exception stack that holds a value. Items live in the thread
 * state (read already) or in generators (read here).
 */
static int handling(unwinder *u, const listed_thread *l, bool *out)
{
    const py_offsets *o = &u->off;
    uint64_t item = unwind_u64(l->ts, o->ts_exc_info);
    uint64_t own = l->tstate + o->ts_exc_state;
    *out = false;
    for (int i = 0; item && i < EXC_DEPTH; i++) {
        uint64_t pair[2];
        if (item == own) {
            pair[0] = unwind_u64(l->ts, o->ts_exc_state + o->err_exc_value);
            pair[1] = unwind_u64(l->ts, o->ts_exc_state + o->err_previous);
        } else {
            rmem_piece p[2] = {{item + o->err_exc_value, &pair[0], 8},
                               {item + o->err_previous, &pair[1], 8}};
            int rc = rmem_readv(u->pid, p, 2);
            if (rc != RMEM_OK)
                return rc;
        }
        /* An empty or None slot passes on to the item below, as in
         * CPython's _PyErr_GetTopmostException. */
        if (is_value(u, pair[0])) {
            *out = true;
            return RMEM_OK;
        }
        item = pair[1];
    }
    return RMEM_OK;
}

int unwind_status(unwinder *u, const listed_thread *l, uint64_t tid,
                  uint8_t *out)
{
    uint8_t status = 0;
    bool handled;
    if (u->off.ts_status != PYOFF_NONE) {
        /* No GIL: attached, as CPython 3.15 reports it there. */
        uint32_t word;
        memcpy(&word, l->ts + u->off.ts_status, 4);
        if ((word >> u->off.ts_active_bit) & 1)
            status |= TFMT_STATUS_HAS_GIL;
    } else if (l->gil_holder && l->gil_holder == l->tstate) {
        status |= TFMT_STATUS_HAS_GIL;
    }
    if (u->off.ts_gil_requested != PYOFF_NONE &&
        !(status & TFMT_STATUS_HAS_GIL)) {
        int32_t waits; /* 3.15 records who waits (untested) */
        memcpy(&waits, l->ts + u->off.ts_gil_requested, 4);
        if (waits)
            status |= TFMT_STATUS_GIL_REQUESTED;
    }
    if (tid == (uint64_t)u->pid)
        status |= TFMT_STATUS_MAIN_THREAD;
    int cpu = tstat_on_cpu(u->tstat, tid, u->now_ns);
    if (cpu > 0)
        status |= TFMT_STATUS_ON_CPU;
    else if (cpu < 0)
        status |= TFMT_STATUS_UNKNOWN;
    int rc = handling(u, l, &handled);
    if (rc != RMEM_OK)
        return rc;
    if (handled || unwind_u64(l->ts, u->off.ts_current_exc) != 0)
        status |= TFMT_STATUS_HAS_EXCEPTION;
    *out = status;
    return RMEM_OK;
}
