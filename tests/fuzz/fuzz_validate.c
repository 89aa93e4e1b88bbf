/*
 * fuzz_validate.c - tachyon-validate's checkers (JSONL and binary, picked
 * by the first bytes as the tool does) on arbitrary bytes, with findings
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
    size_t n = size < 4 ? size : 4;
    tfmt_source_read(src, (unsigned char[4]){0}, n, &(size_t){0}, NULL);
    tv_input in = {src, data, n, 4096};
    bool bin = n > 0 && !memchr("{ \t\r\n", data[0], 5);
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
