/* SPDX-License-Identifier: MIT */
/*
 * gen_jsonl_lines.c - JSONL exports with one line of MIB MiB (issue 22,
 * items 6 and 8: no line may cost more than a small multiple of its
 * length), for gen_hostile's "jsonl-SHAPE-WHERE" cases. Each file is a
 * meta record, the big line (or two, for frames), then the records that
 * make it a complete, valid export.
 *
 * SHAPE, a value of about MIB MiB: arrays ([[],[],...], the line),
 * deep ([[[...]]] 28 levels, repeated), string ("aaa..."), escapes
 * ("\u00e9..."), members ({"k0":0,"k1":0,...}), numbers ([1.5,1.5,...]).
 * WHERE it goes: member (an unknown member of a string_table record),
 * entry (an unknown member of its one string entry), unknown (a record of
 * an unknown type), names (members only: spliced in as unknown members of
 * the record itself).
 * Big known records, valid: jsonl-strings-record (a string_table of many
 * strings), jsonl-value-record (one string value of MIB MiB),
 * jsonl-frames-record (a frame_table of many frames and an agg record
 * listing them all).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_jsonl_lines.h"

#define RUN_ID "00000000000000000000000000000000"
#define ENVELOPE(type)                                                         \
    "{\"type\":\"" type "\",\"v\":0,\"run_id\":\"" RUN_ID "\""

/* Write `unit` repeatedly, comma-separated, for about `bytes`. */
static void repeat(FILE *f, const char *unit, size_t bytes)
{
    size_t n = strlen(unit) + 1, count = bytes / n;
    for (size_t i = 0; i < count; i++)
        fprintf(f, "%s%s", i ? "," : "", unit);
}

/* A value of about `bytes` of the given shape; 0 for an unknown shape. */
static int payload(FILE *f, const char *shape, size_t bytes)
{
    if (!strcmp(shape, "arrays")) {
        fputc('[', f);
        repeat(f, "[]", bytes);
        fputc(']', f);
    } else if (!strcmp(shape, "deep")) {
        fputc('[', f);
        repeat(f, "[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
               bytes);
        fputc(']', f);
    } else if (!strcmp(shape, "string") || !strcmp(shape, "escapes")) {
        const char *unit = shape[0] == 's' ? "aaaaaaaa" : "\\u00e9";
        fputc('"', f);
        for (size_t i = 0; i < bytes / strlen(unit); i++)
            fputs(unit, f);
        fputc('"', f);
    } else if (!strcmp(shape, "numbers")) {
        fputc('[', f);
        repeat(f, "1.5", bytes);
        fputc(']', f);
    } else if (!strcmp(shape, "members")) {
        fputc('{', f);
        for (size_t i = 0, n = 0; n < bytes; i++)
            n += (size_t)fprintf(f, "%s\"k%zu\":0", i ? "," : "", i);
        fputc('}', f);
    } else {
        return 0;
    }
    return 1;
}

/* Names spliced in as members of the record: the object without braces. */
static void names(FILE *f, size_t bytes)
{
    for (size_t i = 0, n = 0; n < bytes; i++)
        n += (size_t)fprintf(f, ",\"k%zu\":0", i);
}

static const char head[] = ENVELOPE("meta") ",\"sample_interval_usec\":1000}\n";
static const char end0[] = ENVELOPE("end") ",\"samples_total\":0}\n";

static int placed(FILE *f, const char *shape, const char *where, size_t bytes)
{
    bool spliced = !strcmp(where, "names") && !strcmp(shape, "members");
    fputs(head, f);
    if (!strcmp(where, "unknown"))
        fputs(ENVELOPE("x_future") ",\"x\":", f);
    else if (!strcmp(where, "entry"))
        fputs(ENVELOPE("string_table") ",\"strings\":[{\"str_id\":0,"
                                       "\"value\":\"a\",\"x\":",
              f);
    else if (!strcmp(where, "member"))
        fputs(ENVELOPE("string_table") ",\"strings\":[],\"x\":", f);
    else if (spliced)
        fputs(ENVELOPE("string_table") ",\"strings\":[]", f);
    else
        return -1;
    if (spliced)
        names(f, bytes);
    else if (!payload(f, shape, bytes))
        return -1;
    fputs(!strcmp(where, "entry") ? "}]}\n" : "}\n", f);
    fputs(end0, f);
    return 0;
}

/* The big known records: all valid, the file complete. */
static int record(FILE *f, const char *shape, size_t bytes)
{
    fputs(head, f);
    fputs(ENVELOPE("string_table") ",\"strings\":[", f);
    if (!strcmp(shape, "strings")) {
        for (size_t i = 0, n = 0; n < bytes; i++)
            n += (size_t)fprintf(f, "%s{\"str_id\":%zu,\"value\":\"f%zu\"}",
                                 i ? "," : "", i, i);
        fputs("]}\n", f);
        fputs(end0, f);
        return 0;
    }
    if (!strcmp(shape, "value")) {
        fputs("{\"str_id\":0,\"value\":", f);
        payload(f, "string", bytes);
        fputs("}]}\n", f);
        fputs(end0, f);
        return 0;
    }
    if (strcmp(shape, "frames"))
        return -1;
    fputs(
        "{\"str_id\":0,\"value\":\"f\"},{\"str_id\":1,\"value\":\"a.py\"}]}\n",
        f);
    size_t count = bytes / 80;
    fputs(ENVELOPE("frame_table") ",\"frames\":[", f);
    for (size_t i = 0; i < count; i++)
        fprintf(f,
                "%s{\"frame_id\":%zu,\"path_str_id\":1,\"func_str_id\":0,"
                "\"line\":%zu}",
                i ? "," : "", i, i + 1);
    fputs("]}\n", f);
    fputs(ENVELOPE("agg") ",\"kind\":\"frame\",\"scope\":\"final\","
                          "\"samples_total\":1,\"entries\":[",
          f);
    for (size_t i = 0; i < count; i++)
        fprintf(f, "%s{\"frame_id\":%zu,\"self\":%d,\"cumulative\":1}",
                i ? "," : "", i, i == 0);
    fputs("]}\n", f);
    fputs(ENVELOPE("end") ",\"samples_total\":1}\n", f);
    return 0;
}

int gen_jsonl_line(const char *c, FILE *f, unsigned long mib)
{
    char shape[32], where[32];
    if (strncmp(c, "jsonl-", 6) != 0 ||
        sscanf(c + 6, "%31[a-z]-%31[a-z]", shape, where) != 2)
        return -1;
    size_t bytes = (size_t)mib << 20;
    bytes -= bytes > 4096 ? 4096 : 0; /* room for the envelope */
    if (!strcmp(where, "record"))
        return record(f, shape, bytes);
    return placed(f, shape, where, bytes);
}
