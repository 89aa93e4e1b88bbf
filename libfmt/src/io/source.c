/* SPDX-License-Identifier: MIT */
/*
 * source.c - byte sources: a path (or stdin) or a memory buffer.
 *
 * A regular, uncompressed file is read with pread(), so it is randomly
 * readable at no cost. Compressed files and pipes go through libarchive,
 * restricted to the gzip, zstd, xz and bzip2 filters and the raw and empty
 * formats (filter_all would run external programs and decode uuencoded
 * text). A stream that must be read at random is spooled to an unlinked
 * temporary file, so memory stays bounded whatever the input size.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_lazy.h"
#include "io_internal.h"

#define ARCHIVE_BLOCK ((size_t)128 * 1024)
#define SPOOL_CHUNK ((size_t)1024 * 1024)
#define HEAD_MAX ((size_t)64 * 1024)
#define IO_MAX ((size_t)1 << 30)

typedef enum { SRC_MEMORY, SRC_FILE, SRC_STREAM } src_kind;

struct tfmt_source {
    tfmt_allocator alloc;
    src_kind kind;
    const char *compression;
    uint64_t pos; /* sequential position, decompressed bytes */
    /* SRC_MEMORY */
    const uint8_t *mem;
    size_t mem_size;
    size_t chunk;
    /* SRC_FILE (a regular file or the spool) and the fd under a stream */
    int fd;
    bool own_fd;
    uint64_t base; /* offset of byte 0 in fd (redirected stdin) */
    uint64_t size;
    /* SRC_STREAM */
    struct archive *ar;
    uint8_t *rbuf; /* compressed bytes read for libarchive */
    bool sniffed;
    const uint8_t *blk; /* undelivered rest of the last data block */
    size_t blk_len;
    bool eof;
    /*
     * The first bytes delivered, kept so a tool may sniff a stream with
     * tfmt_source_read and still hand it to the random-access reader.
     */
    uint8_t *head;
    size_t head_len;
    /* A stream that failed (a spool that consumed part of it, a limit
     * reached): every later read or spool fails the same way, rather than
     * go on with what is left as if it were all. */
    bool failed;
    tfmt_error fail_err;
    /* Limits on a stream (tfmt_source_set_limits) and what it has read:
     * bytes taken from the fd, bytes libarchive gave back. */
    uint64_t max_size;
    uint64_t max_ratio;
    uint64_t in_bytes;
    uint64_t out_bytes;
};

static tfmt_source *source_new(const tfmt_allocator *alloc)
{
    tfmt_source *src = tfmt__calloc(alloc, 1, sizeof *src);
    if (!src)
        return NULL;
    if (alloc)
        src->alloc = *alloc;
    src->fd = -1;
    src->compression = "none";
    src->max_size = TFMT_SOURCE_MAX_SIZE_DEFAULT;
    src->max_ratio = TFMT_SOURCE_MAX_RATIO_DEFAULT;
    return src;
}

void tfmt_source_set_limits(tfmt_source *src, uint64_t max_size,
                            uint64_t max_ratio)
{
    if (!src)
        return;
    src->max_size = max_size;
    src->max_ratio = max_ratio;
}

/* "4 GiB", "256 MiB", or a byte count when not a whole unit. */
static void size_text(uint64_t v, char *buf, size_t cap)
{
    static const char *const unit[] = {"TiB", "GiB", "MiB", "KiB"};
    for (int i = 0; i < 4; i++) {
        unsigned shift = 40 - 10 * (unsigned)i;
        if (v >= ((uint64_t)1 << shift) &&
            (v & (((uint64_t)1 << shift) - 1)) == 0) {
            snprintf(buf, cap, "%llu %s", (unsigned long long)(v >> shift),
                     unit[i]);
            return;
        }
    }
    snprintf(buf, cap, "%llu bytes", (unsigned long long)v);
}

