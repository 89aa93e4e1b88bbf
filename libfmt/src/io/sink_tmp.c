/* SPDX-License-Identifier: MIT */
/*
 * sink_tmp.c - the file a sink writes before its output is complete, and
 * the commit that gives it the destination's name.
 *
 * Where the file system allows it, the file is opened with O_TMPFILE in
 * the destination's directory: it has no name at all until the commit
 * links it in (linkat through /proc/self/fd), so an interrupted run, even
 * by SIGKILL or a power loss, leaves nothing behind. Elsewhere (NFS, old
 * kernels, no /proc, or TACHYON_NO_TMPFILE set) it is `<path>.tmp.XXXXXX`,
 * renamed at the commit; a tool removes it on a signal through
 * tfmt_sink_temp_path. The name buffer is published for that handler:
 * each name is written there, its first byte last, before the file gets
 * it, and emptied once the name is gone.
 */
#define _GNU_SOURCE /* O_TMPFILE, AT_EMPTY_PATH */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "sink_tmp.h"

#define SUFFIX_LEN 11 /* ".tmp.XXXXXX" */

/* The directory part of `path` ("." when it has none) into `buf`. */
static const char *dir_of(const char *path, char *buf, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return ".";
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    if (n >= cap)
        return NULL;
    memcpy(buf, path, n);
    buf[n] = '\0';
    return buf;
}

/* An anonymous file next to `path`, if the system lets us name it later. */
static int open_anon(const char *path)
{
#ifdef O_TMPFILE
    char dir[4096];
    const char *d = dir_of(path, dir, sizeof dir);
    const char *off = getenv("TACHYON_NO_TMPFILE");
    if (!d || (off && *off) || access("/proc/self/fd", X_OK) != 0)
        return -1;
    /* 0666: the umask applies, as for any new file */
    return open(d, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
#else
    (void)path;
    return -1;
#endif
}

/* Publish `name` for a signal handler: the first byte goes last. */
static void publish(tfmt_sink_tmp *t, const char *name)
{
    size_t n = strlen(name);
    t->name[0] = '\0';
    memcpy(t->name + 1, name + 1, n);
    t->name[0] = name[0];
}

static void unpublish(tfmt_sink_tmp *t)
{
    if (t->name)
        t->name[0] = '\0';
}

/* `<path>.tmp.XXXXXX` with fresh random letters into `out`. */
static void candidate(const tfmt_sink_tmp *t, const char *path, int tries,
                      char *out)
{
    static const char set[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^
                    (uint64_t)(uintptr_t)t;
    uint64_t r = tfmt__hash_mix(seed + (uint64_t)tries * 0x9e3779b9);
    size_t plen = strlen(path);
    memcpy(out, path, plen);
    memcpy(out + plen, ".tmp.", 5);
    for (int i = 0; i < 6; i++, r >>= 6)
        out[plen + 5 + i] = set[(r & 63) % (sizeof set - 1)];
    out[plen + SUFFIX_LEN] = '\0';
}

/*
 * Run `op` on fresh candidate names (published first) until it succeeds
 * or fails otherwise than EEXIST. Returns 0 or an errno value.
 */
static int with_name(tfmt_sink_tmp *t, const char *path,
                     int (*op)(const char *name, void *ctx), void *ctx)
{
    char *name = t->name + t->cap; /* the scratch half of the buffer */
    for (int tries = 0; tries < 100; tries++) {
        candidate(t, path, tries, name);
        publish(t, name);
        if (op(t->name, ctx) == 0)
            return 0;
        int e = errno;
        unpublish(t);
        if (e != EEXIST)
            return e;
    }
    return EEXIST;
}

static int create_named(const char *name, void *ctx)
{
    int *fd = ctx;
    /* like mkstemp, but 0666 so the umask applies; O_EXCL never follows
     * a link (POSIX), O_NOFOLLOW says so again */
    *fd =
        open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    return *fd >= 0 ? 0 : -1;
}

/* The name buffer for temporary names beside `path`. */
static int names_alloc(tfmt_sink_tmp *t, const char *path,
                       const tfmt_allocator *a)
{
    memset(t, 0, sizeof *t);
    t->alloc = a;
    t->cap = strlen(path) + SUFFIX_LEN + 1;
    t->name = tfmt__calloc(a, 2, t->cap);
    return t->name ? 0 : ENOMEM;
}

int tfmt__sink_tmp_open(tfmt_sink_tmp *t, const char *path,
                        const tfmt_allocator *a, int *fd)
{
    if (names_alloc(t, path, a) != 0)
        return ENOMEM;
    *fd = open_anon(path);
    if (*fd >= 0) {
        t->anon = true;
        return 0;
    }
    return with_name(t, path, create_named, fd);
}

int tfmt__sink_tmp_place(tfmt_sink_tmp *t, const char *path,
                         const tfmt_allocator *a, bool force, int *fd)
{
    if (names_alloc(t, path, a) != 0)
        return ENOMEM;
    if (!force) {
        *fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   0666);
        return *fd >= 0 ? 0 : errno;
    }
    int e = with_name(t, path, create_named, fd);
    if (e == 0 && rename(t->name, path) != 0) {
        e = errno;
        close(*fd);
        *fd = -1;
        unlink(t->name);
    }
    unpublish(t);
    return e;
}

/* linkat() of the anonymous file `fd` to `name`. */
static int link_anon(int fd, const char *name)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
}

static int link_fd(const char *name, void *ctx)
{
    return link_anon(*(int *)ctx, name);
}

/* Anonymous: link it in; with `force` through a name and rename(). */
static int commit_anon(tfmt_sink_tmp *t, int fd, const char *path, bool force)
{
    if (!force) {
        if (link_anon(fd, path) != 0) {
            int e = errno;
            close(fd);
            return e;
        }
        if (close(fd) != 0) {
            int e = errno;
            unlink(path);
            return e;
        }
        return 0;
    }
    int e = with_name(t, path, link_fd, &fd);
    int c = close(fd) != 0 ? errno : 0;
    if (e == 0)
        e = c;
    if (e == 0 && rename(t->name, path) != 0)
        e = errno;
    if (e != 0)
        tfmt__sink_tmp_discard(t);
    unpublish(t);
    return e;
}

/*
 * Named: close, then link() (which refuses a file created meanwhile) or,
 * with `force`, rename() (which replaces it).
 */
static int commit_named(tfmt_sink_tmp *t, int fd, const char *path, bool force)
{
    int e = close(fd) != 0 ? errno : 0;
    if (e == 0 && force)
        e = rename(t->name, path) != 0 ? errno : 0;
    else if (e == 0)
        e = link(t->name, path) != 0 ? errno : 0;
    if (e != 0 || !force)
        unlink(t->name); /* failed, or the link left two names */
    unpublish(t);
    return e;
}

int tfmt__sink_tmp_commit(tfmt_sink_tmp *t, int fd, const char *path,
                          bool force)
{
    return t->anon ? commit_anon(t, fd, path, force)
                   : commit_named(t, fd, path, force);
}

void tfmt__sink_tmp_discard(tfmt_sink_tmp *t)
{
    if (t->name && t->name[0]) {
        unlink(t->name);
        unpublish(t);
    }
}

void tfmt__sink_tmp_free(tfmt_sink_tmp *t)
{
    tfmt__sink_tmp_discard(t);
    tfmt__free(t->alloc, t->name);
    t->name = NULL;
}
