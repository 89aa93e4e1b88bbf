/* SPDX-License-Identifier: MIT */
/*
 * cli_letters.c - the short options of the tachyon tools: one meaning per
 * letter, in every tool. A tool's option table may give a row a letter
 * only as it is listed here (cli_parse checks), so `-n` cannot be --top
 * in one tool and --normalize in another. A new letter is added here, for
 * every tool at once.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const cli_letter letters[] = {
    {'a', "all-threads"}, /* tachyon-record */
    {'c', "compression"}, /* tachyon-conv (bin), tachyon-record */
    {'d', "duration"},    /* tachyon-record */
    {'f', "force"},       /* replace an existing output */
    {'F', "format"},      /* a report's format: diff, validate */
    {'j', "jobs"},        /* threads: tachyon-conv */
    {'k', "key"},         /* tachyon-diff */
    {'l', "label"},       /* tachyon-conv (clickhouse) */
    {'m', "metric"},      /* tachyon-diff */
    {'n', "top"},         /* rows shown: conv (top), diff */
    {'o', "output"},      /* write to FILE instead of stdout */
    {'p', "pid"},         /* tachyon-record */
    {'q', "quiet"},       /* no warnings */
    {'r', "rate"},        /* tachyon-record */
    {'s', "strict"},      /* tachyon-validate */
    {'t', "to"},          /* tachyon-conv's output format */
    {'v', "verbose"},     /* more on stderr (repeatable) */
};

const cli_letter *cli_letters(size_t *count)
{
    *count = sizeof letters / sizeof letters[0];
    return letters;
}

const char *cli_letter_meaning(char c)
{
    for (size_t i = 0; i < sizeof letters / sizeof letters[0]; i++)
        if (letters[i].letter == c)
            return letters[i].long_name;
    return NULL;
}

bool cli_spec_check(const cli_spec *spec, char *msg, size_t cap)
{
    for (const cli_option *o = spec->options; o->long_name; o++) {
        if (!o->short_name)
            continue;
        const char *meaning = cli_letter_meaning(o->short_name);
        if (meaning && strcmp(meaning, o->long_name) == 0)
            continue;
        if (meaning)
            snprintf(msg, cap,
                     "internal error: option '-%c' is '--%s' here but "
                     "'--%s' in every tachyon tool",
                     o->short_name, o->long_name, meaning);
        else
            snprintf(msg, cap,
                     "internal error: option '-%c' ('--%s') is not a "
                     "letter of the tachyon tools (cli_letters.c)",
                     o->short_name, o->long_name);
        return false;
    }
    return true;
}
