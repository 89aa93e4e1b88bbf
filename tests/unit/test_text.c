/* SPDX-License-Identifier: MIT */
/*
 * test_text.c - tfmt_text_escape (tachyon/fmt_text.h): every byte value
 * and every class of character in each style, truncation at every
 * length, and what no style may ever let through.
 */
#include <tachyon/fmt_text.h>

#include "harness.h"
#include "json_escape.h"
#include "text.h"

/* Escape `s` (n bytes) into a static buffer; NULL when it did not fit. */
static const char *esc(const char *s, size_t n, tfmt_text_style st)
{
    static char out[512];
    size_t len = tfmt_text_escape(out, sizeof out, s, n, st);
    return len < sizeof out ? out : NULL;
}

#define ESC(lit, st) esc(lit, sizeof lit - 1, st)

static void expect(const char *in, size_t n, tfmt_text_style st,
                   const char *want)
{
    const char *got = esc(in, n, st);
    CHECK(got && strcmp(got, want) == 0, "style %d: want [%s], got [%s]",
          (int)st, want, got ? got : "(too long)");
}

#define EXPECT(lit, st, want) expect(lit, sizeof lit - 1, st, want)

/* Every single byte: what each style makes of it. */
TEST(every_byte)
{
    for (unsigned c = 0; c < 256; c++) {
        char in = (char)c, want[16];
        if (c == '\n')
            strcpy(want, "\\n");
        else if (c == '\r')
            strcpy(want, "\\r");
        else if (c == '\t')
            strcpy(want, "\\t");
        else if (c < 0x20 || c >= 0x7f)
            snprintf(want, sizeof want, "\\x%02x", c);
        else
            snprintf(want, sizeof want, "%c", c);
        expect(&in, 1, TFMT_TEXT_PLAIN, want);
        if (c >= 0x80 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r'))
            strcpy(want, "\xef\xbf\xbd");
        else if (c == '\n' || c == '\r')
            strcpy(want, c == '\n' ? "&#10;" : "&#13;");
        else if (c == '&' || c == '<' || c == '>' || c == '"')
            snprintf(want, sizeof want, "%s",
                     c == '&'   ? "&amp;"
                     : c == '<' ? "&lt;"
                     : c == '>' ? "&gt;"
                                : "&quot;");
        else
            snprintf(want, sizeof want, "%c", c);
        expect(&in, 1, TFMT_TEXT_XML, want);
    }
}

TEST(plain_classes)
{
    /* printable ASCII and the backslash stay; controls become escapes */
    EXPECT("a\\b <module> x.py", TFMT_TEXT_PLAIN, "a\\b <module> x.py");
    EXPECT("f\n::error file=x.py,line=1::injected\n", TFMT_TEXT_PLAIN,
           "f\\n::error file=x.py,line=1::injected\\n");
    EXPECT("\x1b[31mred\x07\r\x7f", TFMT_TEXT_PLAIN,
           "\\x1b[31mred\\x07\\r\\x7f");
    EXPECT("nul\0byte", TFMT_TEXT_PLAIN, "nul\\x00byte");
    /* C1 controls (U+0080..U+009F) as code points */
    EXPECT("\xc2\x80\xc2\x85\xc2\x9b\xc2\x9f", TFMT_TEXT_PLAIN,
           "\\u0080\\u0085\\u009b\\u009f");
    /* U+00A0, the first character past them, stays */
    EXPECT("\xc2\xa0", TFMT_TEXT_PLAIN, "\xc2\xa0");
    /* line and paragraph separators, bidirectional controls */
    EXPECT("a\xe2\x80\xa8"
           "b\xe2\x80\xa9",
           TFMT_TEXT_PLAIN, "a\\u2028b\\u2029");
    EXPECT("\xe2\x80\xae\xe2\x81\xa6\xe2\x81\xa9\xe2\x80\x8f\xd8\x9c",
           TFMT_TEXT_PLAIN, "\\u202e\\u2066\\u2069\\u200f\\u061c");
    /* other non-ASCII, non-characters included, stays as it is */
    EXPECT("\xc3\xa9\xe2\x82\xac\xf0\x9f\x90\x8d\xef\xbf\xbe", TFMT_TEXT_PLAIN,
           "\xc3\xa9\xe2\x82\xac\xf0\x9f\x90\x8d\xef\xbf\xbe");
    /* invalid UTF-8: each byte of a maximal invalid subpart */
    EXPECT("\xe2\x82x\xc0\xaf\xed\xa0\x80\xf4\x90", TFMT_TEXT_PLAIN,
           "\\xe2\\x82x\\xc0\\xaf\\xed\\xa0\\x80\\xf4\\x90");
}

TEST(markdown)
{
    EXPECT("md\n\n## All clear\n<!--", TFMT_TEXT_MARKDOWN,
           "md  ## All clear <!--");
    EXPECT("a|b`c\r\n<module>", TFMT_TEXT_MARKDOWN, "a\\|b'c  <module>");
    EXPECT("\x1b]8;;x\x07\xc2\x9b", TFMT_TEXT_MARKDOWN,
           "\\x1b]8;;x\\x07\\u009b");
    EXPECT("x\\|y", TFMT_TEXT_MARKDOWN, "x\\\\|y");
}

TEST(csv)
{
    EXPECT("plain", TFMT_TEXT_CSV, "plain");
    EXPECT("", TFMT_TEXT_CSV, "");
    EXPECT("a,b", TFMT_TEXT_CSV, "\"a,b\"");
    EXPECT("say \"hi\"", TFMT_TEXT_CSV, "\"say \"\"hi\"\"\"");
    EXPECT("=HYPERLINK(\"http://x\")", TFMT_TEXT_CSV,
           "\"'=HYPERLINK(\"\"http://x\"\")\"");
    EXPECT("+1", TFMT_TEXT_CSV, "\"'+1\"");
    EXPECT("-2+3", TFMT_TEXT_CSV, "\"'-2+3\"");
    EXPECT("@SUM(A1)", TFMT_TEXT_CSV, "\"'@SUM(A1)\"");
    EXPECT("a=b", TFMT_TEXT_CSV, "a=b");
    /* a line break never ends the record */
    EXPECT("a\nb\r", TFMT_TEXT_CSV, "a\\nb\\r");
    EXPECT("\t=x", TFMT_TEXT_CSV, "\\t=x");
}

TEST(xml)
{
    EXPECT("<a href=\"x\">&amp;</a>", TFMT_TEXT_XML,
           "&lt;a href=&quot;x&quot;&gt;&amp;amp;&lt;/a&gt;");
    EXPECT("f\xef\xbf\xbe\xef\xbf\xbfg", TFMT_TEXT_XML,
           "f\xef\xbf\xbd\xef\xbf\xbdg");
    EXPECT("t\tn\nr\r", TFMT_TEXT_XML, "t\tn&#10;r&#13;");
    EXPECT("\x1b\x0b\x0c", TFMT_TEXT_XML,
           "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    /* XML 1.0 allows these; they stay */
    EXPECT("\xef\xbf\xbd\xc2\x85\x7f\xf4\x8f\xbf\xbf", TFMT_TEXT_XML,
           "\xef\xbf\xbd\xc2\x85\x7f\xf4\x8f\xbf\xbf");
    /* one U+FFFD per maximal invalid subpart */
    EXPECT("\xe2\x82x\xff", TFMT_TEXT_XML, "\xef\xbf\xbdx\xef\xbf\xbd");
}

/* At every capacity: a prefix of whole units, NUL-terminated, and the
 * same full length returned. */
TEST(truncation)
{
    static const char in[] = "a\x1b\xe2\x80\xa8\xc3\xa9|,\"=\xff";
    for (int st = TFMT_TEXT_PLAIN; st <= TFMT_TEXT_XML; st++) {
        char full[128], part[128];
        size_t n = tfmt_text_escape(full, sizeof full, in, sizeof in - 1,
                                    (tfmt_text_style)st);
        REQUIRE(n < sizeof full, "style %d: %zu bytes", st, n);
        CHECK(tfmt_text_escape(NULL, 0, in, sizeof in - 1,
                               (tfmt_text_style)st) == n,
              "style %d: length query", st);
        size_t prev = 0;
        for (size_t cap = 1; cap <= n + 1; cap++) {
            memset(part, 'Z', sizeof part);
            size_t got = tfmt_text_escape(part, cap, in, sizeof in - 1,
                                          (tfmt_text_style)st);
            size_t len = strlen(part);
            CHECK(got == n, "style %d cap %zu: returned %zu", st, cap, got);
            CHECK(len < cap && memcmp(part, full, len) == 0,
                  "style %d cap %zu: not a prefix", st, cap);
            CHECK(len >= prev, "style %d cap %zu: shrank", st, cap);
            prev = len;
        }
        CHECK(strcmp(part, full) == 0, "style %d: whole at n + 1", st);
    }
}

/* Whatever the bytes, no output holds a C0 control but tab (XML) or none
 * at all (the others), no DEL, no C1, no U+2028/U+2029 (but XML's), and
 * every output is valid UTF-8. */
TEST(nothing_gets_through)
{
    uint32_t x = 12345;
    for (int round = 0; round < 2000; round++) {
        char in[24], out[512];
        for (size_t i = 0; i < sizeof in; i++) {
            x = x * 1103515245u + 12345u;
            in[i] = (char)(x >> 16);
        }
        if (round % 3 == 0) /* some of them with C1 and separators */
            memcpy(in + 4, "\xc2\x9b\xe2\x80\xa8\xc2\x85", 7);
        for (int st = TFMT_TEXT_PLAIN; st <= TFMT_TEXT_XML; st++) {
            size_t n = tfmt_text_escape(out, sizeof out, in, sizeof in,
                                        (tfmt_text_style)st);
            REQUIRE(n < sizeof out, "fits");
            const unsigned char *u = (const unsigned char *)out;
            for (size_t i = 0; i < n; i++) {
                bool ok_ctl = st == TFMT_TEXT_XML && u[i] == '\t';
                CHECK(u[i] >= 0x20 || ok_ctl, "style %d: control 0x%02x", st,
                      u[i]);
                if (st != TFMT_TEXT_XML) {
                    CHECK(u[i] != 0x7f, "style %d: DEL", st);
                    CHECK(!(u[i] == 0xc2 && i + 1 < n && u[i + 1] < 0xa0),
                          "style %d: C1", st);
                    CHECK(!(u[i] == 0xe2 && i + 2 < n && u[i + 1] == 0x80 &&
                            (u[i + 2] == 0xa8 || u[i + 2] == 0xa9)),
                          "style %d: separator", st);
                }
            }
            CHECK(tfmt__utf8_valid(out, n), "style %d: invalid UTF-8", st);
        }
    }
}

TEST(buffer_put)
{
    tfmt_buf b;
    tfmt__buf_init(&b, NULL);
    REQUIRE(tfmt__buf_puts(&b, "[") == TFMT_OK, "put");
    REQUIRE(tfmt__text_put(&b, "x\ny", 3, TFMT_TEXT_PLAIN) == TFMT_OK,
            "text put");
    REQUIRE(tfmt__buf_puts(&b, "]") == TFMT_OK, "put");
    CHECK(b.len == 6 && memcmp(b.data, "[x\\ny]", 6) == 0, "got %.*s",
          (int)b.len, b.data);
    tfmt__buf_free(&b);
}

TESTS(TCASE(every_byte), TCASE(plain_classes), TCASE(markdown), TCASE(csv),
      TCASE(xml), TCASE(truncation), TCASE(nothing_gets_through),
      TCASE(buffer_put))
