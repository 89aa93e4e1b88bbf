/* SPDX-License-Identifier: MIT */
/*
 * recover_file.c - parse and check FILE.recover (recover_file.h). No I/O:
 * the fuzz target (tests/fuzz/fuzz_recover_file.c) calls it on arbitrary
 * bytes.
 */
#include "recover_file.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define LOG_MAGIC 0x54414348u /* "TACH", little endian */
#define OFF_STRINGS 40
#define OFF_FRAMES 48
/* Header bytes a recording keeps at every checkpoint: magic, version,
 * Python version, start time; compression and config word. */
#define SAME_FROM 0
#define SAME_TO 20
#define SAME2_FROM 56

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

void rcv_encode(const rcv_info *in, uint8_t out[RCV_HEAD])
{
    memcpy(out, RCV_MAGIC, 8);
    put64(out + 8, in->samples_end);
    put64(out + 16, in->trailer_len);
    memcpy(out + RCV_PREFIX, in->header, RCV_HEADER);
}

static int fail(char *why, size_t len, const char *text)
{
    snprintf(why, len, "%s", text);
    return -1;
}

/* The carried header: a log header with its tables in the trailer. */
static int check_header(const rcv_info *in, char *why, size_t len)
{
    uint64_t strings = le64(in->header + OFF_STRINGS);
    uint64_t frames = le64(in->header + OFF_FRAMES);
    uint64_t end = in->samples_end + in->trailer_len;
    if (le32(in->header) != LOG_MAGIC)
        return fail(why, len, "the header it holds is not a log header");
    if (strings != in->samples_end) {
        snprintf(why, len,
                 "its header puts the string table at byte %" PRIu64
                 ", not where its samples end (byte %" PRIu64 ")",
                 strings, in->samples_end);
        return -1;
    }
    if (frames < strings || frames >= end) {
        snprintf(why, len,
                 "its header puts the frame table at byte %" PRIu64
                 ", outside its trailer (bytes %" PRIu64 " to %" PRIu64 ")",
                 frames, in->samples_end, end);
        return -1;
    }
    return 0;
}

int rcv_parse(const uint8_t *buf, size_t len, uint64_t file_size, rcv_info *out,
              char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    if (len < RCV_HEAD || file_size < RCV_HEAD) {
        snprintf(why, why_len,
                 "too short: %" PRIu64 " bytes, a checkpoint copy has at "
                 "least %d",
                 file_size < len ? file_size : (uint64_t)len, RCV_HEAD);
        return -1;
    }
    if (memcmp(buf, RCV_MAGIC, 8) != 0)
        return fail(why, why_len, "not a checkpoint copy (no TACHRCV1)");
    out->samples_end = le64(buf + 8);
    out->trailer_len = le64(buf + 16);
    memcpy(out->header, buf + RCV_PREFIX, RCV_HEADER);
    if (out->trailer_len == 0 || out->trailer_len > RCV_TRAILER_MAX ||
        file_size - RCV_HEAD != out->trailer_len) {
        snprintf(why, why_len,
                 "it says its trailer is %" PRIu64 " bytes, but %" PRIu64
                 " follow its header",
                 out->trailer_len, file_size - RCV_HEAD);
        return -1;
    }
    if (out->samples_end < RCV_HEADER ||
        out->samples_end > UINT64_MAX - out->trailer_len) {
        snprintf(why, why_len,
                 "it says the samples end at byte %" PRIu64
                 ", which no log can have",
                 out->samples_end);
        return -1;
    }
    return check_header(out, why, why_len);
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

int rcv_check_log(const rcv_info *in, uint64_t log_size,
                  const uint8_t log_head[RCV_HEADER], char *why, size_t why_len)
{
    if (log_size < in->samples_end) {
        snprintf(why, why_len,
                 "the log has %" PRIu64 " bytes, fewer than the %" PRIu64
                 " bytes of samples the checkpoint covers",
                 log_size, in->samples_end);
        return -1;
    }
    if (all_zero(log_head, RCV_HEADER))
        return 0; /* cleared while a checkpoint was being written */
    if (memcmp(log_head + SAME_FROM, in->header + SAME_FROM,
               SAME_TO - SAME_FROM) != 0 ||
        memcmp(log_head + SAME2_FROM, in->header + SAME2_FROM,
               RCV_HEADER - SAME2_FROM) != 0)
        return fail(why, why_len,
                    "the log's header is not of the recording the copy was "
                    "taken from");
    return 0;
}
