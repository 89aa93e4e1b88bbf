/* SPDX-License-Identifier: MIT */
/*
 * test_jsonl_general.c - the JSONL reader's general path (jsonl_syntax.c
 * checks a line as json-c 0.16 would, jsonl_records.c reads it in place)
 * against the json-c path it replaced (jsonl_ref.c): every line of the
 * testdata files, hand-made lines for json-c's quirks, and 100,000
 * generated records, each mutated or not, must give the same
 * status, error, record and notes both ways. JSONL_GENERAL_LINES=N runs N
 * generated lines instead of the default.
 */
#define _DEFAULT_SOURCE /* DT_DIR */
#include <dirent.h>

#include "harness.h"
#include "jsonl_diff.h"

static void check_line(jdiff *d, const char *p, size_t n, const char *where)
{
    int rc;
    const char *what = jdiff_line(d, p, n, &rc);
    CHECK(!what,
          "%s: %s differs on %.*s\n  general %d: %s\n  json-c %d: %s\n"
          "  notes general:\n%s  notes json-c:\n%s",
          where, what, (int)(n < 400 ? n : 400), p, rc, d->mine->err.msg,
          d->theirs->err.code, d->theirs->err.msg,
          d->mine_notes.text ? d->mine_notes.text : "",
          d->theirs_notes.text ? d->theirs_notes.text : "");
}

static void check_file(jdiff *d, const char *path)
{
    size_t len = 0;
    char *data = (char *)harness_slurp(path, &len);
    REQUIRE(data, "cannot read %s", path);
    size_t lineno = 0;
    for (char *p = data, *end = data + len; p < end; lineno++) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        char where[1100];
        snprintf(where, sizeof where, "%s:%zu", path, lineno + 1);
        check_line(d, p, n, where);
        p += n + 1;
    }
    free(data);
}

/* Every *.jsonl under dir, one level of subdirectories deep. */
static void check_tree(jdiff *d, const char *dir, int depth)
{
    DIR *dd = opendir(dir);
    REQUIRE(dd, "cannot open %s", dir);
    struct dirent *e;
    while ((e = readdir(dd))) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t n = strlen(e->d_name);
        if (n > 6 && strcmp(e->d_name + n - 6, ".jsonl") == 0)
            check_file(d, path);
        else if (depth < 2 && e->d_type == DT_DIR)
            check_tree(d, path, depth + 1);
    }
    closedir(dd);
}

TEST(testdata_lines_agree_with_json_c)
{
    jdiff d;
    REQUIRE(jdiff_open(&d) == 0, "cannot open readers");
    check_tree(&d, TESTDATA, 0);
    jdiff_close(&d);
}

#define RID "\"0123456789abcdef0123456789abcdef\""

