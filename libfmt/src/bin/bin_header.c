/* SPDX-License-Identifier: MIT */
/*
 * bin_header.c - the fixed-size parts of a binary log: the 64-byte header,
 * the 32-byte footer and the optional TACHSTAT statistics block before it.
 *
 * Two header layouts both say format version 1 (spec 1.1): the newer one
 * has a u64 sample count at 28 and the config word at 60, the older a u32
 * count at 28. The version field cannot tell them apart, so the layout is
 * chosen by which one gives consistent table offsets; for files under
 * 4 GiB only one can (the other reads a value >= 2^32 as an offset).
 * Error texts follow CPython's reader where it has one.
 */
#include <math.h>

#include "bin_internal.h"

static void note_at(tfmt_note_fn note, void *ctx, tfmt_note kind,
                    uint64_t offset, const char *msg)
{
    tfmt_error where;
    if (!note)
        return;
    tfmt__error_at(&where, TFMT_EFORMAT, offset, "%s", msg);
    note(ctx, kind, &where);
}

static int fail(tfmt_error *err, int code, int check, uint64_t off,
                const char *fmt, ...) TFMT_PRINTF(5, 6);

static int fail(tfmt_error *err, int code, int check, uint64_t off,
                const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tfmt__error_at(err, code, off, "%s", msg);
    if (err)
        err->check = check;
    return code;
}

/* Offsets of the layout-dependent header fields. */
typedef struct layout_desc {
    tfmt_layout layout;
    unsigned count_off, count_size, threads_off, str_off, frame_off, comp_off;
} layout_desc;

static const layout_desc LAYOUT_U64 = {
    TFMT_LAYOUT_U64_COUNT, 28, 8, 36, 40, 48, 56};
static const layout_desc LAYOUT_U32 = {
    TFMT_LAYOUT_U32_COUNT, 28, 4, 32, 36, 44, 52};

static bool layout_fits(const layout_desc *l, const uint8_t *h, bool swap,
                        uint64_t size)
{
    uint64_t s = tfmt__load64(h + l->str_off, swap);
    uint64_t f = tfmt__load64(h + l->frame_off, swap);
    return s >= TFMT_BIN_HEADER_SIZE && s <= f && f <= size;
}

static void apply_layout(tfmt_info *info, const layout_desc *l,
                         const uint8_t *h, bool swap)
{
    bool sw = swap;
    info->layout = l->layout;
    info->sample_count = l->count_size == 8
                             ? tfmt__load64(h + l->count_off, sw)
                             : tfmt__load32(h + l->count_off, sw);
    info->thread_count = tfmt__load32(h + l->threads_off, sw);
    info->string_table_offset = tfmt__load64(h + l->str_off, sw);
    info->frame_table_offset = tfmt__load64(h + l->frame_off, sw);
    info->compression = tfmt__load32(h + l->comp_off, sw);
    info->config =
        l->layout == TFMT_LAYOUT_U64_COUNT ? tfmt__load32(h + 60, sw) : 0;
}

