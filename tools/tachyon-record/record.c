/* SPDX-License-Identifier: MIT */
/*
 * record.c - one recording: start or attach to the target, open the log,
 * run the sampler, and finalize the log whatever ended the run (target
 * exit, --duration, SIGINT/SIGTERM/SIGHUP, or a failed read of the
 * target). --duration bounds the whole run, the search for the
 * interpreter included. With a COMMAND, the exit status is the
 * COMMAND's, or the recorder's own 125-127 (outcome.h).
 */
#include "record.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tachyon/fmt.h>

#include "attach.h"
#include "cli.h"
#include "dump.h"
#include "follow.h"
#include "live.h"
#include "log_out.h"
#include "outcome.h"
#include "recover.h"
#include "rec_sched.h"
#include "sampler.h"
#include "summary.h"
#include "text_safe.h"

/* Profiling config word (spec 1.9): mode + 1 in bits 0-2, bit 3 says the
 * capture features are recorded, features (TFMT_CAPTURE_*) from bit 4. */
#define CONFIG_FEATURES_KNOWN 8u
#define CONFIG_FEATURE_SHIFT 4

static volatile sig_atomic_t stop_flag;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

/* SIGHUP (a closed terminal or SSH session) ends a run like SIGTERM. */
static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

uint32_t rec_config_word(const rec_options *o)
{
    uint32_t f = (o->all_threads ? TFMT_CAPTURE_ALL_THREADS : 0) |
                 (o->native ? TFMT_CAPTURE_NATIVE : 0) |
                 (o->gc ? TFMT_CAPTURE_GC : 0) |
                 (o->opcodes ? TFMT_CAPTURE_OPCODES : 0);
    return ((uint32_t)o->mode + 1) | CONFIG_FEATURES_KNOWN |
           f << CONFIG_FEATURE_SHIFT;
}

static int start_target(const rec_options *o, target *t)
{
    char name[300];
    if (o->pid) {
        if (target_attach(t, o->pid) != 0)
            return cli_fail(CLI_EXIT_TROUBLE, "process %d: %s", (int)o->pid,
                            strerror(errno));
        return CLI_EXIT_OK;
    }
    if (target_spawn(t, o->command, o->live && isatty(STDOUT_FILENO)) != 0)
        return cli_fail(outcome_exec_failure(errno), "%s: %s",
                        cli_escape(name, sizeof name, o->command[0]),
                        strerror(errno));
    return CLI_EXIT_OK;
}

static int end_status(const sampler_result *r, target *t, const log_out *l)
{
    if (r->end == SAMPLER_DENIED)
        return attach_report_denied(t);
    if (r->end == SAMPLER_LOST)
        cli_warn("process %d: stopped after %llu failed ticks in a row: "
                 "it exec'd (its address space changed)",
                 (int)t->pid, (unsigned long long)r->failed_in_row);
    if (r->end == SAMPLER_EXECED && !getenv("TACHYON_RECORD_CHILD"))
        cli_warn("process %d: it exec'd another program; the recording "
                 "ends there",
                 (int)t->pid);
    if (r->end == SAMPLER_WRITE_ERROR)
        return cli_report(l->name, tfmt_bin_writer_error(l->w));
    return CLI_EXIT_OK;
}

static void poll_children_waiting(void *ctx, uint64_t now_ns)
{
    follow_poll(ctx, now_ns);
}

/* What runs after every tick: checkpoints, following children, the
 * live view. */
typedef struct tick_jobs {
    const rec_options *o;
    log_out *log; /* NULL: no log written (--live alone) */
    uint64_t last_checkpoint_ns;
    follow *fl;
    live *lv;
    bool failed; /* a checkpoint failed (reported) */
} tick_jobs;

static int after_tick(void *ctx, const unwinder *u, const sampler_result *r)
{
    tick_jobs *j = ctx;
    uint64_t now = u->now_ns;
    if (j->fl)
        follow_poll(j->fl, sampler_now_ns());
    if (j->lv)
        live_tick(j->lv, u, r);
    if (j->log && now - j->last_checkpoint_ns >= CHECKPOINT_PERIOD_NS) {
        sampler_result so_far = *r;
        so_far.end_ns = now;
        j->last_checkpoint_ns = now;
        if (log_out_checkpoint(j->log, j->o, &so_far) != 0) {
            j->failed = true;
            return -1;
        }
    }
    return 0;
}

/* A recorder for --subprocesses whose process exec'd before any of its
 * threads was sampled: it only ever saw the image its fork copied. */
static bool fork_image_only(const sampler_result *r)
{
    return r->end == SAMPLER_EXECED && r->thread_samples == 0 &&
           getenv("TACHYON_RECORD_CHILD") != NULL;
}

/* After the sampler: end the log and say how it went. *logged: a log
 * file was finished (not stdout or a device). */
