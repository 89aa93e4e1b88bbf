/* SPDX-License-Identifier: MIT */
/*
 * bin_writer_finish.c - the end of a binary log: pending REPEAT groups,
 * the end of the zstd frame, string and frame tables, the optional
 * TACHSTAT statistics block, the footer and finally the header at offset 0.
 */
#include <math.h>

#include "bin_writer.h"

#define STATS_MAGIC "TACHSTAT"

static bool finite_nonneg(double v)
{
    return isfinite(v) && v >= 0.0;
}

/* CPython's binary_writer_set_stats() checks, with its messages. */
static int check_stats(tfmt_bin_writer *w, const tfmt_stats *s)
{
    if (!s->present)
        return tfmt__error(&w->err, TFMT_EINVAL, "statistics not present");
    if (s->size != 0 && s->size != 32 && s->size != 56)
        return tfmt__error(&w->err, TFMT_EINVAL,
                           "statistics block size %u is not 32 or 56", s->size);
    if (s->version > 1)
        return tfmt__error(&w->err, TFMT_EINVAL,
                           "unsupported statistics version %u", s->version);
    if (!finite_nonneg(s->duration_s))
        return tfmt__error(&w->err, TFMT_EINVAL,
                           "duration must be a finite non-negative value");
    if (!finite_nonneg(s->sample_rate))
        return tfmt__error(&w->err, TFMT_EINVAL,
                           "sample rate must be a finite non-negative value");
    if (s->size == 32)
        return TFMT_OK;
    if ((s->flags & TFMT_STATS_HAS_ERROR_RATE) && !finite_nonneg(s->error_rate))
        return tfmt__error(&w->err, TFMT_EINVAL,
                           "error rate must be a finite non-negative value");
    if ((s->flags & TFMT_STATS_HAS_MISSED) && !isfinite(s->missed))
        return tfmt__error(&w->err, TFMT_EINVAL,
                           "missed samples must be a finite value");
    return TFMT_OK;
}

int tfmt_bin_writer_stats(tfmt_bin_writer *w, const tfmt_stats *stats)
{
    if (w->finished)
        return tfmt__error(&w->err, TFMT_EINVAL, "writer already finished");
    if (w->failed)
        return w->failed;
    int rc = check_stats(w, stats);
    if (rc != TFMT_OK)
        return rc;
    w->stats = *stats;
    w->stats.size = stats->size == 32 ? 32 : 56;
    w->stats.version = 1;
    return TFMT_OK;
}

int tfmt_bin_writer_set_interval(tfmt_bin_writer *w, uint64_t interval_us)
{
    if (w->finished)
        return tfmt__error(&w->err, TFMT_EINVAL, "writer already finished");
    w->opts.sample_interval_us = interval_us;
    return TFMT_OK;
}

/* The block as CPython lays it out; 32 bytes keeps duration and rate. */
static int put_stats(tfmt_bin_writer *w)
{
    const tfmt_stats *s = &w->stats;
    uint8_t b[56] = {0};
    size_t n = s->size;
    tfmt__store_f64(b, s->duration_s);
    tfmt__store_f64(b + 8, s->sample_rate);
    if (n == 56) {
        tfmt__store_f64(b + 16, s->error_rate);
        tfmt__store_f64(b + 24, s->missed);
        tfmt__store32(b + 32, s->flags);
    }
    memcpy(b + n - 16, STATS_MAGIC, 8);
    tfmt__store32(b + n - 8, 1);
    tfmt__store32(b + n - 4, (uint32_t)n);
    return tfmt__bw_out_put(w, b, n);
}

static int put_footer(tfmt_bin_writer *w)
{
    uint8_t b[TFMT_BW_FOOTER_SIZE] = {0};
    uint64_t size = w->pos + w->buf_len + TFMT_BW_FOOTER_SIZE;
    tfmt__store32(b, w->str_count);
    tfmt__store32(b + 4, w->frame_count);
    tfmt__store64(b + 8, size);
    return tfmt__bw_out_put(w, b, sizeof b);
}