int tfmt__source_check_growth(const tfmt_source *src, uint64_t out, uint64_t in,
                              const char *what, uint64_t at, tfmt_error *err)
{
    if (src->max_size && out > src->max_size) {
        char lim[32];
        size_text(src->max_size, lim, sizeof lim);
        tfmt__error_at(err, TFMT_ELIMIT, at,
                       "%s exceeds the max input size (%s)", what, lim);
        if (err)
            err->hint = TFMT_HINT_MAX_SIZE;
        return TFMT_ELIMIT;
    }
    uint64_t r = src->max_ratio;
    if (in && r && out > TFMT_SOURCE_RATIO_FLOOR && in <= UINT64_MAX / r &&
        out > in * r) {
        tfmt__error_at(err, TFMT_ELIMIT, at,
                       "%s exceeds %llu times its compressed size "
                       "(max input ratio)",
                       what, (unsigned long long)r);
        if (err)
            err->hint = TFMT_HINT_MAX_RATIO;
        return TFMT_ELIMIT;
    }
    return TFMT_OK;
}

void tfmt_source_free(tfmt_source *src)
{
    if (!src)
        return;
    tfmt_allocator alloc = src->alloc;
    if (src->ar)
        tfmt__ar()->archive_read_free(src->ar);
    if (src->own_fd && src->fd >= 0)
        close(src->fd);
    tfmt__free(&alloc, src->head);
    tfmt__free(&alloc, src->rbuf);
    tfmt__free(&alloc, src);
}

int tfmt_source_open_memory(tfmt_source **out, const void *data, size_t size,
                            size_t chunk, const tfmt_allocator *alloc)
{
    if (!out)
        return TFMT_EINVAL;
    *out = NULL;
    if (!data && size > 0)
        return TFMT_EINVAL;
    tfmt_source *src = source_new(alloc);
    if (!src)
        return TFMT_ENOMEM;
    src->kind = SRC_MEMORY;
    src->mem = data;
    src->mem_size = size;
    src->chunk = chunk;
    *out = src;
    return TFMT_OK;
}

const char *tfmt_source_compression(const tfmt_source *src)
{
    return src ? src->compression : "none";
}

/* ---- errors ---- */

static bool is_truncation(const char *s)
{
    return strstr(s, "runcated") || strstr(s, "No progress is possible") ||
           strstr(s, "remature end");
}

#define AT_UNKNOWN UINT64_MAX

/*
 * Map libarchive's last error to a status with a one-line message located
 * at decompressed byte `at` (AT_UNKNOWN: errors inside open, where bidding
 * decodes ahead). The string may be NULL (a gzip trailer cut short), which
 * is a truncation.
 */
