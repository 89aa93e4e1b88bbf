/* SPDX-License-Identifier: MIT */
/*
 * cli_complete.c - shell completion scripts (bash, zsh, fish) written from
 * a tool's option table, the same table that drives cli_parse and --help,
 * so a new option completes as soon as it exists. The build runs each tool
 * with the hidden "--print-completion SHELL" and installs the scripts.
 *
 * What an option's value completes to follows from its row: its choices
 * when it has some, files for the metavar FILE, directories for DIR,
 * process ids for PID, nothing otherwise. Operands complete to files, or
 * to a command line (tachyon-record -- COMMAND), as the caller says.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* What an option's value completes to. */
typedef enum {
    VALUE_NONE,    /* a flag: no value */
    VALUE_ANY,     /* a value, nothing to offer (N, REGEX, TEXT...) */
    VALUE_CHOICES, /* one of opt->choices */
    VALUE_FILE,
    VALUE_DIR,
    VALUE_PID
} value_kind;

static value_kind kind_of(const cli_option *o)
{
    const char *m = o->metavar ? o->metavar : "";

    if (o->kind == CLI_ARG_NONE)
        return VALUE_NONE;
    if (o->choices)
        return VALUE_CHOICES;
    if (strcmp(m, "FILE") == 0)
        return VALUE_FILE;
    if (strcmp(m, "DIR") == 0)
        return VALUE_DIR;
    if (strcmp(m, "PID") == 0)
        return VALUE_PID;
    return VALUE_ANY;
}

/* Every row of `spec`'s table, then the built-in ones. */
#define EACH_OPTION(spec, t, o)                                                \
    for (int t = 0; t < 2; t++)                                                \
        for (const cli_option *o = t ? cli_builtin_options : (spec)->options;  \
             o->long_name; o++)

/* True when every byte of `s` is a letter, digit or one of `extra`. */
static bool plain(const char *s, const char *extra)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
            return false;
    return true;
}

