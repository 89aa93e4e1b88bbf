/* SPDX-License-Identifier: MIT */
/*
 * conv_source.c - finding a heatmap page's source file. A log records
 * paths on the machine that ran the program, and anyone can write a log:
 * its paths are data, never a licence to read a file.
 *
 * With --source-root DIR or --path-map FROM=TO the sources are read only
 * beneath those directories (conv_source_open.c confines each open):
 * first each --path-map whose FROM starts the path at a folder boundary
 * (the rest of the path beneath its TO), then beneath DIR the whole path
 * and the path without its leading folders one at a time
 * (/ci/build/app/x.py is looked for as DIR/ci/build/app/x.py,
 * DIR/build/app/x.py, DIR/app/x.py, DIR/x.py). A candidate with a `..`
 * folder is not tried. The recorded path itself is read only with
 * --recorded-paths. Without either option the recorded path is what is
 * read (as CPython's heatmap does), wherever it leads.
 *
 * Whatever the candidate, only a regular file whose resolved name ends in
 * .py or .pyw is read, at most 32 MiB; the page says why a source is
 * missing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"

/* Why a candidate that exists was not read, for the page's note. */
static const char *miss_reason(conv_miss m, int sys_errno)
{
    switch (m) {
    case CONV_MISS_OUTSIDE: return "it leads outside its root";
    case CONV_MISS_SPECIAL: return "it is not a regular file";
    case CONV_MISS_NOT_PYTHON:
        return "it resolves to a file not named *.py or *.pyw";
    case CONV_MISS_BIG: return "it is larger than 32 MiB";
    case CONV_MISS_ERROR: return strerror(sys_errno);
    default: return "it is missing";
    }
}

/* Note a candidate that was not read. */
static void tried(conv_source *out, const char *shown, conv_miss m,
                  int sys_errno)
{
    if (out->tried < 3) {
        size_t used = strlen(out->tried_text);
        snprintf(out->tried_text + used, sizeof out->tried_text - used, "%s%s",
                 out->tried ? ", " : "", shown);
        out->tried++;
    } else {
        out->more = true;
    }
    if (m != CONV_MISS_ABSENT && !out->refused[0])
        snprintf(out->refused, sizeof out->refused, "%s was not read: %s",
                 shown, miss_reason(m, sys_errno));
}

/* Keep what was read; 1 when found, 0 when not, -1 when out of memory. */
static int settle(conv_source *out, conv_miss m, conv_read *r,
                  const char *shown, bool recorded)
{
    if (m == CONV_MISS_NOMEM)
        return -1;
    if (m != CONV_MISS_NONE) {
        tried(out, shown, m, r->sys_errno);
        return 0;
    }
    out->text = r->text;
    out->len = r->len;
    if (!recorded) {
        out->origin = strdup(shown);
        if (!out->origin)
            return -1;
    }
    return 1;
}

/* Whether `rel` (n bytes) has a ".." folder, which is never tried. */
static bool climbs(const char *rel, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && rel[j] != '/')
            j++;
        if (j - i == 2 && rel[i] == '.' && rel[i + 1] == '.')
            return true;
        i = j + 1;
    }
    return false;
}

/* Try `rel` (n bytes, relative) beneath `root`. */
static int try_beneath(conv_source *out, const char *root, const char *rel,
                       size_t n)
{
    while (n > 0 && rel[0] == '/') {
        rel++;
        n--;
    }
    if (n == 0 || climbs(rel, n))
        return 0;
    size_t rlen = strlen(root);
    char *shown = malloc(rlen + n + 2);
    char *relz = malloc(n + 1);
    int found = -1;
    if (shown && relz) {
        bool slash = rlen && root[rlen - 1] == '/';
        snprintf(shown, rlen + n + 2, "%s%s%.*s", root, slash ? "" : "/",
                 (int)n, rel);
        memcpy(relz, rel, n);
        relz[n] = '\0';
        conv_read r;
        conv_miss m = conv_source_read_beneath(root, relz, &r);
        found = settle(out, m, &r, shown, false);
    }
    free(shown);
    free(relz);
    return found;
}

