/* SPDX-License-Identifier: MIT */
/*
 * cli_opt.c - the option-table parser and the --help text generated from
 * the same table (see cli.h). Never prints errors and never exits: a usage
 * problem comes back as CLI_PARSE_ERROR with a one-line message.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The built-in rows (cli.h); their targets are never written. */
const cli_option cli_builtin_options[] = {
    {"help", 'h', CLI_ARG_NONE, NULL, "show this help and exit", NULL, NULL},
    {"version", 'V', CLI_ARG_NONE, NULL, "show version information and exit",
     NULL, NULL},
    {NULL, 0, CLI_ARG_NONE, NULL, NULL, NULL, NULL}};
static const cli_option *const builtin_help = &cli_builtin_options[0];
static const cli_option *const builtin_version = &cli_builtin_options[1];

void cli_list_free(cli_list *list)
{
    free(list->items);
    list->items = NULL;
    list->count = 0;
    list->cap = 0;
}

static int set_error(cli_parse_error *err, const char *fmt, ...)
    CLI_PRINTF(2, 3);

static int set_error(cli_parse_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return CLI_PARSE_ERROR;
}

static int list_push(cli_list *list, const char *s, cli_parse_error *err)
{
    if (list->count == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 8;
        const char **items = realloc(list->items, cap * sizeof *items);
        if (!items)
            return set_error(err, "out of memory");
        list->items = items;
        list->cap = cap;
    }
    list->items[list->count++] = s;
    return CLI_PARSE_OK;
}

/* "a|b|c" contains `value` as a whole alternative. */
static bool choice_ok(const char *choices, const char *value)
{
    size_t n = strlen(value);
    const char *p = choices;

    while (p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, value, n) == 0)
            return true;
        p = bar ? bar + 1 : NULL;
    }
    return false;
}

/* "jsonl|collapsed|bin" as "jsonl, collapsed or bin". */
static void choices_text(const char *choices, char *out, size_t cap)
{
    size_t o = 0;
    const char *last = strrchr(choices, '|');

    for (const char *p = choices; *p && o + 5 < cap; p++) {
        const char *sep = p == last ? " or " : ", ";
        if (*p != '|') {
            out[o++] = *p;
            continue;
        }
        for (; *sep && o + 1 < cap; sep++)
            out[o++] = *sep;
    }
    out[o] = '\0';
}

/* Uses of --quiet and --verbose in this parse (they exclude each other). */
typedef struct seen {
    int quiet, verbose;
} seen;

/* Store one use of `opt`; `value` is NULL for flags. */
static int apply(const cli_option *opt, const char *value, seen *uses,
                 cli_parse_error *err)
{
    char alts[160];

    if (opt->kind == CLI_ARG_NONE) {
        if (opt->target)
            (*(int *)opt->target)++;
        uses->quiet += strcmp(opt->long_name, "quiet") == 0;
        uses->verbose += strcmp(opt->long_name, "verbose") == 0;
        return CLI_PARSE_OK;
    }
    if (opt->choices && !choice_ok(opt->choices, value)) {
        choices_text(opt->choices, alts, sizeof alts);
        return set_error(err,
                         "invalid argument '%s' for '--%s' "
                         "(expected %s)",
                         value, opt->long_name, alts);
    }
    if (opt->kind == CLI_ARG_REPEATABLE)
        return list_push(opt->target, value, err);
    *(const char **)opt->target = value;
    return CLI_PARSE_OK;
}

/* The parse status a built-in option stands for, or CLI_PARSE_OK. */
static int builtin_status(const cli_option *opt)
{
    if (opt == builtin_help)
        return CLI_PARSE_HELP;
    if (opt == builtin_version)
        return CLI_PARSE_VERSION;
    return CLI_PARSE_OK;
}

static const cli_option *find_long(const cli_spec *spec, const char *name,
                                   size_t len)
{
    const cli_option *o;

    for (o = spec->options; o->long_name; o++)
        if (strlen(o->long_name) == len &&
            strncmp(o->long_name, name, len) == 0)
            return o;
    if (len == 4 && strncmp(name, "help", 4) == 0)
        return builtin_help;
    if (len == 7 && strncmp(name, "version", 7) == 0)
        return builtin_version;
    return NULL;
}

static const cli_option *find_short(const cli_spec *spec, char c)
{
    const cli_option *o;

    for (o = spec->options; o->long_name; o++)
        if (o->short_name && o->short_name == c)
            return o;
    if (c == 'h')
        return builtin_help;
    if (c == 'V')
        return builtin_version;
    return NULL;
}

