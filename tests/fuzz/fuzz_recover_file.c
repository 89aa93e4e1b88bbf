/* SPDX-License-Identifier: MIT */
/*
 * fuzz_recover_file.c - the parser of tachyon-record's checkpoint copy
 * (FILE.recover, tools/tachyon-record/recover_file.c) on arbitrary bytes,
 * taken as a whole file. Invariants: a copy that parses encodes back to
 * its own first bytes, says a size equal to the file's, ends its samples
 * after the header and puts its string table there; it fits a log that
 * holds its samples under its own header or a cleared one, and never one
 * too short; every refusal comes with a one-line reason.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recover_file.h"

#define check(ok) check_at(ok, __LINE__)
static void check_at(bool ok, int line)
{
    if (!ok) {
        fprintf(stderr, "fuzz_recover_file: invariant at line %d failed\n",
                line);
        abort();
    }
}

static void check_reason(const char *why)
{
    check(why[0] != '\0' && strchr(why, '\n') == NULL);
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The copy against logs it fits and logs it does not. */
static void check_against_logs(const rcv_info *in)
{
    uint8_t head[RCV_HEADER], zero[RCV_HEADER] = {0};
    char why[300];
    memcpy(head, in->header, RCV_HEADER);
    check(rcv_check_log(in, in->samples_end, head, why, sizeof why) == 0);
    check(rcv_check_log(in, in->samples_end + 1000, zero, why, sizeof why) ==
          0);
    check(rcv_check_log(in, in->samples_end - 1, head, why, sizeof why) == -1);
    check_reason(why);
    head[12] ^= 1; /* another recording's start time */
    check(rcv_check_log(in, in->samples_end, head, why, sizeof why) == -1);
    check_reason(why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rcv_info in;
    char why[300];
    uint8_t back[RCV_HEAD];
    why[0] = '\0';
    if (rcv_parse(data, size, size, &in, why, sizeof why) != 0) {
        check_reason(why);
        return 0;
    }
    check(size >= RCV_HEAD);
    check(in.trailer_len == size - RCV_HEAD && in.trailer_len > 0);
    check(in.samples_end >= RCV_HEADER);
    check(le64(in.header + 40) == in.samples_end);
    rcv_encode(&in, back);
    check(memcmp(back, data, RCV_HEAD) == 0);
    /* The same bytes said to be a file of another size do not parse. */
    check(rcv_parse(data, size, size + 1, &in, why, sizeof why) == -1);
    check_reason(why);
    check(rcv_parse(data, size, size, &in, why, sizeof why) == 0);
    check_against_logs(&in);
    return 0;
}
