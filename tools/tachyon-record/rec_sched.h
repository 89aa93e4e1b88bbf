/* SPDX-License-Identifier: MIT */
/*
 * rec_sched.h - make the recorder run on time, and only the recorder.
 */
#ifndef TREC_REC_SCHED_H
#define TREC_REC_SCHED_H

#include <stddef.h>

/*
 * Ask the scheduler to wake the recorder (this thread) promptly, by the
 * best means the kernel and privileges allow, and describe what was done
 * in `what` (for -v). Never affects other processes; children forked
 * afterwards start with default scheduling. Returns 0 if something
 * better than the default was obtained, -1 if not.
 */
int rec_sched_setup(char *what, size_t len);

/* In a child about to exec the target: back to default scheduling. */
void rec_sched_reset(void);

#endif
