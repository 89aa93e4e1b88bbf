/* SPDX-License-Identifier: MIT */
/*
 * test_cli_letters.c - one meaning per short option across the four
 * tools. The option tables of tachyon-conv, tachyon-diff and
 * tachyon-validate are linked in (each tool keeps its table in its own
 * options.c) and read row by row: every letter is in cli_letters.c and
 * means the same long option in every tool, and the letters the tools
 * share are there. tachyon-record's table is static in its options.c, so
 * it is checked through its parser, which refuses a table that breaks
 * cli_letters.c and --quiet with --verbose.
 */
#include <fcntl.h>
#include <unistd.h>

#include "../unit/harness.h"
#include "cli.h"
#ifdef HAVE_RECORD
#include "options.h" /* tachyon-record */
#endif

extern const cli_spec conv_spec, diff_spec, tv_spec;

static const cli_spec *const specs[] = {&conv_spec, &diff_spec, &tv_spec};

static const cli_option *row_of(const cli_spec *s, char letter)
{
    for (const cli_option *o = s->options; o->long_name; o++)
        if (o->short_name == letter)
            return o;
    return NULL;
}

TEST(tables_follow_the_letters)
{
    char msg[256];
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        CHECK(cli_spec_check(specs[i], msg, sizeof msg), "%s: %s",
              specs[i]->name, msg);
}

/* Every pair of tools: a letter both have is the same long option. */
TEST(a_letter_means_one_option)
{
    size_t n = sizeof specs / sizeof specs[0];
    for (size_t i = 0; i < n; i++)
        for (const cli_option *o = specs[i]->options; o->long_name; o++)
            for (size_t j = 0; o->short_name && j < n; j++) {
                const cli_option *p = row_of(specs[j], o->short_name);
                CHECK(!p || strcmp(p->long_name, o->long_name) == 0,
                      "-%c is --%s in %s but --%s in %s", o->short_name,
                      o->long_name, specs[i]->name, p ? p->long_name : "",
                      specs[j]->name);
            }
}

/* The letters issue 21 names, where each tool has them. */
TEST(shared_letters)
{
    static const struct {
        char letter;
        const char *long_name;
        bool conv, diff, validate;
    } want[] = {
        {'o', "output", true, true, true},  {'f', "force", true, true, true},
        {'q', "quiet", true, true, true},   {'v', "verbose", true, true, true},
        {'F', "format", false, true, true}, {'n', "top", true, true, false},
        {'j', "jobs", true, false, false},  {'m', "metric", false, true, false},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        bool has[3] = {want[i].conv, want[i].diff, want[i].validate};
        for (size_t t = 0; t < 3; t++) {
            const cli_option *o = row_of(specs[t], want[i].letter);
            if (!has[t]) {
                CHECK(!o, "%s has -%c", specs[t]->name, want[i].letter);
                continue;
            }
            CHECK(o && strcmp(o->long_name, want[i].long_name) == 0,
                  "%s: -%c is not --%s", specs[t]->name, want[i].letter,
                  want[i].long_name);
        }
    }
}

/* Every long option a tool had before issue 21 is still there. */
TEST(long_options_kept)
{
    static const char *const kept[][40] = {
        {"to",
         "output",
         "force",
         "run-id",
         "compression",
         "title",
         "top",
         "per-thread",
         "include",
         "exclude",
         "drop",
         "rewrite",
         "thread",
         "gil",
         "on-cpu",
         "exception",
         "skip-idle",
         "collapse-recursion",
         "no-lines",
         "pstats-compat",
         "label",
         "time",
         "source-root",
         "path-map",
         "jobs",
         "max-input-size",
         "max-input-ratio",
         "max-threads",
         "quiet",
         "verbose",
         NULL},
        {"base",
         "new",
         "key",
         "rewrite",
         "include",
         "exclude",
         "normalize",
         "metric",
         "min-delta",
         "min-samples",
         "alpha",
         "fail-on-regression",
         "top",
         "format",
         "color",
         "output",
         "max-threads",
         "force",
         "max-input-size",
         "max-input-ratio",
         "quiet",
         "verbose",
         NULL},
        {"format", "strict", "max-errors", "max-line", "max-input-size",
         "max-input-ratio", "max-threads", "list-rules", "quiet", "verbose",
         NULL},
    };
    for (size_t t = 0; t < 3; t++)
        for (size_t k = 0; kept[t][k]; k++) {
            const cli_option *o = specs[t]->options;
            while (o->long_name && strcmp(o->long_name, kept[t][k]) != 0)
                o++;
            CHECK(o->long_name, "%s lost --%s", specs[t]->name, kept[t][k]);
        }
}

#ifdef HAVE_RECORD
/* Run tachyon-record's parser on argv; its stderr into `err`. */
static int record_parse(char **argv, char *err, size_t cap)
{
    char path[] = "/tmp/test_cli_letters.XXXXXX";
    int fd = mkstemp(path);
    int saved = dup(STDERR_FILENO);
    int argc = 0;
    while (argv[argc])
        argc++;
    fflush(stderr);
    dup2(fd, STDERR_FILENO);
    rec_options o;
    int rc = rec_parse_options(argc, argv, &o);
    free(o.command);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    ssize_t n = pread(fd, err, cap - 1, 0);
    err[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    return rc;
}

TEST(record)
{
    char err[512];
    /* every letter of its table: refused if one broke cli_letters.c */
    char *all[] = {
        "tachyon-record", "-o", "x.bin", "-r", "100", "-d", "1", "-a", "-c",
        "zstd",           "-f", "-q",    "-p", "1",   NULL};
    CHECK(record_parse(all, err, sizeof err) == REC_PARSE_RUN, "%s", err);
    char *qv[] = {"tachyon-record", "-v", "-q", "-p", "1", NULL};
    CHECK(record_parse(qv, err, sizeof err) == CLI_EXIT_TROUBLE, "-q -v: %s",
          err);
    CHECK(strstr(err, "options '--quiet' and '--verbose' exclude each other"),
          "got '%s'", err);
}

#else
TEST(record)
{
    puts("tachyon-record is not built here: its table is not checked");
}
#endif

TESTS(TCASE(tables_follow_the_letters), TCASE(a_letter_means_one_option),
      TCASE(shared_letters), TCASE(long_options_kept), TCASE(record))
