/* SPDX-License-Identifier: MIT */
/*
 * recover_file.h - FILE.recover, the copy of a recording's last
 * checkpoint kept beside its log (checkpoint.c writes it, recover.c reads
 * it). Every field is checked before it is believed: the file comes from
 * the disk, and whoever could write there could have crafted it.
 *
 *   "TACHRCV1"  u64 samples_end  u64 trailer_len     (24 bytes, LE)
 *   header[64]                 the log's header at that checkpoint
 *   trailer[trailer_len]       the log's bytes from samples_end to its end
 */
#ifndef TREC_RECOVER_FILE_H
#define TREC_RECOVER_FILE_H

#include <stddef.h>
#include <stdint.h>

#define RCV_MAGIC "TACHRCV1"
#define RCV_PREFIX 24
#define RCV_HEADER 64
#define RCV_HEAD (RCV_PREFIX + RCV_HEADER) /* bytes before the trailer */
/* The largest trailer (tables, statistics, footer) believed. */
#define RCV_TRAILER_MAX (1ull << 32)

typedef struct rcv_info {
    uint64_t samples_end; /* where the checkpoint's samples end */
    uint64_t trailer_len; /* bytes of tables, statistics and footer */
    uint8_t header[RCV_HEADER];
} rcv_info;

/* The first RCV_HEAD bytes of a copy for `in`. */
void rcv_encode(const rcv_info *in, uint8_t out[RCV_HEAD]);

/*
 * Parse the first `len` bytes of a copy that is `file_size` bytes long.
 * Checks the magic, that the file is exactly its declared size, that the
 * samples end after the header, and that the header it carries is a log
 * header whose tables start where the samples end and lie inside the
 * trailer. 0, or -1 with the reason (one line, no period) in `why`.
 */
int rcv_parse(const uint8_t *buf, size_t len, uint64_t file_size, rcv_info *out,
              char *why, size_t why_len);

/*
 * Whether the copy fits the log it is to restore: a log of `log_size`
 * bytes whose first 64 bytes are `log_head`. Its samples must all be
 * there, and its header must be cleared (a checkpoint interrupted) or be
 * one of the same recording (same magic, version, Python, start time,
 * compression and config). 0, or -1 with the reason in `why`.
 */
int rcv_check_log(const rcv_info *in, uint64_t log_size,
                  const uint8_t log_head[RCV_HEADER], char *why,
                  size_t why_len);

#endif
