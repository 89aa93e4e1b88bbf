/* SPDX-License-Identifier: MIT */
/*
 * check_rows.c - the rules of tachyon-validate for ClickHouse query
 * results (rows of schemas/clickhouse/tachyon_stacks.sql). The library
 * reader makes every check, within a row and across rows (fmt_rows.h),
 * and reads on after a bad row; its checks map to rules TV301..TV308, and
 * runs loaded more than once to the warnings TV309 and TV310.
 */
#include "check.h"
#include "cli.h"
#include "rules.h"

static const char *check_rule(int check)
{
    static const char *const ids[] = {
        "TV300", "TV301", "TV302", "TV303", "TV304",
        "TV305", "TV306", "TV307", "TV308",
    };
    if (check <= 0 || check >= (int)(sizeof ids / sizeof ids[0]))
        return "TV300";
    return ids[check];
}

/* After the last row: runs loaded more than once (warnings). */
static void report_runs(tv_report *rep, tv_file *f, const tfmt_rows_reader *r)
{
    size_t n = tfmt_rows_run_count(r);
    for (size_t i = 0; i < n; i++) {
        const tfmt_rows_run *run = tfmt_rows_run_at(r, i);
        char msg[256];
        if (cli_rows_copies_msg(run, msg, sizeof msg) &&
            !tv_add(rep, f, "TV309", run->first_line, false, 0, "%s", msg))
            return;
        if (cli_rows_twin_msg(r, run, msg, sizeof msg) &&
            !tv_add(rep, f, "TV310", run->first_line, false, 0, "%s", msg))
            return;
    }
}

void tv_check_rows(tv_report *rep, tv_file *f, const tv_input *in)
{
    tfmt_rows_options o = TFMT_ROWS_OPTIONS_INIT;
    tfmt_rows_reader *r = NULL;
    tfmt_error err;
    o.max_line = in->max_line;
    f->format = "clickhouse-rows";
    if (tfmt_rows_open(&r, in->src, &o, &err) < 0) {
        tv_trouble(rep, f, err.msg);
        return;
    }
    for (;;) {
        const tfmt_row *row;
        int rc = tfmt_rows_next(r, &row);
        if (rc == TFMT_OK)
            continue;
        if (rc == TFMT_DONE)
            break;
        const tfmt_error *e = tfmt_rows_error(r);
        if (rc == TFMT_EIO || rc == TFMT_ENOMEM || rc == TFMT_EINVAL) {
            tv_trouble(rep, f, e->msg);
            break;
        }
        const char *rule = e->check ? check_rule(e->check)
                           : rc == TFMT_EFORMAT || rc == TFMT_ETRUNC ? R_INPUT
                                                                     : "TV300";
        bool more = tv_add_error(rep, f, rule, e);
        if (!more ||
            (rc != TFMT_EFORMAT && rc != TFMT_ESCHEMA && rc != TFMT_ELIMIT) ||
            !e->check)
            break;
    }
    report_runs(rep, f, r);
    tfmt_rows_free(r);
}