/* Magic and version; sets byte order. */
static int check_identity(tfmt_info *info, const uint8_t *h, tfmt_error *err)
{
    uint32_t magic = tfmt__load32(h, false);
    bool swap;
    if (magic == TFMT_BIN_MAGIC)
        swap = false;
    else if (magic == TFMT_BIN_MAGIC_SWAPPED)
        swap = true;
    else if (magic == 0) {
        fail(err, TFMT_EFORMAT, TFMT_BCHK_MAGIC, 0,
             "invalid magic number: 0x00000000: the header was never "
             "written, so the profiler did not finish the file");
        if (err)
            err->hint = TFMT_HINT_RECOVER;
        return TFMT_EFORMAT;
    } else
        return fail(err, TFMT_EFORMAT, TFMT_BCHK_MAGIC, 0,
                    "invalid magic number: 0x%08x", magic);
    /* The magic is stored in the writer's byte order. */
    uint16_t probe = 1;
    bool host_big = *(uint8_t *)&probe == 0;
    info->big_endian = swap ? !host_big : host_big;
    info->format_version = tfmt__load32(h + 4, swap);
    memcpy(info->python_version, h + 8, 3);
    info->start_time_us = tfmt__load64(h + 12, swap);
    info->sample_interval_us = tfmt__load64(h + 20, swap);
    if (info->format_version > TFMT_BIN_VERSION)
        return fail(err, TFMT_EVERSION, TFMT_BCHK_VERSION, 4,
                    "binary file was created with Python %u.%u.%u (format "
                    "version %u), but this reader supports format version "
                    "1",
                    h[8], h[9], h[10], info->format_version);
    if (info->format_version != TFMT_BIN_VERSION)
        return fail(err, TFMT_EVERSION, TFMT_BCHK_VERSION, 4,
                    "unsupported format version %u (this reader supports "
                    "version 1)",
                    info->format_version);
    return TFMT_OK;
}

/* CPython's offset checks, against the newest layout's fields. */
static int explain_offsets(const tfmt_info *info, uint64_t size,
                           tfmt_error *err)
{
    uint64_t s = info->string_table_offset, f = info->frame_table_offset;
    unsigned so = info->layout == TFMT_LAYOUT_U64_COUNT ? 40 : 36;
    if (s > size)
        return fail(err, TFMT_ETRUNC, TFMT_BCHK_STRING_OFFSET, so,
                    "invalid string table offset: %llu exceeds file size "
                    "%llu",
                    (unsigned long long)s, (unsigned long long)size);
    if (f > size)
        return fail(err, TFMT_ETRUNC, TFMT_BCHK_FRAME_OFFSET, so + 8,
                    "invalid frame table offset: %llu exceeds file size "
                    "%llu",
                    (unsigned long long)f, (unsigned long long)size);
    if (s < TFMT_BIN_HEADER_SIZE)
        return fail(err, TFMT_EFORMAT, TFMT_BCHK_STRING_OFFSET, so,
                    "invalid string table offset: %llu is before data "
                    "section",
                    (unsigned long long)s);
    if (f < TFMT_BIN_HEADER_SIZE)
        return fail(err, TFMT_EFORMAT, TFMT_BCHK_FRAME_OFFSET, so + 8,
                    "invalid frame table offset: %llu is before data "
                    "section",
                    (unsigned long long)f);
    if (s > f)
        return fail(err, TFMT_EFORMAT, TFMT_BCHK_TABLE_ORDER, so,
                    "invalid table offsets: string table (%llu) is after "
                    "frame table (%llu)",
                    (unsigned long long)s, (unsigned long long)f);
    return TFMT_OK;
}

/* Pick the layout whose offsets are consistent; explain when none is. */
static int choose_layout(tfmt_info *info, const uint8_t *h, bool swap,
                         uint64_t size, tfmt_error *err)
{
    /* Tables end before the footer. */
    uint64_t limit = size - TFMT_BIN_FOOTER_SIZE;
    if (layout_fits(&LAYOUT_U64, h, swap, limit)) {
        apply_layout(info, &LAYOUT_U64, h, swap);
        return TFMT_OK;
    }
    if (layout_fits(&LAYOUT_U32, h, swap, limit)) {
        apply_layout(info, &LAYOUT_U32, h, swap);
        return TFMT_OK;
    }
    apply_layout(info, &LAYOUT_U64, h, swap);
    int rc = explain_offsets(info, size, err);
    if (rc != TFMT_OK)
        return rc;
    return fail(err, TFMT_ETRUNC, TFMT_BCHK_FRAME_OFFSET, 48,
                "invalid frame table offset: %llu overlaps the footer at "
                "%llu",
                (unsigned long long)info->frame_table_offset,
                (unsigned long long)limit);
}

