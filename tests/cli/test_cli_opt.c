/* SPDX-License-Identifier: MIT */
/*
 * test_cli_opt.c - the option-table parser of tools/common (cli_opt.c):
 * argument shapes, repeatable options, operands, "--", the built-in
 * options, --quiet against --verbose, the check of a table's letters
 * (cli_letters.c), the exact usage-error messages and the words of the
 * next steps (cli_hint). test_cli_letters.c checks the tools' own tables.
 */
#include "../unit/harness.h"
#include "cli.h"

static int flag_v, flag_q;
static const char *out, *to;
static cli_list incl, operands;

static const cli_option table[] = {
    {"verbose", 'v', CLI_ARG_NONE, &flag_v, "more output", NULL, NULL},
    {"quiet", 'q', CLI_ARG_NONE, &flag_q, "less output", NULL, NULL},
    {"output", 'o', CLI_ARG_REQUIRED, &out, "write to FILE", "FILE", NULL},
    {"to", 0, CLI_ARG_REQUIRED, &to, "format", "FMT", "a|bb|ccc"},
    {"label", 'l', CLI_ARG_REPEATABLE, &incl, "add a label", "KV", NULL},
    {NULL, 0, CLI_ARG_NONE, NULL, NULL, NULL, NULL}};

static const cli_spec spec = {"prog", "[OPTIONS] FILE...", "Test.",
                              table,  &operands,           NULL};

/* Reset the targets and parse a NULL-terminated argument vector. */
static int parse(cli_parse_error *err, char **argv)
{
    int argc = 0;

    flag_v = flag_q = 0;
    out = to = NULL;
    cli_list_free(&incl);
    cli_list_free(&operands);
    while (argv[argc])
        argc++;
    return cli_parse(&spec, argc, argv, err);
}

#define ARGV(...) ((char *[]){"prog", __VA_ARGS__, NULL})

TEST(value_shapes)
{
    cli_parse_error e;

    REQUIRE(parse(&e, ARGV("-o", "x")) == CLI_PARSE_OK, "%s", e.msg);
    CHECK(out && strcmp(out, "x") == 0, "-o x gave %s", out);
    REQUIRE(parse(&e, ARGV("-oy")) == CLI_PARSE_OK, "%s", e.msg);
    CHECK(out && strcmp(out, "y") == 0, "-oy gave %s", out);
    REQUIRE(parse(&e, ARGV("--output=z=1")) == CLI_PARSE_OK, "%s", e.msg);
    CHECK(out && strcmp(out, "z=1") == 0, "--output=z=1 gave %s", out);
    REQUIRE(parse(&e, ARGV("--output", "-")) == CLI_PARSE_OK, "%s", e.msg);
    CHECK(out && strcmp(out, "-") == 0, "a value may be '-'");
    REQUIRE(parse(&e, ARGV("-o", "a", "-o", "b")) == CLI_PARSE_OK, "%s", e.msg);
    CHECK(strcmp(out, "b") == 0, "the last use wins, got %s", out);
}

TEST(flags_count_and_bundle)
{
    cli_parse_error e;

    REQUIRE(parse(&e, ARGV("-vv", "--verbose")) == CLI_PARSE_OK, "%s", e.msg);
    CHECK(flag_v == 3, "-v counted %d times, expected 3", flag_v);
    REQUIRE(parse(&e, ARGV("-qq")) == CLI_PARSE_OK, "%s", e.msg);
    CHECK(flag_q == 2, "-q counted %d times, expected 2", flag_q);
    REQUIRE(parse(&e, ARGV("-vofile")) == CLI_PARSE_OK, "%s", e.msg);
    CHECK(flag_v == 1 && out && strcmp(out, "file") == 0,
          "-vofile: v=%d out=%s", flag_v, out);
}

TEST(repeatable_and_operands)
{
    cli_parse_error e;

    REQUIRE(parse(&e, ARGV("a", "-l", "x", "-", "--label=y", "b", "--", "-v",
                           "--frob")) == CLI_PARSE_OK,
            "%s", e.msg);
    REQUIRE(incl.count == 2, "2 labels expected, got %zu", incl.count);
    CHECK(strcmp(incl.items[0], "x") == 0 && strcmp(incl.items[1], "y") == 0,
          "labels in order");
    REQUIRE(operands.count == 5, "5 operands expected, got %zu",
            operands.count);
    CHECK(strcmp(operands.items[0], "a") == 0, "operand 0");
    CHECK(strcmp(operands.items[1], "-") == 0, "'-' is an operand");
    CHECK(strcmp(operands.items[2], "b") == 0, "operand 2");
    CHECK(strcmp(operands.items[3], "-v") == 0, "after --, -v is an operand");
    CHECK(strcmp(operands.items[4], "--frob") == 0, "and so is --frob");
    CHECK(flag_v == 0, "-v after -- is not a flag");
}