static int archive_fail(tfmt_source *src, uint64_t at, tfmt_error *err)
{
    const char *s = tfmt__ar()->archive_error_string(src->ar);
    int e = tfmt__ar()->archive_errno(src->ar);
    if (e == ENOMEM)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    if (e > 0 && e != EILSEQ && e != EINVAL)
        return tfmt__error_errno(err, e, NULL);
    int code = TFMT_EFORMAT;
    if (!s || is_truncation(s))
        code = tfmt__error(err, TFMT_ETRUNC, "truncated %s input",
                           src->compression);
    else
        tfmt__error(err, code, "%s", s);
    if (err) {
        err->has_offset = at != AT_UNKNOWN;
        err->offset = at != AT_UNKNOWN ? at : 0;
        /* one lowercase line, whatever libarchive wrote */
        err->msg[0] = (char)tolower((unsigned char)err->msg[0]);
        for (char *p = err->msg; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
    }
    return code;
}

/* ---- opening a path ---- */

static const char *sniff(const uint8_t *m, size_t n)
{
    if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
        return "gzip";
    if (n >= 4 && memcmp(m, "\x28\xb5\x2f\xfd", 4) == 0)
        return "zstd";
    if (n >= 6 && memcmp(m, "\xfd\x37\x7a\x58\x5a\x00", 6) == 0)
        return "xz";
    if (n >= 3 && memcmp(m, "BZh", 3) == 0)
        return "bzip2";
    return NULL;
}

static const char *filter_name(int code)
{
    switch (code) {
    case ARCHIVE_FILTER_GZIP: return "gzip";
    case ARCHIVE_FILTER_ZSTD: return "zstd";
    case ARCHIVE_FILTER_XZ: return "xz";
    case ARCHIVE_FILTER_BZIP2: return "bzip2";
    default: return "none";
    }
}

/*
 * libarchive's read callback. It names the compression from the first bytes
 * so errors raised inside archive_read_open (small inputs are decoded during
 * bidding) can still say "truncated gzip input".
 */
static la_ssize_t stream_read_cb(struct archive *ar, void *ctx,
                                 const void **out)
{
    tfmt_source *src = ctx;
    ssize_t n;
    do {
        n = read(src->fd, src->rbuf, ARCHIVE_BLOCK);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        tfmt__ar()->archive_set_error(ar, errno, "read error");
        return -1;
    }
    src->in_bytes += (uint64_t)n;
    if (!src->sniffed && n > 0) {
        const char *name = sniff(src->rbuf, (size_t)n);
        src->sniffed = true;
        if (name)
            src->compression = name;
    }
    *out = src->rbuf;
    return n;
}

static int stream_setup(tfmt_source *src, tfmt_error *err)
{
    int rc = tfmt__archive_load(err);
    if (rc != TFMT_OK)
        return rc;
    src->ar = tfmt__ar()->archive_read_new();
    src->rbuf = tfmt__malloc(&src->alloc, ARCHIVE_BLOCK);
    if (!src->ar || !src->rbuf)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    if (tfmt__ar()->archive_read_support_filter_gzip(src->ar) != ARCHIVE_OK ||
        tfmt__ar()->archive_read_support_filter_zstd(src->ar) != ARCHIVE_OK ||
        tfmt__ar()->archive_read_support_filter_xz(src->ar) != ARCHIVE_OK ||
        tfmt__ar()->archive_read_support_filter_bzip2(src->ar) != ARCHIVE_OK ||
        tfmt__ar()->archive_read_support_format_raw(src->ar) != ARCHIVE_OK ||
        tfmt__ar()->archive_read_support_format_empty(src->ar) != ARCHIVE_OK)
        return archive_fail(src, AT_UNKNOWN, err);
    return TFMT_OK;
}

/* Read `src->fd` through libarchive (compressed file, pipe, terminal). */
static int stream_open(tfmt_source *src, tfmt_error *err)
{
    int rc = stream_setup(src, err);
    if (rc != TFMT_OK)
        return rc;
    src->kind = SRC_STREAM;
    if (tfmt__ar()->archive_read_open(src->ar, src, NULL, stream_read_cb,
                                      NULL) != ARCHIVE_OK)
        return archive_fail(src, AT_UNKNOWN, err);
    src->compression = filter_name(tfmt__ar()->archive_filter_code(src->ar, 0));
    struct archive_entry *entry;
    int r = tfmt__ar()->archive_read_next_header(src->ar, &entry);
    if (r == ARCHIVE_EOF)
        src->eof = true;
    else if (r != ARCHIVE_OK)
        return archive_fail(src, AT_UNKNOWN, err);
    return TFMT_OK;
}

/* Decide how to read the open fd: directly, or through libarchive. */
static int attach_fd(tfmt_source *src, tfmt_error *err)
{
    struct stat st;
    if (fstat(src->fd, &st) != 0)
        return tfmt__error_errno(err, errno, NULL);
    if (S_ISDIR(st.st_mode))
        return tfmt__error_errno(err, EISDIR, NULL);
    if (!S_ISREG(st.st_mode))
        return stream_open(src, err);
    off_t cur = lseek(src->fd, 0, SEEK_CUR);
    src->base = cur > 0 ? (uint64_t)cur : 0;
    uint8_t magic[6];
    ssize_t n = pread(src->fd, magic, sizeof magic, (off_t)src->base);
    if (n < 0)
        return tfmt__error_errno(err, errno, NULL);
    if (sniff(magic, (size_t)n))
        return stream_open(src, err);
    src->kind = SRC_FILE;
    uint64_t end = (uint64_t)st.st_size;
    src->size = end > src->base ? end - src->base : 0;
    return TFMT_OK;
}

int tfmt_source_open_path(tfmt_source **out, const char *path,
                          const tfmt_allocator *alloc, tfmt_error *err)
{
    if (!out || !path)
        return tfmt__error(err, TFMT_EINVAL, "no path");
    *out = NULL;
    tfmt_source *src = source_new(alloc);
    if (!src)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    if (strcmp(path, "-") == 0) {
        src->fd = STDIN_FILENO;
    } else {
        src->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (src->fd < 0) {
            int e = errno;
            tfmt_source_free(src);
            return tfmt__error_errno(err, e, NULL);
        }
        src->own_fd = true;
    }
    int rc = attach_fd(src, err);
    if (rc != TFMT_OK) {
        tfmt_source_free(src);
        return rc;
    }
    *out = src;
    return TFMT_OK;
}

/* ---- sequential reads ---- */

/* Repeat the failure of a stream that failed before. */
static int stream_failed(const tfmt_source *src, tfmt_error *err)
{
    if (err)
        *err = src->fail_err;
    return src->fail_err.code;
}

/* Make the stream's failure `rc` (described in `err`) final. */
static int stream_fail(tfmt_source *src, int rc, const tfmt_error *err,
                       const char *fallback)
{
    src->failed = true;
    if (err)
        src->fail_err = *err;
    else
        tfmt__error(&src->fail_err, rc, "%s", fallback);
    src->fail_err.code = rc;
    return rc;
}

/* Count a block libarchive delivered against the source's limits. */
static int count_block(tfmt_source *src, size_t n, uint64_t at, tfmt_error *err)
{
    src->out_bytes += n;
    bool packed = strcmp(src->compression, "none") != 0;
    int rc = tfmt__source_check_growth(
        src, src->out_bytes, packed ? src->in_bytes : 0,
        packed ? "decompressed input" : "streamed input", at, err);
    if (rc != TFMT_OK)
        return stream_fail(src, rc, err, "input over its limits");
    return TFMT_OK;
}

/* Make the next data block available; at the end sets src->eof. */
static int stream_fill(tfmt_source *src, uint64_t at, tfmt_error *err)
{
    if (src->failed)
        return stream_failed(src, err);
    while (src->blk_len == 0 && !src->eof) {
        const void *p;
        size_t n;
        la_int64_t off;
        int r = tfmt__ar()->archive_read_data_block(src->ar, &p, &n, &off);
        if (r == ARCHIVE_EOF) {
            src->eof = true;
        } else if (r != ARCHIVE_OK) {
            return archive_fail(src, at, err);
        } else {
            int rc = count_block(src, n, at, err);
            if (rc != TFMT_OK)
                return rc;
            src->blk = p;
            src->blk_len = n;
        }
    }
    return TFMT_OK;
}

/* Remember the first HEAD_MAX bytes delivered (allocated on first use). */
static int keep_head(tfmt_source *src, const uint8_t *p, size_t n,
                     tfmt_error *err)
{
    if (src->pos >= HEAD_MAX)
        return TFMT_OK;
    if (!src->head) {
        src->head = tfmt__malloc(&src->alloc, HEAD_MAX);
        if (!src->head)
            return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    }
    size_t keep = HEAD_MAX - (size_t)src->pos;
    keep = keep < n ? keep : n;
    memcpy(src->head + src->pos, p, keep);
    src->head_len = (size_t)src->pos + keep;
    return TFMT_OK;
}

static int stream_read(tfmt_source *src, uint8_t *buf, size_t cap, size_t *got,
                       tfmt_error *err)
{
    if (src->pos < src->head_len) {
        /* Peeked before (tfmt__source_peek): deliver the kept bytes. */
        size_t n = src->head_len - (size_t)src->pos;
        n = n < cap ? n : cap;
        memcpy(buf, src->head + src->pos, n);
        src->pos += n;
        *got = n;
        return TFMT_OK;
    }
    int rc = stream_fill(src, src->pos, err);
    if (rc != TFMT_OK)
        return rc;
    size_t n = cap < src->blk_len ? cap : src->blk_len;
    if (n == 0) {
        *got = 0;
        return TFMT_OK;
    }
    rc = keep_head(src, src->blk, n, err);
    if (rc != TFMT_OK)
        return rc;
    memcpy(buf, src->blk, n);
    src->blk += n;
    src->blk_len -= n;
    src->pos += n;
    *got = n;
    return TFMT_OK;
}

static int file_read(tfmt_source *src, uint8_t *buf, size_t cap, size_t *got,
                     tfmt_error *err)
{
    if (cap > IO_MAX)
        cap = IO_MAX;
    ssize_t n;
    do {
        n = pread(src->fd, buf, cap, (off_t)(src->base + src->pos));
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return tfmt__error_errno(err, errno, NULL);
    src->pos += (uint64_t)n;
    *got = (size_t)n;
    return TFMT_OK;
}

int tfmt_source_read(tfmt_source *src, void *buf, size_t cap, size_t *got,
                     tfmt_error *err)
{
    if (!src || !got || (!buf && cap > 0))
        return tfmt__error(err, TFMT_EINVAL, "invalid read arguments");
    *got = 0;
    if (cap == 0)
        return TFMT_OK;
    if (src->kind == SRC_STREAM)
        return stream_read(src, buf, cap, got, err);
    if (src->kind == SRC_FILE)
        return file_read(src, buf, cap, got, err);
    size_t left = src->mem_size - (size_t)src->pos;
    size_t n = cap < left ? cap : left;
    if (src->chunk && n > src->chunk)
        n = src->chunk;
    if (n)
        memcpy(buf, src->mem + src->pos, n);
    src->pos += n;
    *got = n;
    return TFMT_OK;
}

/* ---- peeking ---- */

/* Whether a stream has bytes in hand beyond the current position. */
static bool stream_in_hand(const tfmt_source *src)
{
    return src->pos < src->head_len || src->blk_len > 0;
}

int tfmt__source_peek(tfmt_source *src, void *buf, size_t cap, bool decode,
                      size_t *got, tfmt_error *err)
{
    *got = 0;
    if (!src || (!buf && cap > 0))
        return tfmt__error(err, TFMT_EINVAL, "invalid read arguments");
    uint64_t at = src->pos;
    if (src->kind == SRC_STREAM) {
        /* Only the kept head can be delivered again. */
        size_t room = at < HEAD_MAX ? HEAD_MAX - (size_t)at : 0;
        cap = cap < room ? cap : room;
    }
    int rc = TFMT_OK;
    while (*got < cap && rc == TFMT_OK) {
        if (src->kind == SRC_STREAM && !decode && !stream_in_hand(src))
            break;
        size_t n = 0;
        rc = tfmt_source_read(src, (uint8_t *)buf + *got, cap - *got, &n, err);
        if (n == 0)
            break;
        *got += n;
    }
    src->pos = at;
    return rc;
}

/* ---- random access ---- */

static int write_all(int fd, const uint8_t *p, size_t n, tfmt_error *err)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n < IO_MAX ? n : IO_MAX);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return tfmt__error_errno(err, errno, "temporary file");
        p += w;
        n -= (size_t)w;
    }
    return TFMT_OK;
}

