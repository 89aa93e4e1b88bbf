/* SPDX-License-Identifier: MIT */
/*
 * outcome.h - how a started COMMAND ended, in words and as the exit
 * status tachyon-record passes on (as time(1) and timeout(1) do).
 */
#ifndef TREC_OUTCOME_H
#define TREC_OUTCOME_H

#include <stddef.h>

/* The shell's code for a wait status: the exit status, or 128+N when
 * signal N ended the process. */
int outcome_exit_code(int wait_status);

/* "exited with status 3", "was killed by SIGKILL (signal 9)", "was
 * killed by SIGSEGV (signal 11, core dumped)". */
void outcome_describe(int wait_status, char *buf, size_t len);

/* The code for a COMMAND exec refused with errno `err`: 127 when it was
 * not found (ENOENT, ENOTDIR), 126 when found but not runnable. */
int outcome_exec_failure(int err);

/*
 * The exit code of a run with a COMMAND: the recorder's own failure
 * (`recorder_rc` not 0) is 125 whatever the COMMAND did, so a failed
 * recording is never hidden behind the COMMAND's success; else the
 * COMMAND's code for `wait_status`.
 */
int outcome_command_code(int recorder_rc, int wait_status);

#endif