TEST(choices)
{
    cli_parse_error e;

    CHECK(parse(&e, ARGV("--to", "bb")) == CLI_PARSE_OK, "%s", e.msg);
    CHECK(parse(&e, ARGV("--to=b")) == CLI_PARSE_ERROR, "prefix accepted");
    CHECK(strcmp(e.msg, "invalid argument 'b' for '--to' (expected a, bb or "
                        "ccc)") == 0,
          "got '%s'", e.msg);
    CHECK(parse(&e, ARGV("--to=cccc")) == CLI_PARSE_ERROR, "longer value");
}

TEST(builtins)
{
    cli_parse_error e;

    CHECK(parse(&e, ARGV("x", "--help", "--frob")) == CLI_PARSE_HELP,
          "--help before a bad option wins");
    CHECK(parse(&e, ARGV("-vh")) == CLI_PARSE_HELP, "-h in a bundle");
    CHECK(parse(&e, ARGV("-V")) == CLI_PARSE_VERSION, "-V");
    CHECK(parse(&e, ARGV("--version")) == CLI_PARSE_VERSION, "--version");
    CHECK(parse(&e, ARGV("--frob", "--help")) == CLI_PARSE_ERROR,
          "a bad option before --help is reported");
    CHECK(strcmp(cli_program(), "prog") == 0, "program name set, got %s",
          cli_program());
}

TEST(error_messages)
{
    const struct {
        char **argv;
        const char *msg;
    } cases[] = {
        {ARGV("--frob"), "unknown option '--frob'"},
        {ARGV("--frob=1"), "unknown option '--frob'"},
        {ARGV("--verb"), "unknown option '--verb'"},
        {ARGV("-vx"), "unknown option '-x'"},
        {ARGV("-o"), "option '-o' requires an argument"},
        {ARGV("--output"), "option '--output' requires an argument"},
        {ARGV("--verbose=1"), "option '--verbose' doesn't allow an argument"},
    };
    cli_parse_error e;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(parse(&e, cases[i].argv) == CLI_PARSE_ERROR, "case %zu", i);
        CHECK(strcmp(e.msg, cases[i].msg) == 0, "case %zu: got '%s'", i, e.msg);
    }
}

TEST(quiet_verbose)
{
    static const char msg[] = "options '--quiet' and '--verbose' exclude "
                              "each other";
    char **uses[] = {ARGV("-q", "-v"), ARGV("-qv"), ARGV("--verbose", "-q"),
                     ARGV("x", "--quiet", "y", "-vv")};
    cli_parse_error e;

    for (size_t i = 0; i < sizeof uses / sizeof uses[0]; i++) {
        CHECK(parse(&e, uses[i]) == CLI_PARSE_ERROR, "case %zu accepted", i);
        CHECK(strcmp(e.msg, msg) == 0, "case %zu: got '%s'", i, e.msg);
    }
    CHECK(parse(&e, ARGV("-q", "-v", "--help")) == CLI_PARSE_HELP,
          "--help still answers");
}

/* A table whose letter breaks cli_letters.c is refused, with the reason. */
TEST(letters)
{
    static int n;
    static const cli_option other[] = {
        {"normalize", 'n', CLI_ARG_NONE, &n, "x", NULL, NULL},
        {NULL, 0, CLI_ARG_NONE, NULL, NULL, NULL, NULL}};
    static const cli_option unknown[] = {
        {"zap", 'Z', CLI_ARG_NONE, &n, "x", NULL, NULL},
        {NULL, 0, CLI_ARG_NONE, NULL, NULL, NULL, NULL}};
    const cli_spec bad = {"prog", "", NULL, other, &operands, NULL};
    const cli_spec odd = {"prog", "", NULL, unknown, &operands, NULL};
    char msg[256];
    cli_parse_error e;

    CHECK(cli_spec_check(&spec, msg, sizeof msg), "test table: %s", msg);
    CHECK(!cli_spec_check(&bad, msg, sizeof msg), "-n as --normalize");
    CHECK(strcmp(msg, "internal error: option '-n' is '--normalize' here but "
                      "'--top' in every tachyon tool") == 0,
          "got '%s'", msg);
    CHECK(!cli_spec_check(&odd, msg, sizeof msg), "-Z accepted");
    CHECK(strcmp(msg, "internal error: option '-Z' ('--zap') is not a letter "
                      "of the tachyon tools (cli_letters.c)") == 0,
          "got '%s'", msg);
    char *argv[] = {"prog", NULL};
    CHECK(cli_parse(&bad, 1, argv, &e) == CLI_PARSE_ERROR,
          "cli_parse took a bad table");

    size_t count;
    const cli_letter *l = cli_letters(&count);
    for (size_t i = 0; i < count; i++)
        for (size_t j = i + 1; j < count; j++) {
            CHECK(l[i].letter != l[j].letter, "-%c listed twice", l[i].letter);
            CHECK(strcmp(l[i].long_name, l[j].long_name) != 0,
                  "--%s has two letters", l[i].long_name);
        }
    for (size_t i = 0; i < count; i++)
        CHECK(l[i].letter != 'h' && l[i].letter != 'V',
              "-%c is built in (--help, --version)", l[i].letter);
}

