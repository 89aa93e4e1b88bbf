/* SPDX-License-Identifier: MIT */
/*
 * hottest.c - the libtachyonfmt API in one page: print the leaf frame that
 * was sampled most often in a Tachyon binary log.
 *
 *   cc hottest.c $(pkg-config --cflags --libs tachyonfmt) -o hottest
 *   ./hottest profile.bin
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <tachyon/fmt.h>

static int fail(const char *path, const tfmt_error *e)
{
    if (e->has_offset)
        fprintf(stderr, "hottest: %s: byte %" PRIu64 ": %s\n", path, e->offset,
                e->msg);
    else
        fprintf(stderr, "hottest: %s: %s\n", path, e->msg);
    return 1;
}

int main(int argc, char **argv)
{
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    tfmt_error err;
    if (argc != 2) {
        fprintf(stderr, "usage: hottest FILE\n");
        return 2;
    }
    if (tfmt_source_open_path(&src, argv[1], NULL, &err) != TFMT_OK ||
        tfmt_bin_open(&r, src, NULL, &err) != TFMT_OK) {
        tfmt_source_free(src);
        return fail(argv[1], &err);
    }
    /* Leaf counts per frame; the frame count is bounded by the file. */
    uint64_t *leaf = calloc(tfmt_bin_info(r)->frame_count + 1, sizeof *leaf);
    const tfmt_sample *s;
    int rc;
    while ((rc = tfmt_bin_next(r, &s)) == TFMT_OK)
        if (s->depth > 0) /* stacks are root first */
            leaf[s->stack[s->depth - 1]] += s->weight;
    if (rc != TFMT_DONE) {
        rc = fail(argv[1], tfmt_bin_error(r));
    } else {
        uint32_t best = 0;
        for (uint32_t i = 1; i < tfmt_bin_info(r)->frame_count; i++)
            if (leaf[i] > leaf[best])
                best = i;
        const tfmt_frame *f = tfmt_bin_frame(r, best);
        tfmt_str file, func;
        if (f && tfmt_bin_string(r, f->filename, &file) == TFMT_OK &&
            tfmt_bin_string(r, f->funcname, &func) == TFMT_OK)
            printf("%.*s (%.*s:%d): %" PRIu64 " of %" PRIu64 " samples\n",
                   (int)func.len, func.ptr, (int)file.len, file.ptr, f->lineno,
                   leaf[best], tfmt_bin_samples_read(r));
        rc = 0;
    }
    free(leaf);
    tfmt_bin_free(r);
    tfmt_source_free(src);
    return rc;
}
