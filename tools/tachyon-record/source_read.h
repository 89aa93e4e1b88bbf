/* SPDX-License-Identifier: MIT */
/*
 * source_read.h - a line of a target's source file for --dump, read as
 * the target would read it: through its own view of the file system, with
 * its user's rights, from a regular file only, within bounds.
 */
#ifndef TREC_SOURCE_READ_H
#define TREC_SOURCE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Longest source line kept (longer ones are cut there). */
#define SOURCE_LINE_MAX 512
/* A file is read this far at most looking for the line. */
#define SOURCE_SCAN_MAX ((size_t)16 << 20)

typedef enum {
    SOURCE_NONE = 0,   /* no line to show (and no reason to say why) */
    SOURCE_LINE = 1,   /* the line is in the buffer */
    SOURCE_CHANGED = 2 /* the file changed after the process started */
} source_result;

typedef struct source_reader source_reader;

/*
 * A reader for process `pid`'s files, started at `started` (seconds
 * since the epoch, 0: unknown). NULL when its root cannot be opened or
 * its user cannot be told; every lookup through NULL gives SOURCE_NONE.
 */
source_reader *source_reader_new(pid_t pid, double started);

/*
 * Line `lineno` of `file` (absolute, as the target names it) without its
 * line end and leading blanks, into buf (NUL-terminated, at most
 * SOURCE_LINE_MAX bytes of it). The path is resolved under the target's
 * root (openat2 RESOLVE_IN_ROOT, so neither ".." nor a link leaves it);
 * only a regular file is read (a FIFO is never waited on, a device never
 * opened for reading); and it is read with the target's user's rights:
 * directly when the recorder runs as that user with the same groups, else
 * in a child process that has switched to them (only a recorder allowed
 * to switch, as root, gets one). Bytes are raw: escape them to print.
 */
source_result source_line(source_reader *r, const char *file, int lineno,
                          char *buf, size_t len);

void source_reader_free(source_reader *r);

/*
 * The scan itself, for tests: line `lineno` of the regular file open at
 * `fd` (read from offset 0, SOURCE_SCAN_MAX bytes at most) into buf.
 * True when that line exists and holds more than blanks.
 */
bool source_scan_line(int fd, int lineno, char *buf, size_t len);

#endif