/* True when `s` holds no control character (help texts). */
static bool printable(const char *s)
{
    for (; s && *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return false;
    return true;
}

/*
 * The scripts put names and choices in shell words unquoted and help texts
 * in quotes: refuse a table whose names could break out of either.
 */
static bool spec_writable(const cli_spec *spec)
{
    if (!plain(spec->name, "_.-"))
        return false;
    EACH_OPTION(spec, t, o)
    {
        if (!plain(o->long_name, "-") || !printable(o->help) ||
            !printable(o->metavar))
            return false;
        if (o->short_name && !isalnum((unsigned char)o->short_name))
            return false;
        if (o->choices && !plain(o->choices, "|_.+:-"))
            return false;
    }
    return true;
}

/* `name` with every byte but letters and digits as '_': a function name. */
static void put_ident(FILE *out, const char *name)
{
    for (; *name; name++)
        fputc(isalnum((unsigned char)*name) ? *name : '_', out);
}

/* "a|b|c" as "a b c". */
static void put_choices(FILE *out, const char *choices)
{
    for (; *choices; choices++)
        fputc(*choices == '|' ? ' ' : *choices, out);
}

static void put_header(FILE *out, const cli_spec *spec, const char *shell)
{
    fprintf(out,
            "# %s completion for %s, written by \"%s --print-completion "
            "%s\"\n# from its option table.\n",
            shell, spec->name, spec->name, shell);
}

/* ------------------------------------------------------------------ */
/* bash                                                                */
/* ------------------------------------------------------------------ */

/* File or directory names into COMPREPLY, with bash-completion or not. */
static void bash_paths(FILE *out, bool dirs, const char *indent)
{
    fprintf(out,
            "%sif declare -F _filedir >/dev/null; then\n"
            "%s    _filedir%s\n"
            "%selse\n"
            "%s    compopt -o filenames 2>/dev/null\n"
            "%s    mapfile -t COMPREPLY < <(compgen -%c -- \"$cur\")\n"
            "%sfi\n",
            indent, indent, dirs ? " -d" : "", indent, indent, indent,
            dirs ? 'd' : 'f', indent);
}

static void bash_pids(FILE *out, const char *indent)
{
    fprintf(out,
            "%sif declare -F _pids >/dev/null; then\n"
            "%s    _pids\n"
            "%selse\n"
            "%s    mapfile -t COMPREPLY < <(compgen -W \"$(ps -eo pid= "
            "2>/dev/null)\" -- \"$cur\")\n"
            "%sfi\n",
            indent, indent, indent, indent, indent);
}

/* "-o|--output" for a case pattern. */
static void bash_pattern(FILE *out, const cli_option *o)
{
    if (o->short_name)
        fprintf(out, "-%c|", o->short_name);
    fprintf(out, "--%s", o->long_name);
}

/* The case arm for the options whose values complete as `kind`. */
static void bash_value_arm(FILE *out, const cli_spec *spec, value_kind kind)
{
    bool any = false;

    EACH_OPTION(spec, t, o)
    {
        if (kind_of(o) != kind)
            continue;
        fputs(any ? "|" : "    ", out);
        bash_pattern(out, o);
        any = true;
    }
    if (!any)
        return;
    fputs(")\n", out);
    if (kind == VALUE_FILE || kind == VALUE_DIR)
        bash_paths(out, kind == VALUE_DIR, "        ");
    else if (kind == VALUE_PID)
        bash_pids(out, "        ");
    fputs("        return ;;\n", out);
}

/*
 * bash replaces only the part of the word after its last ':' (a word
 * break): drop what comes before it from a choice with colons.
 */
static void bash_colon_trim(FILE *out)
{
    fputs("        if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then\n"
          "            COMPREPLY=(\"${COMPREPLY[@]#\"${cur%:*}:\"}\")\n"
          "        fi\n",
          out);
}

/* A case arm per option with choices, then one per other value kind. */
static void bash_values(FILE *out, const cli_spec *spec)
{
    fputs("    case $prev in\n", out);
    EACH_OPTION(spec, t, o)
    {
        if (kind_of(o) != VALUE_CHOICES)
            continue;
        fputs("    ", out);
        bash_pattern(out, o);
        fputs(")\n        mapfile -t COMPREPLY < <(compgen -W '", out);
        put_choices(out, o->choices);
        fputs("' -- \"$cur\")\n", out);
        if (strchr(o->choices, ':'))
            bash_colon_trim(out);
        fputs("        return ;;\n", out);
    }
    bash_value_arm(out, spec, VALUE_FILE);
    bash_value_arm(out, spec, VALUE_DIR);
    bash_value_arm(out, spec, VALUE_PID);
    bash_value_arm(out, spec, VALUE_ANY);
    fputs("    esac\n", out);
}

/* Words after "--" (at index $i): files, or a command and its arguments. */
static void bash_after_dashes(FILE *out, cli_operand_kind operands)
{
    const char *in = "            ";

    if (operands != CLI_OPERANDS_COMMAND) {
        bash_paths(out, false, in);
        return;
    }
    fprintf(out,
            "%sif declare -F _command_offset >/dev/null; then\n"
            "%s    _command_offset $((i + 1))\n"
            "%selif ((COMP_CWORD == i + 1)); then\n"
            "%s    mapfile -t COMPREPLY < <(compgen -c -- \"$cur\")\n"
            "%selse\n",
            in, in, in, in, in);
    bash_paths(out, false, "                ");
    fprintf(out, "%sfi\n", in);
}

static void bash_options_list(FILE *out, const cli_spec *spec)
{
    bool first = true;

    fputs("        mapfile -t COMPREPLY < <(compgen -W '", out);
    EACH_OPTION(spec, t, o)
    {
        if (o->short_name)
            fprintf(out, "%s-%c", first ? "" : " ", o->short_name);
        fprintf(out, "%s--%s", first && !o->short_name ? "" : " ",
                o->long_name);
        first = false;
    }
    fputs("' -- \"$cur\")\n", out);
}

static void bash_script(FILE *out, const cli_spec *spec,
                        cli_operand_kind operands)
{
    put_header(out, spec, "bash");
    fputc('_', out);
    put_ident(out, spec->name);
    fputs("()\n{\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev= i=$COMP_CWORD\n"
          "    COMPREPLY=()\n"
          "    # A value split at ':' (COMP_WORDBREAKS) is joined again.\n"
          "    while ((i > 1)) && [[ ${COMP_WORDS[i]} == : ||\n"
          "        ${COMP_WORDS[i - 1]} == : ]]; do\n"
          "        cur=${COMP_WORDS[i - 1]}$cur\n"
          "        ((i--))\n"
          "    done\n"
          "    # \"--name=value\" comes as the words \"--name\", \"=\", "
          "\"value\".\n"
          "    if [[ $cur == = ]]; then\n"
          "        cur= prev=${COMP_WORDS[i - 1]}\n"
          "    elif ((i > 1)) && [[ ${COMP_WORDS[i - 1]} == = ]]; then\n"
          "        prev=${COMP_WORDS[i - 2]}\n"
          "    elif ((i > 0)); then\n"
          "        prev=${COMP_WORDS[i - 1]}\n"
          "    fi\n"
          "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
          "        if [[ ${COMP_WORDS[i]} == -- ]]; then\n",
          out);
    bash_after_dashes(out, operands);
    fputs("            return\n        fi\n    done\n", out);
    bash_values(out, spec);
    fputs("    if [[ $cur == -* ]]; then\n", out);
    bash_options_list(out, spec);
    fputs("        return\n    fi\n", out);
    if (operands == CLI_OPERANDS_COMMAND)
        fputs("    [[ $cur ]] || COMPREPLY=(--)\n", out);
    else
        bash_paths(out, false, "    ");
    fputs("}\ncomplete -F _", out);
    put_ident(out, spec->name);
    fprintf(out, " %s\n", spec->name);
}

/* ------------------------------------------------------------------ */
/* zsh                                                                 */
/* ------------------------------------------------------------------ */

/*
 * `s` inside a single-quoted _arguments spec: a quote closes and reopens
 * the quoting, and `special` (brackets in a description, a colon in a
 * message) takes a backslash.
 */
static void zsh_text(FILE *out, const char *s, const char *special)
{
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", out);
        else if (*s == '\\' || strchr(special, *s))
            fprintf(out, "\\%c", *s);
        else
            fputc(*s, out);
    }
}

