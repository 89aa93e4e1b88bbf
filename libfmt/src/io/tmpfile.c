/* SPDX-License-Identifier: MIT */
/*
 * tmpfile.c - the library's one kind of scratch file: unlinked from the
 * start, so nothing is left behind whatever happens to the process, and
 * closed on exec. Used to spool a stream that must be read at random
 * (source.c), output that must be patched or compressed later (sink.c),
 * and the spooled timelines (spool.c).
 */
#define _GNU_SOURCE /* O_TMPFILE, mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "io_internal.h"

/*
 * In $TMPDIR (or /tmp): O_TMPFILE where the kernel and file system have
 * it (the file never has a name), else mkostemp and an immediate unlink.
 */
static int open_unlinked(int *out)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
#ifdef O_TMPFILE
    *out = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (*out >= 0)
        return 0;
#endif
    char path[4096];
    int len = snprintf(path, sizeof path, "%s/tachyon-XXXXXX", dir);
    if (len < 0 || (size_t)len >= sizeof path)
        return ENAMETOOLONG;
    *out = mkostemp(path, O_CLOEXEC);
    if (*out < 0)
        return errno;
    unlink(path);
    return 0;
}

int tfmt__tmpfile(int *out, const char *what, tfmt_error *err)
{
    int e = open_unlinked(out);
    if (e == 0)
        return TFMT_OK;
    *out = -1;
    tfmt__error_errno(err, e, what);
    errno = e;
    return TFMT_EIO;
}
