/* SPDX-License-Identifier: MIT */
/* error.c - error records and status names. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include <tachyon/fmt_version.h>

#include "internal.h"

/* The hint lives in what was padding: older callers see the same layout. */
_Static_assert(offsetof(tfmt_error, offset) == 16 &&
                   offsetof(tfmt_error, msg) == 32,
               "tfmt_error's layout must not change");

const char *tfmt_strerror(int code)
{
    switch (code) {
    case TFMT_OK: return "success";
    case TFMT_DONE: return "end of input";
    case TFMT_EINVAL: return "invalid argument";
    case TFMT_ENOMEM: return "out of memory";
    case TFMT_EIO: return "input/output error";
    case TFMT_EFORMAT: return "corrupt data";
    case TFMT_ETRUNC: return "truncated data";
    case TFMT_EVERSION: return "unsupported version";
    case TFMT_ELIMIT: return "limit exceeded";
    case TFMT_ESCHEMA: return "schema violation";
    default: return "unknown error";
    }
}

const char *tfmt_version(void)
{
    return TFMT_VERSION_STRING;
}

static int verror(tfmt_error *err, int code, bool located, uint64_t offset,
                  const char *fmt, va_list ap) TFMT_PRINTF(5, 0);

static int verror(tfmt_error *err, int code, bool located, uint64_t offset,
                  const char *fmt, va_list ap)
{
    if (!err)
        return code;
    err->code = code;
    err->sys_errno = 0;
    /* A reused record (or a fresh local one) must not keep another error's
     * check: callers that know the check set it after this call. */
    err->check = 0;
    err->has_offset = located;
    err->hint = TFMT_HINT_NONE;
    err->offset = offset;
    err->line = 0;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    return code;
}

int tfmt__error(tfmt_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(err, code, false, 0, fmt, ap);
    va_end(ap);
    return code;
}

int tfmt__error_at(tfmt_error *err, int code, uint64_t offset, const char *fmt,
                   ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(err, code, true, offset, fmt, ap);
    va_end(ap);
    return code;
}

int tfmt__error_errno(tfmt_error *err, int sys_errno, const char *what)
{
    tfmt__error(err, TFMT_EIO, "%s%s%s", what ? what : "", what ? ": " : "",
                strerror(sys_errno));
    if (err)
        err->sys_errno = sys_errno;
    return TFMT_EIO;
}

void tfmt__error_clear(tfmt_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

void tfmt__error_hint_check(tfmt_error *err)
{
    if (!err || err->hint != TFMT_HINT_NONE)
        return;
    if (err->code == TFMT_EFORMAT || err->code == TFMT_ETRUNC ||
        err->code == TFMT_ESCHEMA)
        err->hint = TFMT_HINT_CHECK;
}

int tfmt__error_take(tfmt_error *to, const tfmt_error *from, int code)
{
    if (from && from->code < 0) {
        if (to && to != from)
            *to = *from;
        return from->code;
    }
    return tfmt__error(to, code < 0 ? code : TFMT_EINVAL, "%s",
                       tfmt_strerror(code < 0 ? code : TFMT_EINVAL));
}
