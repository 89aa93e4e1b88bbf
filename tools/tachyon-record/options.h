/* SPDX-License-Identifier: MIT */
/*
 * options.h - the parsed command line of tachyon-record.
 */
#ifndef TREC_OPTIONS_H
#define TREC_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct rec_options {
    const char *output; /* NULL: tachyon_<pid>.bin */
    double rate_hz;
    double duration_s; /* 0: until the target exits */
    bool all_threads;
    int mode;                 /* unwind_mode */
    bool gc, native, opcodes; /* capture features */
    bool nonblocking;         /* never pause the target */
    bool allow_untested;      /* record 3.15, which nothing here tests */
    bool force;               /* replace an existing output */
    bool subprocesses;        /* record Python children too */
    bool dump;                /* print one snapshot instead */
    bool live;                /* a top view while recording */
    const char *recover;      /* --recover FILE, or NULL */
    bool zstd;
    bool quiet;
    int verbose;
    pid_t pid;      /* 0: spawn `command` */
    char **command; /* COMMAND ARGS... (in argv, NULL-terminated), or
                       NULL */
} rec_options;

/* Outcome of rec_parse_options. */
enum { REC_PARSE_RUN = -1 };

/*
 * Parse argv into `opts`. Returns REC_PARSE_RUN to go on recording, or an
 * exit code when the run ends here (--help, --version, usage errors).
 */
int rec_parse_options(int argc, char **argv, rec_options *opts);

#endif
