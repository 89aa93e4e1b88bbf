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

/*
 * Find the target's interpreter (waiting for a spawned child to map it, up
 * to 30 s or the monotonic `deadline_ns` if earlier, 0: none), check its
 * version and initialise `u` with `cfg`. Reports failures on stderr;
 * returns an exit code (0 on success). *hexversion gets the target's
 * PY_VERSION_HEX. With `verbose`, says what was found.
 */
int attach_unwinder(target *t, const unwind_config *cfg, bool verbose,
                    volatile sig_atomic_t *stop, uint64_t deadline_ns,
                    unwinder *u, uint32_t *hexversion);

#endif
