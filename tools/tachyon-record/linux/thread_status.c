/* SPDX-License-Identifier: MIT */
/*
 * thread_status.c - is a thread of the target on a CPU? The scheduler
 * state 'R' alone cannot say: it also means "runnable, waiting for a CPU",
 * which on a loaded machine is much of a sleeper's wake-up. So a thread is
 * on CPU when it ran for most (ON_CPU_SHARE) of the time since its
 * previous sample: a sample stands for that interval of wall time, and the
 * share of samples marked ON_CPU then follows the share of time the thread
 * was on a CPU (a thread that merely ran for a moment of a busy interval
 * would count in full otherwise). With schedstat, which only says that
 * the total changed lately, the thread must also be runnable now. CPU time
 * comes from a perf task-clock counter on the thread (exact: reading it asks
 * the thread's CPU for the running total), or, where perf events are not
 * permitted, from /proc/PID/task/TID/schedstat, which the kernel updates
 * only at scheduler ticks: there a thread counts as having run if its
 * total changed within the last SCHEDSTAT_WINDOW_NS.
 *
 * Each thread's files stay open and are re-read with pread at offset 0 (the
 * kernel regenerates them), a few system calls per thread and sample. A few
 * dozen threads at most are kept: the least recently used one is closed.
 */
#define _GNU_SOURCE
#include "thread_status.h"

#include <fcntl.h>
#include <sched.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TSTAT_SLOTS 64
/* Longer than a scheduler tick at HZ 100 (10 ms). */
#define SCHEDSTAT_WINDOW_NS (12 * 1000 * 1000ull)
/* Share of the interval since its previous sample a thread must have
 * run for. */
#define ON_CPU_SHARE 0.5

typedef struct tstat_slot {
    uint64_t tid;
    int stat_fd;         /* /proc/PID/task/TID/stat, -1: free slot */
    int clock_fd;        /* perf counter or schedstat, -1: none */
    bool have_clock;     /* `clock` holds a reading */
    uint64_t clock;      /* last CPU time read, ns */
    uint64_t read_ns;    /* when it was read */
    uint64_t changed_ns; /* schedstat: when `clock` last changed */
    uint64_t ran, span;  /* perf: it ran `ran` ns of the last `span` */
    uint64_t last_use;
} tstat_slot;

struct tstat_cache {
    pid_t pid;
    bool perf; /* perf task clocks work */
    uint64_t uses;
    tstat_slot slots[TSTAT_SLOTS];
};

tstat_cache *tstat_new(pid_t pid)
{
    tstat_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->pid = pid;
    c->perf = true; /* until an open fails */
    for (int i = 0; i < TSTAT_SLOTS; i++)
        c->slots[i].stat_fd = c->slots[i].clock_fd = -1;
    return c;
}

static void slot_close(tstat_slot *s)
{
    if (s->stat_fd >= 0)
        close(s->stat_fd);
    if (s->clock_fd >= 0)
        close(s->clock_fd);
    memset(s, 0, sizeof *s);
    s->stat_fd = s->clock_fd = -1;
}

void tstat_free(tstat_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < TSTAT_SLOTS; i++)
        slot_close(&c->slots[i]);
    free(c);
}

const char *tstat_clock_source(const tstat_cache *c)
{
    return c->perf ? "perf task clock" : "schedstat";
}

/* A task-clock counter on one thread: user time only where the kernel
 * allows no more (perf_event_paranoid 2); enough to see it ran. */
static int open_perf_clock(uint64_t tid)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, (pid_t)tid, -1, -1,
                        PERF_FLAG_FD_CLOEXEC);
}

static int open_task_file(const tstat_cache *c, uint64_t tid, const char *name)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task/%llu/%s", (int)c->pid,
             (unsigned long long)tid, name);
    return open(path, O_RDONLY | O_CLOEXEC);
}

/* The clock of a new slot: perf while it works, else schedstat. */
static int open_clock(tstat_cache *c, uint64_t tid)
{
    if (c->perf) {
        int fd = open_perf_clock(tid);
        if (fd >= 0)
            return fd;
        c->perf = false; /* not permitted or not built: for good */
    }
    return open_task_file(c, tid, "schedstat");
}

/* The least recently used slot, or a free one. */
static tstat_slot *victim(tstat_cache *c)
{
    tstat_slot *v = &c->slots[0];
    for (int i = 0; i < TSTAT_SLOTS; i++) {
        tstat_slot *s = &c->slots[i];
        if (s->stat_fd < 0)
            return s;
        if (s->last_use < v->last_use)
            v = s;
    }
    return v;
}

