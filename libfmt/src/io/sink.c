/* SPDX-License-Identifier: MIT */
/*
 * sink.c - byte sinks: a path or stdout.
 *
 * A path is written to a temporary file in the same directory (an
 * anonymous one where the system allows, sink_tmp.c) that gets the path's
 * name in tfmt_sink_finish, so a failed or interrupted run never leaves a
 * partial or clobbered file. Writes are buffered, because exporters append
 * small pieces. A .gz/.zst/.xz/.bz2 path is compressed through libarchive (raw
 * format, no padding, no gzip timestamp, so output is reproducible). When
 * the writer must patch earlier bytes and the destination cannot seek (a
 * pipe, or compressed output), the bytes go to an unlinked spool file that
 * is copied into the destination at finish.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/sendfile.h>
#endif
#include <unistd.h>

#include "archive_lazy.h"
#include "sink_tmp.h"

#define SINK_BUF ((size_t)256 * 1024)
#define IO_MAX ((size_t)1 << 30)

struct tfmt_sink {
    tfmt_allocator alloc;
    tfmt_error err;
    unsigned flags;
    char *path;   /* destination path, NULL for stdout */
    bool has_tmp; /* out_fd is `tmp`, committed at finish */
    tfmt_sink_tmp tmp;
    int out_fd; /* the destination (temporary file or stdout) */
    bool own_out;
    uint64_t out_base;  /* offset of byte 0 in out_fd */
    int spool_fd;       /* -1 unless bytes are spooled */
    struct archive *ar; /* compression, NULL for plain output */
    bool discard;       /* free without finish: drop libarchive output */
    uint8_t *buf;
    size_t used;
    uint64_t written; /* bytes appended, buffered ones included */
    int status;       /* sticky: first failure, or OK */
    bool finished;
};

/* ---- errors ---- */

static int sink_fail(tfmt_sink *sink, int code, const char *msg)
{
    tfmt__error(&sink->err, code, "%s", msg);
    sink->status = code;
    return code;
}

static int sink_errno(tfmt_sink *sink, int e)
{
    tfmt__error_errno(&sink->err, e, NULL);
    sink->status = TFMT_EIO;
    return TFMT_EIO;
}

static int archive_fail(tfmt_sink *sink)
{
    int e = tfmt__ar()->archive_errno(sink->ar);
    const char *s = tfmt__ar()->archive_error_string(sink->ar);
    if (e > 0 && e != EINVAL && e != EILSEQ)
        return sink_errno(sink, e);
    return sink_fail(sink, TFMT_EIO, s ? s : "compression failed");
}

const tfmt_error *tfmt_sink_error(const tfmt_sink *sink)
{
    return sink ? &sink->err : NULL;
}

const char *tfmt_sink_temp_path(const tfmt_sink *sink)
{
    return sink && sink->tmp.name ? sink->tmp.name : NULL;
}

/* ---- raw output ---- */

static int write_fd(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n < IO_MAX ? n : IO_MAX);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return errno;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* libarchive's write callback: the destination, or nothing once freed. */
static la_ssize_t archive_write_cb(struct archive *ar, void *ctx,
                                   const void *buf, size_t n)
{
    tfmt_sink *sink = ctx;
    if (sink->discard)
        return (la_ssize_t)n;
    int e = write_fd(sink->out_fd, buf, n);
    if (e) {
        tfmt__ar()->archive_set_error(ar, e, "write error");
        return -1;
    }
    return (la_ssize_t)n;
}

/* Deliver bytes to the destination: compressed, or as they are. */
static int deliver(tfmt_sink *sink, const uint8_t *p, size_t n)
{
    if (!sink->ar) {
        int e = write_fd(sink->out_fd, p, n);
        return e ? sink_errno(sink, e) : TFMT_OK;
    }
    while (n > 0) {
        la_ssize_t w = tfmt__ar()->archive_write_data(sink->ar, p, n);
        if (w <= 0)
            return archive_fail(sink);
        p += w;
        n -= (size_t)w;
    }
    return TFMT_OK;
}

