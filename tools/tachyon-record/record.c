/* SPDX-License-Identifier: MIT */
/*
 * record.c - one recording: start or attach to the target, open the log,
 * run the sampler, and finalize the log whatever ended the run (target
 * exit, --duration, SIGINT/SIGTERM/SIGHUP, or a failed read of the
 * target). --duration bounds the whole run, the search for the
 * interpreter included.
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
#include "checkpoint.h"
#include "cli.h"
#include "code_cache.h"
#include "dump.h"
#include "follow.h"
#include "live.h"
#include "rec_sched.h"
#include "sampler.h"

/* Profiling config word (spec 1.9): mode + 1 in bits 0-2, bit 3 says the
 * capture features are recorded, features (TFMT_CAPTURE_*) from bit 4. */
#define CONFIG_FEATURES_KNOWN 8u
#define CONFIG_FEATURE_SHIFT 4

/* Below this share of the requested rate the run is called short. */
#define RATE_WARN_SHARE 0.9

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
    if (o->pid) {
        if (target_attach(t, o->pid) != 0)
            return cli_fail(CLI_EXIT_TROUBLE, "process %d: %s", (int)o->pid,
                            strerror(errno));
        return CLI_EXIT_OK;
    }
    if (target_spawn(t, o->command, o->live && isatty(STDOUT_FILENO)) != 0)
        return cli_fail(CLI_EXIT_TROUBLE, "%s: %s", o->command[0],
                        strerror(errno));
    return CLI_EXIT_OK;
}

/* An existing output is replaced only with --force, as in tachyon-conv. */
static int check_output(const rec_options *o, const char *path)
{
    struct stat st;
    if (!o->force && lstat(path, &st) == 0)
        return cli_file_fail(CLI_EXIT_TROUBLE, path,
                             "file exists (use "
                             "--force to replace it)");
    return CLI_EXIT_OK;
}

static int open_log(const rec_options *o, const char *path, uint32_t hexversion,
                    uint64_t start_ns, tfmt_sink **sink, tfmt_bin_writer **w)
{
    tfmt_error err;
    tfmt_bin_writer_options wo = TFMT_BIN_WRITER_OPTIONS_INIT;
    wo.start_time_us = start_ns / 1000;
    wo.sample_interval_us = (uint64_t)(1e6 / o->rate_hz + 0.5);
    wo.python_version[0] = (uint8_t)(hexversion >> 24);
    wo.python_version[1] = (uint8_t)(hexversion >> 16);
    wo.python_version[2] = (uint8_t)(hexversion >> 8);
    wo.compression = o->zstd ? TFMT_COMPRESSION_ZSTD : TFMT_COMPRESSION_NONE;
    wo.config = rec_config_word(o);
    /* Written in place: a killed recorder leaves a log (checkpoint.c). */
    int rc = tfmt_sink_open(
        sink, path, TFMT_SINK_SEEKABLE | TFMT_SINK_FORCE | TFMT_SINK_IN_PLACE,
        NULL, &err);
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_open(w, *sink, &wo, &err);
    if (rc != TFMT_OK)
        return cli_report(path, &err);
    return CLI_EXIT_OK;
}

/*
 * The interval each sample stands for: the time recorded over the ticks
 * taken. The header says it, so that every output's durations (samples x
 * interval in pprof, speedscope, pstats; timestamps in gecko) agree with
 * the clock even when the requested rate was not reached.
 */
static uint64_t achieved_interval_us(const sampler_result *r,
                                     uint64_t requested_us)
{
    if (r->attempts == 0 || r->end_ns <= r->start_ns)
        return requested_us;
    double us = (double)(r->end_ns - r->start_ns) / 1e3 / (double)r->attempts;
    return us < 1.0 ? 1 : (uint64_t)(us + 0.5);
}

/* The statistics and achieved interval as of `r`, set on the writer. */
static int set_figures(const rec_options *o, tfmt_bin_writer *w,
                       const sampler_result *r)
{
    tfmt_stats st;
    sampler_stats(r, &st);
    int rc = tfmt_bin_writer_set_interval(
        w, achieved_interval_us(r, (uint64_t)(1e6 / o->rate_hz + 0.5)));
    return rc == TFMT_OK ? tfmt_bin_writer_stats(w, &st) : rc;
}

/*
 * A checkpoint: the log on disk made whole and valid, synced, and its end
 * kept aside for --recover. Reports and returns an exit code.
 */
