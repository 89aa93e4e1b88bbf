/* SPDX-License-Identifier: MIT */
/*
 * text.c - names as inert text for the tools' own output (cli.h): the
 * library's tfmt_text_escape (tachyon/fmt_text.h) with the buffer
 * handling a tool needs around it.
 */
#include <stdlib.h>

#include "cli.h"

char *cli_text(const char *s, size_t n, tfmt_text_style style, char *buf,
               size_t cap)
{
    size_t need = tfmt_text_escape(buf, cap, s, n, style);
    if (need < cap)
        return buf;
    char *big = malloc(need + 1);
    if (big)
        tfmt_text_escape(big, need + 1, s, n, style);
    return big;
}

void cli_text_free(char *text, const char *buf)
{
    if (text != buf)
        free(text);
}

void cli_text_fwrite(FILE *f, const char *s, size_t n, tfmt_text_style style)
{
    char small[1024];
    char *t = cli_text(s, n, style, small, sizeof small);
    if (t)
        fputs(t, f);
    else
        fputs("(out of memory)", f);
    cli_text_free(t, small);
}