/* json-c's quirks, one line each. */
static const char *const quirks[] = {
    /* envelope and dialects */
    "{\"type\":\"meta\",\"v\":0,\"run_id\":" RID
    ",\"sample_interval_usec\":1000}",
    "{\"type\":\"meta\",\"v\":1,\"run_id\":" RID
    ",\"sample_interval_usec\":1000,\"mode\":\"cpu\",\"x\":[1,{}]}",
    "{\"type\":\"meta\",\"v\":2,\"run_id\":" RID "}",
    "{\"type\":\"meta\",\"v\":-0,\"run_id\":" RID
    ",\"sample_interval_usec\":00}",
    "{\"type\":\"meta\",\"v\":1.0,\"run_id\":" RID "}",
    "{\"type\":\"meta\",\"v\":NaN,\"run_id\":" RID "}",
    "{\"type\":\"meta\",\"v\":-Infinity,\"run_id\":" RID "}",
    "{\"type\":\"meta\",\"v\":null,\"run_id\":" RID "}",
    "{\"v\":0,\"run_id\":" RID "}",
    "{\"type\":7,\"v\":0,\"run_id\":" RID "}",
    "{\"type\":\"end\",\"v\":\"0\",\"run_id\":" RID "}",
    "{\"type\":\"end\",\"v\":0,\"run_id\":" RID ",\"samples_total\":-1}",
    "{\"type\":\"end\",\"v\":0,\"run_id\":" RID
    ",\"samples_total\":18446744073709551615}",
    "{\"type\":\"end\",\"v\":0,\"run_id\":" RID
    ",\"samples_total\":99999999999999999999}",
    "{\"type\":\"end\",\"v\":0,\"run_id\":" RID
    ",\"samples_total\":-99999999999999999999}",
    "{\"type\":\"end\",\"v\":0,\"run_id\":" RID
    ",\"samples_total\":9223372036854775808}",
    "{\"type\":\"end\",\"v\":0,\"run_id\":" RID ",\"samples_total\":-01}",
    /* duplicates: the last wins, a name keeps its first place */
    "{\"type\":\"end\",\"v\":0,\"run_id\":" RID
    ",\"samples_total\":1,\"samples_total\":\"x\"}",
    "{\"type\":\"end\",\"v\":0,\"run_id\":" RID
    ",\"a\":1,\"b\":2,\"a\":3,\"samples_total\":1}",
    "{\"type\":\"x\",\"v\":0,\"run_id\":" RID ",\"type\":\"end\","
    "\"samples_total\":5}",
    /* names: escapes, NUL cuts, single quotes */
    "{\"t\\u0079pe\":\"end\",\"v\":0,\"run_id\":" RID ",\"samples_total\":1}",
    "{\"type\\u0000zz\":\"end\",\"v\":0,\"run_id\":" RID
    ",\"samples_total\":1}",
    "{'type':\"end\",'v':0,'run_id':" RID ",'samples_total':1,'a\"b':1}",
    "{\"type\":\"end\",\"v\":0,\"run_id\":" RID
    ",\"samples_total\":1,\"\\u00e9\\u0000x\":1,\"\\u00e9\":2}",
    /* strings: surrogates, NUL, raw bytes */
    "{\"type\":\"x\\ud800\",\"v\":0,\"run_id\":" RID "}",
    "{\"type\":\"end\\u0000\",\"v\":0,\"run_id\":" RID "}",
    "{\"type\":\"string_table\",\"v\":0,\"run_id\":" RID
    ",\"strings\":[{\"str_id\":0,\"value\":\"\\ud800\\u0041\\udc00\\ud83d"
    "\\ude00\\ud800\\n\\u0000\x01\xc0\x80\xed\xa0\x80\"}]}",
    /* entries */
    "{\"type\":\"string_table\",\"v\":0,\"run_id\":" RID
    ",\"strings\":[{\"str_id\":0,\"value\":\"a\",\"z\":1,\"z\":2},null]}",
    "{\"type\":\"frame_table\",\"v\":0,\"run_id\":" RID
    ",\"frames\":[{\"frame_id\":0,\"path_str_id\":0,\"func_str_id\":1,"
    "\"line\":0,\"end_line\":0}]}",
    "{\"type\":\"frame_def\",\"v\":1,\"run_id\":" RID
    ",\"defs\":[{\"frame_id\":1,\"path_str_id\":1,\"func_str_id\":2,"
    "\"line\":3,\"synthetic\":true,\"q\":[]}]}",
    "{\"type\":\"frame_def\",\"v\":1,\"run_id\":" RID
    ",\"defs\":[{\"frame_id\":0,\"path_str_id\":1,\"func_str_id\":2,"
    "\"line\":3}]}",
    "{\"type\":\"agg\",\"v\":0,\"run_id\":" RID
    ",\"entries\":[{\"frame_id\":0,\"self\":1,\"cumulative\":1,\"w\":0}],"
    "\"kind\":\"frame\",\"scope\":\"all\",\"samples_total\":1}",
    "{\"type\":\"agg\",\"v\":0,\"run_id\":" RID
    ",\"kind\":\"frame\",\"scope\":\"final\",\"samples_total\":1,"
    "\"entries\":[{\"frame_id\":0,\"self\":1,\"cumulative\":1,\"w\":0},"
    "{\"frame_id\":1,\"self\":1.5,\"cumulative\":1}],\"u\":0}",
    "{\"type\":\"agg\",\"v\":0,\"run_id\":" RID
    ",\"kind\":\"frame\",\"scope\":\"final\",\"samples_total\":1,"
    "\"entries\":{}}",
    /* not objects, not JSON */
    "[]",
    "null",
    "null ",
    "\"x\" ",
    "   ",
    "",
    "{\"a\":1} x",
    "{\"a\":1}\xc3",
    "{\"a\":\"\xc3",
    "{\"a\":[1,]}",
    "{'a':'b'}",
};

TEST(json_c_quirks_agree)
{
    jdiff d;
    REQUIRE(jdiff_open(&d) == 0, "cannot open readers");
    for (size_t i = 0; i < sizeof quirks / sizeof *quirks; i++) {
        char where[32];
        snprintf(where, sizeof where, "quirk %zu", i);
        check_line(&d, quirks[i], strlen(quirks[i]), where);
    }
    static const char nul[] = "{\"a\":1}\0 ";
    check_line(&d, nul, sizeof nul - 1, "NUL after the object");
    static const char nul2[] = "{\"a\":\"x\0\"}";
    check_line(&d, nul2, sizeof nul2 - 1, "NUL in a string");
    jdiff_close(&d);
}

/* ---- generated lines ---- */

typedef struct gen {
    uint64_t s;
    char *buf;
    size_t len, cap;
} gen;

static uint32_t rnd(gen *g)
{
    g->s ^= g->s << 13;
    g->s ^= g->s >> 7;
    g->s ^= g->s << 17;
    return (uint32_t)(g->s >> 11);
}

