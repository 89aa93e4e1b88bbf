/* SPDX-License-Identifier: MIT */
/*
 * export_pbuf.h - the few protocol-buffer encodings the pprof export
 * needs: varints, tags, length-delimited fields and packed repeated
 * varints, appended to a tfmt_buf.
 */
#ifndef TFMT_EXPORT_PBUF_H
#define TFMT_EXPORT_PBUF_H

#include "internal.h"

enum { PB_VARINT = 0, PB_LEN = 2 };

int tfmt__pb_varint(tfmt_buf *b, uint64_t v);
int tfmt__pb_tag(tfmt_buf *b, uint32_t field, int wire);
/* field = v as a varint (int64 fields take the two's complement). */
int tfmt__pb_uint(tfmt_buf *b, uint32_t field, uint64_t v);
/* field = bytes (strings and embedded messages). */
int tfmt__pb_bytes(tfmt_buf *b, uint32_t field, const void *p, size_t n);
/* field = packed repeated varints. */
int tfmt__pb_packed(tfmt_buf *b, uint32_t field, const uint64_t *v, size_t n);

#endif
