/* SPDX-License-Identifier: MIT */
/*
 * text.h - names as inert text for the library's own writers (text.c;
 * the public side is tachyon/fmt_text.h). Never installed.
 */
#ifndef TFMT_TEXT_H
#define TFMT_TEXT_H

#include <tachyon/fmt_text.h>

#include "internal.h"

/* Append [s, s+n) escaped in `style` to `b` (TFMT_OK or TFMT_ENOMEM). */
int tfmt__text_put(tfmt_buf *b, const char *s, size_t n, tfmt_text_style style);

#endif
