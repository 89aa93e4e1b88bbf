/* SPDX-License-Identifier: MIT */
/* log_files.c - binary logs on disk for the unit tests (log_files.h). */
#include <string.h>

#include "log_files.h"

int test_log_open(test_log *l, const char *path, const tfmt_bin_options *bo,
                  tfmt_error *err)
{
    memset(l, 0, sizeof *l);
    int rc = tfmt_source_open_path(&l->src, path, NULL, err);
    return rc == TFMT_OK ? tfmt_bin_open(&l->r, l->src, bo, err) : rc;
}

void test_log_close(test_log *l)
{
    tfmt_bin_free(l->r);
    tfmt_source_free(l->src);
    memset(l, 0, sizeof *l);
}

int test_log_create(test_log_out *o, const char *path,
                    const tfmt_bin_writer_options *wo, tfmt_error *err)
{
    memset(o, 0, sizeof *o);
    int rc = tfmt_sink_open(&o->sink, path,
                            TFMT_SINK_SEEKABLE | TFMT_SINK_FORCE, NULL, err);
    return rc == TFMT_OK ? tfmt_bin_writer_open(&o->w, o->sink, wo, err) : rc;
}

int test_log_finish(test_log_out *o, int rc)
{
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_finish(o->w);
    if (rc == TFMT_OK)
        rc = tfmt_sink_finish(o->sink);
    tfmt_bin_writer_free(o->w);
    tfmt_sink_free(o->sink);
    memset(o, 0, sizeof *o);
    return rc;
}