/*
 * Whether --path-map FROM starts `path`: all of a folder's name, so
 * /srv/app maps /srv/app/x.py but not /srv/application/x.py.
 */
static bool map_matches(const char *from, size_t flen, tfmt_str path)
{
    if (flen == 0 || path.len < flen || memcmp(path.ptr, from, flen) != 0)
        return false;
    return from[flen - 1] == '/' || path.len == flen || path.ptr[flen] == '/';
}

static int try_maps(conv_source *out, const conv_source_opts *o, tfmt_str path)
{
    for (size_t i = 0; i < o->nmaps; i++) {
        const char *m = o->maps[i], *eq = strchr(m, '=');
        size_t flen = eq ? (size_t)(eq - m) : 0;
        if (!map_matches(m, flen, path))
            continue;
        int found = try_beneath(out, eq + 1, path.ptr + flen, path.len - flen);
        if (found)
            return found;
    }
    return 0;
}

/* The whole path beneath the root, then without its leading folders. */
static int try_root(conv_source *out, const char *root, tfmt_str path)
{
    size_t i = 0;
    while (i < path.len) {
        while (i < path.len && path.ptr[i] == '/')
            i++;
        if (i < path.len) {
            int found = try_beneath(out, root, path.ptr + i, path.len - i);
            if (found)
                return found;
        }
        while (i < path.len && path.ptr[i] != '/')
            i++;
    }
    return 0;
}

static int try_recorded(conv_source *out, tfmt_str path)
{
    char *rec = strndup(path.ptr, path.len);
    if (!rec)
        return -1;
    conv_read r;
    conv_miss m = conv_source_read_path(rec, &r);
    int found = settle(out, m, &r, rec, true);
    free(rec);
    return found;
}

static void not_found(conv_source *out, const conv_source_opts *o)
{
    size_t used = strlen(out->note);
    if (out->tried == 0)
        snprintf(out->note + used, sizeof out->note - used,
                 "Not read: no --path-map FROM starts its path, and there "
                 "is no --source-root (--recorded-paths reads it where it "
                 "was recorded). ");
    else
        snprintf(out->note + used, sizeof out->note - used,
                 "Not found (tried %s%s). ", out->tried_text,
                 out->more ? ", ..." : "");
    used = strlen(out->note);
    if (out->refused[0])
        snprintf(out->note + used, sizeof out->note - used, "%s. ",
                 out->refused);
    used = strlen(out->note);
    if (out->tried)
        snprintf(out->note + used, sizeof out->note - used, "%s",
                 o->root || o->nmaps
                     ? "--source-root DIR and --path-map FROM=TO tell where "
                       "the sources are."
                     : "--source-root DIR and --path-map FROM=TO tell where "
                       "the sources are (and read only below them).");
    used = strlen(out->note);
    while (used > 0 && out->note[used - 1] == ' ')
        out->note[--used] = '\0';
}

int conv_source_find(conv_source *out, const conv_source_opts *o, tfmt_str path)
{
    memset(out, 0, sizeof *out);
    if (memchr(path.ptr, '\0', path.len)) {
        snprintf(out->note, sizeof out->note,
                 "The recorded path holds a NUL byte.");
        return CLI_EXIT_OK;
    }
    if (!conv_python_name(path.ptr, path.len)) {
        snprintf(out->note, sizeof out->note,
                 "Not read: only Python sources (*.py, *.pyw) are read, "
                 "since a log may name any file.");
        return CLI_EXIT_OK;
    }
    bool rooted = o->root || o->nmaps;
    int found = try_maps(out, o, path);
    if (found == 0 && o->root)
        found = try_root(out, o->root, path);
    if (found == 0 && (!rooted || o->recorded))
        found = try_recorded(out, path);
    if (found < 0)
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    if (found == 0)
        not_found(out, o);
    return CLI_EXIT_OK;
}

void conv_source_free(conv_source *s)
{
    free(s->text);
    free(s->origin);
    memset(s, 0, sizeof *s);
}
