/* SPDX-License-Identifier: MIT */
/*
 * bin_dump - print what the binary reader sees, one line per thread-sample
 * batch: a debugging and golden-test aid. Usage: bin_dump FILE
 */
#include <inttypes.h>
#include <stdio.h>

#include <tachyon/fmt.h>

static void print_info(const tfmt_info *i)
{
    printf("version %u python %u.%u.%u layout %s %s\n", i->format_version,
           i->python_version[0], i->python_version[1], i->python_version[2],
           i->layout == TFMT_LAYOUT_U64_COUNT ? "u64" : "u32",
           i->big_endian ? "big-endian" : "little-endian");
    printf("start %" PRIu64 " interval %" PRIu64 " samples %" PRIu64
           " threads %u strings %u frames %u compression %u config %u\n",
           i->start_time_us, i->sample_interval_us, i->sample_count,
           i->thread_count, i->string_count, i->frame_count, i->compression,
           i->config);
    if (i->stats.present)
        printf("stats size %u duration %.17g rate %.17g error %.17g "
               "missed %.17g flags %u\n",
               i->stats.size, i->stats.duration_s, i->stats.sample_rate,
               i->stats.error_rate, i->stats.missed, i->stats.flags);
}

static void print_sample(const tfmt_sample *s)
{
    printf("tid %" PRIu64 " interp %u status %u enc %u weight %u ts",
           s->thread_id, s->interpreter_id, s->status, s->encoding, s->weight);
    for (uint32_t i = 0; i < s->weight; i++)
        printf(" %" PRIu64, s->timestamps[i]);
    printf(" stack");
    for (uint32_t i = 0; i < s->depth; i++)
        printf(" %u", s->stack[i]);
    printf(" unchanged %u\n", s->unchanged);
}

int main(int argc, char **argv)
{
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    tfmt_error err;
    if (argc != 2) {
        fprintf(stderr, "usage: bin_dump FILE\n");
        return 2;
    }
    int rc = tfmt_source_open_path(&src, argv[1], NULL, &err);
    if (rc == TFMT_OK)
        rc = tfmt_bin_open(&r, src, NULL, &err);
    if (rc == TFMT_OK) {
        print_info(tfmt_bin_info(r));
        const tfmt_sample *s;
        while ((rc = tfmt_bin_next(r, &s)) == TFMT_OK)
            print_sample(s);
        if (rc != TFMT_DONE)
            err = *tfmt_bin_error(r);
        else
            rc = TFMT_OK;
    }
    if (rc != TFMT_OK) {
        if (err.has_offset)
            fprintf(stderr, "bin_dump: %s: byte %" PRIu64 ": %s\n", argv[1],
                    err.offset, err.msg);
        else
            fprintf(stderr, "bin_dump: %s: %s\n", argv[1], err.msg);
    }
    tfmt_bin_free(r);
    tfmt_source_free(src);
    return rc == TFMT_OK ? 0 : 1;
}