static int checkpoint(const rec_options *o, const char *path, tfmt_sink *sink,
                      tfmt_bin_writer *w, const sampler_result *r)
{
    int rc = r ? set_figures(o, w, r) : TFMT_OK;
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_checkpoint(w);
    if (rc != TFMT_OK)
        return cli_report(path, tfmt_bin_writer_error(w));
    if (tfmt_sink_sync(sink) != TFMT_OK)
        return cli_report(path, tfmt_sink_error(sink));
    if (checkpoint_save(path) != 0)
        return cli_file_fail(CLI_EXIT_TROUBLE, path, "%s.recover: %s", path,
                             strerror(errno));
    return CLI_EXIT_OK;
}

/* Write statistics, tables and header; the copy for --recover goes. */
static int finish_log(const rec_options *o, const char *path, tfmt_sink *sink,
                      tfmt_bin_writer *w, const sampler_result *r)
{
    int rc = set_figures(o, w, r);
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_finish(w);
    if (rc != TFMT_OK)
        return cli_report(path, tfmt_bin_writer_error(w));
    if (tfmt_sink_sync(sink) != TFMT_OK || tfmt_sink_finish(sink) != TFMT_OK)
        return cli_report(path, tfmt_sink_error(sink));
    checkpoint_discard(path);
    return CLI_EXIT_OK;
}

static double achieved_hz(const sampler_result *r)
{
    double secs = (double)(r->end_ns - r->start_ns) / 1e9;
    return secs > 0 ? (double)r->attempts / secs : 0.0;
}

static void print_verbose(const sampler_result *r, const unwinder *u)
{
    double per = r->attempts ? (double)r->busy_ns / (double)r->attempts : 0;
    const uint64_t *race = u->counters.races;
    fprintf(stderr,
            "%s: %.1f us per tick, %.1f reads per tick, "
            "%llu code objects loaded\n",
            cli_program(), per / 1000.0,
            r->attempts ? (double)u->counters.reads / (double)r->attempts : 0.0,
            (unsigned long long)code_cache_loads(u->codes));
    fprintf(stderr,
            "%s: %llu thread walks redone after a race (stack "
            "beyond the copy %llu, frame outside the copy %llu, torn frame "
            "%llu, frames not adjacent %llu, caller not at a call %llu, "
            "returned %llu, stale read %llu, read too slow %llu, moved "
            "while read %llu, chain cut short %llu)\n",
            cli_program(), (unsigned long long)u->counters.retried,
            (unsigned long long)race[RACE_HEAD],
            (unsigned long long)race[RACE_OUTSIDE],
            (unsigned long long)race[RACE_TORN],
            (unsigned long long)race[RACE_APART],
            (unsigned long long)race[RACE_CALLSITE],
            (unsigned long long)race[RACE_RETURNED],
            (unsigned long long)race[RACE_READ],
            (unsigned long long)race[RACE_SLOW],
            (unsigned long long)race[RACE_MOVED],
            (unsigned long long)race[RACE_ROOT]);
    fprintf(stderr,
            "%s: %llu thread walks taken: %llu of a thread that did not "
            "hold the GIL while it was read, %llu of one whose CPU clock "
            "did not move while it was read, %llu of a running thread read "
            "while paused, %llu "
            "of a running thread read unpaused (%llu of them moved on every "
            "try); %llu pauses, %.1f us each on average, %llu failed; "
            "%llu threads running at the previous tick stopped before the "
            "tick's reads, %llu not in time\n",
            cli_program(), (unsigned long long)u->counters.walks,
            (unsigned long long)u->counters.frozen,
            (unsigned long long)u->counters.still,
            (unsigned long long)u->counters.paused,
            (unsigned long long)u->counters.unpaused,
            (unsigned long long)u->counters.moved,
            (unsigned long long)u->counters.pauses,
            u->counters.pauses ? (double)u->counters.pause_ns /
                                     (double)u->counters.pauses / 1e3
                               : 0.0,
            (unsigned long long)u->counters.pause_failed,
            (unsigned long long)u->counters.held,
            (unsigned long long)u->counters.held_late);
    if (u->off.free_threaded)
        fprintf(stderr,
                "%s: %llu of %llu frames ran on their thread's own copy of "
                "their bytecode\n",
                cli_program(), (unsigned long long)u->counters.tlbc_frames,
                (unsigned long long)u->counters.frames);
    fprintf(stderr,
            "%s: lateness p50 %.0f us, p90 %.0f us, p99 %.0f us, "
            "max %.0f us; %llu ticks late (over half an interval), "
            "%llu ticks skipped: %.1f%% missed\n",
            cli_program(), (double)sampler_late_quantile(r, 0.5) / 1e3,
            (double)sampler_late_quantile(r, 0.9) / 1e3,
            (double)sampler_late_quantile(r, 0.99) / 1e3,
            (double)r->late_max_ns / 1e3, (unsigned long long)r->late,
            (unsigned long long)r->skipped, sampler_missed_pct(r));
}

