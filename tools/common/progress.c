/* SPDX-License-Identifier: MIT */
/*
 * progress.c - the one-line progress indicator on stderr (see cli.h).
 *
 * Drawn only for a human watching: stderr is a terminal, $CI is unset and
 * -q was not given. Nothing is drawn during the first 300 ms, and redraws
 * are limited to 10 per second so a fast loop does not spend its time in
 * write(2); the line is erased at the end and
 * before any diagnostic so messages never share a line with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define REDRAW_MS 100
#define FIRST_DRAW_MS 300 /* quick runs never show a bar */
#define BAR_WIDTH 30

/* Whether a progress line is currently on screen. */
static bool line_drawn;

static uint64_t now_ms(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void cli_progress_start(cli_progress *p, const char *label, uint64_t total)
{
    p->on = isatty(STDERR_FILENO) && !getenv("CI") && !cli_quiet();
    p->label = label;
    p->total = total;
    p->start_ms = now_ms();
    p->last_ms = 0;
}

static void draw(const cli_progress *p, uint64_t done)
{
    char bar[BAR_WIDTH + 1];
    uint64_t filled;

    if (!p->total) {
        fprintf(stderr, "\r%s: %llu\033[K", p->label, (unsigned long long)done);
        return;
    }
    if (done > p->total)
        done = p->total;
    filled = done * BAR_WIDTH / p->total;
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = (uint64_t)i < filled ? '#' : '-';
    bar[BAR_WIDTH] = '\0';
    fprintf(stderr, "\r%s [%s] %3u%% %llu/%llu\033[K", p->label, bar,
            (unsigned)(done * 100 / p->total), (unsigned long long)done,
            (unsigned long long)p->total);
}

void cli_progress_update(cli_progress *p, uint64_t done)
{
    uint64_t t;

    if (!p->on)
        return;
    t = now_ms();
    if (t - p->start_ms < FIRST_DRAW_MS)
        return;
    if (p->last_ms && t - p->last_ms < REDRAW_MS)
        return;
    p->last_ms = t;
    draw(p, done);
    fflush(stderr);
    line_drawn = true;
}

void cli_progress_clear(void)
{
    if (!line_drawn)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    line_drawn = false;
}

void cli_progress_end(cli_progress *p)
{
    if (p->on)
        cli_progress_clear();
    p->on = false;
}
