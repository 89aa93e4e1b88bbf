/* SPDX-License-Identifier: MIT */
/*
 * target.h - the process being recorded: started by us or attached to.
 */
#ifndef TREC_TARGET_H
#define TREC_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct target {
    pid_t pid;
    const char *name; /* a started COMMAND as given (argv[0]), or NULL */
    bool spawned;     /* our child: reaped by target_alive */
    bool exited;
    int wait_status; /* waitpid status once exited (spawned only) */
    int ended_by;    /* the signal target_finish ended it with, or 0 */
    bool end_told;   /* a message already said how it ended */
    bool going;      /* its memory is gone: it is exiting by itself */
    /* Forked and not exec'd when its interpreter was located: the image
     * read may be the parent's copy, about to be replaced by an exec. */
    bool fork_image;
    /* The address space sampling started on (target_note_image): where
     * the kernel put the stack and argv, which an exec moves. */
    uint64_t image_stack, image_args;
} target;

/*
 * Start argv[0] with argv (PATH search) as a child that dies with the
 * recorder; `silent`: its standard streams on /dev/null (under a live
 * view). 0, or -1 with errno (also when the command cannot be run).
 */
int target_spawn(target *t, char *const argv[], bool silent);

/* Attach to an existing process. 0, or -1 if it does not exist. */
int target_attach(target *t, pid_t pid);

/* Whether process `pid` was forked and has not exec'd since
 * (PF_FORKNOEXEC): a fork child of Python, or one about to exec. */
bool target_forked_unexeced(pid_t pid);

/* Whether a target located with `fork_image` set has exec'd since. */
bool target_execed(const target *t);

/* Note the target's current address space (before sampling starts). */
void target_note_image(target *t);

/* Whether the target's address space is no longer the noted one: it
 * exec'd (the stack and argv placement move on exec; with ASLR off a
 * re-exec of the same program is not seen). False when unknown. */
bool target_image_changed(const target *t);

/* Whether the process still runs (reaps our child once it exits). */
bool target_alive(target *t);

/*
 * End a spawned child that is still running when recording stops: give
 * it `grace_ms` to exit by itself (after a Ctrl-C it got SIGINT too; at
 * least 1 s when t->going: a process whose memory is gone is in its
 * exit, not yet a zombie), then SIGTERM, then SIGKILL after 2 s, and reap
 * it (t->ended_by says which signal, if one was needed). No-op for an
 * attached process.
 */
void target_finish(target *t, int grace_ms);

#endif