static bool chance(gen *g, unsigned pct)
{
    return rnd(g) % 100 < pct;
}

static void out(gen *g, const char *s, size_t n)
{
    if (g->len + n + 1 > g->cap) {
        g->cap = (g->len + n + 1) * 2;
        g->buf = realloc(g->buf, g->cap);
    }
    memcpy(g->buf + g->len, s, n);
    g->len += n;
}

static void outs(gen *g, const char *s)
{
    out(g, s, strlen(s));
}

static void ws(gen *g)
{
    static const char *const w[] = {" ", "\t", "\r", "  "};
    if (chance(g, 8))
        outs(g, w[rnd(g) % 4]);
}

static const char *pick(gen *g, const char *const *v, size_t n)
{
    return v[rnd(g) % n];
}
#define PICK(g, v) pick(g, v, sizeof v / sizeof *v)

static void gen_string(gen *g)
{
    static const char *const parts[] = {
        "a",       "main",     "x.py",         "\\n",     "\\\"",    "\\\\",
        "\\/",     "\\u00e9",  "\\u0000",      "\\ud83d", "\\ude00", "\\ud800",
        "\\u0041", "\xc3\xa9", "\xc0\x80",     "\x01",    "'",       " ",
        "frame",   "final",    "\xed\xa0\x80", "\\t"};
    outs(g, "\"");
    int k = (int)(rnd(g) % 4);
    for (int i = 0; i < k; i++)
        outs(g, PICK(g, parts));
    outs(g, "\"");
}

static void gen_number(gen *g)
{
    static const char *const nums[] = {"0",
                                       "1",
                                       "7",
                                       "00",
                                       "-0",
                                       "-01",
                                       "-1",
                                       "1.0",
                                       "1.",
                                       "1e3",
                                       "2E-1",
                                       "NaN",
                                       "Infinity",
                                       "-Infinity",
                                       "4294967295",
                                       "4294967296",
                                       "2147483647",
                                       "2147483648",
                                       "9223372036854775807",
                                       "9223372036854775808",
                                       "18446744073709551614",
                                       "18446744073709551615",
                                       "18446744073709551616",
                                       "-9223372036854775808",
                                       "-9223372036854775809",
                                       "123456789012345678901234"};
    outs(g, PICK(g, nums));
}

static void gen_value(gen *g, int depth);

static void gen_name(gen *g, const char *name)
{
    bool single = chance(g, 3);
    outs(g, single ? "'" : "\"");
    if (chance(g, 4) && name[0]) {
        char esc[8];
        snprintf(esc, sizeof esc, "\\u%04x", (unsigned char)name[0]);
        outs(g, esc);
        outs(g, name + 1);
    } else {
        outs(g, name);
    }
    if (chance(g, 3))
        outs(g, "\\u0000z");
    outs(g, single ? "'" : "\"");
    ws(g);
    outs(g, ":");
    ws(g);
}

static void gen_object(gen *g, int depth)
{
    static const char *const names[] = {"a",    "b",    "x",      "frame_id",
                                        "self", "type", "\\u00e9"};
    outs(g, "{");
    int k = (int)(rnd(g) % 4);
    for (int i = 0; i < k; i++) {
        if (i)
            outs(g, ",");
        gen_name(g, PICK(g, names));
        gen_value(g, depth + 1);
    }
    outs(g, "}");
}

static void gen_value(gen *g, int depth)
{
    ws(g);
    unsigned k = rnd(g) % (depth > 4 ? 6 : 8);
    switch (k) {
    case 0: outs(g, "null"); break;
    case 1: outs(g, chance(g, 50) ? "true" : "false"); break;
    case 2:
    case 3: gen_number(g); break;
    case 4:
    case 5: gen_string(g); break;
    case 6: gen_object(g, depth); break;
    default:
        outs(g, "[");
        for (int i = 0, n = (int)(rnd(g) % 4); i < n; i++) {
            if (i)
                outs(g, ",");
            gen_value(g, depth + 1);
        }
        outs(g, "]");
        break;
    }
    ws(g);
}

/* A member of a record: mostly a plausible value for its name. */
static void gen_field(gen *g, const char *name, const char *plausible)
{
    gen_name(g, name);
    if (plausible && chance(g, 80))
        outs(g, plausible);
    else
        gen_value(g, 2);
}

static void gen_entry(gen *g, const char *const *fields, size_t nf)
{
    static const char *const ids[] = {"0", "1", "2", "3", "41", "7"};
    if (chance(g, 4)) {
        gen_value(g, 2);
        return;
    }
    outs(g, "{");
    bool first = true;
    for (size_t i = 0; i < nf; i++) {
        if (chance(g, 10))
            continue;
        if (!first)
            outs(g, ",");
        first = false;
        gen_field(g, fields[i], PICK(g, ids));
    }
    if (chance(g, 15)) {
        if (!first)
            outs(g, ",");
        gen_field(g, chance(g, 50) ? "extra" : fields[rnd(g) % nf], NULL);
    }
    outs(g, "}");
}

