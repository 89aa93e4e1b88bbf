/* SPDX-License-Identifier: MIT */
/*
 * follow.c - --subprocesses. The target's descendants are listed every
 * FOLLOW_PERIOD_NS; each one that runs Python (its executable's name says
 * python, or it maps a libpython) gets its own tachyon-record attached
 * with -p and the same options, writing NAME.PID.bin beside the parent's
 * log. A process that is not Python yet is looked at again while it is
 * young or after it execs another program (a `sh -c` wrapper becoming
 * python), then left alone quietly. A fork that has not exec'd is given
 * a recorder at its second look (subprocess's children exec at once); one
 * that execs under its recorder before a thread of its own was sampled,
 * or that no longer runs Python when the recorder looks, ends that
 * recorder quietly with no log and is looked at again; one that execs
 * after it was sampled keeps its log and is looked at again too (if it
 * became Python, its log is renamed NAME.PID.fork.bin). At most
 * FOLLOW_MAX_RECORDERS run at once, as in CPython's profiler; more are
 * skipped with a warning.
 */
#include "follow.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "children.h"
#include "cli.h"
#include "target.h"
#include "text_safe.h"

#define FOLLOW_PERIOD_NS (20 * 1000 * 1000ull)
#define FOLLOW_MAX_SEEN 4096
#define YOUNG_LOOKS 50 /* about a second of looks */

typedef enum { SEEN_WAITING, SEEN_RECORDING, SEEN_DONE, SEEN_SKIPPED } state;

typedef struct seen {
    pid_t pid, recorder;
    state st;
    int looks;
    bool fork_logged; /* its fork image has a log, then it exec'd */
    char exe[256];
} seen;

struct follow {
    const rec_options *o;
    pid_t root;
    uint64_t deadline_ns, last_ns;
    seen *seen;
    int nseen, active, started, failed;
};

follow *follow_new(const rec_options *o, pid_t root, uint64_t deadline_ns)
{
    follow *f = calloc(1, sizeof *f);
    if (f)
        f->seen = calloc(FOLLOW_MAX_SEEN, sizeof *f->seen);
    if (!f || !f->seen) {
        free(f);
        return NULL;
    }
    f->o = o;
    f->root = root;
    f->deadline_ns = deadline_ns;
    return f;
}

void follow_free(follow *f)
{
    if (f)
        free(f->seen);
    free(f);
}

int follow_started(const follow *f)
{
    return f->started;
}

/* `path` with `tag` before its extension (or at its end); -1 when that
 * does not fit in `len` bytes (nothing is ever cut short). */
static int insert_tag(const char *path, const char *tag, char *out, size_t len)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    int n;
    if (!dot || dot == (slash ? slash + 1 : path))
        n = snprintf(out, len, "%s%s", path, tag);
    else
        n = snprintf(out, len, "%.*s%s%s", (int)(dot - path), path, tag, dot);
    return n >= 0 && (size_t)n < len ? 0 : -1;
}

int follow_log_name(const char *path, pid_t pid, char *out, size_t len)
{
    char tag[32];
    snprintf(tag, sizeof tag, ".%d", (int)pid);
    return insert_tag(path, tag, out, len);
}

/* A child recorder's command line: `argv` points into `a`. */
typedef struct recorder_argv {
    char log[FOLLOW_NAME_MAX], rate[32], pid[16], left[32];
    char *argv[32];
} recorder_argv;

/* The child recorder's command line; -1 when its log name is too long. */
static int recorder_args(const follow *f, pid_t pid, recorder_argv *a,
                         uint64_t now_ns)
{
    const rec_options *o = f->o;
    static const char *const modes[] = {"wall", "cpu", "gil", "", "exception"};
    char **argv = a->argv;
    int n = 0;
    argv[n++] = "tachyon-record";
    if (o->output && follow_log_name(o->output, pid, a->log, sizeof a->log))
        return -1;
    if (!o->output)
        snprintf(a->log, sizeof a->log, "tachyon_%d.bin", (int)pid);
    argv[n++] = "-o";
    argv[n++] = a->log;
    snprintf(a->rate, sizeof a->rate, "%.17g", o->rate_hz);
    argv[n++] = "-r";
    argv[n++] = a->rate;
    argv[n++] = "--mode";
    argv[n++] = (char *)modes[o->mode];
    snprintf(a->pid, sizeof a->pid, "%d", (int)pid);
    argv[n++] = "-p";
    argv[n++] = a->pid;
    if (f->deadline_ns) {
        double left = f->deadline_ns > now_ns
                          ? (double)(f->deadline_ns - now_ns) / 1e9
                          : 0.001;
        snprintf(a->left, sizeof a->left, "%.6f", left);
        argv[n++] = "-d";
        argv[n++] = a->left;
    }
    const char *flags[] = {o->all_threads ? "-a" : NULL,
                           o->gc ? NULL : "--no-gc",
                           o->native ? "--native" : NULL,
                           o->opcodes ? "--opcodes" : NULL,
                           o->nonblocking ? "--nonblocking" : NULL,
                           o->allow_untested ? "--allow-untested" : NULL,
                           o->zstd ? "--compression=zstd" : NULL,
                           o->force ? "-f" : NULL,
                           o->quiet ? "-q" : NULL,
                           o->verbose ? "-v" : NULL};
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
        if (flags[i])
            argv[n++] = (char *)flags[i];
    argv[n] = NULL;
    return 0;
}