/* Send the buffer on, to the spool when there is one. */
static int emit(tfmt_sink *sink, const uint8_t *p, size_t n)
{
    if (sink->spool_fd < 0)
        return deliver(sink, p, n);
    int e = write_fd(sink->spool_fd, p, n);
    return e ? sink_errno(sink, e) : TFMT_OK;
}

static int flush(tfmt_sink *sink)
{
    if (sink->used == 0)
        return TFMT_OK;
    int rc = emit(sink, sink->buf, sink->used);
    sink->used = 0;
    return rc;
}

/* ---- appending and patching ---- */

int tfmt_sink_write(tfmt_sink *sink, const void *buf, size_t len)
{
    if (!sink)
        return TFMT_EINVAL;
    if (sink->status != TFMT_OK)
        return sink->status;
    if (sink->finished)
        return sink_fail(sink, TFMT_EINVAL, "sink already finished");
    if (len <= SINK_BUF - sink->used) {
        memcpy(sink->buf + sink->used, buf, len);
        sink->used += len;
        sink->written += len;
        return TFMT_OK;
    }
    int rc = flush(sink);
    if (rc == TFMT_OK && len >= SINK_BUF) {
        rc = emit(sink, buf, len);
    } else if (rc == TFMT_OK) {
        memcpy(sink->buf, buf, len);
        sink->used = len;
    }
    if (rc == TFMT_OK)
        sink->written += len;
    return rc;
}

uint64_t tfmt_sink_tell(const tfmt_sink *sink)
{
    return sink ? sink->written : 0;
}

int tfmt_sink_pwrite(tfmt_sink *sink, const void *buf, size_t len,
                     uint64_t offset)
{
    if (!sink)
        return TFMT_EINVAL;
    if (sink->status != TFMT_OK)
        return sink->status;
    if (!(sink->flags & TFMT_SINK_SEEKABLE) || sink->finished)
        return sink_fail(sink, TFMT_EINVAL, "sink is not seekable");
    bool place = sink->flags & TFMT_SINK_IN_PLACE;
    if (!place && (offset > sink->written || len > sink->written - offset))
        return sink_fail(sink, TFMT_EINVAL, "patch beyond written bytes");
    int rc = flush(sink);
    if (rc != TFMT_OK)
        return rc;
    int fd = sink->spool_fd >= 0 ? sink->spool_fd : sink->out_fd;
    uint64_t base = sink->spool_fd >= 0 ? 0 : sink->out_base;
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t w =
            pwrite(fd, p, len < IO_MAX ? len : IO_MAX, (off_t)(base + offset));
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return sink_errno(sink, errno);
        p += w;
        len -= (size_t)w;
        offset += (uint64_t)w;
    }
    /* In place a write may extend the file: appends follow its end. */
    if (place && offset > sink->written) {
        sink->written = offset;
        if (lseek(fd, (off_t)(base + offset), SEEK_SET) < 0)
            return sink_errno(sink, errno);
    }
    return TFMT_OK;
}

int tfmt_sink_sync(tfmt_sink *sink)
{
    if (!sink)
        return TFMT_EINVAL;
    if (sink->status != TFMT_OK)
        return sink->status;
    int rc = flush(sink);
    /* A file written in place, or the temporary file that becomes the
     * path (so what the rename publishes is on disk first). */
    bool file = (sink->flags & TFMT_SINK_IN_PLACE) || sink->has_tmp;
    if (rc != TFMT_OK || !file || !sink->own_out || sink->spool_fd >= 0 ||
        sink->ar)
        return rc;
    if (fdatasync(sink->out_fd) != 0 && errno != EINVAL)
        return sink_errno(sink, errno);
    return TFMT_OK;
}

/* ---- opening ---- */