/* The open slot for `tid`, opening it (evicting the oldest) if needed. */
static tstat_slot *slot_for(tstat_cache *c, uint64_t tid)
{
    for (int i = 0; i < TSTAT_SLOTS; i++)
        if (c->slots[i].stat_fd >= 0 && c->slots[i].tid == tid)
            return &c->slots[i];
    int fd = open_task_file(c, tid, "stat");
    if (fd < 0)
        return NULL;
    tstat_slot *s = victim(c);
    slot_close(s);
    s->tid = tid;
    s->stat_fd = fd;
    s->clock_fd = open_clock(c, tid);
    return s;
}

/* The thread's CPU time in ns; -1 when it cannot be read. */
static int read_clock(const tstat_cache *c, const tstat_slot *s, uint64_t *out)
{
    char buf[128];
    if (s->clock_fd < 0)
        return -1;
    if (c->perf)
        return read(s->clock_fd, out, sizeof *out) == sizeof *out ? 0 : -1;
    ssize_t got = pread(s->clock_fd, buf, sizeof buf - 1, 0);
    if (got <= 0)
        return -1;
    buf[got] = '\0';
    char *end;
    *out = strtoull(buf, &end, 10);
    return end == buf ? -1 : 0;
}

/* Did the thread run (for most of the time) since the previous call?
 * 1, 0, or -1 unknown. */
static int ran_since(const tstat_cache *c, tstat_slot *s, uint64_t now)
{
    uint64_t clock, last = s->clock, since = now - s->read_ns;
    if (read_clock(c, s, &clock) != 0)
        return -1;
    bool first = !s->have_clock, changed = !first && clock != last;
    s->clock = clock;
    s->read_ns = now;
    s->have_clock = true;
    if (first || changed)
        s->changed_ns = now;
    s->ran = s->span = 0;
    if (first)
        return -1;
    if (c->perf && clock >= last) {
        s->ran = clock - last;
        s->span = since;
    }
    if (c->perf)
        return clock > last &&
               (double)(clock - last) >= ON_CPU_SHARE * (double)since;
    return now - s->changed_ns < SCHEDSTAT_WINDOW_NS;
}

/* The fields after the command name in the stat file, NUL-terminated in
 * buf, or NULL if unreadable. */
static const char *stat_fields(tstat_slot *s, char *buf, size_t len)
{
    ssize_t got = pread(s->stat_fd, buf, len - 1, 0);
    if (got <= 0)
        return NULL;
    buf[got] = '\0';
    /* The command name may contain ')', so the fields follow the last. */
    const char *paren = strrchr(buf, ')');
    return paren && paren[1] == ' ' ? paren + 2 : NULL;
}

int tstat_last_run(const tstat_cache *c, uint64_t tid, uint64_t *ran,
                   uint64_t *span)
{
    for (int i = 0; i < TSTAT_SLOTS; i++) {
        const tstat_slot *s = &c->slots[i];
        if (s->stat_fd >= 0 && s->tid == tid && s->span) {
            *ran = s->ran;
            *span = s->span;
            return 0;
        }
    }
    return -1;
}

bool tstat_running_elsewhere(tstat_cache *c, uint64_t tid)
{
    char buf[512];
    tstat_slot *s = slot_for(c, tid);
    const char *f = s ? stat_fields(s, buf, sizeof buf) : NULL;
    if (!f || f[0] != 'R')
        return false;
    /* The state is field 3 of the file, the CPU it last ran on field 39. */
    for (int field = 3; field < 39 && f; field++) {
        f = strchr(f, ' ');
        f = f ? f + 1 : NULL;
    }
    return f && *f >= '0' && *f <= '9' && atoi(f) != sched_getcpu();
}

int tstat_cpu_time(tstat_cache *c, uint64_t tid, uint64_t *ns)
{
    tstat_slot *s = c->perf ? slot_for(c, tid) : NULL;
    if (!s || !c->perf)
        return -1;
    s->last_use = ++c->uses;
    return read_clock(c, s, ns);
}

int tstat_on_cpu(tstat_cache *c, uint64_t tid, uint64_t now_ns)
{
    tstat_slot *s = slot_for(c, tid);
    if (!s)
        return -1;
    s->last_use = ++c->uses;
    int ran = ran_since(c, s, now_ns);
    /* An exact clock answers alone: whether the thread is runnable at
     * this instant says nothing of the interval the sample stands for,
     * and requiring it cost each burst of work its first half interval
     * (a 2 ms busy / 2 ms asleep thread sampled every 1 ms read 25-29%
     * ON_CPU against 37-41% true). */
    if (ran == 0 || (ran > 0 && c->perf))
        return ran;
    char buf[512];
    const char *f = stat_fields(s, buf, sizeof buf);
    char state = f ? f[0] : 0;
    if (state == 0) {
        slot_close(s); /* the thread is gone; reopen if it is not */
        return -1;
    }
    return state == 'R';
}