static int decode_config(tfmt_info *info, tfmt_error *err)
{
    uint32_t mode1 = info->config & 7u;
    if (mode1 > 5)
        return fail(err, TFMT_EFORMAT, TFMT_BCHK_MODE, 60,
                    "invalid profiling mode in header: %u", mode1);
    info->mode = mode1 ? (int)mode1 - 1 : TFMT_MODE_UNKNOWN;
    info->capture_features =
        (info->config & 8u) ? (int)((info->config >> 4) & 0x1fu) : -1;
    return TFMT_OK;
}

/* Footer counts against the bytes that can hold them (CPython's bound). */
static int check_counts(tfmt_info *info, const uint8_t *ft, bool swap,
                        uint64_t size, tfmt_error *err)
{
    uint64_t foot = size - TFMT_BIN_FOOTER_SIZE;
    info->string_count = tfmt__load32(ft, swap);
    info->frame_count = tfmt__load32(ft + 4, swap);
    uint64_t max_s = size - info->string_table_offset;
    uint64_t max_f =
        (size - info->frame_table_offset) / TFMT_BIN_MIN_FRAME_ENTRY;
    if (info->string_count > max_s)
        return fail(err, TFMT_EFORMAT, TFMT_BCHK_STRING_COUNT, foot,
                    "invalid string count %u exceeds maximum possible %llu",
                    info->string_count, (unsigned long long)max_s);
    if (info->frame_count > max_f)
        return fail(err, TFMT_EFORMAT, TFMT_BCHK_FRAME_COUNT, foot + 4,
                    "invalid frame count %u exceeds maximum possible %llu",
                    info->frame_count, (unsigned long long)max_f);
    return TFMT_OK;
}

static int check_footer_size(const uint8_t *ft, bool swap, uint64_t size,
                             tfmt_note_fn note, void *ctx, tfmt_error *err)
{
    uint64_t foot = size - TFMT_BIN_FOOTER_SIZE;
    uint64_t declared = tfmt__load64(ft + 8, swap);
    if (declared != size)
        return fail(err, declared > size ? TFMT_ETRUNC : TFMT_EFORMAT,
                    TFMT_BCHK_FOOTER_SIZE, foot + 8,
                    "footer declares a file size of %llu bytes but the "
                    "file has %llu",
                    (unsigned long long)declared, (unsigned long long)size);
    for (int i = 16; i < 32; i++)
        if (ft[i] != 0) {
            note_at(note, ctx, TFMT_NOTE_CHECKSUM, foot + 16,
                    "footer checksum bytes are not zero");
            break;
        }
    return TFMT_OK;
}

static int read_stats_values(tfmt_stats *st, const uint8_t *b, bool swap,
                             uint64_t start, tfmt_error *err)
{
    st->duration_s = tfmt__load_f64(b, swap);
    st->sample_rate = tfmt__load_f64(b + 8, swap);
    if (st->size >= TFMT_STATS_FULL_SIZE) {
        st->error_rate = tfmt__load_f64(b + 16, swap);
        st->missed = tfmt__load_f64(b + 24, swap);
        st->flags = tfmt__load32(b + 32, swap);
    }
    bool ok = isfinite(st->duration_s) && st->duration_s >= 0 &&
              isfinite(st->sample_rate) && st->sample_rate >= 0;
    if ((st->flags & TFMT_STATS_HAS_ERROR_RATE) &&
        !(isfinite(st->error_rate) && st->error_rate >= 0))
        ok = false;
    if ((st->flags & TFMT_STATS_HAS_MISSED) && !isfinite(st->missed))
        ok = false;
    if (!ok)
        return fail(err, TFMT_EFORMAT, TFMT_BCHK_STATS, start,
                    "invalid profiling statistics values");
    return TFMT_OK;
}

/*
 * Find the statistics block by its trailer just before the footer; set
 * fx->tables_end to where the frame table must end.
 */