/* The fork's log makes room for the program it exec'd. */
static void keep_fork_log(const char *log)
{
    char fork_log[FOLLOW_NAME_MAX], a[600], b[600];
    if (insert_tag(log, ".fork", fork_log, sizeof fork_log) != 0)
        cli_warn("%s: not renamed: its .fork name is too long",
                 cli_escape(a, sizeof a, log));
    else if (rename(log, fork_log) != 0)
        cli_warn("%s: cannot rename to %s: %s", cli_escape(a, sizeof a, log),
                 cli_escape(b, sizeof b, fork_log), strerror(errno));
}

static void start_recorder(follow *f, seen *s, uint64_t now_ns)
{
    if (f->active >= FOLLOW_MAX_RECORDERS) {
        cli_warn("process %d: not recorded, %d recorders already run",
                 (int)s->pid, FOLLOW_MAX_RECORDERS);
        s->st = SEEN_SKIPPED;
        return;
    }
    recorder_argv *a = malloc(sizeof *a);
    if (!a || recorder_args(f, s->pid, a, now_ns) != 0) {
        /* An error, not a choice: the run's exit status says so. */
        cli_fail(CLI_EXIT_TROUBLE, "process %d: not recorded: %s", (int)s->pid,
                 a ? "its log's name would be too long" : "out of memory");
        f->failed++;
        s->st = SEEN_SKIPPED;
        free(a);
        return;
    }
    if (s->fork_logged) {
        keep_fork_log(a->log);
        s->fork_logged = false;
    }
    if (children_spawn_recorder(a->argv, &s->recorder) != 0) {
        cli_warn("process %d: cannot start a recorder: %s", (int)s->pid,
                 strerror(errno));
        s->st = SEEN_SKIPPED;
        free(a);
        return;
    }
    free(a);
    s->st = SEEN_RECORDING;
    f->active++;
    f->started++;
}

static seen *find_or_add(follow *f, pid_t pid)
{
    for (int i = 0; i < f->nseen; i++)
        if (f->seen[i].pid == pid)
            return &f->seen[i];
    if (f->nseen >= FOLLOW_MAX_SEEN)
        return NULL;
    seen *s = &f->seen[f->nseen++];
    memset(s, 0, sizeof *s);
    s->pid = pid;
    return s;
}

/* Look at one descendant: a new or changed (exec'd) one that runs Python
 * gets a recorder. */
static void look(follow *f, pid_t pid, uint64_t now_ns)
{
    char exe[256];
    seen *s = find_or_add(f, pid);
    if (!s || s->st != SEEN_WAITING)
        return;
    children_exe(pid, exe, sizeof exe);
    if (strcmp(exe, s->exe) != 0) {
        snprintf(s->exe, sizeof s->exe, "%s", exe);
        s->looks = 0; /* exec'd: young again */
    }
    if (s->looks++ > YOUNG_LOOKS)
        return;
    /* A fork of Python that has not exec'd may be a fork child
     * (multiprocessing) or about to exec (subprocess): it gets a recorder
     * if it is still so at the next look. */
    if (s->looks == 1 && target_forked_unexeced(pid))
        return;
    if (children_runs_python(pid, s->exe))
        start_recorder(f, s, now_ns);
}

/* A recorder ended: its process was recorded, or turned out not to run
 * Python (FOLLOW_EXIT_NOT_PYTHON) and is looked at again. */
static void recorder_ended(follow *f, seen *s, int status)
{
    f->active--;
    if (WIFEXITED(status) && WEXITSTATUS(status) == FOLLOW_EXIT_NOT_PYTHON) {
        s->st = SEEN_WAITING;
        s->exe[0] = '\0';
        f->started--;
        return;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == FOLLOW_EXIT_EXECED) {
        s->st = SEEN_WAITING;
        s->exe[0] = '\0';
        s->fork_logged = true;
        return;
    }
    s->st = SEEN_DONE;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        f->failed++;
}

/* Reap child recorders that ended. */
static void reap(follow *f, int options)
{
    int status;
    for (int i = 0; i < f->nseen; i++) {
        seen *s = &f->seen[i];
        if (s->st != SEEN_RECORDING)
            continue;
        pid_t r = waitpid(s->recorder, &status, options);
        if (r == s->recorder)
            recorder_ended(f, s, status);
        else if (r < 0 && errno == ECHILD)
            recorder_ended(f, s, 0);
    }
}

void follow_poll(follow *f, uint64_t now_ns)
{
    static pid_t kids[FOLLOW_MAX_SEEN];
    if (now_ns - f->last_ns < FOLLOW_PERIOD_NS)
        return;
    f->last_ns = now_ns;
    reap(f, WNOHANG);
    int n = children_of(f->root, kids, FOLLOW_MAX_SEEN);
    for (int i = 0; i < n; i++)
        look(f, kids[i], now_ns);
}

static void stop_all(follow *f)
{
    for (int i = 0; i < f->nseen; i++)
        if (f->seen[i].st == SEEN_RECORDING)
            kill(f->seen[i].recorder, SIGTERM);
}

int follow_end(follow *f, bool stop, volatile sig_atomic_t *stop_flag)
{
    struct timespec step = {0, 10 * 1000 * 1000};
    bool stopped = stop;
    if (stop)
        stop_all(f);
    for (reap(f, WNOHANG); f->active > 0; reap(f, WNOHANG)) {
        if (!stopped && *stop_flag) {
            stop_all(f);
            stopped = true;
        }
        nanosleep(&step, NULL);
    }
    return f->failed;
}
