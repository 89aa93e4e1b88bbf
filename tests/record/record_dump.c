/* SPDX-License-Identifier: MIT */
/*
 * record_dump - read a binary log with libtachyonfmt and print it as text
 * for the record tests: one "info" line, one "stats" line and one line per
 * thread-sample batch, stack root first:
 *
 *   sample TID STATUS WEIGHT DEPTH<TAB>func@file:line:end:col:endcol:op<TAB>...
 *
 * (op: the frame's opcode byte, 255 for none).
 *
 * Exits 0 when the whole file decodes (the reader ran every end-of-data
 * check), 1 with the reader's message otherwise.
 */
#include <inttypes.h>
#include <stdio.h>

#include <tachyon/fmt.h>

static void print_str(const tfmt_bin_reader *r, uint32_t idx)
{
    tfmt_str s;
    if (tfmt_bin_string(r, idx, &s) == TFMT_OK)
        fwrite(s.ptr, 1, s.len, stdout);
    else
        fputs("?", stdout);
}

static void print_info(const tfmt_info *in)
{
    printf("info samples=%" PRIu64 " threads=%u strings=%u frames=%u "
           "interval=%" PRIu64 " config=%u py=%u.%u.%u compression=%u\n",
           in->sample_count, in->thread_count, in->string_count,
           in->frame_count, in->sample_interval_us, in->config,
           in->python_version[0], in->python_version[1], in->python_version[2],
           in->compression);
    printf("stats present=%d size=%u duration=%.6f rate=%.3f error=%.6f "
           "missed=%.6f flags=%u\n",
           in->stats.present, in->stats.size, in->stats.duration_s,
           in->stats.sample_rate, in->stats.error_rate, in->stats.missed,
           in->stats.flags);
}

static void print_sample(const tfmt_bin_reader *r, const tfmt_sample *s)
{
    printf("sample %" PRIu64 " %u %u %u", s->thread_id, s->status, s->weight,
           s->depth);
    for (uint32_t i = 0; i < s->depth; i++) {
        const tfmt_frame *f = tfmt_bin_frame(r, s->stack[i]);
        putchar('\t');
        print_str(r, f->funcname);
        putchar('@');
        print_str(r, f->filename);
        printf(":%d:%d:%d:%d:%u", f->lineno, f->end_lineno, f->column,
               f->end_column, f->opcode);
    }
    putchar('\n');
}

int main(int argc, char **argv)
{
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    tfmt_error err;
    const tfmt_sample *s;
    if (argc != 2) {
        fprintf(stderr, "usage: record_dump FILE.bin\n");
        return 2;
    }
    int rc = tfmt_source_open_path(&src, argv[1], NULL, &err);
    if (rc == TFMT_OK)
        rc = tfmt_bin_open(&r, src, NULL, &err);
    if (rc != TFMT_OK) {
        fprintf(stderr, "record_dump: %s: %s\n", argv[1], err.msg);
        tfmt_source_free(src);
        return 1;
    }
    print_info(tfmt_bin_info(r));
    while ((rc = tfmt_bin_next(r, &s)) == TFMT_OK)
        print_sample(r, s);
    if (rc != TFMT_DONE)
        fprintf(stderr, "record_dump: %s: %s\n", argv[1],
                tfmt_bin_error(r)->msg);
    tfmt_bin_free(r);
    tfmt_source_free(src);
    return rc == TFMT_DONE ? 0 : 1;
}