static int read_stats(tfmt_bin_fixed *fx, tfmt_source *src, uint64_t size,
                      tfmt_note_fn note, void *ctx, tfmt_error *err)
{
    tfmt_info *info = &fx->info;
    bool swap = tfmt__load32(fx->header, false) == TFMT_BIN_MAGIC_SWAPPED;
    uint64_t ext_end = size - TFMT_BIN_FOOTER_SIZE;
    uint8_t tr[16];
    fx->tables_end = ext_end;
    if (ext_end < info->frame_table_offset + 16)
        return TFMT_OK;
    int rc = tfmt__source_pread(src, tr, 16, ext_end - 16, err);
    if (rc != TFMT_OK || memcmp(tr, TFMT_STATS_SIGNATURE, 8) != 0)
        return rc;
    tfmt_stats *st = &info->stats;
    st->version = tfmt__load32(tr + 8, swap);
    st->size = tfmt__load32(tr + 12, swap);
    if (st->size < TFMT_STATS_MIN_SIZE ||
        st->size > ext_end - info->frame_table_offset)
        return fail(err, TFMT_EFORMAT, TFMT_BCHK_STATS, ext_end - 4,
                    "invalid profiling statistics size %u", st->size);
    uint64_t start = ext_end - st->size;
    fx->tables_end = start;
    st->present = true;
    if (st->version != 1) {
        note_at(note, ctx, TFMT_NOTE_STATS_VERSION, ext_end - 8,
                "statistics block of unknown version ignored");
        st->present = false;
        return TFMT_OK;
    }
    uint8_t b[40];
    size_t want = st->size >= TFMT_STATS_FULL_SIZE ? 40 : 16;
    rc = tfmt__source_pread(src, b, want, start, err);
    if (rc != TFMT_OK)
        return rc;
    return read_stats_values(st, b, swap, start, err);
}

static void check_reserved(const tfmt_info *info, const uint8_t *h,
                           tfmt_note_fn note, void *ctx)
{
    unsigned from = info->layout == TFMT_LAYOUT_U32_COUNT ? 56 : 64;
    bool dirty = h[11] != 0;
    for (unsigned i = from; i < 64; i++)
        dirty |= h[i] != 0;
    if (dirty)
        note_at(note, ctx, TFMT_NOTE_RESERVED, h[11] ? 11 : from,
                "reserved header bytes are not zero");
    /* bits 0-2 mode + 1, bit 3 features known, bits 4-8 the features
     * (meaningless without bit 3); the rest is reserved (spec 1.9) */
    uint32_t c = info->config;
    uint32_t reserved = c & ~(c & 8u ? 0x1ffu : 0xfu);
    char msg[96];
    snprintf(msg, sizeof msg,
             "reserved bits of the profiling config word "
             "are set: 0x%08x",
             reserved);
    if (reserved)
        note_at(note, ctx, TFMT_NOTE_CONFIG_RESERVED, 60, msg);
}

int tfmt__bin_precheck(tfmt_source *src, tfmt_error *err)
{
    uint8_t head[TFMT_BIN_HEADER_SIZE + TFMT_BIN_FOOTER_SIZE];
    size_t got = 0;
    int rc = tfmt__source_peek(src, head, sizeof head, true, &got, err);
    if (rc != TFMT_OK || got < sizeof head)
        return rc;
    tfmt_info info;
    memset(&info, 0, sizeof info);
    return check_identity(&info, head, err);
}

/* The first bytes of a file too small for a log could begin one. */
static bool starts_like_log(tfmt_source *src, uint64_t size)
{
    static const uint8_t zero[4];
    uint8_t b[4];
    size_t n = size < sizeof b ? (size_t)size : sizeof b;
    if (n == 0 || tfmt__source_pread(src, b, n, 0, NULL) != TFMT_OK)
        return false;
    return memcmp(b, "TACH", n) == 0 || memcmp(b, "HCAT", n) == 0 ||
           memcmp(b, zero, n) == 0;
}