/* Copy the rest of the stream into `fd` through a 1 MiB buffer. */
static int spool_copy(tfmt_source *src, int fd, uint8_t *buf, uint64_t *total,
                      tfmt_error *err)
{
    size_t used = 0;
    for (;;) {
        int rc = stream_fill(src, *total + used, err);
        if (rc != TFMT_OK)
            return rc;
        if (src->eof || used == SPOOL_CHUNK) {
            rc = write_all(fd, buf, used, err);
            if (rc != TFMT_OK || src->eof) {
                *total += used;
                return rc;
            }
            *total += used;
            used = 0;
        }
        size_t n = SPOOL_CHUNK - used;
        n = n < src->blk_len ? n : src->blk_len;
        memcpy(buf + used, src->blk, n);
        used += n;
        src->blk += n;
        src->blk_len -= n;
    }
}

/* Replace the stream by an unlinked temporary file holding all of it. */
static int stream_spool(tfmt_source *src, tfmt_error *err)
{
    if (src->failed)
        return stream_failed(src, err);
    if (src->pos > src->head_len)
        return tfmt__error(err, TFMT_EINVAL,
                           "stream already read past its first %zu bytes",
                           HEAD_MAX);
    int fd;
    int rc = tfmt__tmpfile(&fd, "temporary file", err);
    if (rc != TFMT_OK)
        return rc;
    uint8_t *buf = tfmt__malloc(&src->alloc, SPOOL_CHUNK);
    if (!buf)
        rc = tfmt__error(err, TFMT_ENOMEM, "out of memory");
    /* Everything taken from the stream so far is in the head. */
    uint64_t total = src->head_len;
    if (rc == TFMT_OK)
        rc = write_all(fd, src->head, src->head_len, err);
    if (rc == TFMT_OK)
        rc = spool_copy(src, fd, buf, &total, err);
    tfmt__free(&src->alloc, buf);
    if (rc != TFMT_OK) {
        close(fd);
        return stream_fail(src, rc, err, "input could not be spooled");
    }
    tfmt__ar()->archive_read_free(src->ar);
    src->ar = NULL;
    tfmt__free(&src->alloc, src->rbuf);
    src->rbuf = NULL;
    tfmt__free(&src->alloc, src->head);
    src->head = NULL;
    src->head_len = 0;
    if (src->own_fd)
        close(src->fd);
    src->fd = fd;
    src->own_fd = true;
    src->base = 0;
    src->size = total;
    src->kind = SRC_FILE;
    return TFMT_OK;
}

