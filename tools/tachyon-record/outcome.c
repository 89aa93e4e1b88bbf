/* SPDX-License-Identifier: MIT */
/*
 * outcome.c - the exit status of tachyon-record -- COMMAND. The COMMAND's
 * status passes through, 128+N for a signal as a shell reports it, and
 * the recorder keeps 125-127 for itself as timeout(1) and env(1) do
 * (tools/common/cli.h), so a script can always tell the two apart.
 */
#define _DEFAULT_SOURCE /* WCOREDUMP */
#include "outcome.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "cli.h"

/* The usual names of the standard signals (no sigabbrev_np on musl). */
static const char *signal_name(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {
        {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"},
        {SIGILL, "SIGILL"},   {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},
        {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGKILL, "SIGKILL"},
        {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
        {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
        {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].sig == sig)
            return names[i].name;
    return NULL;
}

int outcome_exit_code(int wait_status)
{
    if (WIFEXITED(wait_status))
        return WEXITSTATUS(wait_status);
    if (WIFSIGNALED(wait_status))
        return 128 + WTERMSIG(wait_status);
    return CLI_EXIT_RECORDER; /* not an end: never passed here */
}

void outcome_describe(int wait_status, char *buf, size_t len)
{
    if (WIFEXITED(wait_status)) {
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(wait_status));
        return;
    }
    if (!WIFSIGNALED(wait_status)) {
        snprintf(buf, len, "ended (wait status %#x)", (unsigned)wait_status);
        return;
    }
    int sig = WTERMSIG(wait_status);
    const char *name = signal_name(sig);
    const char *core = WCOREDUMP(wait_status) ? ", core dumped" : "";
    if (name)
        snprintf(buf, len, "was killed by %s (signal %d%s)", name, sig, core);
    else
        snprintf(buf, len, "was killed by signal %d%s", sig, core);
}

int outcome_exec_failure(int err)
{
    return err == ENOENT || err == ENOTDIR ? CLI_EXIT_NOT_FOUND
                                           : CLI_EXIT_CANNOT_RUN;
}

int outcome_command_code(int recorder_rc, int wait_status)
{
    if (recorder_rc == CLI_EXIT_CANNOT_RUN || recorder_rc == CLI_EXIT_NOT_FOUND)
        return recorder_rc;
    if (recorder_rc != CLI_EXIT_OK)
        return CLI_EXIT_RECORDER;
    return outcome_exit_code(wait_status);
}
