/* SPDX-License-Identifier: MIT */
/*
 * outdir.h - an output that is a directory (tachyon-conv --to heatmap -o
 * DIR), written whole or not at all, as -o FILE is.
 *
 * The files are written into a fresh hidden directory beside DIR
 * (PARENT/.NAME.tmp-XXXXXX), which is renamed onto DIR when everything was
 * written. A failed run, or SIGINT, SIGTERM or SIGHUP, removes it and
 * leaves DIR as it was. DIR may not exist yet or be an empty directory;
 * an existing non-empty DIR is replaced only with --force, and only when
 * every entry in it is one the tool itself writes (so a mistyped
 * `-o ~ --force` cannot delete a home directory): the new directory is
 * exchanged with the old one atomically (renameat2 RENAME_EXCHANGE, or two
 * renames where the file system lacks it), then the old entries are
 * removed.
 */
#ifndef TACHYON_OUTDIR_H
#define TACHYON_OUTDIR_H

#include <stdbool.h>

/* Names of the entries a replaceable DIR may hold. */
typedef bool (*cli_outdir_ours)(const char *name);

typedef struct cli_outdir {
    char *path; /* DIR, trailing slashes removed */
    char *tmp;  /* the directory being written */
    bool force;
    cli_outdir_ours ours;
} cli_outdir;

/*
 * Check DIR before any input is read: refuse (with a message, returning
 * exit code 2) anything but a missing path, an empty directory, or with
 * `force` a directory holding only entries `ours` accepts.
 */
int cli_outdir_check(const char *path, bool force, cli_outdir_ours ours);

/* Create the temporary directory (and catch the signals). Exit code. */
int cli_outdir_open(cli_outdir *d, const char *path, bool force,
                    cli_outdir_ours ours);

/* "TMP/name" (malloc'd; NULL when out of memory). */
char *cli_outdir_file(const cli_outdir *d, const char *name);

/* Move the written directory onto DIR. Exit code. */
int cli_outdir_commit(cli_outdir *d);

/* Remove what is left of the temporary directory; free. */
void cli_outdir_free(cli_outdir *d);

#endif
