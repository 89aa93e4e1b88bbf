/* SPDX-License-Identifier: MIT */
/*
 * pystr.c - str and bytes objects read from another process. Code object
 * names and file names are compact strings: the state word gives the kind
 * (bytes per character, bits 2-4), compact (bit 5) and ascii (bit 6), or
 * bits 8-10, 11 and 12 in a free-threaded build (u_kind_shift); the
 * characters follow the PyASCIIObject header for ASCII strings and the
 * larger PyCompactUnicodeObject header otherwise.
 */
#include "pystr.h"

#include <stdlib.h>
#include <string.h>

#include "remote_mem.h"

static size_t put_utf8(char *dst, uint32_t cp)
{
    if (cp >= 0xd800 && cp < 0xe000)
        cp = 0xfffd; /* lone surrogate: not valid UTF-8 */
    if (cp < 0x80) {
        dst[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        dst[0] = (char)(0xc0 | cp >> 6);
        dst[1] = (char)(0x80 | (cp & 63));
        return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (char)(0xe0 | cp >> 12);
        dst[1] = (char)(0x80 | ((cp >> 6) & 63));
        dst[2] = (char)(0x80 | (cp & 63));
        return 3;
    }
    if (cp > 0x10ffff)
        cp = 0xfffd;
    dst[0] = (char)(0xf0 | cp >> 18);
    dst[1] = (char)(0x80 | ((cp >> 12) & 63));
    dst[2] = (char)(0x80 | ((cp >> 6) & 63));
    dst[3] = (char)(0x80 | (cp & 63));
    return 4;
}

static uint32_t char_at(const uint8_t *data, unsigned kind, size_t i)
{
    if (kind == 1)
        return data[i];
    if (kind == 2) {
        uint16_t v;
        memcpy(&v, data + 2 * i, 2);
        return v;
    }
    uint32_t v;
    memcpy(&v, data + 4 * i, 4);
    return v;
}

/* Convert `n` characters of `kind` bytes each to a new UTF-8 string. */
static char *to_utf8(const uint8_t *data, unsigned kind, size_t n, size_t *len)
{
    char *s = malloc(n * 4 + 1);
    size_t at = 0;
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++)
        at += put_utf8(s + at, char_at(data, kind, i));
    s[at] = '\0';
    *len = at;
    return s;
}

int pystr_read(pid_t pid, const py_offsets *o, uint64_t addr, char **out,
               size_t *len)
{
    int64_t length;
    uint32_t state;
    rmem_piece head[2] = {{addr + o->u_length, &length, 8},
                          {addr + o->u_state, &state, 4}};
    int rc = rmem_readv(pid, head, 2);
    if (rc != RMEM_OK)
        return rc;
    unsigned shift = (unsigned)o->u_kind_shift;
    unsigned kind = (state >> shift) & 7, compact = (state >> (shift + 3)) & 1;
    unsigned ascii = (state >> (shift + 4)) & 1;
    if (!compact || (kind != 1 && kind != 2 && kind != 4) || length < 0 ||
        length > PYSTR_MAX_CHARS || (ascii && kind != 1))
        return RMEM_FAULT;
    uint64_t data = addr + (ascii ? o->u_ascii_size : o->u_compact_size);
    uint8_t buf[PYSTR_MAX_CHARS * 4];
    rc = rmem_read(pid, data, buf, (size_t)length * kind);
    if (rc != RMEM_OK)
        return rc;
    *out = to_utf8(buf, kind, (size_t)length, len);
    return *out ? RMEM_OK : RMEM_OTHER;
}

int pybytes_read(pid_t pid, const py_offsets *o, uint64_t addr, uint8_t **out,
                 size_t *len)
{
    int64_t size;
    int rc = rmem_read(pid, addr + o->b_size, &size, 8);
    if (rc != RMEM_OK)
        return rc;
    if (size < 0 || (uint64_t)size > PYBYTES_MAX)
        return RMEM_FAULT;
    uint8_t *buf = malloc((size_t)size + 1);
    if (!buf)
        return RMEM_OTHER;
    rc = rmem_read(pid, addr + o->b_sval, buf, (size_t)size);
    if (rc != RMEM_OK) {
        free(buf);
        return rc;
    }
    *out = buf;
    *len = (size_t)size;
    return RMEM_OK;
}
