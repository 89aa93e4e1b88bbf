/* SPDX-License-Identifier: MIT */
/*
 * live.h - --live: a terminal top view of the hottest functions, refreshed
 * every second while the sampler runs.
 */
#ifndef TREC_LIVE_H
#define TREC_LIVE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "sampler.h"
#include "unwind.h"

typedef struct live live;

/* A view of process `pid` drawn to `out`, keys read from `in`; `stop`
 * is set when the user quits. NULL when out of memory. */
live *live_new(pid_t pid, uint32_t hexversion, FILE *in, FILE *out,
               volatile sig_atomic_t *stop);

/* Count the sample just taken; redraw once a second; read keys. For the
 * sampler's hook. */
int live_tick(void *ctx, const unwinder *u, const sampler_result *r);

/* Draw the last view (the final figures) and restore the terminal. */
void live_end(live *l, const sampler_result *r);

void live_free(live *l);

#endif
