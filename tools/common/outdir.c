/* SPDX-License-Identifier: MIT */
/*
 * outdir.c - a directory output written whole or not at all (outdir.h).
 */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "outdir.h"

/* ---- removal on a signal ---- */

/* What the handler removes: published before the signals are caught. */
static int sig_dirfd = -1;
static char sig_path[4096];
static struct sigaction sig_old[3];
static const int sig_nums[3] = {SIGINT, SIGTERM, SIGHUP};

/*
 * Async-signal-safe: the entries are listed with the getdents64 system
 * call (opendir allocates) and removed with unlinkat, then the directory
 * with rmdir; then the signal goes on to whatever handled it before.
 */
static void remove_entries_raw(int dirfd)
{
    char buf[4096];
    /* Removing entries while listing may skip some: list again until a
     * pass removes nothing (an entry that cannot be removed stays). */
    for (int pass = 0, removed = 1; removed && pass < 8; pass++) {
        removed = 0;
        lseek(dirfd, 0, SEEK_SET);
        long n;
        while ((n = syscall(SYS_getdents64, dirfd, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n;) {
                unsigned short reclen;
                memcpy(&reclen, buf + off + 16, sizeof reclen);
                const char *name = buf + off + 19;
                if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
                    unlinkat(dirfd, name, 0) == 0)
                    removed = 1;
                off += reclen;
            }
        }
    }
}

static void on_signal(int sig)
{
    if (sig_dirfd >= 0) {
        remove_entries_raw(sig_dirfd);
        rmdir(sig_path);
    }
    for (int i = 0; i < 3; i++)
        if (sig_nums[i] == sig)
            sigaction(sig, &sig_old[i], NULL);
    raise(sig);
}

static void catch_signals(const char *tmp)
{
    if (strlen(tmp) >= sizeof sig_path)
        return;
    sig_dirfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (sig_dirfd < 0)
        return;
    memcpy(sig_path, tmp, strlen(tmp) + 1);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigfillset(&sa.sa_mask);
    for (int i = 0; i < 3; i++) {
        sigaction(sig_nums[i], NULL, &sig_old[i]);
        if (sig_old[i].sa_handler != SIG_IGN)
            sigaction(sig_nums[i], &sa, NULL);
    }
}

static void release_signals(void)
{
    if (sig_dirfd < 0)
        return;
    for (int i = 0; i < 3; i++)
        if (sig_old[i].sa_handler != SIG_IGN)
            sigaction(sig_nums[i], &sig_old[i], NULL);
    close(sig_dirfd);
    sig_dirfd = -1;
}

/* ---- checks ---- */

/*
 * 0: DIR is empty; 1: holds only entries of ours (regular files);
 * -1: holds another entry, named in `other`; -2: unreadable (errno).
 */
static int dir_contents(const char *path, cli_outdir_ours ours, char *other,
                        size_t cap)
{
    DIR *dir = opendir(path);
    if (!dir)
        return -2;
    int verdict = 0;
    struct dirent *e;
    while (verdict >= 0 && (e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct stat st;
        bool mine =
            ours && ours(e->d_name) &&
            fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode);
        if (!mine) {
            snprintf(other, cap, "%s", e->d_name);
            verdict = -1;
        } else {
            verdict = 1;
        }
    }
    int e2 = errno;
    closedir(dir);
    errno = e2;
    return verdict;
}

/* Whether DIR's parent is /dev itself (links resolved): as for -o FILE
 * (fmt_io.h), nothing is ever created in /dev. */
static bool parent_is_dev(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    while (n > 0 && path[n - 1] != '/')
        n--;
    if (n == 0)
        return false;
    char *dir = strndup(path, n);
    char *real = dir ? realpath(dir, NULL) : NULL;
    bool dev = real && strcmp(real, "/dev") == 0;
    free(real);
    free(dir);
    return dev;
}

int cli_outdir_check(const char *path, bool force, cli_outdir_ours ours)
{
    struct stat st;
    char other[256];
    if (parent_is_dev(path))
        return cli_file_fail(CLI_EXIT_TROUBLE, path,
                             "no directory is written in /dev");
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? CLI_EXIT_OK
                               : cli_file_fail(CLI_EXIT_TROUBLE, path, "%s",
                                               strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return cli_file_fail(CLI_EXIT_TROUBLE, path,
                             "exists and is not a directory");
    int v = dir_contents(path, ours, other, sizeof other);
    if (v == -2)
        return cli_file_fail(CLI_EXIT_TROUBLE, path, "%s", strerror(errno));
    if (v == 0)
        return CLI_EXIT_OK;
    if (!force)
        return cli_file_fail(CLI_EXIT_TROUBLE, path,
                             "directory exists and is not empty (use --force "
                             "to replace it)");
    if (v < 0)
        return cli_file_fail(CLI_EXIT_TROUBLE, path,
                             "holds '%s', which this output does not write; "
                             "refusing to replace it",
                             other);
    return CLI_EXIT_OK;
}

/* ---- writing ---- */

static char *dup_trimmed(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, path, n);
        s[n] = '\0';
    }
    return s;
}

