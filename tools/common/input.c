/*
 * input.c - reading the first bytes of an input, which tachyon-validate
 * and tachyon-diff use to tell a binary log from JSONL by content.
 */
#include "cli.h"

int cli_read_head(tfmt_source *src, unsigned char *buf, size_t cap,
                  size_t *got, tfmt_error *err)
{
    *got = 0;
    while (*got < cap) {
        size_t n = 0;
        int rc = tfmt_source_read(src, buf + *got, cap - *got, &n, err);
        if (rc < 0)
            return rc;
        if (n == 0)
            break;
        *got += n;
    }
    return TFMT_OK;
}
