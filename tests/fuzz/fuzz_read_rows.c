/* SPDX-License-Identifier: MIT */
/*
 * fuzz_read_rows.c - the ClickHouse rows reader on arbitrary bytes, fed 7
 * bytes at a time with a small line limit. Every line is read (a bad row
 * is an error and reading goes on) and the reader must reach the end.
 * Invariant: when the whole input reads as rows, the profile built from
 * them (statuses apart) writes rows that read back into a profile writing
 * exactly the same rows again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tachyon/fmt.h>

#define check(ok) check_at(ok, __LINE__)
static void check_at(bool ok, int line)
{
    if (!ok) {
        fprintf(stderr, "fuzz_read_rows: invariant at line %d failed\n", line);
        abort();
    }
}

static tfmt_rows_reader *open_rows(tfmt_source **src, const void *data,
                                   size_t size)
{
    tfmt_rows_options o = TFMT_ROWS_OPTIONS_INIT;
    tfmt_rows_reader *r = NULL;
    tfmt_error err;
    o.max_line = 4096;
    check(tfmt_source_open_memory(src, data, size, 7, NULL) == TFMT_OK);
    check(tfmt_rows_open(&r, *src, &o, &err) == TFMT_OK);
    return r;
}

/* Every line; bad rows are skipped. Returns true when none was bad. */
static bool read_all(const uint8_t *data, size_t size)
{
    tfmt_source *src;
    tfmt_rows_reader *r = open_rows(&src, data, size);
    const tfmt_row *row;
    bool clean = true;
    uint64_t calls = 0;
    int rc;
    while ((rc = tfmt_rows_next(r, &row)) != TFMT_DONE) {
        check(++calls <= size + 1);
        if (rc == TFMT_OK) {
            check(row->count >= 1 && row->depth <= TFMT_MAX_DEPTH);
            for (uint32_t i = 0; i < row->depth; i++)
                check(tfmt_rows_frame(r, row->stack[i]) != NULL);
            continue;
        }
        clean = false;
        check(tfmt_rows_error(r)->msg[0] != '\0');
        if (rc != TFMT_EFORMAT && rc != TFMT_ESCHEMA && rc != TFMT_ELIMIT)
            break;
    }
    tfmt_rows_free(r);
    tfmt_source_free(src);
    return clean;
}

static tfmt_profile *profile_of(const void *data, size_t size)
{
    tfmt_profile_options o = TFMT_PROFILE_OPTIONS_INIT;
    tfmt_profile *p = NULL;
    tfmt_source *src;
    o.split_status = true;
    tfmt_rows_reader *r = open_rows(&src, data, size);
    check(tfmt_profile_new(&p, &o) == TFMT_OK);
    if (tfmt_profile_add_rows(p, r) != TFMT_OK) {
        tfmt_profile_free(p);
        p = NULL;
    }
    tfmt_rows_free(r);
    tfmt_source_free(src);
    return p;
}

static unsigned char *rows_of(tfmt_profile *p, size_t *len)
{
    char path[256];
    const char *t = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/fuzz_read_rows_%ld", t && *t ? t : "/tmp",
             (long)getpid());
    tfmt_clickhouse_run run = TFMT_CLICKHOUSE_RUN_INIT;
    run.run_id = "0123456789abcdef0123456789abcdef";
    tfmt_sink *sink;
    tfmt_error err;
    check(tfmt_sink_open(&sink, path, TFMT_SINK_FORCE, NULL, &err) == TFMT_OK);
    check(tfmt_profile_write_clickhouse(p, sink, &run) == TFMT_OK);
    check(tfmt_sink_finish(sink) == TFMT_OK);
    tfmt_sink_free(sink);
    FILE *f = fopen(path, "rb");
    check(f != NULL);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *d = malloc((size_t)n + 1);
    check(d && fread(d, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    unlink(path);
    *len = (size_t)n;
    return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!read_all(data, size))
        return 0;
    tfmt_profile *p = profile_of(data, size);
    if (!p)
        return 0;
    size_t n1, n2;
    unsigned char *rows1 = rows_of(p, &n1);
    tfmt_profile *q = profile_of(rows1, n1);
    check(q != NULL);
    unsigned char *rows2 = rows_of(q, &n2);
    check(n1 == n2 && memcmp(rows1, rows2, n1) == 0);
    free(rows1);
    free(rows2);
    tfmt_profile_free(p);
    tfmt_profile_free(q);
    return 0;
}
