/* SPDX-License-Identifier: MIT */
/*
 * thread_status.h - was a thread of the target on a CPU for the interval
 * its sample stands for?
 */
#ifndef TREC_THREAD_STATUS_H
#define TREC_THREAD_STATUS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct tstat_cache tstat_cache;

tstat_cache *tstat_new(pid_t pid);
void tstat_free(tstat_cache *c);

/*
 * 1 if thread `tid` was on a CPU for most of the time since its previous
 * call (by schedstat: its CPU time changed lately and it is runnable
 * now), 0 if not, -1 if that cannot be read. Call it once per
 * sample for each thread sampled; `now_ns` is the sample's monotonic time.
 * The first call for a thread has no previous CPU time to compare with and
 * answers from the scheduler state alone.
 */
int tstat_on_cpu(tstat_cache *c, uint64_t tid, uint64_t now_ns);

/*
 * The CPU time thread `tid` has used, in ns, exact to the moment of the
 * call (a perf task clock asks the thread's CPU); -1 where it cannot be
 * read exactly (schedstat lags the slice in progress). Two equal readings
 * mean the thread did not run at all in between.
 */
int tstat_cpu_time(tstat_cache *c, uint64_t tid, uint64_t *ns);

/* How long thread `tid` was on a CPU (*ran) in the interval between its
 * last two tstat_on_cpu() calls (*span), by the perf clock: 0, or -1 if
 * not known. */
int tstat_last_run(const tstat_cache *c, uint64_t tid, uint64_t *ran,
                   uint64_t *span);

/*
 * Whether thread `tid` is runnable ('R') and was last on another CPU than
 * the caller's: it is probably running now, and a stop asked of it comes
 * at once. A thread on the caller's CPU is not running while the caller
 * is; one that sleeps is not running either. Reads /proc, never the
 * thread's CPU.
 */
bool tstat_running_elsewhere(tstat_cache *c, uint64_t tid);

/* Where CPU time comes from: "perf task clock" (exact) or "schedstat"
 * (updated at scheduler ticks only), for -v. */
const char *tstat_clock_source(const tstat_cache *c);

#endif