static const char *filter_for(const char *path)
{
    static const char *const map[][2] = {
        {".gz", "gzip"},
        {".zst", "zstd"},
        {".xz", "xz"},
        {".bz2", "bzip2"},
    };
    size_t len = path ? strlen(path) : 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        size_t elen = strlen(map[i][0]);
        if (len > elen && strcmp(path + len - elen, map[i][0]) == 0)
            return map[i][1];
    }
    return NULL;
}

static int archive_setup(tfmt_sink *sink, const char *filter)
{
    int rc = tfmt__archive_load(&sink->err);
    if (rc != TFMT_OK)
        return sink->status = rc;
    struct archive *ar = tfmt__ar()->archive_write_new();
    sink->ar = ar;
    if (!ar)
        return sink_fail(sink, TFMT_ENOMEM, "out of memory");
    if (tfmt__ar()->archive_write_add_filter_by_name(ar, filter) !=
            ARCHIVE_OK ||
        tfmt__ar()->archive_write_set_format_raw(ar) != ARCHIVE_OK ||
        tfmt__ar()->archive_write_set_bytes_in_last_block(ar, 1) != ARCHIVE_OK)
        return archive_fail(sink);
    /* no mtime in the gzip header: two runs give identical bytes */
    if (strcmp(filter, "gzip") == 0 &&
        tfmt__ar()->archive_write_set_filter_option(ar, "gzip", "timestamp",
                                                    NULL) != ARCHIVE_OK)
        return archive_fail(sink);
    if (tfmt__ar()->archive_write_open2(ar, sink, NULL, archive_write_cb, NULL,
                                        NULL) != ARCHIVE_OK)
        return archive_fail(sink);
    struct archive_entry *entry = tfmt__ar()->archive_entry_new();
    if (!entry)
        return sink_fail(sink, TFMT_ENOMEM, "out of memory");
    tfmt__ar()->archive_entry_set_pathname(entry, "data");
    tfmt__ar()->archive_entry_set_filetype(entry, AE_IFREG);
    int r = tfmt__ar()->archive_write_header(ar, entry);
    tfmt__ar()->archive_entry_free(entry);
    return r == ARCHIVE_OK ? TFMT_OK : archive_fail(sink);
}

/* The spool: an unlinked temporary file (tmpfile.c). */
static int spool_open(tfmt_sink *sink)
{
    int rc = tfmt__tmpfile(&sink->spool_fd, NULL, &sink->err);
    if (rc != TFMT_OK)
        sink->status = rc;
    return rc;
}

/* The temporary file that becomes the path at finish. */
static int tmp_create(tfmt_sink *sink)
{
    int e = tfmt__sink_tmp_open(&sink->tmp, sink->path, &sink->alloc,
                                &sink->out_fd);
    if (e == ENOMEM)
        return sink_fail(sink, TFMT_ENOMEM, "out of memory");
    sink->has_tmp = e == 0;
    return e ? sink_errno(sink, e) : TFMT_OK;
}

/* In place: the path itself, new (sink_tmp.c: never through a link). */
static int place_create(tfmt_sink *sink)
{
    bool force = sink->flags & TFMT_SINK_FORCE;
    int e = tfmt__sink_tmp_place(&sink->tmp, sink->path, &sink->alloc, force,
                                 &sink->out_fd);
    sink->own_out = e == 0;
    if (e == ENOMEM)
        return sink_fail(sink, TFMT_ENOMEM, "out of memory");
    if (e == EEXIST && !force)
        return sink_fail(sink, TFMT_EINVAL, "file exists");
    return e ? sink_errno(sink, e) : TFMT_OK;
}

/*
 * Pick the destination fd. An existing non-regular file (/dev/null, a
 * FIFO) is written in place: there is nothing to clobber or rename.
 */
