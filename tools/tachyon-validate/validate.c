/* SPDX-License-Identifier: MIT */
/*
 * validate.c - runs tachyon-validate: checks the settings, opens each FILE,
 * asks the library what it is (tfmt_detect), hands it to the matching
 * checker and turns the findings into the exit status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "validate.h"

/* A non-negative decimal number, fully parsed. */
static bool parse_count(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

static int list_rules(void)
{
    static const char *const sev[] = {"note", "warning", "error"};
    for (size_t i = 0; i < tv_rule_count; i++)
        printf("%s  %-7s  %s\n", tv_rules[i].id, sev[tv_rules[i].severity],
               tv_rules[i].summary);
    return cli_close_stdout(CLI_EXIT_OK);
}

static tv_format format_of(const char *name)
{
    if (!name || strcmp(name, "text") == 0)
        return FMT_TEXT;
    if (strcmp(name, "json") == 0)
        return FMT_JSON;
    if (strcmp(name, "junit") == 0)
        return FMT_JUNIT;
    return FMT_GITHUB;
}

/*
 * The library tells the kind: JSONL and binary logs go to their checkers,
 * and so do bytes that are not text (the binary checker then says
 * precisely what is wrong); an empty file and printable text that is
 * neither format get the library's words for them, as in every tool.
 */
static void check_kind(tv_report *rep, tv_file *f, const tv_input *in,
                       const tfmt_detection *d)
{
    tfmt_error why;
    switch (d->kind) {
    case TFMT_KIND_EMPTY:
    case TFMT_KIND_TEXT:
        tfmt_detect_error(d, &why);
        tv_add_error(rep, f,
                     d->kind == TFMT_KIND_EMPTY ? R_EMPTY : R_UNKNOWN_FORMAT,
                     &why);
        break;
    case TFMT_KIND_BIN:
    case TFMT_KIND_DATA: tv_check_bin(rep, f, in); break;
    case TFMT_KIND_ROWS: tv_check_rows(rep, f, in); break;
    default: tv_check_jsonl(rep, f, in); break;
    }
}

static void validate_one(tv_report *rep, const char *path, size_t max_line,
                         const tfmt_bin_options *bin)
{
    tv_file *f = tv_report_file(rep, cli_input_name(path));
    if (!f)
        return;
    tfmt_source *src = NULL;
    tfmt_detection d;
    tfmt_error err;
    int rc = cli_open_input(path, &src, &d, &err);
    if (rc == TFMT_ETRUNC || rc == TFMT_EFORMAT || rc == TFMT_ELIMIT)
        tv_add_error(rep, f, rc == TFMT_ELIMIT ? R_INPUT_LIMIT : R_INPUT, &err);
    else if (rc < 0)
        tv_trouble(rep, f, err.msg);
    if (rc == TFMT_OK) {
        tv_input in = {src, max_line, bin};
        check_kind(rep, f, &in, &d);
    }
    tfmt_source_free(src);
}

/* The settings from the options; a usage message and 2 on a bad one. */
static int settings(const tv_options *o, tv_settings *set, uint64_t *max_line,
                    tfmt_bin_options *bin)
{
    *set = (tv_settings){format_of(o->format), o->strict > 0, o->verbose,
                         o->quiet > 0, 100};
    *max_line = 0;
    if (o->max_errors &&
        !parse_count(o->max_errors, UINT32_MAX, &set->max_errors))
        return cli_usage("invalid --max-errors '%s'", o->max_errors);
    if (o->max_line &&
        (!parse_count(o->max_line, TFMT_JSONL_MAX_LINE_LIMIT, max_line) ||
         *max_line == 0))
        return cli_usage("invalid --max-line '%s' (1..%zu)", o->max_line,
                         TFMT_JSONL_MAX_LINE_LIMIT);
    int code = cli_input_limits_set(&o->limits);
    if (code == CLI_EXIT_OK)
        code = cli_reader_options(&o->reader, bin);
    if (code == CLI_EXIT_OK && o->files.count == 0)
        code = cli_usage("no input files");
    if (code == CLI_EXIT_OK)
        code = cli_output_check(o->output, o->force > 0);
    return code;
}

/*
 * Write the report (`len` bytes) through a sink: to -o FILE (atomically,
 * replaced only with --force) or stdout. Returns an exit code.
 */
static int write_report(const tv_options *o, const char *doc, size_t len)
{
    const char *path =
        o->output && strcmp(o->output, "-") != 0 ? o->output : NULL;
    tfmt_sink *sink = NULL;
    tfmt_error err;
    memset(&err, 0, sizeof err);
    int rc = cli_sink_open(&sink, path, o->force ? TFMT_SINK_FORCE : 0, &err);
    if (rc < 0) {
        cli_report(cli_output_name(path), &err);
        return CLI_EXIT_TROUBLE;
    }
    rc = tfmt_sink_write(sink, doc, len);
    if (rc == TFMT_OK)
        rc = tfmt_sink_finish(sink);
    if (rc < 0)
        cli_report(cli_output_name(path), tfmt_sink_error(sink));
    cli_sink_free(sink);
    return rc < 0 ? CLI_EXIT_TROUBLE : CLI_EXIT_OK;
}

int run_validate(const tv_options *opts)
{
    if (opts->list_rules)
        return list_rules();
    tv_settings set;
    uint64_t max_line;
    tfmt_bin_options bin;
    int code = settings(opts, &set, &max_line, &bin);
    if (code != CLI_EXIT_OK)
        return code;
    /* The report is built in memory, then written whole: the CI formats
     * always, the text format when it goes to -o FILE. */
    char *doc = NULL;
    size_t len = 0;
    bool to_sink = set.format != FMT_TEXT || opts->output;
    FILE *mem = to_sink ? open_memstream(&doc, &len) : NULL;
    if (to_sink && !mem)
        return cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    tv_report rep;
    tv_report_init(&rep, &set);
    if (mem && set.format == FMT_TEXT)
        rep.text = mem;
    cli_set_checker(true);
    for (size_t i = 0; i < opts->files.count; i++)
        validate_one(&rep, opts->files.items[i], (size_t)max_line, &bin);
    tv_report_finish(&rep, mem);
    int status = tv_report_status(&rep);
    tv_report_free(&rep);
    if (mem && (fclose(mem) != 0 || !doc))
        status = cli_fail(CLI_EXIT_TROUBLE, "out of memory");
    else if (mem)
        code = write_report(opts, doc, len);
    free(doc);
    return cli_close_stdout(code != CLI_EXIT_OK ? code : status);
}