static void print_summary(const rec_options *o, const char *path,
                          const sampler_result *r, const unwinder *u)
{
    double secs = (double)(r->end_ns - r->start_ns) / 1e9;
    if (o->quiet)
        return;
    fprintf(stderr,
            "%s: %s: %llu ticks in %.2f s (%.1f Hz), "
            "%llu samples, %llu ticks failed (%.2f%%)\n",
            cli_program(), path, (unsigned long long)r->attempts, secs,
            achieved_hz(r), (unsigned long long)r->thread_samples,
            (unsigned long long)r->failed,
            r->attempts ? 100.0 * (double)r->failed / (double)r->attempts
                        : 0.0);
    if (o->verbose)
        print_verbose(r, u);
}

/* Say when the log is not what was asked for. */
static void warn_shortfalls(const rec_options *o, const char *path,
                            const sampler_result *r, const unwinder *u)
{
    double hz = achieved_hz(r);
    if (r->attempts >= 10 && hz < RATE_WARN_SHARE * o->rate_hz)
        cli_file_warn(path,
                      "sampled at %.0f Hz, under 90%% of the "
                      "requested %.0f Hz (%.1f%% of ticks missed); the log "
                      "says the interval achieved",
                      hz, o->rate_hz, sampler_missed_pct(r));
    if (r->thread_samples == 0)
        cli_file_warn(path, "the profile is empty: %s",
                      r->attempts == 0              ? "no tick was taken"
                      : o->mode != UNWIND_MODE_WALL ? "no thread matched --mode"
                                                    : "no thread was sampled");
    if (u->pause_denied)
        cli_file_warn(path,
                      "threads could not be paused (ptrace not permitted); "
                      "%llu stacks of running threads were read unpaused "
                      "and, rarely, one may be a state they were never in",
                      (unsigned long long)u->counters.unpaused);
}