static int dest_open(tfmt_sink *sink, const char *path)
{
    struct stat st;
    if (!path) {
        sink->out_fd = STDOUT_FILENO;
        return TFMT_OK;
    }
    size_t len = strlen(path);
    sink->path = tfmt__malloc(&sink->alloc, len + 1);
    if (!sink->path)
        return sink_fail(sink, TFMT_ENOMEM, "out of memory");
    memcpy(sink->path, path, len + 1);
    bool file_only = sink->flags & TFMT_SINK_FILE_ONLY;
    if ((file_only ? lstat(path, &st) : stat(path, &st)) == 0 &&
        S_ISDIR(st.st_mode))
        return sink_errno(sink, EISDIR);
    if (!file_only && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        sink->out_fd = open(path, O_WRONLY | O_CLOEXEC);
        sink->own_out = sink->out_fd >= 0;
        return sink->own_out ? TFMT_OK : sink_errno(sink, errno);
    }
    if (!(sink->flags & TFMT_SINK_FORCE) && lstat(path, &st) == 0)
        return sink_fail(sink, TFMT_EINVAL, "file exists");
    if (sink->flags & TFMT_SINK_IN_PLACE)
        return place_create(sink);
    int rc = tmp_create(sink);
    sink->own_out = rc == TFMT_OK;
    return rc;
}

/* Can pwrite patch the destination in place? */
static bool dest_patchable(tfmt_sink *sink)
{
    struct stat st;
    if (fstat(sink->out_fd, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    int fl = fcntl(sink->out_fd, F_GETFL);
    if (fl < 0 || (fl & O_APPEND))
        return false; /* pwrite would append on Linux */
    off_t cur = lseek(sink->out_fd, 0, SEEK_CUR);
    if (cur < 0)
        return false;
    sink->out_base = (uint64_t)cur;
    return true;
}

static int sink_setup(tfmt_sink *sink, const char *path)
{
    int rc = dest_open(sink, path);
    if (rc != TFMT_OK)
        return rc;
    sink->buf = tfmt__malloc(&sink->alloc, SINK_BUF);
    if (!sink->buf)
        return sink_fail(sink, TFMT_ENOMEM, "out of memory");
    const char *filter = filter_for(sink->path);
    if (filter && (sink->flags & TFMT_SINK_IN_PLACE))
        return sink_fail(sink, TFMT_EINVAL,
                         "a compressed output cannot be written in place");
    if (filter) {
        rc = archive_setup(sink, filter);
        if (rc != TFMT_OK)
            return rc;
    }
    if ((sink->flags & TFMT_SINK_SEEKABLE) && (filter || !dest_patchable(sink)))
        return spool_open(sink);
    return TFMT_OK;
}

int tfmt_sink_open(tfmt_sink **out, const char *path, unsigned flags,
                   const tfmt_allocator *alloc, tfmt_error *err)
{
    if (!out)
        return tfmt__error(err, TFMT_EINVAL, "no output handle");
    *out = NULL;
    tfmt_sink *sink = tfmt__calloc(alloc, 1, sizeof *sink);
    if (!sink)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    if (alloc)
        sink->alloc = *alloc;
    sink->flags = flags;
    sink->out_fd = -1;
    sink->spool_fd = -1;
    if (path && strcmp(path, "-") == 0)
        path = NULL;
    int rc = sink_setup(sink, path);
    if (rc != TFMT_OK) {
        if (err)
            *err = sink->err;
        tfmt_sink_free(sink);
        return rc;
    }
    *out = sink;
    return TFMT_OK;
}

/* ---- finishing ---- */

/*
 * Plain output takes the spool's bytes through the kernel (sendfile), as a
 * pipe or a device would get them from write, without copying them through
 * this process; *off tells how far that went. A destination sendfile
 * refuses (EINVAL, ENOSYS: say an O_APPEND file on an old kernel) gets the
 * rest by pread and write.
 */
static int spool_send(tfmt_sink *sink, uint64_t *off)
{
#ifdef __linux__
    while (!sink->ar && *off < sink->written) {
        uint64_t left = sink->written - *off;
        off_t at = (off_t)*off;
        ssize_t r = sendfile(sink->out_fd, sink->spool_fd, &at,
                             left < IO_MAX ? (size_t)left : IO_MAX);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EINVAL || errno == ENOSYS) && *off == 0)
            return TFMT_OK;
        if (r < 0)
            return sink_errno(sink, errno);
        if (r == 0)
            return sink_fail(sink, TFMT_EIO, "spool file shrank");
        *off += (uint64_t)r;
    }
#else
    (void)sink;
    (void)off;
#endif
    return TFMT_OK;
}

