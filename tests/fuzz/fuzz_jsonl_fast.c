/* SPDX-License-Identifier: MIT */
/*
 * fuzz_jsonl_fast.c - the JSONL fast path against json-c on arbitrary
 * lines. Invariant: a line the fast path accepts is accepted by json-c
 * too and gives the same record, field by field; a line it declines is
 * not checked (json-c alone decides it).
 */
#include <stdio.h>

#include "jsonl_compare.h"
#include "jsonl_ref.h"

static jref ref;

static void check_line(tfmt_jsonl_reader *r, const char *p, size_t n)
{
    int fast = tfmt__jsonl_fast(r, p, n);
    if (fast != TFMT_OK && fast != 1) {
        fprintf(stderr, "fuzz_jsonl_fast: fast path returned %d\n", fast);
        abort();
    }
    if (fast != TFMT_OK)
        return;
    rcopy c;
    copy_record(&c, &r->rec);
    int rc = jref_parse_line(&ref, r, p, n);
    const char *d = rc == TFMT_OK ? differs(&c, &r->rec) : "json-c's verdict";
    if (d) {
        fprintf(stderr, "fuzz_jsonl_fast: %s differs (json-c: %d %s)\n", d, rc,
                r->err.msg);
        abort();
    }
    free_copy(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tfmt_source *src = NULL;
    tfmt_jsonl_reader *r = NULL;
    if (!ref.tok && jref_init(&ref) != 0)
        abort();
    if (tfmt_source_open_memory(&src, "", 0, 0, NULL) != TFMT_OK ||
        tfmt_jsonl_open(&r, src, NULL, NULL) != TFMT_OK)
        abort();
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        r->lines.line++;
        check_line(r, p, n);
        p += n + 1;
    }
    tfmt_jsonl_free(r);
    tfmt_source_free(src);
    return 0;
}
