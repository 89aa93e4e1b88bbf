/* SPDX-License-Identifier: MIT */
/*
 * conv_name.c - tachyon-conv's output format from the name of -o FILE.
 * `-o run.html` writes HTML without --to; a name that says one format
 * while --to says another is written as --to says, with a warning; a
 * bare .json, which three formats write, is refused without --to. A name
 * without a known suffix (run.out, /dev/null, a FIFO) keeps the default,
 * jsonl: it claims no format, so nothing is a surprise.
 */
#include <string.h>
#include <strings.h>

#include "conv.h"

static const char *const format_names[] = {
    "jsonl", "collapsed", "bin", "speedscope", "gecko",      "pprof",
    "svg",   "pstats",    "top", "html",       "clickhouse", "heatmap",
};

const char *conv_format_name(conv_format f)
{
    return format_names[f];
}

/* `name` (its first `len` bytes) ends with `suffix`, in any case. */
static bool ends_with(const char *name, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len > n && strncasecmp(name + len - n, suffix, n) == 0;
}

/* The whole-file compressions the sink writes by suffix. */
static size_t compression_suffix(const char *name, size_t len)
{
    static const char *const suffixes[] = {".gz", ".zst", ".xz", ".bz2"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
        if (ends_with(name, len, suffixes[i]))
            return strlen(suffixes[i]);
    return 0;
}

int conv_format_of_name(const char *path)
{
    static const struct {
        const char *suffix;
        conv_format format;
    } rules[] = {
        {".speedscope.json", CONV_SPEEDSCOPE},
        {".gecko.json", CONV_GECKO},
        {".pprof", CONV_PPROF},
        {".jsonl", CONV_JSONL},
        {".collapsed", CONV_COLLAPSED},
        {".folded", CONV_COLLAPSED},
        {".bin", CONV_BIN},
        {".svg", CONV_SVG},
        {".html", CONV_HTML},
        {".pstats", CONV_PSTATS},
        {".prof", CONV_PSTATS},
    };
    size_t len = strlen(path);
    /* pprof's own file form is gzipped: .pb.gz names the format */
    if (ends_with(path, len, ".pb.gz"))
        return CONV_PPROF;
    len -= compression_suffix(path, len);
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (ends_with(path, len, rules[i].suffix))
            return (int)rules[i].format;
    return ends_with(path, len, ".json") ? CONV_NAME_JSON : CONV_NAME_NONE;
}

static int parse_to(const char *to)
{
    for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++)
        if (strcmp(to, format_names[i]) == 0)
            return (int)i;
    return CONV_JSONL; /* the parser checked the choices */
}

/* A JSON format: a bare .json name fits it. */
static bool writes_json(conv_format f)
{
    return f == CONV_SPEEDSCOPE || f == CONV_GECKO || f == CONV_CLICKHOUSE;
}

/* Warn when the name of -o says another format than the one chosen. */
static void check_name(const conv_options *o, conv_format chosen, int named)
{
    const char *by = o->to ? "--to" : "--pstats-compat";
    /* ClickHouse rows are JSON lines: .jsonl and .json fit them */
    if (named == CONV_NAME_NONE || (int)chosen == named ||
        (named == CONV_NAME_JSON && writes_json(chosen)) ||
        (named == CONV_JSONL && chosen == CONV_CLICKHOUSE))
        return;
    cli_file_warn(o->output, "the name says %s but %s says %s: writing %s",
                  named == CONV_NAME_JSON ? "JSON" : format_names[named], by,
                  format_names[chosen], format_names[chosen]);
}

int conv_format_choose(const conv_options *o, conv_format *out)
{
    bool to_file = o->output && strcmp(o->output, "-") != 0;
    int named = to_file ? conv_format_of_name(o->output) : CONV_NAME_NONE;
    if (o->to || o->pstats_compat) {
        /* --pstats-compat alone means --to pstats */
        *out = o->to ? (conv_format)parse_to(o->to) : CONV_PSTATS;
        check_name(o, *out, named);
        return CLI_EXIT_OK;
    }
    if (named == CONV_NAME_JSON)
        return cli_usage("cannot tell the format from the name '%s': "
                         "speedscope, gecko and clickhouse write JSON (give "
                         "--to, or name it .speedscope.json or .gecko.json)",
                         o->output);
    *out = named >= 0 ? (conv_format)named : CONV_JSONL;
    return CLI_EXIT_OK;
}
