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
 * Find the target's interpreter (waiting up to 30 s for a spawned child
 * to map it), check its version and initialise `u`. Reports failures on
 * stderr; returns an exit code (0 on success). *hexversion gets the
 * target's PY_VERSION_HEX. With `verbose`, says what was found.
 */
int attach_unwinder(target *t, bool all_threads, bool verbose,
                    volatile sig_atomic_t *stop, unwinder *u,
                    uint32_t *hexversion);

#endif
