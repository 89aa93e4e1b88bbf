/* SPDX-License-Identifier: MIT */
/*
 * live.c - --live, as `python -m profiling.sampling --live` and
 * `py-spy top`: every second, the hottest functions since the start by
 * self samples (innermost frame) and total samples (anywhere on the
 * stack, once per sample however deep the recursion), for all threads or
 * one (t cycles through them), sorted by self or total (s), q quits. On a
 * terminal the view is redrawn in place (ANSI escapes, keys read
 * unbuffered); otherwise each refresh is printed as a plain block.
 * Memory grows with distinct functions and threads, not with samples.
 */
#include "live.h"

#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "linetable.h"
#include "text_safe.h"

#define LIVE_PERIOD_NS 1000000000ull
#define LIVE_MAX_THREADS 64

/* One function of one thread. */
typedef struct fn_row {
    const code_entry *key; /* identity while cached... */
    char *file, *name;     /* ...and what is shown */
    int line;              /* its first line */
    uint64_t tid;
    uint64_t self, total;
    uint64_t seen; /* sample number it was last counted in */
} fn_row;

struct live {
    pid_t pid;
    uint32_t *index; /* open addressing: row + 1, 0 empty */
    size_t index_cap;
    uint32_t hexversion;
    FILE *in, *out;
    volatile sig_atomic_t *stop;
    bool tty;
    struct termios saved;
    fn_row *rows;
    size_t nrows, cap;
    uint64_t tids[LIVE_MAX_THREADS];
    uint64_t tid_samples[LIVE_MAX_THREADS];
    int ntids, filter; /* filter: -1 all, else index in tids */
    bool by_total;
    uint64_t samples, thread_samples, last_draw_ns, start_ns;
};

static void raw_keys(live *l)
{
    struct termios t;
    if (!l->tty || tcgetattr(fileno(l->in), &l->saved) != 0) {
        l->tty = false;
        return;
    }
    t = l->saved;
    t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    tcsetattr(fileno(l->in), TCSANOW, &t);
}

live *live_new(pid_t pid, uint32_t hexversion, FILE *in, FILE *out,
               volatile sig_atomic_t *stop)
{
    live *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->pid = pid;
    l->hexversion = hexversion;
    l->in = in;
    l->out = out;
    l->stop = stop;
    l->filter = -1;
    l->tty = isatty(fileno(out)) && isatty(fileno(in));
    raw_keys(l);
    return l;
}

void live_free(live *l)
{
    if (!l)
        return;
    free(l->index);
    for (size_t i = 0; i < l->nrows; i++) {
        free(l->rows[i].file);
        free(l->rows[i].name);
    }
    free(l->rows);
    free(l);
}

static size_t slot_of(uint64_t tid, const code_entry *c, size_t cap)
{
    uint64_t h = ((uint64_t)(uintptr_t)c >> 4) ^ (tid * 0x9e3779b97f4a7c15ull);
    h *= 0xff51afd7ed558ccdull;
    return (size_t)(h >> 32) & (cap - 1);
}

/* Index the rows by (thread, code entry); grown at half full. */
static int reindex(live *l)
{
    size_t cap = l->index_cap ? l->index_cap : 1024;
    while (cap < 2 * (l->nrows + 1))
        cap *= 2;
    uint32_t *idx = calloc(cap, sizeof *idx);
    if (!idx)
        return -1;
    for (size_t i = 0; i < l->nrows; i++) {
        size_t k = slot_of(l->rows[i].tid, l->rows[i].key, cap);
        while (idx[k])
            k = (k + 1) & (cap - 1);
        idx[k] = (uint32_t)i + 1;
    }
    free(l->index);
    l->index = idx;
    l->index_cap = cap;
    return 0;
}

/* The row for (thread, code object), added on first sight. A code entry
 * the cache reloaded for another code object is a new row (its names
 * differ). */
static fn_row *row_for(live *l, uint64_t tid, const code_entry *c)
{
    if (2 * (l->nrows + 1) > l->index_cap && reindex(l) != 0)
        return NULL;
    size_t k = slot_of(tid, c, l->index_cap);
    for (; l->index[k]; k = (k + 1) & (l->index_cap - 1)) {
        fn_row *r = &l->rows[l->index[k] - 1];
        if (r->key == c && r->tid == tid && strcmp(r->name, c->qualname) == 0 &&
            strcmp(r->file, c->filename) == 0)
            return r;
    }
    if (l->nrows == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        fn_row *r = realloc(l->rows, cap * sizeof *r);
        if (!r)
            return NULL;
        l->rows = r;
        l->cap = cap;
    }
    fn_row *r = &l->rows[l->nrows];
    memset(r, 0, sizeof *r);
    r->file = strdup(c->filename);
    r->name = strdup(c->qualname);
    if (!r->file || !r->name) {
        free(r->file);
        free(r->name);
        return NULL;
    }
    r->key = c;
    r->tid = tid;
    r->line = c->firstlineno;
    l->index[k] = (uint32_t)++l->nrows;
    return r;
}

static void note_thread(live *l, uint64_t tid)
{
    int i = 0;
    while (i < l->ntids && l->tids[i] != tid)
        i++;
    if (i == l->ntids && l->ntids < LIVE_MAX_THREADS)
        l->tids[l->ntids++] = tid;
    if (i < l->ntids)
        l->tid_samples[i]++;
}

static void count(live *l, const raw_thread *t)
{
    bool leaf = true;
    note_thread(l, t->tid);
    l->thread_samples++;
    for (uint32_t i = 0; i < t->depth; i++) {
        if (t->frames[i].kind != FRAME_PYTHON)
            continue;
        fn_row *r = row_for(l, t->tid, t->frames[i].entry);
        if (!r)
            return;
        r->self += leaf;
        leaf = false;
        if (r->seen != l->samples) {
            r->total++;
            r->seen = l->samples;
        }
    }
}

