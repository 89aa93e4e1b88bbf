/* SPDX-License-Identifier: MIT */
/*
 * jsonl_lines.c - splits a byte source into lines with bounded memory.
 *
 * A line that lies inside one read block is returned in place; only a line
 * that spans blocks is copied into the carry buffer, which never grows past
 * max_line. An over-long line is reported once and then skipped, so a
 * caller that keeps going resynchronises on the next '\n'.
 */
#include "jsonl_internal.h"

#define LINES_BLOCK ((size_t)64 << 10)

int tfmt__lines_init(tfmt_lines *l, tfmt_source *src, const tfmt_allocator *a,
                     size_t max_line)
{
    memset(l, 0, sizeof *l);
    l->src = src;
    l->max_line = max_line;
    l->cap = LINES_BLOCK;
    l->block = tfmt__malloc(a, l->cap);
    if (!l->block)
        return TFMT_ENOMEM;
    tfmt__buf_init(&l->carry, a);
    return TFMT_OK;
}

void tfmt__lines_free(tfmt_lines *l, const tfmt_allocator *a)
{
    tfmt__free(a, l->block);
    l->block = NULL;
    tfmt__buf_free(&l->carry);
}

/* Refill the block; sets eof when the source is exhausted. */
static int fill(tfmt_lines *l, tfmt_error *err)
{
    size_t got = 0;
    int rc = tfmt_source_read(l->src, l->block, l->cap, &got, err);
    if (rc < 0) {
        l->src_failed = true;
        return rc;
    }
    l->pos = 0;
    l->len = got;
    if (got == 0)
        l->eof = true;
    return TFMT_OK;
}

/* Discard bytes up to and including the next '\n' (or to EOF). */
static int skip_rest(tfmt_lines *l, tfmt_error *err)
{
    while (l->skipping) {
        if (l->pos == l->len) {
            if (l->eof)
                break;
            int rc = fill(l, err);
            if (rc < 0)
                return rc;
            continue;
        }
        const uint8_t *start = l->block + l->pos;
        const uint8_t *nl = memchr(start, '\n', l->len - l->pos);
        if (nl) {
            l->pos += (size_t)(nl - start) + 1;
            l->skipping = false;
        } else {
            l->pos = l->len;
        }
    }
    l->skipping = false;
    return TFMT_OK;
}

/* Report the line being assembled as too long and arrange to skip it. */
static int too_long(tfmt_lines *l, const uint8_t *nl, size_t n, tfmt_error *err)
{
    l->line++;
    l->carry.len = 0;
    if (nl) {
        l->pos += n + 1;
    } else {
        l->pos = l->len;
        l->skipping = true;
    }
    tfmt__error(err, TFMT_ELIMIT, "line longer than %zu bytes", l->max_line);
    if (err)
        err->line = l->line;
    return TFMT_ELIMIT;
}

static int give(tfmt_lines *l, const char *p, size_t n, const char **ptr,
                size_t *len)
{
    l->line++;
    *ptr = p;
    *len = n;
    return TFMT_OK;
}

int tfmt__lines_next(tfmt_lines *l, const char **ptr, size_t *len,
                     tfmt_error *err)
{
    l->carry.len = 0;
    int rc = skip_rest(l, err);
    if (rc < 0)
        return rc;
    for (;;) {
        if (l->pos == l->len) {
            if (l->eof)
                break;
            rc = fill(l, err);
            if (rc < 0)
                return rc;
            continue;
        }
        const uint8_t *start = l->block + l->pos;
        size_t avail = l->len - l->pos;
        const uint8_t *nl = memchr(start, '\n', avail);
        size_t n = nl ? (size_t)(nl - start) : avail;
        if (n > l->max_line - l->carry.len)
            return too_long(l, nl, n, err);
        if (nl && l->carry.len == 0) {
            l->pos += n + 1;
            return give(l, (const char *)start, n, ptr, len);
        }
        if (tfmt__buf_put(&l->carry, start, n) < 0)
            return tfmt__error(err, TFMT_ENOMEM, "out of memory");
        l->pos += n + (nl ? 1 : 0);
        if (nl)
            return give(l, l->carry.data, l->carry.len, ptr, len);
    }
    if (l->carry.len == 0)
        return TFMT_DONE;
    l->no_newline = true;
    return give(l, l->carry.data, l->carry.len, ptr, len);
}