/* Copy the spool into the destination, compressing as configured. */
static int spool_drain(tfmt_sink *sink)
{
    uint64_t off = 0;
    int rc = spool_send(sink, &off);
    if (rc != TFMT_OK)
        return rc;
    while (off < sink->written) {
        uint64_t left = sink->written - off;
        size_t want = left < SINK_BUF ? (size_t)left : SINK_BUF;
        ssize_t r = pread(sink->spool_fd, sink->buf, want, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return sink_errno(sink, errno);
        if (r == 0)
            return sink_fail(sink, TFMT_EIO, "spool file shrank");
        rc = deliver(sink, sink->buf, (size_t)r);
        if (rc != TFMT_OK)
            return rc;
        off += (uint64_t)r;
    }
    return TFMT_OK;
}

/* Give the temporary file the path's name (it closes out_fd). */
static int commit_path(tfmt_sink *sink)
{
    int fd = sink->out_fd;
    sink->out_fd = -1;
    sink->own_out = false;
    sink->has_tmp = false;
    int e = tfmt__sink_tmp_commit(&sink->tmp, fd, sink->path,
                                  sink->flags & TFMT_SINK_FORCE);
    if (e == EEXIST && !(sink->flags & TFMT_SINK_FORCE))
        return sink_fail(sink, TFMT_EINVAL, "file exists");
    return e ? sink_errno(sink, e) : TFMT_OK;
}

static int finish_output(tfmt_sink *sink)
{
    int rc = flush(sink);
    if (rc == TFMT_OK && sink->spool_fd >= 0)
        rc = spool_drain(sink);
    if (rc == TFMT_OK && sink->ar &&
        tfmt__ar()->archive_write_close(sink->ar) != ARCHIVE_OK)
        rc = archive_fail(sink);
    if (rc != TFMT_OK || !sink->own_out || sink->has_tmp)
        return rc;
    int fd = sink->out_fd;
    sink->out_fd = -1;
    sink->own_out = false;
    if (close(fd) != 0)
        return sink_errno(sink, errno);
    return TFMT_OK;
}

int tfmt_sink_finish(tfmt_sink *sink)
{
    if (!sink)
        return TFMT_EINVAL;
    if (sink->finished)
        return sink_fail(sink, TFMT_EINVAL, "sink already finished");
    int rc = sink->status;
    if (rc == TFMT_OK)
        rc = finish_output(sink);
    if (rc == TFMT_OK && sink->has_tmp)
        rc = commit_path(sink);
    if (rc != TFMT_OK && sink->has_tmp) {
        close(sink->out_fd);
        sink->out_fd = -1;
        sink->own_out = false;
        sink->has_tmp = false;
    }
    tfmt__sink_tmp_discard(&sink->tmp);
    sink->finished = rc == TFMT_OK;
    return rc;
}

void tfmt_sink_free(tfmt_sink *sink)
{
    if (!sink)
        return;
    tfmt_allocator alloc = sink->alloc;
    if (sink->ar) {
        /* a failed run must not end a pipe with a valid trailer */
        sink->discard = true;
        tfmt__ar()->archive_write_free(sink->ar);
    }
    if (sink->spool_fd >= 0)
        close(sink->spool_fd);
    if (sink->own_out && sink->out_fd >= 0)
        close(sink->out_fd);
    tfmt__sink_tmp_free(&sink->tmp);
    tfmt__free(&alloc, sink->path);
    tfmt__free(&alloc, sink->buf);
    tfmt__free(&alloc, sink);
}
