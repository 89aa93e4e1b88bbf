/* SPDX-License-Identifier: MIT */
/*
 * input.c - opening an input file and asking the library what it holds
 * (tfmt_detect), the first step of every tool that reads profiles.
 */
#include <string.h>

#include "cli.h"

int cli_open_input(const char *path, tfmt_source **src, tfmt_detection *d,
                   tfmt_error *err)
{
    memset(err, 0, sizeof *err);
    int rc = tfmt_source_open_path(src, path, NULL, err);
    if (rc == TFMT_OK) {
        cli_input_limits_apply(*src);
        rc = tfmt_detect(*src, d, err);
    }
    if (rc < 0) {
        tfmt_source_free(*src);
        *src = NULL;
    }
    return rc;
}
