/* SPDX-License-Identifier: MIT */
/*
 * sync_dir.c - fsync of the directory a file was renamed into.
 */
#include "sync_dir.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) + 1 : 0;
    char *dir = malloc(n + 2);
    if (!dir)
        return;
    memcpy(dir, path, n);
    memcpy(dir + n, n ? "" : ".", n ? 1 : 2);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}
