/* SPDX-License-Identifier: MIT */
/*
 * log_files.h - binary logs on disk for the unit tests: a log opened for
 * reading (its source and reader, opened and freed as a pair) and a log
 * being written (its sink and writer). Linked into every unit test.
 */
#ifndef TFMT_TEST_LOG_FILES_H
#define TFMT_TEST_LOG_FILES_H

#include <tachyon/fmt.h>

typedef struct test_log {
    tfmt_source *src;
    tfmt_bin_reader *r;
} test_log;

/*
 * Open the log at `path` with reader options `bo` (NULL: defaults); err
 * (may be NULL) gets a failure's details. Whatever opened stays in *l for
 * test_log_close, also after a failure.
 */
int test_log_open(test_log *l, const char *path, const tfmt_bin_options *bo,
                  tfmt_error *err);
void test_log_close(test_log *l);

typedef struct test_log_out {
    tfmt_sink *sink;
    tfmt_bin_writer *w;
} test_log_out;

/*
 * Create the log `path` (seekable, replacing a file there) and a writer
 * on it with options `wo` (NULL: defaults); err as for test_log_open.
 */
int test_log_create(test_log_out *o, const char *path,
                    const tfmt_bin_writer_options *wo, tfmt_error *err);

/*
 * End a log written with status `rc`: when rc is TFMT_OK, finish the
 * writer, then the sink; free both either way. Returns the first failure.
 */
int test_log_finish(test_log_out *o, int rc);

#endif