static void gen_entries(gen *g, const char *const *fields, size_t nf)
{
    outs(g, "[");
    for (int i = 0, n = (int)(rnd(g) % 5); i < n; i++) {
        if (i)
            outs(g, ",");
        ws(g);
        gen_entry(g, fields, nf);
    }
    outs(g, "]");
}

/* The type's payload members, in a random order, some left out. */
static void gen_payload(gen *g, const char *type)
{
    static const char *const sf[] = {"str_id", "value"};
    static const char *const ff[] = {"frame_id", "path_str_id", "func_str_id",
                                     "line",     "end_line",    "col",
                                     "end_col",  "synthetic"};
    static const char *const af[] = {"frame_id", "self", "cumulative"};
    static const char *const names[] = {"sample_interval_usec",
                                        "mode",
                                        "strings",
                                        "frames",
                                        "defs",
                                        "kind",
                                        "scope",
                                        "samples_total",
                                        "entries",
                                        "zz"};
    for (int i = 0, n = 1 + (int)(rnd(g) % 5); i < n; i++) {
        const char *name = PICK(g, names);
        bool str_defs = strstr(type, "str") != NULL;
        outs(g, ",");
        if (!strcmp(name, "strings") || (!strcmp(name, "defs") && str_defs)) {
            gen_name(g, name);
            gen_entries(g, sf, 2);
        } else if (!strcmp(name, "frames") || !strcmp(name, "defs")) {
            gen_name(g, name);
            gen_entries(g, ff, 8);
        } else if (!strcmp(name, "entries")) {
            gen_name(g, name);
            gen_entries(g, af, 3);
        } else if (!strcmp(name, "kind")) {
            gen_field(g, name, "\"frame\"");
        } else if (!strcmp(name, "scope")) {
            gen_field(g, name, "\"final\"");
        } else if (!strcmp(name, "mode")) {
            gen_field(g, name, "\"wall\"");
        } else {
            gen_field(g, name, "12");
        }
    }
}

static void gen_record(gen *g)
{
    static const char *const types[] = {
        "\"meta\"",      "\"string_table\"", "\"frame_table\"",
        "\"agg\"",       "\"end\"",          "\"str_def\"",
        "\"frame_def\"", "\"future\"",       "\"end\\u0000\""};
    static const char *const vs[] = {"0", "0", "0", "1", "2", "-1"};
    const char *type = PICK(g, types);
    outs(g, "{");
    ws(g);
    gen_field(g, "type", type);
    outs(g, ",");
    gen_field(g, "v", PICK(g, vs));
    outs(g, ",");
    gen_field(g, "run_id", RID);
    gen_payload(g, type);
    outs(g, "}");
}

/* Change, drop or insert a byte or two. */
static void mutate(gen *g)
{
    static const char alphabet[] = "{}[],:\"'\\u0-.eE1nNtfI \x00\xc3\xa9\xff";
    for (int i = 0, n = 1 + (int)(rnd(g) % 2); i < n && g->len; i++) {
        size_t at = rnd(g) % g->len;
        char c = alphabet[rnd(g) % (sizeof alphabet - 1)];
        switch (rnd(g) % 3) {
        case 0: g->buf[at] = c; break;
        case 1:
            memmove(g->buf + at, g->buf + at + 1, g->len - at - 1);
            g->len--;
            break;
        default:
            if (g->len + 2 > g->cap) {
                g->cap = g->len * 2 + 2;
                g->buf = realloc(g->buf, g->cap);
            }
            memmove(g->buf + at + 1, g->buf + at, g->len - at);
            g->buf[at] = c;
            g->len++;
            break;
        }
    }
}

TEST(generated_records_agree)
{
    jdiff d;
    REQUIRE(jdiff_open(&d) == 0, "cannot open readers");
    const char *env = getenv("JSONL_GENERAL_LINES");
    long lines = env ? atol(env) : 100000;
    gen g = {0x9e3779b97f4a7c15ull, NULL, 0, 0};
    int before = harness_failed_checks;
    for (long i = 0; i < lines && harness_failed_checks - before < 10; i++) {
        g.len = 0;
        gen_record(&g);
        if (chance(&g, 40))
            mutate(&g);
        char where[48];
        snprintf(where, sizeof where, "generated line %ld", i);
        check_line(&d, g.buf, g.len, where);
    }
    free(g.buf);
    jdiff_close(&d);
}

TESTS(TCASE(testdata_lines_agree_with_json_c), TCASE(json_c_quirks_agree),
      TCASE(generated_records_agree))