/* "a|b:c" as "a b\:c": a colon in a choice takes a backslash. */
static void zsh_choices(FILE *out, const char *choices)
{
    for (; *choices; choices++) {
        if (*choices == ':')
            fputc('\\', out);
        fputc(*choices == '|' ? ' ' : *choices, out);
    }
}

/* ":FORMAT:(a b c)" and the like, after the description. */
static void zsh_action(FILE *out, const cli_option *o)
{
    value_kind kind = kind_of(o);

    if (kind == VALUE_NONE)
        return;
    fputc(':', out);
    zsh_text(out, o->metavar ? o->metavar : "ARG", ":");
    fputc(':', out);
    switch (kind) {
    case VALUE_CHOICES:
        fputc('(', out);
        zsh_choices(out, o->choices);
        fputc(')', out);
        break;
    case VALUE_FILE: fputs("_files", out); break;
    case VALUE_DIR: fputs("_files -/", out); break;
    case VALUE_PID: fputs("_pids", out); break;
    default: fputc(' ', out); break; /* a value, nothing to offer */
    }
}

/*
 * One spec line: '(-o --output)'{-o+,--output=}'[help]:FILE:_files'.
 * A repeatable option has '*' and no exclusion; "-o+" and "--output="
 * take the value in the same word or the next.
 */
static void zsh_option(FILE *out, const cli_option *o)
{
    bool takes = o->kind != CLI_ARG_NONE;
    bool many = o->kind == CLI_ARG_REPEATABLE;

    fputs("  ", out);
    if (many)
        fputs("'*'", out);
    else if (o->short_name)
        fprintf(out, "'(-%c --%s)'", o->short_name, o->long_name);
    if (o->short_name)
        fprintf(out, "{-%c%s,--%s%s}'", o->short_name, takes ? "+" : "",
                o->long_name, takes ? "=" : "");
    else
        fprintf(out, "'--%s%s", o->long_name, takes ? "=" : "");
    fputc('[', out);
    zsh_text(out, o->help ? o->help : "", "[]");
    fputc(']', out);
    zsh_action(out, o);
    fputs("' \\\n", out);
}

