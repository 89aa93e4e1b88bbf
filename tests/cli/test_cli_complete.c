/* SPDX-License-Identifier: MIT */
/*
 * test_cli_complete.c - the completion scripts of tools/common
 * (cli_complete.c): every byte of the bash, zsh and fish scripts for a
 * table with each kind of value, against tests/cli/completion/; and the
 * refusals (an unknown shell, a table a script cannot hold).
 * tests/completion/complete_test.sh drives the real tools' scripts in the
 * shells themselves.
 *
 * usage: test_cli_complete DIR [--update]   (DIR: tests/cli/completion)
 */
#include "../unit/harness.h"
#include "cli.h"

static const char *golden_dir;
static bool update;

static int flag;
static const char *value;
static cli_list list, operands;

/* One row of each value kind, quotes and brackets in the help texts. */
static const cli_option table[] = {
    {"verbose", 'v', CLI_ARG_NONE, &flag, "more output", NULL, NULL},
    {"dry-run", 0, CLI_ARG_NONE, &flag, "don't write [anything]", NULL, NULL},
    {"output", 'o', CLI_ARG_REQUIRED, &value, "write to FILE", "FILE", NULL},
    {"root", 0, CLI_ARG_REQUIRED, &value, "look below DIR", "DIR", NULL},
    {"pid", 'p', CLI_ARG_REQUIRED, &value, "attach to PID", "PID", NULL},
    {"to", 't', CLI_ARG_REQUIRED, &value, "format: a, b:c or 'd'", "FMT",
     "a|b:c|d-e"},
    {"title", 0, CLI_ARG_REQUIRED, &value, "a \\ title", "TEXT", NULL},
    {"include", 'I', CLI_ARG_REPEATABLE, &list, "add a rule", "RE", NULL},
    {NULL, 0, CLI_ARG_NONE, NULL, NULL, NULL, NULL}};

static const cli_spec spec = {"prog-x", "[OPTIONS] FILE...", "Test.",
                              table,    &operands,           NULL};

/* The script for `shell` as a malloc'd string, and the exit code. */
static char *script(const cli_spec *s, cli_operand_kind kind, const char *shell,
                    int *code)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);

    if (!out)
        return NULL;
    *code = cli_write_completion(out, s, kind, shell);
    fclose(out);
    return text;
}

/* Compare with (or, updating, write) DIR/NAME. */
static void check_golden(const char *name, const char *actual)
{
    char path[1024];
    size_t len = 0;
    unsigned char *expected;

    snprintf(path, sizeof path, "%s/%s", golden_dir, name);
    if (update) {
        FILE *f = fopen(path, "wb");
        REQUIRE(f, "cannot write %s", path);
        fputs(actual, f);
        REQUIRE(fclose(f) == 0, "cannot write %s", path);
        return;
    }
    expected = harness_slurp(path, &len);
    REQUIRE(expected, "cannot read %s", path);
    CHECK(len == strlen(actual) && memcmp(expected, actual, len) == 0,
          "%s differs; actual output:\n%s", path, actual);
    free(expected);
}

static void check_shell(const char *shell)
{
    static const struct {
        cli_operand_kind kind;
        const char *suffix;
    } kinds[] = {{CLI_OPERANDS_FILES, ""}, {CLI_OPERANDS_COMMAND, "-command"}};

    for (size_t i = 0; i < 2; i++) {
        char name[64];
        int code = -1;
        char *text = script(&spec, kinds[i].kind, shell, &code);
        REQUIRE(text, "open_memstream failed");
        CHECK(code == CLI_EXIT_OK, "%s: exit code %d", shell, code);
        snprintf(name, sizeof name, "prog%s.%s", kinds[i].suffix, shell);
        check_golden(name, text);
        free(text);
    }
}

TEST(bash)
{
    check_shell("bash");
}

TEST(zsh)
{
    check_shell("zsh");
}

TEST(fish)
{
    check_shell("fish");
}

TEST(unknown_shell)
{
    int code = -1;
    char *text = script(&spec, CLI_OPERANDS_FILES, "tcsh", &code);

    CHECK(code == CLI_EXIT_TROUBLE, "tcsh: exit code %d", code);
    CHECK(text && !*text, "tcsh: wrote %s", text);
    free(text);
}

/* A name or help text that would break out of its quoting is refused. */
TEST(unsafe_tables)
{
    static const cli_option quote[] = {
        {"a'b", 0, CLI_ARG_NONE, &flag, "x", NULL, NULL},
        {NULL, 0, CLI_ARG_NONE, NULL, NULL, NULL, NULL}};
    static const cli_option newline[] = {
        {"ab", 0, CLI_ARG_NONE, &flag, "x\nrm -rf /", NULL, NULL},
        {NULL, 0, CLI_ARG_NONE, NULL, NULL, NULL, NULL}};
    static const cli_option choice[] = {
        {"ab", 0, CLI_ARG_REQUIRED, &value, "x", "X", "a|$(b)"},
        {NULL, 0, CLI_ARG_NONE, NULL, NULL, NULL, NULL}};
    const cli_option *tables[] = {quote, newline, choice};
    const char *shells[] = {"bash", "zsh", "fish"};

    for (size_t t = 0; t < 3; t++) {
        cli_spec s = {"prog", "", "", tables[t], &operands, NULL};
        for (size_t i = 0; i < 3; i++) {
            int code = -1;
            char *text = script(&s, CLI_OPERANDS_FILES, shells[i], &code);
            CHECK(code == CLI_EXIT_TROUBLE, "table %zu, %s: exit code %d", t,
                  shells[i], code);
            CHECK(text && !*text, "table %zu, %s: wrote %s", t, shells[i],
                  text);
            free(text);
        }
    }
}

int main(int argc, char **argv)
{
    static const harness_case cases[] = {TCASE(bash), TCASE(zsh), TCASE(fish),
                                         TCASE(unknown_shell),
                                         TCASE(unsafe_tables)};

    if (argc < 2) {
        fprintf(stderr, "usage: test_cli_complete DIR [--update]\n");
        return 2;
    }
    golden_dir = argv[1];
    update = argc > 2 && strcmp(argv[2], "--update") == 0;
    return harness_run(cases, sizeof cases / sizeof cases[0], 1, argv);
}
