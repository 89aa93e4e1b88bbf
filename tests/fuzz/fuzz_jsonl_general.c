/* SPDX-License-Identifier: MIT */
/*
 * fuzz_jsonl_general.c - the JSONL reader's general path (its own JSON
 * check and in-place reading, for every line the fast paths decline)
 * against the json-c path it replaced (tests/unit/jsonl_ref.c), line by
 * line. Invariant: the same status, error, record, notes and end flag.
 */
#include "jsonl_diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static jdiff d;
    static bool ready;
    if (!ready && jdiff_open(&d) != 0)
        abort();
    ready = true;
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        int rc;
        const char *what = jdiff_line(&d, p, n, &rc);
        if (what) {
            fprintf(stderr,
                    "fuzz_jsonl_general: %s differs on %.*s\n"
                    "  general %d: %s\n  json-c  %d: %s\n"
                    "  notes general:\n%s  notes json-c:\n%s",
                    what, (int)(n < 300 ? n : 300), p, rc, d.mine->err.msg,
                    d.theirs->err.code, d.theirs->err.msg,
                    d.mine_notes.text ? d.mine_notes.text : "",
                    d.theirs_notes.text ? d.theirs_notes.text : "");
            abort();
        }
        p += n + 1;
    }
    return 0;
}
