/* SPDX-License-Identifier: MIT */
/*
 * test_text_safe.c - tools/common/text_safe.c: every C0 and C1 control,
 * DEL, U+2028/U+2029 and every byte that is not UTF-8 comes out as a
 * visible escape; well-formed UTF-8 passes unchanged; the output is cut
 * between whole escapes; cli_escape marks a cut with "...".
 */
#include "../unit/harness.h"
#include "text_safe.h"

/* `in` (n bytes) escaped, compared with `want`. */
static void expect_esc(const char *in, size_t n, const char *want)
{
    char out[256];
    size_t need = cli_escape_text(out, sizeof out, in, n);
    CHECK(strcmp(out, want) == 0, "escaped to '%s', want '%s'", out, want);
    CHECK(need == strlen(want), "needs %zu, want %zu", need, strlen(want));
    CHECK(cli_text_is_inert(in, n) ==
              (strcmp(in, want) == 0 && n == strlen(want)),
          "is_inert disagrees for '%s'", want);
}

#define ESC(lit, want) expect_esc(lit, sizeof lit - 1, want)

TEST(controls)
{
    ESC("a\tb\nc\rd", "a\\tb\\nc\\rd");
    ESC("\x1b[31mred", "\\x1b[31mred");
    ESC("bell\x07", "bell\\x07");
    ESC("del\x7f", "del\\x7f");
    ESC("nul\0x", "nul\\x00x");
    /* C1 controls as UTF-8 (U+0085 NEL, U+009B CSI) and raw */
    ESC("a\xc2\x85z", "a\\u0085z");
    ESC("\xc2\x9b"
        "2J",
        "\\u009b2J");
    ESC("\x9b"
        "2J",
        "\\x9b2J");
    ESC("line\xe2\x80\xa8sep\xe2\x80\xa9", "line\\u2028sep\\u2029");
    /* every C0 byte and DEL */
    for (int b = 0; b < 0x20; b++) {
        char in[1] = {(char)b}, out[8];
        cli_escape_text(out, sizeof out, in, 1);
        CHECK(out[0] == '\\' && strchr("txnr", out[1]) != NULL, "byte %d -> %s",
              b, out);
        for (char *p = out; *p; p++)
            CHECK(*p >= 0x20 && *p < 0x7f, "byte %d left a control", b);
    }
}

TEST(utf8_passes)
{
    ESC("caf\xc3\xa9.py", "caf\xc3\xa9.py");
    ESC("\xc2\xa0nbsp", "\xc2\xa0nbsp"); /* U+00A0: first after C1 */
    ESC("\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac");
    ESC("\xf0\x9f\x90\x8d snake", "\xf0\x9f\x90\x8d snake");
    ESC("\xe2\x80\xa7", "\xe2\x80\xa7"); /* U+2027: next to U+2028 */
    ESC("back\\slash", "back\\slash");
    /* bidirectional controls reorder what a terminal shows */
    ESC("a\xe2\x80\xae"
        "b",
        "a\\u202eb");
    ESC("\xe2\x81\xa6"
        "x\xe2\x81\xa9",
        "\\u2066x\\u2069");
}

TEST(not_utf8)
{
    ESC("\xff", "\\xff");
    ESC("\xc0\xaf", "\\xc0\\xaf");                   /* overlong '/' */
    ESC("\xe0\x80\xaf", "\\xe0\\x80\\xaf");          /* overlong */
    ESC("\xed\xa0\x80", "\\xed\\xa0\\x80");          /* a surrogate */
    ESC("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* past U+10FFFF */
    ESC("\xe6\x97", "\\xe6\\x97");                   /* cut short */
    ESC("\xc3(", "\\xc3(");
}

TEST(cut_between_escapes)
{
    char out[6];
    /* "ab\x1b": "ab" fits, the 4-byte escape does not: never half */
    size_t need = cli_escape_text(out, sizeof out, "ab\x1b", 3);
    CHECK(need == 6 && strcmp(out, "ab") == 0, "got '%s' need %zu", out, need);
    need = cli_escape_text(out, sizeof out, "\xe6\x97\xa5\xe6\x97\xa5", 6);
    CHECK(need == 6 && strcmp(out, "\xe6\x97\xa5") == 0, "utf-8 cut");
    need = cli_escape_text(NULL, 0, "\x1b", 1);
    CHECK(need == 4, "cap 0 only measures, need %zu", need);
    char buf[12];
    CHECK(strcmp(cli_escape(buf, sizeof buf, "short"), "short") == 0,
          "fits whole");
    CHECK(strcmp(cli_escape(buf, sizeof buf, "abcdefghijklmnop"),
                 "abcdefgh...") == 0,
          "cut marked: '%s'", buf);
    CHECK(strcmp(cli_escape(buf, sizeof buf, "abcdef\x1b\x1b"), "abcdef...") ==
              0,
          "cut before an escape: '%s'", buf);
    CHECK(strcmp(cli_escape(buf, sizeof buf, NULL), "") == 0, "NULL");
}

TEST(fputs_whole)
{
    char big[5000];
    memset(big, '\x1b', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    FILE *f = tmpfile();
    REQUIRE(f != NULL, "tmpfile");
    CHECK(cli_escape_fputs(big, f) == 0, "fputs");
    long n = ftell(f);
    CHECK(n == 4 * 4999, "wrote %ld bytes", n);
    rewind(f);
    int c, raw = 0;
    while ((c = fgetc(f)) != EOF)
        raw += c == 0x1b;
    CHECK(raw == 0, "%d raw ESC bytes", raw);
    fclose(f);
}

TESTS(TCASE(controls), TCASE(utf8_passes), TCASE(not_utf8),
      TCASE(cut_between_escapes), TCASE(fputs_whole))