/*
 * A log whose end is missing: cut before its footer or tables, as a
 * killed recording or an interrupted copy leaves it (the hint; a
 * compressed source loses it again in tfmt__bin_hint).
 */
static void hint_unfinished(tfmt_error *err, tfmt_source *src, uint64_t size)
{
    if (!err || err->code != TFMT_ETRUNC)
        return;
    switch (err->check) {
    case TFMT_BCHK_FILE_SIZE:
        if (!starts_like_log(src, size))
            return;
        /* fall through */
    case TFMT_BCHK_STRING_OFFSET:
    case TFMT_BCHK_FRAME_OFFSET:
    case TFMT_BCHK_FOOTER_SIZE: err->hint = TFMT_HINT_RECOVER; break;
    default: break;
    }
}

void tfmt__bin_hint(tfmt_error *err, const tfmt_source *src)
{
    if (!err || err->code >= 0)
        return;
    /* Recovery restores the file as recorded, not a compressed copy; and a
     * full check would report no more than this one error. */
    if (err->hint == TFMT_HINT_RECOVER) {
        if (src && strcmp(tfmt_source_compression(src), "none") != 0)
            err->hint = TFMT_HINT_NONE;
        return;
    }
    if (err->check != TFMT_BCHK_MAGIC && err->check != TFMT_BCHK_VERSION &&
        err->check != TFMT_BCHK_INPUT)
        tfmt__error_hint_check(err);
}

static int read_fixed(tfmt_bin_fixed *fx, tfmt_source *src, uint64_t size,
                      tfmt_note_fn note, void *ctx, tfmt_error *err)
{
    memset(fx, 0, sizeof *fx);
    fx->info.file_size = size;
    if (size < TFMT_BIN_HEADER_SIZE + TFMT_BIN_FOOTER_SIZE)
        return fail(err, TFMT_ETRUNC, TFMT_BCHK_FILE_SIZE, size,
                    size < TFMT_BIN_HEADER_SIZE
                        ? "file too small for header (%llu bytes)"
                        : "file too small for footer (%llu bytes)",
                    (unsigned long long)size);
    int rc = tfmt__source_pread(src, fx->header, TFMT_BIN_HEADER_SIZE, 0, err);
    if (rc == TFMT_OK)
        rc = tfmt__source_pread(src, fx->footer, TFMT_BIN_FOOTER_SIZE,
                                size - TFMT_BIN_FOOTER_SIZE, err);
    if (rc == TFMT_OK)
        rc = check_identity(&fx->info, fx->header, err);
    bool swap = tfmt__load32(fx->header, false) == TFMT_BIN_MAGIC_SWAPPED;
    if (rc == TFMT_OK)
        rc = choose_layout(&fx->info, fx->header, swap, size, err);
    if (rc == TFMT_OK)
        rc = decode_config(&fx->info, err);
    if (rc == TFMT_OK)
        rc = check_counts(&fx->info, fx->footer, swap, size, err);
    if (rc == TFMT_OK)
        rc = check_footer_size(fx->footer, swap, size, note, ctx, err);
    if (rc == TFMT_OK && fx->info.compression > TFMT_COMPRESSION_ZSTD)
        rc = fail(err, TFMT_EFORMAT, TFMT_BCHK_COMPRESSION,
                  fx->info.layout == TFMT_LAYOUT_U64_COUNT ? 56 : 52,
                  "unsupported compression type %u", fx->info.compression);
    if (rc == TFMT_OK)
        rc = read_stats(fx, src, size, note, ctx, err);
    if (rc == TFMT_OK)
        check_reserved(&fx->info, fx->header, note, ctx);
    return rc;
}

int tfmt__bin_read_fixed(tfmt_bin_fixed *fx, tfmt_source *src, uint64_t size,
                         tfmt_note_fn note, void *ctx, tfmt_error *err)
{
    int rc = read_fixed(fx, src, size, note, ctx, err);
    if (rc != TFMT_OK)
        hint_unfinished(err, src, size);
    return rc;
}
