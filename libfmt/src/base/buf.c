/* SPDX-License-Identifier: MIT */
/* buf.c - a growable byte buffer used to assemble output records. */
#include <stdio.h>

#include "internal.h"

void tfmt__buf_init(tfmt_buf *b, const tfmt_allocator *a)
{
    b->alloc = a;
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void tfmt__buf_free(tfmt_buf *b)
{
    tfmt__free(b->alloc, b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

int tfmt__buf_reserve(tfmt_buf *b, size_t extra)
{
    if (extra <= b->cap - b->len)
        return TFMT_OK;
    if (extra > SIZE_MAX - b->len)
        return TFMT_ENOMEM;
    return tfmt__grow(b->alloc, (void **)&b->data, &b->cap, b->len + extra, 1);
}

int tfmt__buf_put(tfmt_buf *b, const void *p, size_t n)
{
    if (tfmt__buf_reserve(b, n) != TFMT_OK)
        return TFMT_ENOMEM;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    return TFMT_OK;
}

int tfmt__buf_putc(tfmt_buf *b, char c)
{
    return tfmt__buf_put(b, &c, 1);
}

int tfmt__buf_puts(tfmt_buf *b, const char *s)
{
    return tfmt__buf_put(b, s, strlen(s));
}

int tfmt__buf_printf(tfmt_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || tfmt__buf_reserve(b, (size_t)n + 1) != TFMT_OK)
        return TFMT_ENOMEM;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return TFMT_OK;
}

/* "00" to "99" (tfmt__fmt_u32 in internal.h). */
const char tfmt__digit_pairs[200] = "00010203040506070809"
                                    "10111213141516171819"
                                    "20212223242526272829"
                                    "30313233343536373839"
                                    "40414243444546474849"
                                    "50515253545556575859"
                                    "60616263646566676869"
                                    "70717273747576777879"
                                    "80818283848586878889"
                                    "90919293949596979899";

char *tfmt__fmt_u64(char *o, uint64_t v)
{
    if (v <= UINT32_MAX)
        return tfmt__fmt_u32(o, (uint32_t)v);
    /* The top digits, then the last eight (two 4-digit halves). */
    uint64_t hi = v / 100000000;
    uint32_t lo = (uint32_t)(v % 100000000);
    o = tfmt__fmt_u64(o, hi);
    uint32_t a = lo / 10000, b = lo % 10000;
    tfmt__fmt_four(o, a);
    tfmt__fmt_four(o + 4, b);
    return o + 8;
}

int tfmt__buf_put_u64(tfmt_buf *b, uint64_t v)
{
    if (tfmt__buf_reserve(b, 20) != TFMT_OK)
        return TFMT_ENOMEM;
    b->len = (size_t)(tfmt__fmt_u64(b->data + b->len, v) - b->data);
    return TFMT_OK;
}

int tfmt__buf_put_i64(tfmt_buf *b, int64_t v)
{
    if (v < 0) {
        if (tfmt__buf_putc(b, '-') != TFMT_OK)
            return TFMT_ENOMEM;
        return tfmt__buf_put_u64(b, (uint64_t)0 - (uint64_t)v);
    }
    return tfmt__buf_put_u64(b, (uint64_t)v);
}

int tfmt__buf_put_varint(tfmt_buf *b, uint64_t v)
{
    uint8_t tmp[10];
    return tfmt__buf_put(b, tmp, tfmt__varint_encode(tmp, v));
}
