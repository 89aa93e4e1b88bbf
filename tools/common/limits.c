/* SPDX-License-Identifier: MIT */
/*
 * limits.c - the input limits every tool that reads profiles shares
 * (--max-input-size, --max-input-ratio): parsed once, applied to each
 * source cli_open_input opens.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static uint64_t max_size = TFMT_SOURCE_MAX_SIZE_DEFAULT;
static uint64_t max_ratio = TFMT_SOURCE_MAX_RATIO_DEFAULT;

/* Digits with an optional K, M, G or T suffix (powers of 1024). */
static bool parse_size(const char *s, uint64_t *out)
{
    static const char units[] = "kmgt";
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return false;
    unsigned shift = 0;
    if (*end) {
        const char *u = strchr(units, *end | 0x20);
        if (!u || !*u || end[1])
            return false;
        shift = 10 * (unsigned)(u - units + 1);
    }
    if (v > (UINT64_MAX >> shift))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

int cli_input_limits_set(const cli_input_limits *l)
{
    if (l->size && !parse_size(l->size, &max_size))
        return cli_usage("invalid --max-input-size '%s' (bytes, or a "
                         "number with K, M, G or T; 0: no limit)",
                         l->size);
    if (l->ratio && (!parse_size(l->ratio, &max_ratio) ||
                     strspn(l->ratio, "0123456789") != strlen(l->ratio)))
        return cli_usage("invalid --max-input-ratio '%s' (a whole number; "
                         "0: no limit)",
                         l->ratio);
    return CLI_EXIT_OK;
}

void cli_input_limits_apply(tfmt_source *src)
{
    tfmt_source_set_limits(src, max_size, max_ratio);
}
