/*
 * thread_status.c - scheduler state of the target's threads. Each thread's
 * stat file is kept open and re-read with pread at offset 0 (the kernel
 * regenerates it), so a sample costs one system call per thread rather
 * than open/read/close. A few dozen descriptors at most: the least
 * recently used one is closed when the table is full.
 */
#include "thread_status.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TSTAT_SLOTS 64

typedef struct tstat_slot {
    uint64_t tid;
    int fd;
    uint64_t last_use;
} tstat_slot;

struct tstat_cache {
    pid_t pid;
    uint64_t clock;
    tstat_slot slots[TSTAT_SLOTS];
};

tstat_cache *tstat_new(pid_t pid)
{
    tstat_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->pid = pid;
    for (int i = 0; i < TSTAT_SLOTS; i++)
        c->slots[i].fd = -1;
    return c;
}

void tstat_free(tstat_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < TSTAT_SLOTS; i++)
        if (c->slots[i].fd >= 0)
            close(c->slots[i].fd);
    free(c);
}

/* The open slot for `tid`, opening it (evicting the oldest) if needed. */
static tstat_slot *slot_for(tstat_cache *c, uint64_t tid)
{
    tstat_slot *oldest = &c->slots[0];
    for (int i = 0; i < TSTAT_SLOTS; i++) {
        tstat_slot *s = &c->slots[i];
        if (s->fd >= 0 && s->tid == tid)
            return s;
        if (s->fd < 0) {
            if (oldest->fd >= 0)
                oldest = s;
        } else if (oldest->fd >= 0 && s->last_use < oldest->last_use) {
            oldest = s;
        }
    }
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task/%llu/stat", (int)c->pid,
             (unsigned long long)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    if (oldest->fd >= 0)
        close(oldest->fd);
    oldest->fd = fd;
    oldest->tid = tid;
    return oldest;
}

int tstat_on_cpu(tstat_cache *c, uint64_t tid)
{
    char buf[512];
    tstat_slot *s = slot_for(c, tid);
    if (!s)
        return -1;
    s->last_use = ++c->clock;
    ssize_t got = pread(s->fd, buf, sizeof buf - 1, 0);
    if (got <= 0) {
        close(s->fd);
        s->fd = -1;
        return -1;
    }
    buf[got] = '\0';
    /* The command name may contain ')', so the state follows the last. */
    const char *paren = strrchr(buf, ')');
    if (!paren || paren[1] != ' ')
        return -1;
    return paren[2] == 'R';
}
