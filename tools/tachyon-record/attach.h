/* SPDX-License-Identifier: MIT */
/*
 * attach.h - from a target process to a ready unwinder.
 */
#ifndef TREC_ATTACH_H
#define TREC_ATTACH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "target.h"
#include "unwind.h"

/* How long to wait for a started target to run Python. */
typedef struct attach_wait {
    uint64_t deadline_ns; /* monotonic end (--duration), 0: none */
    bool until_exit;      /* not just 30 s: while the target runs */
    bool quiet_exit;      /* a target gone early is no error */
    void (*poll)(void *ctx, uint64_t now_ns); /* each look, or NULL */
    void *ctx;
} attach_wait;

/* attach_unwinder's result when the target never ran Python (reported
 * by the caller, who may have recorded its children), and with
 * `quiet_exit` when it does not run Python now. */
#define ATTACH_NO_PYTHON (-1)
/* ... and when it exited first, with `quiet_exit`. */
#define ATTACH_GONE (-2)

/*
 * Find the target's interpreter (waiting for a spawned child to map it, up
 * to 30 s, or as `w` says), check its version and initialise `u` with
 * `cfg`. Reports failures on stderr and returns an exit code (0 on
 * success), except ATTACH_NO_PYTHON with `w->until_exit`. *hexversion gets
 * the target's PY_VERSION_HEX. With `verbose`, says what was found.
 */
/*
 * Report a refused read of `t`'s memory: "process N: permission denied
 * reading its memory: " and why (perm.h). Returns the exit code.
 */
int attach_report_denied(target *t);

int attach_unwinder(target *t, const unwind_config *cfg, bool verbose,
                    volatile sig_atomic_t *stop, const attach_wait *w,
                    unwinder *u, uint32_t *hexversion);

#endif
