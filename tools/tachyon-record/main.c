/* SPDX-License-Identifier: MIT */
/*
 * tachyon-record - sample a running CPython 3.11-3.14 process into a
 * Tachyon binary log.
 */
#include "options.h"
#include "record.h"

int main(int argc, char **argv)
{
    rec_options opts;
    int rc = rec_parse_options(argc, argv, &opts);
    if (rc == REC_PARSE_RUN)
        rc = run_record(&opts);
    return rc;
}