static int after_run(const rec_options *o, log_out *log, target *t,
                     const unwinder *u, const sampler_result *r, bool failed,
                     bool *logged)
{
    int rc = failed ? CLI_EXIT_TROUBLE : end_status(r, t, log);
    /* After a failed checkpoint the log stays as the last good one left
     * it, with its copy for --recover. */
    int frc = !log     ? CLI_EXIT_OK
              : failed ? CLI_EXIT_TROUBLE
                       : log_out_finish(log, o, r);
    rc = rc ? rc : frc;
    if (rc == CLI_EXIT_OK && log && fork_image_only(r)) {
        /* A fork child that exec'd before it ran Python of its own: no
         * log, and the follower looks at what it became. */
        unlink(log->path);
        return FOLLOW_EXIT_NOT_PYTHON;
    }
    if (frc != CLI_EXIT_OK || !log)
        return rc;
    *logged = log->in_place; /* a file to open later */
    summary_figures(o, log->name, r, u);
    summary_warnings(o, log->name, r, u);
    /* Recorded as a fork, then it exec'd: the follower looks at the new
     * program. */
    if (rc == CLI_EXIT_OK && r->end == SAMPLER_EXECED &&
        getenv("TACHYON_RECORD_CHILD"))
        rc = FOLLOW_EXIT_EXECED;
    return rc;
}

static int record_to(const rec_options *o, const char *path, target *t,
                     unwinder *u, uint32_t hexversion, uint64_t deadline,
                     follow *fl, bool *logged)
{
    sampler_config cfg = {(uint64_t)(1e9 / o->rate_hz), deadline};
    sampler_result r;
    log_out log;
    live *lv = NULL;
    emitter *e = calloc(1, sizeof *e);
    uint64_t start = sampler_now_ns();
    /* --live writes a log only when asked to (-o). */
    bool write = !o->live || o->output;
    memset(&log, 0, sizeof log);
    log.cp.fd = -1;
    int rc = e ? CLI_EXIT_OK : cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    if (rc == CLI_EXIT_OK && write)
        rc = log_out_open(&log, o, path, hexversion, start);
    if (rc == CLI_EXIT_OK && o->live &&
        !(lv = live_new(t->pid, hexversion, stdin, stdout, &stop_flag)))
        rc = cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    if (rc == CLI_EXIT_OK) {
        tick_jobs jobs = {o, write ? &log : NULL, start, fl, lv, false};
        e->w = log.w;
        sampler_run(u, e, t, &cfg, start, &stop_flag, after_tick, &jobs, &r);
        if (lv)
            live_end(lv, &r);
        rc = after_run(o, write ? &log : NULL, t, u, &r, jobs.failed, logged);
    }
    live_free(lv);
    log_out_close(&log);
    free(e);
    return rc;
}

static void say_setup(const rec_options *o, const char *sched,
                      const unwinder *u)
{
    if (!o->verbose || o->quiet)
        return;
    fprintf(stderr, "%s: scheduling: %s\n", cli_program(), sched);
    fprintf(stderr, "%s: on-CPU status from the %s\n", cli_program(),
            tstat_clock_source(u->tstat));
}

static unwind_config unwind_cfg(const rec_options *o)
{
    unwind_config c = {o->all_threads,   (unwind_mode)o->mode, o->gc,
                       o->native,        o->opcodes,           !o->nonblocking,
                       o->allow_untested};
    return c;
}

/*
 * Following children, the target itself may not run Python (a shell
 * wrapper): that is fine when some child was recorded.
 */
static int no_python_target(const rec_options *o, const target *t, follow *fl,
                            uint64_t deadline)
{
    char name[300];
    bool ended = deadline && sampler_now_ns() >= deadline;
    int failed = follow_end(fl, stop_flag || ended, &stop_flag);
    if (t->spawned)
        cli_escape(name, sizeof name, t->name);
    else
        snprintf(name, sizeof name, "process %d", (int)t->pid);
    if (follow_started(fl) == 0)
        return cli_fail(CLI_EXIT_TROUBLE,
                        "%s: no CPython 3.11-3.14 interpreter found in it or "
                        "its children; nothing recorded",
                        name);
    if (o->verbose && !o->quiet)
        fprintf(stderr,
                "%s: %s: no CPython interpreter in it; %d child "
                "process(es) recorded\n",
                cli_program(), name, follow_started(fl));
    return failed ? CLI_EXIT_TROUBLE : CLI_EXIT_OK;
}

/* Find the interpreter and record; children followed throughout.
 * *logged: a log was written. */
