/* SPDX-License-Identifier: MIT */
/*
 * conv_source_open.c - reading one candidate source file for a heatmap
 * page, confined to its root (conv_source.c picks the candidates).
 *
 * A log names any path, and a page shows what it reads. Beneath a root
 * (--source-root DIR, a --path-map's TO) the file is opened with
 * openat2(RESOLVE_BENEATH), so no `..`, absolute symbolic link or link
 * that climbs out reaches a file outside it (a link that stays beneath
 * it, as a virtualenv's lib64 -> lib, is followed). Where openat2 is
 * missing (Linux before 5.6, or a seccomp filter that refuses it) the
 * resolved path (realpath) must lie beneath the root's. Either way the
 * file is first opened without being read (O_PATH), and only a regular
 * file whose resolved name ends in .py or .pyw is then opened for
 * reading (through /proc/self/fd, the same file): a link named x.py
 * that leads to .git/config or /etc/passwd is never read, nor is a
 * device or a FIFO opened. TACHYON_NO_OPENAT2 in the environment forces
 * the fallback (tests).
 */
#define _GNU_SOURCE /* O_PATH, O_NOFOLLOW */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__linux__) && defined(SYS_openat2) && defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPENAT2 1
#endif
#endif

#include "conv.h"

#define CONV_SOURCE_MAX (32u << 20)

bool conv_python_name(const char *s, size_t n)
{
    return (n >= 3 && memcmp(s + n - 3, ".py", 3) == 0) ||
           (n >= 4 && memcmp(s + n - 4, ".pyw", 4) == 0);
}

/* The name the kernel has for open descriptor `fd` (malloc'd), or NULL. */
static char *fd_name(int fd)
{
    char link[64], buf[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, buf, sizeof buf - 1);
    if (n <= 0 || buf[0] != '/')
        return NULL;
    buf[n] = '\0';
    return strdup(buf);
}

/* Read the whole of `fd` (a regular file of `size` bytes). */
static conv_miss read_all(int fd, uint64_t size, conv_read *out)
{
    if (size > CONV_SOURCE_MAX)
        return CONV_MISS_BIG;
    char *buf = malloc((size_t)size + 1);
    if (!buf)
        return CONV_MISS_NOMEM;
    size_t got = 0;
    while (got < (size_t)size) {
        ssize_t n = read(fd, buf + got, (size_t)size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            out->sys_errno = errno;
            free(buf);
            return CONV_MISS_ERROR;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    out->text = buf;
    out->len = got;
    return CONV_MISS_NONE;
}

/*
 * `pathfd` (O_PATH) is the file; `name` its resolved path. Checks it is a
 * regular Python source and reads it through `reopen` (a path naming the
 * same file that is not followed further).
 */
static conv_miss read_checked(int pathfd, const char *name, const char *reopen,
                              int reopen_flags, conv_read *out)
{
    struct stat st, again;
    if (fstat(pathfd, &st) != 0) {
        out->sys_errno = errno;
        return CONV_MISS_ERROR;
    }
    if (!S_ISREG(st.st_mode))
        return CONV_MISS_SPECIAL;
    if (!conv_python_name(name, strlen(name)))
        return CONV_MISS_NOT_PYTHON;
    int fd = open(reopen,
                  O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | reopen_flags);
    if (fd < 0) {
        out->sys_errno = errno;
        return CONV_MISS_ERROR;
    }
    conv_miss m = CONV_MISS_NONE;
    if (fstat(fd, &again) != 0 || again.st_dev != st.st_dev ||
        again.st_ino != st.st_ino)
        m = CONV_MISS_OUTSIDE; /* replaced under us: not what was checked */
    if (m == CONV_MISS_NONE)
        m = read_all(fd, (uint64_t)again.st_size, out);
    close(fd);
    return m;
}

/*
 * An O_PATH descriptor whose name the kernel gives: read it through
 * /proc/self/fd if it passes. 1 when /proc cannot name it (no /proc).
 */
static int read_pathfd(int pathfd, conv_read *out, conv_miss *m)
{
    char *name = fd_name(pathfd);
    if (!name)
        return 1;
    char reopen[64];
    snprintf(reopen, sizeof reopen, "/proc/self/fd/%d", pathfd);
    *m = read_checked(pathfd, name, reopen, 0, out);
    free(name);
    return 0;
}

static conv_miss miss_of(int e, conv_read *out)
{
    if (e == ENOENT || e == ENOTDIR)
        return CONV_MISS_ABSENT;
    if (e == EXDEV || e == ELOOP)
        return CONV_MISS_OUTSIDE;
    if (e == ENOMEM)
        return CONV_MISS_NOMEM;
    out->sys_errno = e;
    return CONV_MISS_ERROR;
}

/* Whether resolved path `real` lies beneath resolved directory `root`. */
static bool beneath(const char *root, const char *real)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return real[0] == '/';
    return strncmp(real, root, n) == 0 && real[n] == '/';
}

/* Without openat2: resolve, check it stays beneath, then open that. */
static conv_miss read_resolved(const char *root, const char *rel,
                               conv_read *out)
{
    size_t n = strlen(root) + strlen(rel) + 2;
    char *joined = malloc(n);
    if (!joined)
        return CONV_MISS_NOMEM;
    snprintf(joined, n, "%s/%s", root, rel);
    char *rroot = realpath(root, NULL);
    char *real = rroot ? realpath(joined, NULL) : NULL;
    conv_miss m = CONV_MISS_NONE;
    if (!real)
        m = miss_of(errno, out);
    else if (!beneath(rroot, real))
        m = CONV_MISS_OUTSIDE;
    int pathfd = -1;
    if (m == CONV_MISS_NONE) {
        pathfd = open(real, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (pathfd < 0)
            m = miss_of(errno, out);
    }
    if (m == CONV_MISS_NONE)
        m = read_checked(pathfd, real, real, O_NOFOLLOW, out);
    if (pathfd >= 0)
        close(pathfd);
    free(real);
    free(rroot);
    free(joined);
    return m;
}

#ifdef HAVE_OPENAT2
/* openat2 beneath `root`; -1 with errno, or -2 when there is no openat2. */
static int open_beneath(const char *root, const char *rel)
{
    const char *off = getenv("TACHYON_NO_OPENAT2");
    if (off && *off)
        return -2;
    int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        return -1;
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    long fd = syscall(SYS_openat2, rootfd, rel, &how, sizeof how);
    int e = errno;
    close(rootfd);
    errno = e;
    if (fd < 0 && (e == ENOSYS || e == EPERM || e == E2BIG))
        return -2;
    return (int)fd;
}
#endif

conv_miss conv_source_read_beneath(const char *root, const char *rel,
                                   conv_read *out)
{
    memset(out, 0, sizeof *out);
#ifdef HAVE_OPENAT2
    int fd = open_beneath(root, rel);
    if (fd == -1)
        return miss_of(errno, out);
    if (fd >= 0) {
        conv_miss m = CONV_MISS_NONE;
        int no_proc = read_pathfd(fd, out, &m);
        close(fd);
        if (!no_proc)
            return m;
    }
#endif
    return read_resolved(root, rel, out);
}

conv_miss conv_source_read_path(const char *path, conv_read *out)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return miss_of(errno, out);
    conv_miss m = CONV_MISS_NONE;
    if (read_pathfd(fd, out, &m)) {
        /* No /proc: the resolved path, not followed again. */
        char *real = realpath(path, NULL);
        m = real ? read_checked(fd, real, real, O_NOFOLLOW, out)
                 : miss_of(errno, out);
        free(real);
    }
    close(fd);
    return m;
}
