/* SPDX-License-Identifier: MIT */
/*
 * summary.c - the lines tachyon-record prints when a recording ends
 * (summary.h). Names in them (the log, the COMMAND) come escaped, as
 * every name quoted on stderr (text_safe.h).
 */
#include "summary.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "code_cache.h"
#include "outcome.h"
#include "text_safe.h"

/* Below this share of the requested rate the run is called short. */
#define RATE_WARN_SHARE 0.9

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
            "try); %llu pauses, %.1f us each on average, %llu failed\n",
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
            (unsigned long long)u->counters.pause_failed);
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

void summary_figures(const rec_options *o, const char *path,
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
void summary_warnings(const rec_options *o, const char *path,
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

void summary_how_ended(const target *t, char *buf, size_t len)
{
    char name[300], how[96];
    cli_escape(name, sizeof name, t->name);
    if (!t->exited) {
        snprintf(buf, len, "%s still runs", name);
        return;
    }
    if (t->ended_by) {
        snprintf(buf, len, "%s was stopped by tachyon-record with %s", name,
                 t->ended_by == SIGKILL ? "SIGKILL" : "SIGTERM");
        return;
    }
    outcome_describe(t->wait_status, how, sizeof how);
    snprintf(buf, len, "%s %s", name, how);
}

/* Characters a shell takes literally in a word. */
static bool shell_safe(const char *s)
{
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789_./:@%+=,-",
                    *s))
            return false;
    return true;
}

void summary_shell_word(const char *path, char *buf, size_t len)
{
    char text[600];
    size_t o = 0;
    if (shell_safe(path) && path[0] != '-') {
        cli_escape(buf, len, path);
        return;
    }
    cli_escape(text, sizeof text, path);
    buf[o++] = '\'';
    for (const char *p = text; *p && o + 5 < len; p++) {
        if (*p == '\'') {
            memcpy(buf + o, "'\\''", 4);
            o += 4;
        } else {
            buf[o++] = *p;
        }
    }
    buf[o++] = '\'';
    buf[o] = '\0';
}

/* `path` with .bin (or nothing) replaced by .html. */
static void html_name(const char *path, char *buf, size_t len)
{
    size_t n = strlen(path);
    if (n > 4 && strcmp(path + n - 4, ".bin") == 0)
        n -= 4;
    snprintf(buf, len, "%.*s.html", (int)n, path);
}

void summary_ending(const rec_options *o, const target *t, const char *path)
{
    char line[400], html[700], in[700], out[700];
    if (o->quiet)
        return;
    if (t->spawned) {
        summary_how_ended(t, line, sizeof line);
        fprintf(stderr, "%s: %s\n", cli_program(), line);
    } else {
        fprintf(stderr, "%s: process %d %s\n", cli_program(), (int)t->pid,
                t->exited ? "exited" : "runs on");
    }
    if (!path)
        return;
    html_name(path, html, sizeof html);
    summary_shell_word(html, out, sizeof out);
    summary_shell_word(path, in, sizeof in);
    fprintf(stderr, "%s: open it with: tachyon-conv -o %s %s\n", cli_program(),
            out, in);
}
