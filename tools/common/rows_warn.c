/* SPDX-License-Identifier: MIT */
/*
 * rows_warn.c - what tachyon-conv and tachyon-diff say about a ClickHouse
 * query result once it is read: runs loaded more than once. The reader
 * reads such a run once (identical copies of its rows are skipped) and
 * cannot merge one recording loaded under two run ids; both are warnings,
 * in the words tachyon-validate's TV309 and TV310 use.
 */
#include <stdio.h>

#include "cli.h"

void cli_rows_warn(const char *file, const tfmt_rows_reader *r)
{
    size_t n = tfmt_rows_run_count(r);
    for (size_t i = 0; i < n; i++) {
        const tfmt_rows_run *run = tfmt_rows_run_at(r, i);
        char msg[256];
        if (cli_rows_copies_msg(run, msg, sizeof msg))
            cli_file_warn(file, "%s", msg);
        if (cli_rows_twin_msg(r, run, msg, sizeof msg))
            cli_file_warn(file, "%s", msg);
    }
}

bool cli_rows_copies_msg(const tfmt_rows_run *run, char *msg, size_t cap)
{
    if (!run->copies)
        return false;
    snprintf(msg, cap,
             "run %s: %llu identical %s of its rows read once (the run was "
             "loaded more than once)",
             run->run_id, (unsigned long long)run->copies,
             run->copies == 1 ? "copy" : "copies");
    return true;
}

bool cli_rows_twin_msg(const tfmt_rows_reader *r, const tfmt_rows_run *run,
                       char *msg, size_t cap)
{
    if (!run->twin)
        return false;
    const tfmt_rows_run *first = tfmt_rows_run_at(r, run->twin - 1);
    snprintf(msg, cap,
             "runs %s and %s (run id versions %u and %u) have the same "
             "start time, interval and mode: one recording loaded twice "
             "under two run ids? Both are counted",
             first->run_id, run->run_id, first->run_id_version,
             run->run_id_version);
    return true;
}
