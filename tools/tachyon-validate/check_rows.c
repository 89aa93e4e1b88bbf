/* SPDX-License-Identifier: MIT */
/*
 * check_rows.c - the rules of tachyon-validate for ClickHouse query
 * results (rows of schemas/clickhouse/tachyon_stacks.sql). The library
 * reader makes every check, within a row and across rows (fmt_rows.h),
 * and reads on after a bad row; its checks map to rules TV301..TV308.
 */
#include "check.h"
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
    tfmt_rows_free(r);
}
