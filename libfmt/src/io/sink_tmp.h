/* SPDX-License-Identifier: MIT */
/*
 * sink_tmp.h - a sink's temporary file and its commit (sink_tmp.c).
 * Private to the io layer.
 */
#ifndef TFMT_SINK_TMP_H
#define TFMT_SINK_TMP_H

#include "io_internal.h"

typedef struct tfmt_sink_tmp {
    const tfmt_allocator *alloc;
    char *name; /* published name ("" while none exists), then a
                       scratch copy: 2 * cap bytes */
    size_t cap;
    bool anon; /* O_TMPFILE: the file has no name yet */
} tfmt_sink_tmp;

/*
 * Create the file that becomes `path` at the commit, writable, in its
 * directory, into *fd. Returns 0 or an errno value (ENOMEM included).
 */
int tfmt__sink_tmp_open(tfmt_sink_tmp *t, const char *path,
                        const tfmt_allocator *a, int *fd);

/*
 * Give the finished file the name `path` and close `fd` (also on
 * failure). Without `force` an existing `path` is kept and EEXIST
 * returned. Returns 0 or an errno value; on failure nothing is left.
 */
int tfmt__sink_tmp_commit(tfmt_sink_tmp *t, int fd, const char *path,
                          bool force);

/*
 * In place: create `path` itself, writable, into *fd, and keep it. Without
 * `force` the path must not exist in any form (O_EXCL, so not even as a
 * link); with it a new file is made under a fresh temporary name and
 * renamed over the path at once, so an existing link is replaced, never
 * written through. Returns 0 or an errno value (EEXIST, ENOMEM...).
 */
int tfmt__sink_tmp_place(tfmt_sink_tmp *t, const char *path,
                         const tfmt_allocator *a, bool force, int *fd);

/* Remove a named temporary file, if one exists. */
void tfmt__sink_tmp_discard(tfmt_sink_tmp *t);

/* Discard, then release the name buffer. */
void tfmt__sink_tmp_free(tfmt_sink_tmp *t);

#endif