static int end_status(const sampler_result *r, const target *t,
                      tfmt_bin_writer *w, const char *path)
{
    if (r->end == SAMPLER_DENIED) {
        char hint[256];
        target_permission_hint(hint, sizeof hint);
        return cli_fail(CLI_EXIT_TROUBLE,
                        "process %d: permission denied "
                        "reading its memory: %s",
                        (int)t->pid, hint);
    }
    if (r->end == SAMPLER_LOST)
        cli_warn("process %d: stopped after %llu failed ticks in a row: "
                 "it exec'd (its address space changed)",
                 (int)t->pid, (unsigned long long)r->failed_in_row);
    if (r->end == SAMPLER_EXECED && !getenv("TACHYON_RECORD_CHILD"))
        cli_warn("process %d: it exec'd another program; the recording "
                 "ends there",
                 (int)t->pid);
    if (r->end == SAMPLER_WRITE_ERROR)
        return cli_report(path, tfmt_bin_writer_error(w));
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
    const char *path;
    tfmt_sink *sink;
    tfmt_bin_writer *w; /* NULL: no log written (--live alone) */
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
    if (j->w && now - j->last_checkpoint_ns >= CHECKPOINT_PERIOD_NS) {
        sampler_result so_far = *r;
        so_far.end_ns = now;
        j->last_checkpoint_ns = now;
        if (checkpoint(j->o, j->path, j->sink, j->w, &so_far) != 0) {
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

static int record_to(const rec_options *o, const char *path, target *t,
                     unwinder *u, uint32_t hexversion, uint64_t deadline,
                     follow *fl)
{
    sampler_config cfg = {(uint64_t)(1e9 / o->rate_hz), deadline};
    sampler_result r;
    tfmt_sink *sink = NULL;
    tfmt_bin_writer *w = NULL;
    live *lv = NULL;
    emitter *e = calloc(1, sizeof *e);
    uint64_t start = sampler_now_ns();
    /* --live writes a log only when asked to (-o). */
    bool write = !o->live || o->output;
    int rc = e ? CLI_EXIT_OK : cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    if (rc == CLI_EXIT_OK && write)
        rc = open_log(o, path, hexversion, start, &sink, &w);
    /* A valid (empty) log on disk from the start. */
    if (rc == CLI_EXIT_OK && write)
        rc = checkpoint(o, path, sink, w, NULL);
    if (rc == CLI_EXIT_OK && o->live &&
        !(lv = live_new(t->pid, hexversion, stdin, stdout, &stop_flag)))
        rc = cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    if (rc == CLI_EXIT_OK) {
        tick_jobs jobs = {o, path, sink, w, start, fl, lv, false};
        e->w = w;
        sampler_run(u, e, t, &cfg, start, &stop_flag, after_tick, &jobs, &r);
        if (lv)
            live_end(lv, &r);
        rc = jobs.failed ? CLI_EXIT_TROUBLE : end_status(&r, t, w, path);
        /* After a failed checkpoint the log stays as the last good one
         * left it, with its copy for --recover. */
        int frc = !write        ? CLI_EXIT_OK
                  : jobs.failed ? CLI_EXIT_TROUBLE
                                : finish_log(o, path, sink, w, &r);
        rc = rc ? rc : frc;
        if (rc == CLI_EXIT_OK && write && fork_image_only(&r)) {
            /* A fork child that exec'd before it ran Python of its own:
             * no log, and the follower looks at what it became. */
            unlink(path);
            rc = FOLLOW_EXIT_NOT_PYTHON;
        } else if (frc == CLI_EXIT_OK && write) {
            print_summary(o, path, &r, u);
            warn_shortfalls(o, path, &r, u);
            /* Recorded as a fork, then it exec'd: the follower looks at
             * the new program. */
            if (rc == CLI_EXIT_OK && r.end == SAMPLER_EXECED &&
                getenv("TACHYON_RECORD_CHILD"))
                rc = FOLLOW_EXIT_EXECED;
        }
    }
    live_free(lv);
    tfmt_bin_writer_free(w);
    tfmt_sink_free(sink);
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
    bool ended = deadline && sampler_now_ns() >= deadline;
    int failed = follow_end(fl, stop_flag || ended, &stop_flag);
    if (follow_started(fl) == 0)
        return cli_fail(CLI_EXIT_TROUBLE,
                        "process %d: no CPython 3.11-3.14 interpreter found "
                        "in it or its children",
                        (int)t->pid);
    if (o->verbose && !o->quiet)
        fprintf(stderr,
                "%s: process %d: no CPython interpreter in it; %d child "
                "process(es) recorded\n",
                cli_program(), (int)t->pid, follow_started(fl));
    return failed ? CLI_EXIT_TROUBLE : CLI_EXIT_OK;
}

/* Find the interpreter and record; children followed throughout. */
static int record_target(const rec_options *o, const char *path, target *t,
                         uint64_t deadline, follow *fl)
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
        rc = record_to(o, path, t, &u, hexversion, deadline, fl);
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
        if (got == RMEM_OK) {
            rc = cli_close_stdout(CLI_EXIT_OK);
        } else if (got == RMEM_DENIED) {
            char hint[256];
            target_permission_hint(hint, sizeof hint);
            rc = cli_fail(CLI_EXIT_TROUBLE,
                          "process %d: permission denied "
                          "reading its memory: %s",
                          (int)t->pid, hint);
        } else {
            rc = cli_fail(CLI_EXIT_TROUBLE, "process %d: %s", (int)t->pid,
                          got == RMEM_GONE ? "exited before the dump"
                                           : "no consistent snapshot of its "
                                             "threads (they change too "
                                             "fast); try again");
        }
    }
    unwind_free(&u);
    return rc;
}

int run_record(const rec_options *o)
{
    if (o->recover)
        return checkpoint_recover(o->recover);
    target t;
    char defname[64];
    follow *fl = NULL;
    uint64_t deadline = o->duration_s > 0
                            ? sampler_now_ns() + (uint64_t)(o->duration_s * 1e9)
                            : 0;
    install_handlers();
    int rc = o->output ? check_output(o, o->output) : CLI_EXIT_OK;
    if (rc == CLI_EXIT_OK)
        rc = start_target(o, &t);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (o->dump) {
        rc = run_dump(o, &t, deadline);
        target_finish(&t, 0);
        return rc;
    }
    const char *path = o->output;
    if (!path) {
        snprintf(defname, sizeof defname, "tachyon_%d.bin", (int)t.pid);
        path = defname;
        rc = check_output(o, path);
    }
    if (rc == CLI_EXIT_OK && o->subprocesses &&
        !(fl = follow_new(o, t.pid, deadline)))
        rc = cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    if (rc == CLI_EXIT_OK)
        rc = record_target(o, path, &t, deadline, fl);
    /* After SIGINT/SIGTERM the child may be exiting on its own. */
    target_finish(&t, stop_flag ? 1000 : 0);
    follow_free(fl);
    return rc;
}
