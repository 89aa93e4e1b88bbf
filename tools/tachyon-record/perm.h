/* SPDX-License-Identifier: MIT */
/*
 * perm.h - why the kernel may refuse to let the recorder read a process,
 * told from what the recorder can see: its effective capabilities, Yama's
 * kernel.yama.ptrace_scope, the target's user, capabilities and
 * dumpability, and whether the target is the recorder's own child. Never
 * from the user id alone: root without CAP_SYS_PTRACE (a default
 * container) is refused where a user with it is not.
 */
#ifndef TREC_PERM_H
#define TREC_PERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PERM_CAP_SYS_PTRACE 19 /* linux/capability.h */

/* The lines of /proc/PID/status the kernel's ptrace check looks at. */
typedef struct perm_status {
    bool ok;      /* Uid, Gid, CapPrm and CapEff were all read */
    uid_t uid[3]; /* real, effective, saved */
    gid_t gid[3];
    uint64_t cap_prm, cap_eff;
} perm_status;

/* What is known when a read of another process was refused. */
typedef struct perm_facts {
    perm_status self;   /* the recorder */
    perm_status target; /* target.ok false: unknown (it exited, or hidden) */
    int scope;          /* kernel.yama.ptrace_scope, -1: no Yama */
    bool child;         /* the target is the recorder's started COMMAND */
    bool dumpable;      /* false: /proc/PID is root's though its user is
                           not (set-user-ID, PR_SET_DUMPABLE 0) */
} perm_facts;

/* Parse a /proc/PID/status file at `path` into *out (out->ok says if it
 * held every line wanted). 0, or -1 with errno when it cannot be read. */
int perm_read_status(const char *path, perm_status *out);

/* kernel.yama.ptrace_scope from the file at `path` (normally
 * /proc/sys/kernel/yama/ptrace_scope), or -1 when it cannot be read. */
int perm_read_scope(const char *path);

/* The facts for target `pid` (`child`: started by the recorder), read
 * from /proc now. */
void perm_gather(pid_t pid, bool child, perm_facts *out);

/*
 * One line, for after "permission denied reading its memory: ": what
 * stands in the way and what to do, e.g. "it runs as uid 1000 and
 * tachyon-record as uid 0 without CAP_SYS_PTRACE (root in a container
 * without it: add --cap-add SYS_PTRACE); run as that user or with
 * CAP_SYS_PTRACE".
 */
void perm_explain(const perm_facts *f, char *buf, size_t len);

#endif
