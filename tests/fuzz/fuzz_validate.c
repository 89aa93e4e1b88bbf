/* SPDX-License-Identifier: MIT */
/*
 * fuzz_validate.c - tachyon-validate's checkers (JSONL and binary, picked
 * by tfmt_detect as the tool does) on arbitrary bytes, with findings
 * collected for the JSON report so nothing is printed. Invariant: an input
 * is either valid or has at least one error, and --max-errors holds.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void check(bool ok)
{
    if (!ok)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tv_settings set = {FMT_JSON, false, 1, false, 20};
    tv_report rep;
    tv_report_init(&rep, &set);
    tv_file *f = tv_report_file(&rep, "fuzz");
    tfmt_source *src = NULL;
    if (!f || tfmt_source_open_memory(&src, data, size, 0, NULL) != 0) {
        tv_report_free(&rep);
        return 0;
    }
    tfmt_detection d;
    check(tfmt_detect(src, &d, NULL) == TFMT_OK);
    tv_input in = {src, 4096, NULL};
    /* Text that is neither format goes to the binary checker too. */
    bool bin = d.kind != TFMT_KIND_EMPTY && !tfmt_kind_is_jsonl(d.kind);
    if (bin)
        tv_check_bin(&rep, f, &in);
    else
        tv_check_jsonl(&rep, f, &in);
    check(!f->trouble);
    check(f->errors <= set.max_errors);
    if (size == 0)
        check(f->errors == 1);
    tv_report_free(&rep);
    tfmt_source_free(src);
    return 0;
}
