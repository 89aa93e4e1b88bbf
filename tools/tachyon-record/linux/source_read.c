/* SPDX-License-Identifier: MIT */
/*
 * source_read.c - --dump's source lines (source_read.h). A process can
 * name any file as a code object's co_filename: a root-only file, a FIFO
 * that never answers, /dev/zero. So the file is looked up in the target's
 * root with openat2(RESOLVE_IN_ROOT) as an O_PATH handle (opening nothing
 * yet), must be a regular file, and only then is opened for reading
 * through that handle; with the target's user's rights: the recorder's
 * own when it runs as that user with the same groups, else those of a
 * child process that switched to the target's uid, gid and groups (as
 * root can) before looking, so the kernel decides what that user may
 * read. A child that cannot switch reads nothing.
 */
#define _GNU_SOURCE
#include "source_read.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_GROUPS 256
#define CHILD_SECONDS 5 /* a reading child is killed after this */

struct source_reader {
    int root;       /* O_PATH handle of /proc/PID/root */
    double started; /* the target's start time, 0: unknown */
    bool direct;    /* the recorder reads as the target's user */
    uid_t uid;      /* the target's file-system uid, gid and groups */
    gid_t gid;
    int ngroups;
    gid_t groups[MAX_GROUPS];
};

/* The fs uid and gid (4th field) and the groups of /proc/PID/status. */
static bool read_ids(pid_t pid, source_reader *r)
{
    char path[64], line[4096];
    unsigned long v[4];
    int seen = 0;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "Uid: %lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]) ==
            4) {
            r->uid = (uid_t)v[3];
            seen |= 1;
        } else if (sscanf(line, "Gid: %lu %lu %lu %lu", &v[0], &v[1], &v[2],
                          &v[3]) == 4) {
            r->gid = (gid_t)v[3];
            seen |= 2;
        } else if (strncmp(line, "Groups:", 7) == 0) {
            char *p = line + 7, *end;
            for (unsigned long g; r->ngroups < MAX_GROUPS; p = end) {
                g = strtoul(p, &end, 10);
                if (end == p)
                    break;
                r->groups[r->ngroups++] = (gid_t)g;
            }
            p += strspn(p, " \t\n");
            seen |= *p == '\0' ? 4 : 0; /* all of them were kept */
        }
    }
    fclose(f);
    return seen == 7;
}

static int cmp_gid(const void *a, const void *b)
{
    gid_t x = *(const gid_t *)a, y = *(const gid_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether the recorder's own ids are the target's. */
static bool same_user(source_reader *r)
{
    gid_t mine[MAX_GROUPS];
    int n = getgroups(MAX_GROUPS, mine);
    if (geteuid() != r->uid || getegid() != r->gid || n != r->ngroups)
        return false;
    qsort(mine, (size_t)n, sizeof *mine, cmp_gid);
    qsort(r->groups, (size_t)r->ngroups, sizeof *r->groups, cmp_gid);
    return memcmp(mine, r->groups, (size_t)n * sizeof *mine) == 0;
}

source_reader *source_reader_new(pid_t pid, double started)
{
    char path[64];
    source_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    snprintf(path, sizeof path, "/proc/%d/root", (int)pid);
    r->root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    r->started = started;
    if (r->root < 0 || !read_ids(pid, r)) {
        source_reader_free(r);
        return NULL;
    }
    r->direct = same_user(r);
    return r;
}

void source_reader_free(source_reader *r)
{
    if (!r)
        return;
    if (r->root >= 0)
        close(r->root);
    free(r);
}

bool source_scan_line(int fd, int lineno, char *buf, size_t len)
{
    char chunk[8192];
    size_t kept = 0, scanned = 0;
    int line = 1;
    bool done = false;
    buf[0] = '\0';
    while (!done && scanned < SOURCE_SCAN_MAX) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        scanned += (size_t)n;
        for (ssize_t i = 0; i < n && !done; i++) {
            if (chunk[i] == '\n')
                done = line++ == lineno;
            else if (line == lineno && kept + 1 < len)
                buf[kept++] = chunk[i];
        }
    }
    if (line < lineno || (line == lineno && kept == 0))
        return false; /* the file ends before the line (or is empty there) */
    buf[kept] = '\0';
    kept = strcspn(buf, "\r");
    buf[kept] = '\0';
    size_t lead = strspn(buf, " \t");
    memmove(buf, buf + lead, kept - lead + 1);
    return buf[0] != '\0';
}

/* Look up and read, with this process's rights. */
static source_result read_here(const source_reader *r, const char *file,
                               int lineno, char *buf, size_t len)
{
    struct open_how how;
    struct stat st;
    char self[64];
    memset(&how, 0, sizeof how);
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    int path = (int)syscall(SYS_openat2, r->root, file, &how, sizeof how);
    if (path < 0)
        return SOURCE_NONE;
    source_result res = SOURCE_NONE;
    if (fstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        /* The start time is known to a second (btime is whole seconds):
         * only a file changed a second after it is called changed. */
        if (r->started > 0 && (double)st.st_mtime > r->started + 1.0) {
            res = SOURCE_CHANGED;
        } else {
            /* Opening the handle's own file checks read permission. */
            snprintf(self, sizeof self, "/proc/self/fd/%d", path);
            int fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
            if (fd >= 0 && source_scan_line(fd, lineno, buf, len))
                res = SOURCE_LINE;
            if (fd >= 0)
                close(fd);
        }
    }
    close(path);
    return res;
}

/* In a child: become the target's user, read, send the result up. */
static void child_read(const source_reader *r, const char *file, int lineno,
                       int out)
{
    char line[SOURCE_LINE_MAX];
    alarm(CHILD_SECONDS);
    if (setgroups((size_t)r->ngroups, r->groups) != 0 ||
        setresgid(r->gid, r->gid, r->gid) != 0 ||
        setresuid(r->uid, r->uid, r->uid) != 0)
        _exit(1);
    char res = (char)read_here(r, file, lineno, line, sizeof line);
    if (write(out, &res, 1) == 1 && res == SOURCE_LINE &&
        write(out, line, strlen(line)) < 0)
        _exit(1);
    _exit(0);
}

/* Read through a child that switched to the target's user. */
static source_result read_as_target(const source_reader *r, const char *file,
                                    int lineno, char *buf, size_t len)
{
    int fds[2];
    char res = SOURCE_NONE;
    if (pipe2(fds, O_CLOEXEC) != 0)
        return SOURCE_NONE;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        child_read(r, file, lineno, fds[1]);
    }
    close(fds[1]);
    size_t got = 0;
    bool answered = pid > 0 && read(fds[0], &res, 1) == 1;
    while (answered && got + 1 < len) {
        ssize_t n = read(fds[0], buf + got, len - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    close(fds[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    return res == SOURCE_LINE || res == SOURCE_CHANGED ? (source_result)res
                                                       : SOURCE_NONE;
}

source_result source_line(source_reader *r, const char *file, int lineno,
                          char *buf, size_t len)
{
    buf[0] = '\0';
    if (!r || file[0] != '/' || lineno <= 0 || len == 0)
        return SOURCE_NONE;
    if (len > SOURCE_LINE_MAX)
        len = SOURCE_LINE_MAX;
    return r->direct ? read_here(r, file, lineno, buf, len)
                     : read_as_target(r, file, lineno, buf, len);
}
