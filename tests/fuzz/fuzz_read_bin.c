/* SPDX-License-Identifier: MIT */
/*
 * fuzz_read_bin.c - the binary reader on arbitrary bytes. Besides "no
 * crash, no leak", it checks the reader's promises: every delivered stack
 * holds valid frame indices, depth <= 256, weight >= 1 with that many
 * timestamps, and a clean end means the declared sample count was met.
 */
#include <stdlib.h>

#include <tachyon/fmt.h>

#include "internal.h"

static void check(bool ok)
{
    if (!ok)
        abort();
}

static void check_sample(const tfmt_bin_reader *r, const tfmt_sample *s)
{
    const tfmt_info *info = tfmt_bin_info(r);
    check(s->weight >= 1 && s->timestamps != NULL);
    check(s->depth <= TFMT_MAX_DEPTH);
    check(s->unchanged <= s->depth);
    for (uint32_t i = 0; i < s->depth; i++) {
        check(s->stack[i] < info->frame_count);
        const tfmt_frame *f = tfmt_bin_frame(r, s->stack[i]);
        check(f != NULL);
        check(f->filename < info->string_count);
        check(f->funcname < info->string_count);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    if (tfmt_source_open_memory(&src, data, size, 0, NULL) != TFMT_OK)
        return 0;
    if (tfmt_bin_open(&r, src, NULL, NULL) == TFMT_OK) {
        const tfmt_sample *s;
        uint64_t total = 0;
        int rc;
        while ((rc = tfmt_bin_next(r, &s)) == TFMT_OK) {
            check_sample(r, s);
            total += s->weight;
        }
        check(total == tfmt_bin_samples_read(r));
        if (rc == TFMT_DONE)
            check(total == tfmt_bin_info(r)->sample_count);
        else
            check(rc < 0 && tfmt_bin_error(r)->msg[0] != 0);
        tfmt_bin_free(r);
    }
    tfmt_source_free(src);
    return 0;
}