static int rows_on_screen(const live *l)
{
    struct winsize ws;
    if (l->tty && ioctl(fileno(l->out), TIOCGWINSZ, &ws) == 0 && ws.ws_row > 8)
        return ws.ws_row - 5;
    return 20;
}

static int by_self(const void *a, const void *b)
{
    const fn_row *x = a, *y = b;
    if (x->self != y->self)
        return x->self < y->self ? 1 : -1;
    return x->total < y->total ? 1 : x->total > y->total ? -1 : 0;
}

static int by_total(const void *a, const void *b)
{
    const fn_row *x = a, *y = b;
    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    return x->self < y->self ? 1 : x->self > y->self ? -1 : 0;
}

static int by_name(const void *a, const void *b)
{
    const fn_row *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c ? c : strcmp(x->name, y->name);
}

/* The rows to show: one per function (its threads' counts summed), over
 * the threads filtered in. */
static size_t merged(const live *l, fn_row *out)
{
    size_t n = 0, m = 0;
    for (size_t i = 0; i < l->nrows; i++)
        if (l->filter < 0 || l->rows[i].tid == l->tids[l->filter])
            out[n++] = l->rows[i];
    qsort(out, n, sizeof *out, by_name);
    for (size_t i = 0; i < n; i++) {
        if (m && by_name(&out[m - 1], &out[i]) == 0) {
            out[m - 1].self += out[i].self;
            out[m - 1].total += out[i].total;
        } else {
            out[m++] = out[i];
        }
    }
    return m;
}

static void header(const live *l, const sampler_result *r, uint64_t now)
{
    double secs = (double)(now - l->start_ns) / 1e9;
    char filter[48] = "all";
    if (l->filter >= 0)
        snprintf(filter, sizeof filter, "%llu",
                 (unsigned long long)l->tids[l->filter]);
    fprintf(l->out,
            "tachyon-record --live: process %d (CPython %u.%u.%u), "
            "%.1f s, %llu ticks (%.0f Hz), %.1f%% failed\n",
            (int)l->pid, l->hexversion >> 24, (l->hexversion >> 16) & 0xff,
            (l->hexversion >> 8) & 0xff, secs, (unsigned long long)r->attempts,
            secs > 0 ? (double)r->attempts / secs : 0.0,
            r->attempts ? 100.0 * (double)r->failed / (double)r->attempts
                        : 0.0);
    fprintf(l->out,
            "threads: %s of %d; sorted by %s  [t thread, s sort, "
            "q quit]\n\n",
            filter, l->ntids, l->by_total ? "total" : "self");
}

/* One function's row; its names escaped (the target chose them). */
static void print_row(const live *l, const fn_row *row, uint64_t base)
{
    const char *slash = strrchr(row->file, '/');
    fprintf(l->out, "%6.1f%% %6.1f%% %9llu %9llu  ",
            100.0 * (double)row->self / (double)base,
            100.0 * (double)row->total / (double)base,
            (unsigned long long)row->self, (unsigned long long)row->total);
    cli_escape_fputs(row->name, l->out);
    fputs(" (", l->out);
    cli_escape_fputs(slash ? slash + 1 : row->file, l->out);
    fprintf(l->out, ":%d)\n", row->line);
}

static void draw(live *l, const sampler_result *r, uint64_t now)
{
    fn_row *rows = l->nrows ? malloc(l->nrows * sizeof *rows) : NULL;
    /* Shares of the samples of the threads shown. */
    uint64_t base =
        l->filter < 0 ? l->thread_samples : l->tid_samples[l->filter];
    size_t n = rows ? merged(l, rows) : 0;
    base = base ? base : 1;
    if (n > 1) /* rows is NULL when there are none */
        qsort(rows, n, sizeof *rows, l->by_total ? by_total : by_self);
    if (l->tty)
        fputs("\033[H\033[2J", l->out);
    header(l, r, now);
    fprintf(l->out, "  self%%  total%%      self     total  function\n");
    for (size_t i = 0; i < n && (int)i < rows_on_screen(l); i++)
        print_row(l, &rows[i], base);
    if (!l->tty)
        fputc('\n', l->out);
    fflush(l->out);
    free(rows);
}

static void read_keys(live *l)
{
    struct pollfd p = {fileno(l->in), POLLIN, 0};
    char keys[16];
    while (poll(&p, 1, 0) > 0 && (p.revents & POLLIN)) {
        ssize_t n = read(fileno(l->in), keys, sizeof keys);
        if (n <= 0)
            return;
        for (ssize_t i = 0; i < n; i++) {
            if (keys[i] == 'q')
                *l->stop = 1;
            else if (keys[i] == 's')
                l->by_total = !l->by_total;
            else if (keys[i] == 't')
                l->filter = l->filter + 1 < l->ntids ? l->filter + 1 : -1;
        }
    }
}

int live_tick(void *ctx, const unwinder *u, const sampler_result *r)
{
    live *l = ctx;
    uint64_t now = u->now_ns;
    if (!l->start_ns)
        l->start_ns = r->start_ns;
    l->samples++;
    for (uint32_t i = 0; i < u->nthreads; i++)
        count(l, &u->threads[i]);
    read_keys(l);
    if (now - l->last_draw_ns >= LIVE_PERIOD_NS) {
        l->last_draw_ns = now;
        draw(l, r, now);
    }
    return 0;
}

void live_end(live *l, const sampler_result *r)
{
    draw(l, r, r->end_ns);
    if (l->tty)
        tcsetattr(fileno(l->in), TCSANOW, &l->saved);
}
