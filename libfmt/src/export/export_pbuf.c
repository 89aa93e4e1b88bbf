/* SPDX-License-Identifier: MIT */
/*
 * export_pbuf.c - protocol-buffer wire encoding (see export_pbuf.h).
 */
#include "export_pbuf.h"

int tfmt__pb_varint(tfmt_buf *b, uint64_t v)
{
    uint8_t tmp[10];
    return tfmt__buf_put(b, tmp, tfmt__varint_encode(tmp, v));
}

int tfmt__pb_tag(tfmt_buf *b, uint32_t field, int wire)
{
    return tfmt__pb_varint(b, ((uint64_t)field << 3) | (uint64_t)wire);
}

int tfmt__pb_uint(tfmt_buf *b, uint32_t field, uint64_t v)
{
    int rc = tfmt__pb_tag(b, field, PB_VARINT);
    return rc ? rc : tfmt__pb_varint(b, v);
}

int tfmt__pb_bytes(tfmt_buf *b, uint32_t field, const void *p, size_t n)
{
    int rc = tfmt__pb_tag(b, field, PB_LEN);
    if (rc == TFMT_OK)
        rc = tfmt__pb_varint(b, n);
    return rc ? rc : tfmt__buf_put(b, p, n);
}

int tfmt__pb_packed(tfmt_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
    size_t len = 0;
    uint8_t tmp[10];
    for (size_t i = 0; i < n; i++)
        len += tfmt__varint_encode(tmp, v[i]);
    int rc = tfmt__pb_tag(b, field, PB_LEN);
    if (rc == TFMT_OK)
        rc = tfmt__pb_varint(b, len);
    for (size_t i = 0; i < n && rc == TFMT_OK; i++)
        rc = tfmt__pb_varint(b, v[i]);
    return rc;
}
