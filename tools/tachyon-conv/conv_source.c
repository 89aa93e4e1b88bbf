/* SPDX-License-Identifier: MIT */
/*
 * conv_source.c - finding a heatmap page's source file. A log records
 * paths on the machine that ran the program; they are tried as
 * rewritten by each --path-map FROM=TO whose FROM starts the path, then
 * below --source-root DIR (the whole path, then without its leading
 * folders one at a time: /ci/build/app/x.py is looked for as
 * DIR/ci/build/app/x.py, DIR/build/app/x.py, DIR/app/x.py, DIR/x.py),
 * then as recorded (a relative path from the current directory).
 *
 * A log names any path, and the pages show what they read: only regular
 * files named *.py or *.pyw are read (never /etc/passwd or a key because a
 * log says so), opened without blocking (a FIFO cannot hang the run), at
 * most CONV_SOURCE_MAX bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conv.h"

#define CONV_SOURCE_MAX (32u << 20)

static bool python_name(const char *s, size_t n)
{
    return (n >= 3 && memcmp(s + n - 3, ".py", 3) == 0) ||
           (n >= 4 && memcmp(s + n - 4, ".pyw", 4) == 0);
}

/* Read `path` whole when it is a regular file of a sane size. */
static int read_file(conv_source *out, const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno;
    struct stat st;
    int e = 0;
    if (fstat(fd, &st) != 0)
        e = errno;
    else if (!S_ISREG(st.st_mode))
        e = EINVAL;
    else if ((uint64_t)st.st_size > CONV_SOURCE_MAX)
        e = EFBIG;
    char *buf = e ? NULL : malloc((size_t)st.st_size + 1);
    if (!e && !buf)
        e = ENOMEM;
    size_t got = 0;
    while (!e && got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            e = n < 0 ? errno : 0;
            break;
        }
        got += (size_t)n;
    }
    close(fd);
    if (e) {
        free(buf);
        return e;
    }
    out->text = buf;
    out->len = got;
    return 0;
}

/* Try one candidate; 0 when read, else why not (errno). */
static int try_path(conv_source *out, const char *cand, tfmt_str recorded)
{
    int e = read_file(out, cand);
    if (e == 0 && (strlen(cand) != recorded.len ||
                   memcmp(cand, recorded.ptr, recorded.len) != 0))
        out->origin = strdup(cand);
    if (e && out->tried < 3) {
        size_t used = strlen(out->tried_text);
        snprintf(out->tried_text + used, sizeof out->tried_text - used, "%s%s",
                 out->tried ? ", " : "", cand);
        out->tried++;
    } else if (e) {
        out->more = true;
    }
    return e;
}

static int try_join(conv_source *out, const char *a, size_t alen, const char *b,
                    size_t blen, tfmt_str recorded)
{
    char *cand = malloc(alen + blen + 2);
    if (!cand)
        return ENOMEM;
    memcpy(cand, a, alen);
    size_t n = alen;
    if (n && cand[n - 1] != '/' && blen && b[0] != '/')
        cand[n++] = '/';
    memcpy(cand + n, b, blen);
    cand[n + blen] = '\0';
    int e = try_path(out, cand, recorded);
    free(cand);
    return e;
}

static bool try_maps(conv_source *out, const cli_list *maps, tfmt_str path)
{
    for (size_t i = 0; i < maps->count; i++) {
        const char *m = maps->items[i], *eq = strchr(m, '=');
        size_t flen = (size_t)(eq - m);
        if (path.len >= flen && memcmp(path.ptr, m, flen) == 0 &&
            try_join(out, eq + 1, strlen(eq + 1), path.ptr + flen,
                     path.len - flen, path) == 0)
            return true;
    }
    return false;
}

static bool try_root(conv_source *out, const char *root, tfmt_str path)
{
    size_t i = 0;
    while (i < path.len) {
        while (i < path.len && path.ptr[i] == '/')
            i++;
        if (i < path.len && try_join(out, root, strlen(root), path.ptr + i,
                                     path.len - i, path) == 0)
            return true;
        while (i < path.len && path.ptr[i] != '/')
            i++;
    }
    return false;
}

int conv_source_find(conv_source *out, const conv_options *o, tfmt_str path)
{
    memset(out, 0, sizeof *out);
    if (memchr(path.ptr, '\0', path.len)) {
        snprintf(out->note, sizeof out->note,
                 "The recorded path holds a "
                 "NUL byte.");
        return CLI_EXIT_OK;
    }
    if (!python_name(path.ptr, path.len)) {
        snprintf(out->note, sizeof out->note,
                 "Not read: only Python sources (*.py, *.pyw) are read, "
                 "since a log may name any file.");
        return CLI_EXIT_OK;
    }
    if (try_maps(out, &o->path_maps, path) ||
        (o->source_root && try_root(out, o->source_root, path)))
        return CLI_EXIT_OK;
    char *rec = strndup(path.ptr, path.len);
    if (!rec)
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    int e = try_path(out, rec, path);
    free(rec);
    if (e == 0)
        return CLI_EXIT_OK;
    if (e == ENOMEM)
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    snprintf(out->note + strlen(out->note),
             sizeof out->note - strlen(out->note),
             "Not found (tried %s%s). --source-root DIR and --path-map "
             "FROM=TO tell where the sources are.",
             out->tried_text, out->more ? ", ..." : "");
    return CLI_EXIT_OK;
}

void conv_source_free(conv_source *s)
{
    free(s->text);
    free(s->origin);
    memset(s, 0, sizeof *s);
}
