/* SPDX-License-Identifier: MIT */
/*
 * test_cli_opt.c - the option-table parser of tools/common (cli_opt.c):
 * argument shapes, repeatable options, operands, "--", the built-in
 * options and the exact usage-error messages. The tools' golden tests
 * cover the parser only through tachyon-conv's table.
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
    {"include", 'I', CLI_ARG_REPEATABLE, &incl, "add a rule", "RE", NULL},
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

    REQUIRE(parse(&e, ARGV("-vqv", "--verbose")) == CLI_PARSE_OK, "%s", e.msg);
    CHECK(flag_v == 3, "-v counted %d times, expected 3", flag_v);
    CHECK(flag_q == 1, "-q counted %d times, expected 1", flag_q);
    REQUIRE(parse(&e, ARGV("-vofile")) == CLI_PARSE_OK, "%s", e.msg);
    CHECK(flag_v == 1 && out && strcmp(out, "file") == 0,
          "-vofile: v=%d out=%s", flag_v, out);
}

TEST(repeatable_and_operands)
{
    cli_parse_error e;

    REQUIRE(parse(&e, ARGV("a", "-I", "x", "-", "--include=y", "b", "--", "-v",
                           "--frob")) == CLI_PARSE_OK,
            "%s", e.msg);
    REQUIRE(incl.count == 2, "2 includes expected, got %zu", incl.count);
    CHECK(strcmp(incl.items[0], "x") == 0 && strcmp(incl.items[1], "y") == 0,
          "includes in order");
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
      TCASE(error_messages), TCASE(exit_codes))
