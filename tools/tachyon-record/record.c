/*
 * record.c - one recording: start or attach to the target, open the log,
 * run the sampler, and finalize the log whatever ended the run (target
 * exit, --duration, SIGINT/SIGTERM, or a failed read of the target).
 */
#include "record.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tachyon/fmt.h>

#include "attach.h"
#include "cli.h"
#include "code_cache.h"
#include "sampler.h"

/* Profiling config word: WALL mode + 1, features recorded (spec 1.9). */
#define CONFIG_MODE_WALL 1u
#define CONFIG_FEATURES_KNOWN 8u
#define CONFIG_FEATURE_ALL_THREADS (1u << 4)

static volatile sig_atomic_t stop_flag;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static int start_target(const rec_options *o, target *t)
{
    if (o->pid) {
        if (target_attach(t, o->pid) != 0)
            return cli_fail(CLI_EXIT_TROUBLE, "process %d: %s", (int)o->pid,
                            strerror(errno));
        return CLI_EXIT_OK;
    }
    if (target_spawn(t, o->command) != 0)
        return cli_fail(CLI_EXIT_TROUBLE, "%s: %s", o->command[0],
                        strerror(errno));
    return CLI_EXIT_OK;
}

static int open_log(const rec_options *o, const char *path,
                    uint32_t hexversion, uint64_t start_ns, tfmt_sink **sink,
                    tfmt_bin_writer **w)
{
    tfmt_error err;
    tfmt_bin_writer_options wo = TFMT_BIN_WRITER_OPTIONS_INIT;
    wo.start_time_us = start_ns / 1000;
    wo.sample_interval_us = (uint64_t)(1e6 / o->rate_hz + 0.5);
    wo.python_version[0] = (uint8_t)(hexversion >> 24);
    wo.python_version[1] = (uint8_t)(hexversion >> 16);
    wo.python_version[2] = (uint8_t)(hexversion >> 8);
    wo.compression = o->zstd ? TFMT_COMPRESSION_ZSTD : TFMT_COMPRESSION_NONE;
    wo.config = CONFIG_MODE_WALL | CONFIG_FEATURES_KNOWN |
                (o->all_threads ? CONFIG_FEATURE_ALL_THREADS : 0);
    int rc = tfmt_sink_open(sink, path, TFMT_SINK_SEEKABLE | TFMT_SINK_FORCE,
                            NULL, &err);
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_open(w, *sink, &wo, &err);
    if (rc != TFMT_OK)
        return cli_report(path, &err);
    return CLI_EXIT_OK;
}

/* Write statistics, tables and header; rename the file into place. */
static int finish_log(const char *path, tfmt_sink *sink, tfmt_bin_writer *w,
                      const sampler_result *r, const sampler_config *cfg)
{
    tfmt_stats st;
    sampler_stats(r, cfg, &st);
    int rc = tfmt_bin_writer_stats(w, &st);
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_finish(w);
    if (rc != TFMT_OK)
        return cli_report(path, tfmt_bin_writer_error(w));
    if (tfmt_sink_finish(sink) != TFMT_OK)
        return cli_report(path, tfmt_sink_error(sink));
    return CLI_EXIT_OK;
}

static void print_summary(const rec_options *o, const char *path,
                          const sampler_result *r, const unwinder *u)
{
    double secs = (double)(r->end_ns - r->start_ns) / 1e9;
    double per = r->attempts ? (double)r->busy_ns / (double)r->attempts : 0;
    if (o->quiet)
        return;
    fprintf(stderr, "%s: %s: %llu samples in %.2f s (%.1f Hz), "
            "%llu thread-samples, %llu failed (%.2f%%)\n", cli_program(),
            path, (unsigned long long)r->attempts, secs,
            secs > 0 ? (double)r->attempts / secs : 0.0,
            (unsigned long long)r->thread_samples,
            (unsigned long long)r->failed,
            r->attempts ? 100.0 * (double)r->failed / (double)r->attempts
                        : 0.0);
    if (o->verbose)
        fprintf(stderr, "%s: %.1f us per sample, %.1f reads per sample, "
                "%llu missed ticks, %llu code objects loaded\n",
                cli_program(), per / 1000.0,
                r->attempts ? (double)r->reads / (double)r->attempts : 0.0,
                (unsigned long long)r->missed,
                (unsigned long long)code_cache_loads(u->codes));
}

static int end_status(const sampler_result *r, const target *t,
                      tfmt_bin_writer *w, const char *path)
{
    if (r->end == SAMPLER_DENIED)
        return cli_fail(CLI_EXIT_TROUBLE, "process %d: permission denied "
                        "reading its memory (needs the same user or "
                        "CAP_SYS_PTRACE)", (int)t->pid);
    if (r->end == SAMPLER_LOST)
        cli_warn("process %d: stopped after %llu failed samples in a row "
                 "(did it exec another program?)", (int)t->pid,
                 (unsigned long long)r->failed_in_row);
    if (r->end == SAMPLER_WRITE_ERROR)
        return cli_report(path, tfmt_bin_writer_error(w));
    return CLI_EXIT_OK;
}

static int record_to(const rec_options *o, const char *path, target *t,
                     unwinder *u, uint32_t hexversion)
{
    sampler_config cfg = {(uint64_t)(1e9 / o->rate_hz),
                          (uint64_t)(o->duration_s * 1e9)};
    sampler_result r;
    tfmt_sink *sink = NULL;
    tfmt_bin_writer *w = NULL;
    emitter *e = calloc(1, sizeof *e);
    uint64_t start = sampler_now_ns();
    int rc = e ? open_log(o, path, hexversion, start, &sink, &w)
               : cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    if (rc == CLI_EXIT_OK) {
        e->w = w;
        sampler_run(u, e, t, &cfg, start, &stop_flag, &r);
        rc = end_status(&r, t, w, path);
        int frc = finish_log(path, sink, w, &r, &cfg);
        rc = rc ? rc : frc;
        if (frc == CLI_EXIT_OK)
            print_summary(o, path, &r, u);
    }
    tfmt_bin_writer_free(w);
    tfmt_sink_free(sink);
    free(e);
    return rc;
}

int run_record(const rec_options *o)
{
    target t;
    unwinder u;
    uint32_t hexversion = 0;
    char defname[64];
    memset(&u, 0, sizeof u);
    install_handlers();
    int rc = start_target(o, &t);
    if (rc != CLI_EXIT_OK)
        return rc;
    rc = attach_unwinder(&t, o->all_threads, o->verbose && !o->quiet,
                         &stop_flag, &u, &hexversion);
    if (rc == CLI_EXIT_OK) {
        const char *path = o->output;
        if (!path) {
            snprintf(defname, sizeof defname, "tachyon_%d.bin", (int)t.pid);
            path = defname;
        }
        rc = record_to(o, path, &t, &u, hexversion);
    }
    /* After SIGINT/SIGTERM the child may be exiting on its own. */
    target_finish(&t, stop_flag ? 1000 : 0);
    unwind_free(&u);
    return rc;
}