static void zsh_script(FILE *out, const cli_spec *spec,
                       cli_operand_kind operands)
{
    fprintf(out, "#compdef %s\n", spec->name);
    put_header(out, spec, "zsh");
    fputs("_arguments -s -S : \\\n", out);
    EACH_OPTION(spec, t, o)
    zsh_option(out, o);
    if (operands == CLI_OPERANDS_COMMAND)
        fputs("  '(-)1:command: _command_names -e' \\\n"
              "  '*::arguments: _normal'\n",
              out);
    else
        fputs("  '*:file:_files'\n", out);
}

/* ------------------------------------------------------------------ */
/* fish                                                                */
/* ------------------------------------------------------------------ */

/* `s` single-quoted for fish: backslash and quote take a backslash. */
static void fish_quoted(FILE *out, const char *s)
{
    fputc('\'', out);
    for (; *s; s++) {
        if (*s == '\'' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
    fputc('\'', out);
}

/* What follows "-r" for a value: -x (no files), -F (files) and the list. */
static void fish_value(FILE *out, const cli_option *o)
{
    switch (kind_of(o)) {
    case VALUE_NONE: break;
    case VALUE_CHOICES:
        fputs(" -x -a '", out);
        put_choices(out, o->choices);
        fputc('\'', out);
        break;
    case VALUE_FILE: fputs(" -r -F", out); break;
    case VALUE_DIR: fputs(" -x -a '(__fish_complete_directories)'", out); break;
    case VALUE_PID: fputs(" -x -a '(__fish_complete_pids)'", out); break;
    default: fputs(" -x", out); break;
    }
}

/*
 * After "--", the rest of the line is a command of its own: complete it
 * as fish would if it stood alone.
 */
static void fish_command_operands(FILE *out, const cli_spec *spec)
{
    fputs("function __", out);
    put_ident(out, spec->name);
    fputs("_command\n"
          "    set -l words (commandline -opc)\n"
          "    set -l at (contains -i -- -- $words)\n"
          "    set -l rest (string escape -- $words[(math $at + 1)..-1])\n"
          "    complete -C \"$rest \"(commandline -ct)\n"
          "end\n",
          out);
    fprintf(out,
            "complete -c %s -n 'contains -- -- (commandline -opc)' -x -a "
            "'(__",
            spec->name);
    put_ident(out, spec->name);
    fputs("_command)'\n", out);
}

static void fish_script(FILE *out, const cli_spec *spec,
                        cli_operand_kind operands)
{
    put_header(out, spec, "fish");
    EACH_OPTION(spec, t, o)
    {
        fprintf(out, "complete -c %s", spec->name);
        if (o->short_name)
            fprintf(out, " -s %c", o->short_name);
        fprintf(out, " -l %s", o->long_name);
        fish_value(out, o);
        fputs(" -d ", out);
        fish_quoted(out, o->help ? o->help : "");
        fputc('\n', out);
    }
    if (operands == CLI_OPERANDS_COMMAND)
        fish_command_operands(out, spec);
}

/* ------------------------------------------------------------------ */

int cli_write_completion(FILE *out, const cli_spec *spec,
                         cli_operand_kind operands, const char *shell)
{
    if (!spec_writable(spec))
        return cli_fail(CLI_EXIT_TROUBLE,
                        "internal error: an option name or help text cannot "
                        "go into a completion script");
    if (strcmp(shell, "bash") == 0)
        bash_script(out, spec, operands);
    else if (strcmp(shell, "zsh") == 0)
        zsh_script(out, spec, operands);
    else if (strcmp(shell, "fish") == 0)
        fish_script(out, spec, operands);
    else
        return cli_usage("invalid argument '%s' for '--print-completion' "
                         "(expected bash, zsh or fish)",
                         shell);
    return CLI_EXIT_OK;
}

int cli_print_completion(const cli_spec *spec, cli_operand_kind operands,
                         const char *shell)
{
    int code = cli_write_completion(stdout, spec, operands, shell);
    return cli_close_stdout(code);
}
