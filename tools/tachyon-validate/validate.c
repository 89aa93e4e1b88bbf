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
 * The library tells the kind: JSONL (and an empty file, which the JSONL
 * checker reports) and binary logs go to their checkers, and so do bytes
 * that are not text (the binary checker's magic check then says precisely
 * what is wrong); printable text that is neither is refused.
 */
static void check_kind(tv_report *rep, tv_file *f, const tv_input *in,
                       const tfmt_detection *d)
{
    int n = d->head_len < 4 ? (int)d->head_len : 4;
    switch (d->kind) {
    case TFMT_KIND_TEXT:
        tv_add(rep, f, R_UNKNOWN_FORMAT, 0, false, 0,
               "neither a Tachyon binary log nor JSONL (text starting "
               "\"%.*s\")",
               n, (const char *)d->head);
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
        tv_add(rep, f, rc == TFMT_ELIMIT ? R_INPUT_LIMIT : R_INPUT, 0, false, 0,
               "%s", err.msg);
    else if (rc < 0)
        tv_trouble(rep, f, err.msg);
    if (rc == TFMT_OK) {
        tv_input in = {src, max_line, bin};
        check_kind(rep, f, &in, &d);
    }
    tfmt_source_free(src);
}

int run_validate(const tv_options *opts)
{
    if (opts->list_rules)
        return list_rules();
    tv_settings set = {format_of(opts->format), opts->strict > 0, opts->verbose,
                       opts->quiet > 0, 100};
    uint64_t max_line = 0;
    if (opts->max_errors &&
        !parse_count(opts->max_errors, UINT32_MAX, &set.max_errors))
        return cli_usage("invalid --max-errors '%s'", opts->max_errors);
    if (opts->max_line &&
        (!parse_count(opts->max_line, TFMT_JSONL_MAX_LINE_LIMIT, &max_line) ||
         max_line == 0))
        return cli_usage("invalid --max-line '%s' (1..%zu)", opts->max_line,
                         TFMT_JSONL_MAX_LINE_LIMIT);
    tfmt_bin_options bin;
    int code = cli_input_limits_set(&opts->limits);
    if (code == CLI_EXIT_OK)
        code = cli_reader_options(&opts->reader, &bin);
    if (code != CLI_EXIT_OK)
        return code;
    if (opts->files.count == 0)
        return cli_usage("no input files");
    tv_report rep;
    tv_report_init(&rep, &set);
    for (size_t i = 0; i < opts->files.count; i++)
        validate_one(&rep, opts->files.items[i], (size_t)max_line, &bin);
    tv_report_finish(&rep);
    int status = tv_report_status(&rep);
    tv_report_free(&rep);
    return cli_close_stdout(status);
}
