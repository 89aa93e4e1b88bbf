/* SPDX-License-Identifier: MIT */
/*
 * reader_opts.c - the binary-reader options every tool that reads logs
 * takes from its command line (cli.h, CLI_READER_OPTIONS), checked once
 * before any input is read.
 */
#include <errno.h>
#include <stdlib.h>

#include "cli.h"

int cli_reader_options(const cli_reader_args *a, tfmt_bin_options *o)
{
    tfmt_bin_options dflt = TFMT_BIN_OPTIONS_INIT;
    *o = dflt;
    if (!a->max_threads)
        return CLI_EXIT_OK;
    const char *s = a->max_threads;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v >= UINT32_MAX)
        return cli_usage("option '--max-threads' needs a count from 0 to "
                         "4294967294, not '%s'",
                         s);
    /* 0: no limit of ours, only the header's declared thread count. */
    o->max_threads = v == 0 ? UINT32_MAX : (uint32_t)v;
    return CLI_EXIT_OK;
}