static int record_target(const rec_options *o, const char *path, target *t,
                         uint64_t deadline, follow *fl, bool *logged)
{
    unwinder u;
    uint32_t hexversion = 0;
    char sched[160];
    unwind_config cfg = unwind_cfg(o);
    /* A recorder started by --subprocesses: its process may be gone
     * before its interpreter is found, which is not worth a message. */
    bool child = getenv("TACHYON_RECORD_CHILD") != NULL;
    attach_wait w = {deadline, fl != NULL, child,
                     fl ? poll_children_waiting : NULL, fl};
    memset(&u, 0, sizeof u);
    rec_sched_setup(sched, sizeof sched);
    int rc = attach_unwinder(t, &cfg, o->verbose && !o->quiet, &stop_flag, &w,
                             &u, &hexversion);
    if (rc == ATTACH_GONE) {
        rc = CLI_EXIT_OK;
    } else if (rc == ATTACH_NO_PYTHON && child) {
        rc = FOLLOW_EXIT_NOT_PYTHON; /* the follower looks again */
    } else if (rc == ATTACH_NO_PYTHON) {
        rc = no_python_target(o, t, fl, deadline);
    } else if (rc == CLI_EXIT_OK) {
        say_setup(o, sched, &u);
        rc = record_to(o, path, t, &u, hexversion, deadline, fl, logged);
        bool ended = deadline && sampler_now_ns() >= deadline;
        if (fl && follow_end(fl, stop_flag || ended, &stop_flag) && !rc)
            rc = CLI_EXIT_TROUBLE;
    }
    unwind_free(&u);
    return rc;
}

/* Sleep until the deadline, a signal or the target's exit. */
static void wait_deadline(target *t, uint64_t deadline)
{
    struct timespec step = {0, 10 * 1000 * 1000};
    while (deadline && !stop_flag && sampler_now_ns() < deadline &&
           target_alive(t))
        nanosleep(&step, NULL);
}

/* --dump: find the interpreter, wait for -d if given, print once. */
static int run_dump(const rec_options *o, target *t, uint64_t deadline)
{
    unwinder u;
    uint32_t hexversion;
    unwind_config cfg = {true,
                         UNWIND_MODE_WALL,
                         o->gc,
                         o->native,
                         o->opcodes,
                         !o->nonblocking,
                         o->allow_untested};
    attach_wait w = {0, false, false, NULL, NULL};
    memset(&u, 0, sizeof u);
    int rc = attach_unwinder(t, &cfg, o->verbose && !o->quiet, &stop_flag, &w,
                             &u, &hexversion);
    if (rc == CLI_EXIT_OK) {
        wait_deadline(t, deadline);
        int got = dump_threads(&u, stdout);
        if (got == RMEM_OK)
            rc = cli_close_stdout(CLI_EXIT_OK);
        else if (got == RMEM_DENIED)
            rc = attach_report_denied(t);
        else
            rc = cli_fail(CLI_EXIT_TROUBLE, "process %d: %s", (int)t->pid,
                          got == RMEM_GONE ? "exited before the dump"
                                           : "no consistent snapshot of its "
                                             "threads (they change too "
                                             "fast); try again");
    }
    unwind_free(&u);
    return rc;
}

/*
 * The exit code of a run with a COMMAND (outcome.h). A failed recording
 * says how the COMMAND ended, unless its message already did.
 */
static int command_code(const rec_options *o, const target *t, int rc)
{
    char how[400];
    if (o->dump) /* a question of its own: 0/1/2, or 126/127 */
        return rc;
    if (rc == CLI_EXIT_CANNOT_RUN || rc == CLI_EXIT_NOT_FOUND)
        return rc;
    if (rc != CLI_EXIT_OK && t->exited && !t->end_told) {
        summary_how_ended(t, how, sizeof how);
        cli_fail(CLI_EXIT_RECORDER,
                 "%s; exit status 125: the recording "
                 "failed",
                 how);
    }
    return outcome_command_code(rc, t->wait_status);
}

/* Start or attach, record, end the target; an exit code (0/1/2). */
static int record_session(const rec_options *o, target *t, uint64_t deadline)
{
    char defname[64];
    follow *fl = NULL;
    bool logged = false;
    int rc = start_target(o, t);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (o->dump) {
        rc = run_dump(o, t, deadline);
        target_finish(t, 0);
        return rc;
    }
    const char *path = o->output;
    if (!path) {
        snprintf(defname, sizeof defname, "tachyon_%d.bin", (int)t->pid);
        path = defname;
        rc = log_out_check(o, path);
    }
    if (rc == CLI_EXIT_OK && o->subprocesses &&
        !(fl = follow_new(o, t->pid, deadline)))
        rc = cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    if (rc == CLI_EXIT_OK)
        rc = record_target(o, path, t, deadline, fl, &logged);
    /* After SIGINT/SIGTERM the child may be exiting on its own. */
    target_finish(t, stop_flag ? 1000 : 0);
    follow_free(fl);
    if (rc == CLI_EXIT_OK && !getenv("TACHYON_RECORD_CHILD"))
        summary_ending(o, t, logged ? path : NULL);
    return rc;
}

int run_record(const rec_options *o)
{
    if (o->recover)
        return checkpoint_recover(o->recover);
    target t;
    uint64_t deadline = o->duration_s > 0
                            ? sampler_now_ns() + (uint64_t)(o->duration_s * 1e9)
                            : 0;
    memset(&t, 0, sizeof t);
    install_handlers();
    int rc = o->output ? log_out_check(o, o->output) : CLI_EXIT_OK;
    if (rc == CLI_EXIT_OK)
        rc = record_session(o, &t, deadline);
    return o->command ? command_code(o, &t, rc) : rc;
}