/* "PARENT/.NAME.SUFFIX-XXXXXX" for mkdtemp. */
static char *sibling(const char *path, const char *suffix)
{
    const char *slash = strrchr(path, '/');
    size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
    size_t n = strlen(path) + strlen(suffix) + 16;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%.*s.%s.%s-XXXXXX", (int)dlen, path, path + dlen,
                 suffix);
    return s;
}

int cli_outdir_open(cli_outdir *d, const char *path, bool force,
                    cli_outdir_ours ours)
{
    memset(d, 0, sizeof *d);
    d->force = force;
    d->ours = ours;
    d->path = dup_trimmed(path);
    d->tmp = d->path ? sibling(d->path, "tmp") : NULL;
    if (!d->tmp)
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    if (!mkdtemp(d->tmp)) {
        int e = errno;
        free(d->tmp);
        d->tmp = NULL;
        return cli_file_fail(CLI_EXIT_TROUBLE, path, "%s", strerror(e));
    }
    /* mkdtemp's 0700 becomes what mkdir would give under the umask. */
    mode_t mask = umask(0);
    umask(mask);
    chmod(d->tmp, 0777 & ~mask);
    catch_signals(d->tmp);
    return CLI_EXIT_OK;
}

char *cli_outdir_file(const cli_outdir *d, const char *name)
{
    size_t n = strlen(d->tmp) + strlen(name) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s", d->tmp, name);
    return s;
}

/* Remove `dir`'s entries that `ours` accepts, then `dir` if now empty. */
static void remove_dir(const char *dir, cli_outdir_ours ours)
{
    DIR *dh = opendir(dir);
    if (!dh)
        return;
    struct dirent *e;
    while ((e = readdir(dh)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            (!ours || ours(e->d_name)))
            unlinkat(dirfd(dh), e->d_name, 0);
    closedir(dh);
    if (rmdir(dir) != 0 && errno != ENOENT)
        cli_warn("%s: left in place: %s", dir, strerror(errno));
}

/* Swap TMP and DIR; TMP then holds the old directory. */
static int exchange(cli_outdir *d)
{
#ifdef RENAME_EXCHANGE
    if (renameat2(AT_FDCWD, d->tmp, AT_FDCWD, d->path, RENAME_EXCHANGE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
#endif
    char *old = sibling(d->path, "old");
    if (!old || !mkdtemp(old)) {
        free(old);
        return -1;
    }
    if (rename(d->path, old) != 0) {
        int e = errno;
        rmdir(old);
        free(old);
        errno = e;
        return -1;
    }
    if (rename(d->tmp, d->path) != 0) {
        int e = errno;
        rename(old, d->path);
        free(old);
        errno = e;
        return -1;
    }
    rmdir(d->tmp);
    free(d->tmp);
    d->tmp = old;
    return 0;
}

int cli_outdir_commit(cli_outdir *d)
{
    release_signals();
    if (rename(d->tmp, d->path) == 0) {
        free(d->tmp);
        d->tmp = NULL;
        return CLI_EXIT_OK;
    }
    int e = errno;
    if ((e != ENOTEMPTY && e != EEXIST) || !d->force ||
        cli_outdir_check(d->path, true, d->ours) != CLI_EXIT_OK) {
        if (e == ENOTEMPTY || e == EEXIST)
            return d->force ? CLI_EXIT_TROUBLE
                            : cli_file_fail(CLI_EXIT_TROUBLE, d->path,
                                            "directory exists and is not "
                                            "empty (use --force to replace "
                                            "it)");
        return cli_file_fail(CLI_EXIT_TROUBLE, d->path, "%s", strerror(e));
    }
    if (exchange(d) != 0)
        return cli_file_fail(CLI_EXIT_TROUBLE, d->path, "%s", strerror(errno));
    remove_dir(d->tmp, d->ours);
    free(d->tmp);
    d->tmp = NULL;
    return CLI_EXIT_OK;
}

void cli_outdir_free(cli_outdir *d)
{
    release_signals();
    if (d->tmp)
        remove_dir(d->tmp, NULL);
    free(d->tmp);
    free(d->path);
    memset(d, 0, sizeof *d);
}