/* Layout G: u64 sample count at 28, profiling config at 60. */
static void fill_header(const tfmt_bin_writer *w, uint8_t *h, uint64_t str_off,
                        uint64_t frame_off)
{
    static const uint8_t dflt_py[3] = {3, 15, 0};
    const uint8_t *py = w->opts.python_version;
    if (!py[0] && !py[1] && !py[2])
        py = dflt_py;
    memset(h, 0, TFMT_BW_HEADER_SIZE);
    tfmt__store32(h, 0x54414348u);
    tfmt__store32(h + 4, 1);
    memcpy(h + 8, py, 3);
    tfmt__store64(h + 12, w->opts.start_time_us);
    tfmt__store64(h + 20, w->opts.sample_interval_us);
    tfmt__store64(h + 28, w->samples);
    tfmt__store32(h + 36, w->thread_count);
    tfmt__store64(h + 40, str_off);
    tfmt__store64(h + 48, frame_off);
    tfmt__store32(h + 56, w->opts.compression);
    tfmt__store32(h + 60, w->opts.config);
}

/* After the sample region: tables, statistics, footer, then the header
 * that points at them. */
static int write_tables_on(tfmt_bin_writer *w)
{
    uint64_t str_off, frame_off;
    int rc = tfmt__bw_write_tables(w, &str_off, &frame_off);
    if (rc == TFMT_OK && w->stats.present)
        rc = put_stats(w);
    if (rc == TFMT_OK)
        rc = put_footer(w);
    if (rc == TFMT_OK)
        rc = tfmt__bw_out_flush(w);
    if (rc != TFMT_OK)
        return rc;
    uint8_t h[TFMT_BW_HEADER_SIZE];
    fill_header(w, h, str_off, frame_off);
    return w->pwrite(w->out_ctx, h, sizeof h, 0, &w->err);
}

static int write_trailer(tfmt_bin_writer *w)
{
    int rc = tfmt__bw_flush_all(w);
    if (rc == TFMT_OK)
        rc = tfmt__bw_out_end_samples(w);
    return rc == TFMT_OK ? write_tables_on(w) : rc;
}

int tfmt_bin_writer_finish(tfmt_bin_writer *w)

{
    if (w->finished)
        return tfmt__error(&w->err, TFMT_EINVAL, "writer already finished");
    if (w->failed)
        return w->failed;
    int rc = write_trailer(w);
    if (rc != TFMT_OK)
        return tfmt__bw_fail(w, rc);
    w->finished = true;
    return TFMT_OK;
}

/*
 * A checkpoint: the log as it stands is written out whole (pending REPEAT
 * groups as records, the zstd frame ended, tables, statistics, footer,
 * header), then the writer goes on from the end of the samples, so the
 * next samples overwrite this trailer and the next checkpoint or finish
 * writes a longer one. Tables only grow, so the file never needs to
 * shrink. Before the first byte goes over this trailer the header is
 * zeroed (bin_writer_out.c), so between checkpoints the file is either
 * this checkpoint's valid log or an unfinished one, never a header
 * pointing at overwritten tables. A log that is never checkpointed is
 * written exactly as before.
 */
int tfmt_bin_writer_checkpoint(tfmt_bin_writer *w)
{
    int rc = tfmt__bw_check_open(w);
    if (rc != TFMT_OK)
        return rc;
    w->in_place = true;
    rc = tfmt__bw_flush_all(w);
    if (rc == TFMT_OK)
        rc = tfmt__bw_out_end_samples(w);
    uint64_t samples_end = w->pos;
    if (rc == TFMT_OK)
        rc = write_tables_on(w);
    if (rc != TFMT_OK)
        return tfmt__bw_fail(w, rc);
    w->pos = samples_end;
    w->raw = false; /* the next zstd bytes start a new frame */
    w->trailer_on_disk = true;
    return TFMT_OK;
}