/* The words of the next steps, and when there is none. */
TEST(hints)
{
    char b[CLI_HINT_MAX];

    CHECK(strcmp(cli_hint(b, sizeof b, "a.bin", TFMT_HINT_RECOVER),
                 " (if its recording was killed, try 'tachyon-record "
                 "--recover a.bin')") == 0,
          "recover: '%s'", b);
    CHECK(strcmp(cli_hint(b, sizeof b, "d/a-1.jsonl", TFMT_HINT_CHECK),
                 " (run 'tachyon-validate d/a-1.jsonl' for every problem)") ==
              0,
          "check: '%s'", b);
    CHECK(strcmp(cli_hint(b, sizeof b, "a.bin", TFMT_HINT_NONE), "") == 0,
          "none: '%s'", b);
    CHECK(strcmp(cli_hint(b, sizeof b, "<stdin>", TFMT_HINT_RECOVER), "") == 0,
          "stdin cannot be reopened: '%s'", b);
    CHECK(strstr(cli_hint(b, sizeof b, "my run.bin", TFMT_HINT_CHECK),
                 "'tachyon-validate FILE'") != NULL,
          "a name with a space: '%s'", b);
    CHECK(strstr(cli_hint(b, sizeof b, "-x.bin", TFMT_HINT_RECOVER),
                 "--recover FILE'") != NULL,
          "a name like an option: '%s'", b);
    cli_set_checker(true);
    CHECK(strcmp(cli_hint(b, sizeof b, "a.bin", TFMT_HINT_CHECK), "") == 0,
          "tachyon-validate suggests itself: '%s'", b);
    CHECK(strstr(cli_hint(b, sizeof b, "a.bin", TFMT_HINT_RECOVER),
                 "--recover a.bin") != NULL,
          "but tachyon-record --recover still: '%s'", b);
    cli_set_checker(false);
}

TEST(exit_codes)
{
    CHECK(cli_exit_code(TFMT_OK) == 0, "OK");
    CHECK(cli_exit_code(TFMT_DONE) == 0, "DONE");
    CHECK(cli_exit_code(TFMT_EFORMAT) == 1, "EFORMAT");
    CHECK(cli_exit_code(TFMT_ETRUNC) == 1, "ETRUNC");
    CHECK(cli_exit_code(TFMT_EVERSION) == 1, "EVERSION");
    CHECK(cli_exit_code(TFMT_ELIMIT) == 1, "ELIMIT");
    CHECK(cli_exit_code(TFMT_ESCHEMA) == 1, "ESCHEMA");
    CHECK(cli_exit_code(TFMT_EIO) == 2, "EIO");
    CHECK(cli_exit_code(TFMT_ENOMEM) == 2, "ENOMEM");
    CHECK(cli_exit_code(TFMT_EINVAL) == 2, "EINVAL");
    CHECK(strcmp(cli_input_name("-"), "<stdin>") == 0, "stdin name");
    CHECK(strcmp(cli_output_name(NULL), "<stdout>") == 0, "stdout name");
    CHECK(strcmp(cli_input_name("a.bin"), "a.bin") == 0, "path kept");
}

TESTS(TCASE(value_shapes), TCASE(flags_count_and_bundle),
      TCASE(repeatable_and_operands), TCASE(choices), TCASE(builtins),
      TCASE(quiet_verbose), TCASE(letters), TCASE(hints), TCASE(error_messages),
      TCASE(exit_codes))