/* "--name", "--name=value" or "--name value"; *i may advance. */
static int parse_long(const cli_spec *spec, int argc, char **argv, int *i,
                      seen *uses, cli_parse_error *err)
{
    const char *arg = argv[*i] + 2;
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const cli_option *opt = find_long(spec, arg, len);

    if (!opt)
        return set_error(err, "unknown option '--%.*s'", (int)len, arg);
    if (builtin_status(opt))
        return builtin_status(opt);
    if (opt->kind == CLI_ARG_NONE) {
        if (eq)
            return set_error(err, "option '--%s' doesn't allow an argument",
                             opt->long_name);
        return apply(opt, NULL, uses, err);
    }
    if (eq)
        return apply(opt, eq + 1, uses, err);
    if (*i + 1 >= argc)
        return set_error(err, "option '--%s' requires an argument",
                         opt->long_name);
    return apply(opt, argv[++*i], uses, err);
}

/* "-abc" (flags), "-ovalue" or "-o value"; *i may advance. */
static int parse_short(const cli_spec *spec, int argc, char **argv, int *i,
                       seen *uses, cli_parse_error *err)
{
    const char *p = argv[*i] + 1;

    for (; *p; p++) {
        const cli_option *opt = find_short(spec, *p);
        int rc;
        if (!opt)
            return set_error(err, "unknown option '-%c'", *p);
        if (builtin_status(opt))
            return builtin_status(opt);
        if (opt->kind != CLI_ARG_NONE) {
            if (p[1])
                return apply(opt, p + 1, uses, err);
            if (*i + 1 >= argc)
                return set_error(err, "option '-%c' requires an argument", *p);
            return apply(opt, argv[++*i], uses, err);
        }
        rc = apply(opt, NULL, uses, err);
        if (rc != CLI_PARSE_OK)
            return rc;
    }
    return CLI_PARSE_OK;
}

int cli_parse(const cli_spec *spec, int argc, char **argv, cli_parse_error *err)
{
    bool options_done = false;
    seen uses = {0, 0};

    cli_set_program(spec->name);
    err->msg[0] = '\0';
    if (!cli_spec_check(spec, err->msg, sizeof err->msg))
        return CLI_PARSE_ERROR;
    /* Hidden: the build asks each tool for its completion scripts. */
    if (argc == 3 && strcmp(argv[1], "--print-completion") == 0)
        return CLI_PARSE_COMPLETION;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int rc;
        if (options_done || a[0] != '-' || a[1] == '\0') {
            rc = list_push(spec->operands, a, err);
        } else if (strcmp(a, "--") == 0) {
            options_done = true;
            continue;
        } else if (a[1] == '-') {
            rc = parse_long(spec, argc, argv, &i, &uses, err);
        } else {
            rc = parse_short(spec, argc, argv, &i, &uses, err);
        }
        if (rc != CLI_PARSE_OK)
            return rc;
    }
    if (uses.quiet && uses.verbose)
        return set_error(err, "options '--quiet' and '--verbose' exclude "
                              "each other");
    return CLI_PARSE_OK;
}

/* One "  -o, --output FILE    help" line of --help. */
static void print_option(const cli_option *o)
{
    char left[64];
    int n;

    if (o->short_name)
        n = snprintf(left, sizeof left, "  -%c, --%s", o->short_name,
                     o->long_name);
    else
        n = snprintf(left, sizeof left, "      --%s", o->long_name);
    if (o->kind != CLI_ARG_NONE && n > 0 && (size_t)n < sizeof left)
        snprintf(left + n, sizeof left - (size_t)n, " %s",
                 o->metavar ? o->metavar : "ARG");
    if (strlen(left) < 27)
        printf("%-28s%s\n", left, o->help);
    else
        printf("%s\n%-28s%s\n", left, "", o->help);
}

int cli_print_help(const cli_spec *spec)
{
    const cli_option *o;

    printf("Usage: %s %s\n", spec->name, spec->synopsis);
    if (spec->summary)
        printf("%s\n", spec->summary);
    printf("\nOptions:\n");
    for (o = spec->options; o->long_name; o++)
        print_option(o);
    print_option(builtin_help);
    print_option(builtin_version);
    if (spec->epilog)
        printf("\n%s", spec->epilog);
    return cli_close_stdout(CLI_EXIT_OK);
}
