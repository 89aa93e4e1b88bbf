/*
 * thread_status.h - is a thread of the target on a CPU right now?
 */
#ifndef TREC_THREAD_STATUS_H
#define TREC_THREAD_STATUS_H

#include <stdint.h>
#include <sys/types.h>

typedef struct tstat_cache tstat_cache;

tstat_cache *tstat_new(pid_t pid);
void tstat_free(tstat_cache *c);

/*
 * 1 if thread `tid` is running or runnable (scheduler state 'R' in
 * /proc/PID/task/TID/stat), 0 if not, -1 if that cannot be read.
 */
int tstat_on_cpu(tstat_cache *c, uint64_t tid);

#endif