int tfmt__source_seekable(tfmt_source *src, uint64_t *size, tfmt_error *err)
{
    if (!src)
        return tfmt__error(err, TFMT_EINVAL, "no source");
    if (src->kind == SRC_STREAM) {
        int rc = stream_spool(src, err);
        if (rc != TFMT_OK)
            return rc;
    } else if (src->kind == SRC_FILE) {
        struct stat st;
        if (fstat(src->fd, &st) != 0)
            return tfmt__error_errno(err, errno, NULL);
        uint64_t end = (uint64_t)st.st_size;
        src->size = end > src->base ? end - src->base : 0;
    } else {
        src->size = src->mem_size;
    }
    if (size)
        *size = src->size;
    return TFMT_OK;
}

static int file_pread(tfmt_source *src, uint8_t *buf, size_t n, uint64_t offset,
                      tfmt_error *err)
{
    size_t done = 0;
    while (done < n) {
        size_t want = n - done < IO_MAX ? n - done : IO_MAX;
        ssize_t r = pread(src->fd, buf + done, want,
                          (off_t)(src->base + offset + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return tfmt__error_errno(err, errno, NULL);
        if (r == 0)
            break;
        done += (size_t)r;
    }
    if (done < n)
        return tfmt__error_at(err, TFMT_ETRUNC, offset,
                              "need %zu bytes, input has %zu", n, done);
    return TFMT_OK;
}

int tfmt__source_pread(tfmt_source *src, void *buf, size_t n, uint64_t offset,
                       tfmt_error *err)
{
    if (!src || (!buf && n > 0))
        return tfmt__error(err, TFMT_EINVAL, "invalid read arguments");
    if (src->kind == SRC_STREAM) {
        int rc = stream_spool(src, err);
        if (rc != TFMT_OK)
            return rc;
    }
    if (src->kind == SRC_FILE)
        return file_pread(src, buf, n, offset, err);
    size_t have = offset < src->mem_size ? src->mem_size - (size_t)offset : 0;
    if (have < n)
        return tfmt__error_at(err, TFMT_ETRUNC, offset,
                              "need %zu bytes, input has %zu", n, have);
    if (n)
        memcpy(buf, src->mem + offset, n);
    return TFMT_OK;
}

const uint8_t *tfmt__source_memory(tfmt_source *src, uint64_t offset, size_t n)
{
    if (!src || src->kind != SRC_MEMORY || offset > src->mem_size ||
        n > src->mem_size - (size_t)offset)
        return NULL;
    return src->mem + offset;
}
