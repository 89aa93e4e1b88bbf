/* SPDX-License-Identifier: MIT */
/*
 * output.c - opening and freeing a tool's -o sink so that an interrupted
 * run leaves no temporary file. Where the library's temporary file has no
 * name (O_TMPFILE) there is nothing to do; where it has one, SIGINT,
 * SIGTERM and SIGHUP remove it before the tool dies of the signal. (No
 * handler can run on SIGKILL: only the anonymous file covers that.)
 */
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define WATCH_MAX 4

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

/*
 * Names a handler removes: tfmt_sink_temp_path buffers, each "" while no
 * such file exists. Written only with the stop signals blocked.
 */
static const char *volatile watched[WATCH_MAX];

/* Remove what exists, then die of the same signal (default action). */
static void on_stop(int sig)
{
    for (int i = 0; i < WATCH_MAX; i++) {
        const char *name = watched[i];
        if (name && name[0])
            unlink(name);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Install on_stop for each stop signal not ignored (nohup, `&`). */
static void install(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++) {
        struct sigaction old, sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_stop;
        sigemptyset(&sa.sa_mask);
        for (size_t j = 0; j < sizeof stop_signals / sizeof *stop_signals; j++)
            sigaddset(&sa.sa_mask, stop_signals[j]);
        if (sigaction(stop_signals[i], NULL, &old) == 0 &&
            old.sa_handler != SIG_IGN)
            sigaction(stop_signals[i], &sa, NULL);
    }
}

static void block(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++)
        sigaddset(&set, stop_signals[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

/* Put `name` in a free slot (or take it out with `add` false). */
static void watch(const char *name, bool add)
{
    sigset_t old;
    block(&old);
    for (int i = 0; i < WATCH_MAX; i++) {
        if (add ? watched[i] == NULL : watched[i] == name) {
            watched[i] = add ? name : NULL;
            break;
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

int cli_sink_open(tfmt_sink **out, const char *path, unsigned flags,
                  tfmt_error *err)
{
    install();
    /* blocked: a named temporary file is watched from its creation on */
    sigset_t old;
    block(&old);
    int rc = tfmt_sink_open(out, path, flags, NULL, err);
    const char *name = rc == TFMT_OK ? tfmt_sink_temp_path(*out) : NULL;
    if (name)
        watch(name, true);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

void cli_sink_free(tfmt_sink *sink)
{
    const char *name = tfmt_sink_temp_path(sink);
    if (name)
        watch(name, false);
    tfmt_sink_free(sink);
}

int cli_output_check(const char *path, bool force)
{
    struct stat st;
    if (!path || strcmp(path, "-") == 0)
        return CLI_EXIT_OK;
    /* As the sink: /dev/null, FIFOs and such are written in place. */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return CLI_EXIT_OK;
    if (!force && lstat(path, &st) == 0)
        return cli_file_fail(CLI_EXIT_TROUBLE, path,
                             "file exists (use --force to replace it)");
    return CLI_EXIT_OK;
}
