/*
 * validate.c - runs tachyon-validate: checks the settings, opens each FILE,
 * tells a binary log from JSONL by its first four bytes, hands it to the
 * matching checker and turns the findings into the exit status.
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
 * JSONL starts with '{' (or blank space); printable text that does not is
 * neither format; anything else goes to the binary checker, whose magic
 * check then says precisely what is wrong.
 */
static int kind_of(const unsigned char *b, size_t n)
{
    if (n == 0 || memchr("{ \t\r\n", b[0], 5))
        return 'j';
    for (size_t i = 0; i < n; i++) {
        if (b[i] < 0x20 || b[i] > 0x7e)
            return 'b';
    }
    if (n == 4 && (memcmp(b, "HCAT", 4) == 0 || memcmp(b, "TACH", 4) == 0))
        return 'b';
    return '?';
}

static void validate_one(tv_report *rep, const char *path, size_t max_line)
{
    tv_file *f = tv_report_file(rep, cli_input_name(path));
    if (!f)
        return;
    tfmt_source *src = NULL;
    tfmt_error err;
    memset(&err, 0, sizeof err);
    int rc = tfmt_source_open_path(&src, path, NULL, &err);
    unsigned char head[4];
    size_t n = 0;
    if (rc == TFMT_OK)
        rc = cli_read_head(src, head, sizeof head, &n, &err);
    if (rc == TFMT_ETRUNC || rc == TFMT_EFORMAT)
        tv_add(rep, f, R_INPUT, 0, false, 0, "%s", err.msg);
    else if (rc < 0)
        tv_trouble(rep, f, err.msg);
    if (rc < 0) {
        tfmt_source_free(src);
        return;
    }
    tv_input in = {src, head, n, max_line};
    int kind = kind_of(head, n);
    if (kind == '?')
        tv_add(rep, f, R_UNKNOWN_FORMAT, 0, false, 0,
               "neither a Tachyon binary log nor JSONL (text starting "
               "\"%.*s\")", (int)n, (const char *)head);
    else if (kind == 'b')
        tv_check_bin(rep, f, &in);
    else
        tv_check_jsonl(rep, f, &in);
    tfmt_source_free(src);
}

int run_validate(const tv_options *opts)
{
    if (opts->list_rules)
        return list_rules();
    tv_settings set = {format_of(opts->format), opts->strict > 0,
                       opts->verbose, opts->quiet > 0, 100};
    uint64_t max_line = 0;
    if (opts->max_errors &&
        !parse_count(opts->max_errors, UINT32_MAX, &set.max_errors))
        return cli_usage("invalid --max-errors '%s'", opts->max_errors);
    if (opts->max_line && (!parse_count(opts->max_line,
                                        TFMT_JSONL_MAX_LINE_LIMIT,
                                        &max_line) || max_line == 0))
        return cli_usage("invalid --max-line '%s' (1..%zu)", opts->max_line,
                         TFMT_JSONL_MAX_LINE_LIMIT);
    if (opts->files.count == 0)
        return cli_usage("no input files");
    tv_report rep;
    tv_report_init(&rep, &set);
    for (size_t i = 0; i < opts->files.count; i++)
        validate_one(&rep, opts->files.items[i], (size_t)max_line);
    tv_report_finish(&rep);
    int status = tv_report_status(&rep);
    tv_report_free(&rep);
    return cli_close_stdout(status);
}
