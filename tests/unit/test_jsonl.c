/* SPDX-License-Identifier: MIT */
/*
 * test_jsonl.c - the JSONL reader: CPython's fixtures in both dialects read
 * whole, in 1-byte and in 7-byte chunks; line-local errors with their lines;
 * keep-going recovery; the line-length limit; notes; failing allocations.
 */
#include "harness.h"
#include "fail_alloc.h"
#include "jsonl_internal.h"

typedef struct counts {
    int by_type[6];
    size_t strings, frames, entries;
    uint64_t end_total;
    int rc;
} counts;

/* Read `data` to the end; return the last status and the tallies. */
static counts read_all(const void *data, size_t len, size_t chunk,
                       const tfmt_jsonl_options *opts)
{
    counts c;
    memset(&c, 0, sizeof c);
    tfmt_source *src = NULL;
    tfmt_jsonl_reader *r = NULL;
    tfmt_source_open_memory(&src, data, len, chunk, NULL);
    c.rc = tfmt_jsonl_open(&r, src, opts, NULL);
    const tfmt_jsonl_record *rec;
    while (c.rc == TFMT_OK) {
        c.rc = tfmt_jsonl_next(r, &rec);
        if (c.rc != TFMT_OK)
            break;
        c.by_type[rec->type]++;
        c.strings += rec->n_strings;
        c.frames += rec->n_frames;
        c.entries += rec->n_entries;
        if (rec->type == TFMT_JREC_END)
            c.end_total = rec->samples_total;
    }
    tfmt_jsonl_free(r);
    tfmt_source_free(src);
    return c;
}

static unsigned char *fixture(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/cpython/%s", TESTDATA, name);
    return harness_slurp(path, len);
}

/* synthetic_frames: 17 strings, 12 (v0) / 13 (v1) frames, 9 samples. */
TEST(fixture_counts_every_chunking)
{
    static const char *names[] = {"synthetic_frames/expected.jsonl",
                                  "synthetic_frames/expected.v1.jsonl"};
    static const size_t nframes[] = {12, 13};
    static const size_t chunks[] = {0, 1, 7};
    for (int f = 0; f < 2; f++) {
        size_t len = 0;
        unsigned char *data = fixture(names[f], &len);
        REQUIRE(data, "cannot read %s", names[f]);
        for (int k = 0; k < 3; k++) {
            counts c = read_all(data, len, chunks[k], NULL);
            CHECK(c.rc == TFMT_DONE, "%s chunk %zu: rc %d", names[f], chunks[k],
                  c.rc);
            CHECK(c.by_type[TFMT_JREC_META] == 1, "one meta");
            CHECK(c.by_type[TFMT_JREC_STRINGS] == 1, "one string table");
            CHECK(c.by_type[TFMT_JREC_END] == 1, "one end");
            CHECK(c.strings == 17, "%zu strings", c.strings);
            CHECK(c.frames == nframes[f], "%zu frames", c.frames);
            CHECK(c.entries == nframes[f], "%zu agg entries", c.entries);
            CHECK(c.end_total == 9, "samples_total %llu",
                  (unsigned long long)c.end_total);
        }
        free(data);
    }
}

/*
 * testdata/jsonl/chunked.jsonl: 1200 strings in 5 chunks, 600 frames and
 * 600 agg entries in 3 chunks each; frame i > 0 is the leaf (i % 5) times,
 * so samples_total = 120 cycles of 0+1+2+3+4 = 1200.
 */
TEST(chunked_tables)
{
    size_t len = 0;
    char path[512];
    snprintf(path, sizeof path, "%s/jsonl/chunked.jsonl", TESTDATA);
    unsigned char *data = harness_slurp(path, &len);
    REQUIRE(data, "cannot read %s", path);
    counts c = read_all(data, len, 0, NULL);
    CHECK(c.rc == TFMT_DONE, "rc %d", c.rc);
    CHECK(c.by_type[TFMT_JREC_STRINGS] == 5, "%d string chunks",
          c.by_type[TFMT_JREC_STRINGS]);
    CHECK(c.by_type[TFMT_JREC_FRAMES] == 3, "frame chunks");
    CHECK(c.by_type[TFMT_JREC_AGG] == 3, "agg chunks");
    CHECK(c.strings == 1200 && c.frames == 600 && c.entries == 600,
          "%zu/%zu/%zu", c.strings, c.frames, c.entries);
    CHECK(c.end_total == 1200, "total %llu", (unsigned long long)c.end_total);
    free(data);
}

/* Records of one memory buffer, one call at a time. */
typedef struct rd {
    tfmt_source *src;
    tfmt_jsonl_reader *r;
} rd;

static rd rd_open(const char *text, const tfmt_jsonl_options *opts)
{
    rd x = {NULL, NULL};
    tfmt_source_open_memory(&x.src, text, strlen(text), 0, NULL);
    tfmt_jsonl_open(&x.r, x.src, opts, NULL);
    return x;
}

static void rd_close(rd *x)
{
    tfmt_jsonl_free(x->r);
    tfmt_source_free(x->src);
}

TEST(v1_ids_become_zero_based_and_synthetic_kept)
{
    size_t len = 0;
    unsigned char *data = fixture("synthetic_frames/expected.v1.jsonl", &len);
    REQUIRE(data, "fixture");
    tfmt_source *src;
    tfmt_jsonl_reader *r;
    tfmt_source_open_memory(&src, data, len, 0, NULL);
    REQUIRE(tfmt_jsonl_open(&r, src, NULL, NULL) == TFMT_OK, "open");
    const tfmt_jsonl_record *rec;
    REQUIRE(tfmt_jsonl_next(r, &rec) == TFMT_OK, "meta");
    CHECK(rec->type == TFMT_JREC_META && rec->v == 1, "meta v1");
    CHECK(rec->sample_interval_usec == 1000, "interval");
    CHECK(rec->mode.ptr == NULL, "no mode");
    REQUIRE(tfmt_jsonl_next(r, &rec) == TFMT_OK, "str_def");
    CHECK(rec->strings[0].id == 0, "str_id 1 -> 0");
    CHECK(rec->strings[0].value.len == 4 &&
              memcmp(rec->strings[0].value.ptr, "<GC>", 4) == 0,
          "first string <GC>");
    REQUIRE(tfmt_jsonl_next(r, &rec) == TFMT_OK, "frame_def");
    /* {"frame_id":1,"path_str_id":2,"func_str_id":1,"line":0,
        "synthetic":true} */
    const tfmt_jsonl_frame *f = &rec->frames[0];
    CHECK(f->id == 0 && f->path_str_id == 1 && f->func_str_id == 0,
          "ids shifted");
    CHECK(f->line == 0 && f->end_line == TFMT_JSONL_ABSENT, "no lines");
    CHECK(f->synthetic, "synthetic kept");
    /* frame 9: line 8, end_line 9, no columns */
    f = &rec->frames[8];
    CHECK(f->line == 8 && f->end_line == 9, "line span");
    CHECK(f->col == TFMT_JSONL_ABSENT && f->end_col == TFMT_JSONL_ABSENT,
          "no columns");
    CHECK(!f->synthetic, "not synthetic");
    REQUIRE(tfmt_jsonl_next(r, &rec) == TFMT_OK, "agg");
    CHECK(rec->n_entries == 13 && rec->entries[2].frame_id == 2 &&
              rec->entries[2].cumulative == 8,
          "agg entry 3 -> 2, cumulative 8");
    tfmt_jsonl_free(r);
    tfmt_source_free(src);
    free(data);
}

#define ENV "\"v\":0,\"run_id\":\"r\""
#define META "{\"type\":\"meta\"," ENV ",\"sample_interval_usec\":100}\n"
#define END "{\"type\":\"end\"," ENV ",\"samples_total\":0}\n"

TEST(missing_end_is_truncated)
{
    rd x = rd_open(META, NULL);
    const tfmt_jsonl_record *rec;
    CHECK(tfmt_jsonl_next(x.r, &rec) == TFMT_OK, "meta");
    CHECK(tfmt_jsonl_next(x.r, &rec) == TFMT_ETRUNC, "etrunc");
    const tfmt_error *e = tfmt_jsonl_error(x.r);
    CHECK(strcmp(e->msg, "incomplete file: no end record") == 0, "%s", e->msg);
    CHECK(e->check == TFMT_JCHK_INCOMPLETE && e->line == 1, "line %llu",
          (unsigned long long)e->line);
    CHECK(tfmt_jsonl_next(x.r, &rec) == TFMT_ETRUNC, "sticky");
    rd_close(&x);
}

/* Each bad line, its status, check and exact message. */
static const struct bad_case {
    const char *line;
    int rc;
    int check;
    const char *msg;
} bad_cases[] = {
    {"", TFMT_EFORMAT, TFMT_JCHK_NOT_OBJECT,
     "empty line, expected a JSON object"},
    {"[1]", TFMT_EFORMAT, TFMT_JCHK_NOT_OBJECT,
     "expected a JSON object, got an array"},
    {"{\"type\":", TFMT_EFORMAT, TFMT_JCHK_SYNTAX,
     "invalid JSON: unexpected end of line"},
    {"{\"a\":1} x", TFMT_EFORMAT, TFMT_JCHK_SYNTAX,
     "invalid JSON at column 9: unexpected character"},
    {"{\"v\":0}", TFMT_ESCHEMA, TFMT_JCHK_ENVELOPE,
     "record: type: missing required field"},
    {"{\"type\":\"end\",\"v\":\"0\",\"run_id\":\"r\"}", TFMT_ESCHEMA,
     TFMT_JCHK_ENVELOPE, "end: v: expected integer, got string"},
    {"{\"type\":\"end\",\"v\":2,\"run_id\":\"r\",\"samples_total\":1}",
     TFMT_EVERSION, TFMT_JCHK_VERSION, "end: v: unsupported record version 2"},
    {"{\"type\":\"str_def\"," ENV ",\"defs\":[]}", TFMT_EVERSION,
     TFMT_JCHK_VERSION, "str_def: v: unsupported record version 0"},
    {"{\"type\":\"end\"," ENV ",\"samples_total\":-3}", TFMT_ESCHEMA,
     TFMT_JCHK_RANGE,
     "end: samples_total: -3 is out of range (0..18446744073709551614)"},
    {"{\"type\":\"end\"," ENV ",\"samples_total\":18446744073709551616}",
     TFMT_ESCHEMA, TFMT_JCHK_RANGE,
     "end: samples_total: integer is out of range "
     "(0..18446744073709551614)"},
    {"{\"type\":\"string_table\"," ENV ",\"strings\":[{\"str_id\":0,"
     "\"value\":\"a\"},{\"str_id\":4294967296,\"value\":\"b\"}]}",
     TFMT_ESCHEMA, TFMT_JCHK_RANGE,
     "string_table: strings[1].str_id: 4294967296 is out of range "
     "(0..4294967295)"},
    {"{\"type\":\"frame_def\",\"v\":1,\"run_id\":\"r\",\"defs\":[{"
     "\"frame_id\":0,\"path_str_id\":1,\"func_str_id\":1,\"line\":0}]}",
     TFMT_ESCHEMA, TFMT_JCHK_RANGE,
     "frame_def: defs[0].frame_id: 0 is out of range (1..4294967296)"},
    {"{\"type\":\"frame_table\"," ENV ",\"frames\":[{\"frame_id\":0,"
     "\"path_str_id\":1,\"func_str_id\":1,\"line\":1.5}]}",
     TFMT_ESCHEMA, TFMT_JCHK_TYPE,
     "frame_table: frames[0].line: expected integer, got number"},
    {"{\"type\":\"agg\"," ENV ",\"kind\":\"call\",\"scope\":\"final\","
     "\"samples_total\":0,\"entries\":[]}",
     TFMT_ESCHEMA, TFMT_JCHK_RANGE,
     "agg: kind: expected \"frame\", got \"call\""},
    {"{\"type\":\"agg\"," ENV ",\"kind\":\"frame\",\"scope\":\"final\","
     "\"samples_total\":0,\"entries\":[7]}",
     TFMT_ESCHEMA, TFMT_JCHK_TYPE,
     "agg: entries[0]: expected object, got integer"},
    {"{\"type\":\"x\",\"v\":0,\"run_id\":\"r\",\"a\":\"\xff\"}", TFMT_EFORMAT,
     TFMT_JCHK_SYNTAX, "invalid JSON at column 37: invalid utf-8 string"},
};

TEST(bad_lines_exact_messages)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad_case *b = &bad_cases[i];
        char text[1024];
        snprintf(text, sizeof text, "%s%s\n%s", META, b->line, END);
        tfmt_jsonl_options o = TFMT_JSONL_OPTIONS_INIT;
        o.keep_going = true;
        rd x = rd_open(text, &o);
        const tfmt_jsonl_record *rec;
        CHECK(tfmt_jsonl_next(x.r, &rec) == TFMT_OK, "case %zu meta", i);
        int rc = tfmt_jsonl_next(x.r, &rec);
        const tfmt_error *e = tfmt_jsonl_error(x.r);
        CHECK(rc == b->rc, "case %zu: rc %d", i, rc);
        CHECK(e->check == b->check, "case %zu: check %d", i, e->check);
        CHECK(e->line == 2, "case %zu: line %llu", i,
              (unsigned long long)e->line);
        CHECK(strcmp(e->msg, b->msg) == 0, "case %zu: msg '%s'", i, e->msg);
        CHECK(tfmt_jsonl_next(x.r, &rec) == TFMT_OK &&
                  rec->type == TFMT_JREC_END && rec->line == 3,
              "case %zu: recovers on line 3", i);
        CHECK(tfmt_jsonl_next(x.r, &rec) == TFMT_DONE, "case %zu done", i);
        rd_close(&x);
    }
}

TEST(errors_are_final_without_keep_going)
{
    rd x = rd_open(META "nope\n" END, NULL);
    const tfmt_jsonl_record *rec;
    CHECK(tfmt_jsonl_next(x.r, &rec) == TFMT_OK, "meta");
    CHECK(tfmt_jsonl_next(x.r, &rec) == TFMT_EFORMAT, "bad line");
    CHECK(tfmt_jsonl_next(x.r, &rec) == TFMT_EFORMAT, "still failed");
    rd_close(&x);
}

TEST(line_limit_skips_and_resumes)
{
    char text[4096];
    char big[300];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    snprintf(text, sizeof text, "%s{\"type\":\"z\"," ENV ",\"p\":\"%s\"}\n%s",
             META, big, END);
    static const size_t chunks[] = {0, 1, 7};
    for (int k = 0; k < 3; k++) {
        tfmt_jsonl_options o = TFMT_JSONL_OPTIONS_INIT;
        o.keep_going = true;
        o.max_line = 200;
        tfmt_source *src;
        tfmt_jsonl_reader *r;
        tfmt_source_open_memory(&src, text, strlen(text), chunks[k], NULL);
        REQUIRE(tfmt_jsonl_open(&r, src, &o, NULL) == TFMT_OK, "open");
        const tfmt_jsonl_record *rec;
        CHECK(tfmt_jsonl_next(r, &rec) == TFMT_OK, "meta");
        CHECK(tfmt_jsonl_next(r, &rec) == TFMT_ELIMIT, "too long");
        const tfmt_error *e = tfmt_jsonl_error(r);
        CHECK(e->line == 2 && e->check == TFMT_JCHK_LINE_LENGTH, "line 2");
        CHECK(strcmp(e->msg, "line longer than 200 bytes") == 0, "%s", e->msg);
        CHECK(tfmt_jsonl_next(r, &rec) == TFMT_OK && rec->line == 3,
              "chunk %zu: end on line 3", chunks[k]);
        CHECK(tfmt_jsonl_next(r, &rec) == TFMT_DONE, "done");
        tfmt_jsonl_free(r);
        tfmt_source_free(src);
    }
}

typedef struct notes {
    int n[4];
    char last[300];
} notes;

static void on_note(void *ctx, tfmt_jsonl_note kind, const tfmt_error *w)
{
    notes *ns = ctx;
    ns->n[kind]++;
    snprintf(ns->last, sizeof ns->last, "%llu: %s", (unsigned long long)w->line,
             w->msg);
}

TEST(unknown_types_and_fields_are_notes)
{
    notes ns;
    memset(&ns, 0, sizeof ns);
    tfmt_jsonl_options o = TFMT_JSONL_OPTIONS_INIT;
    o.on_note = on_note;
    o.note_ctx = &ns;
    rd x = rd_open(META "{\"type\":\"window\"," ENV "}\n"
                        "{\"type\":\"end\"," ENV ",\"samples_total\":0,"
                        "\"extra\":[1]}",
                   &o);
    const tfmt_jsonl_record *rec;
    CHECK(tfmt_jsonl_next(x.r, &rec) == TFMT_OK, "meta");
    CHECK(tfmt_jsonl_next(x.r, &rec) == TFMT_OK &&
              rec->type == TFMT_JREC_UNKNOWN && rec->type_name.len == 6,
          "unknown record delivered");
    CHECK(strcmp(ns.last, "2: unknown record type \"window\" ignored") == 0,
          "%s", ns.last);
    CHECK(tfmt_jsonl_next(x.r, &rec) == TFMT_OK, "end");
    CHECK(ns.n[TFMT_JNOTE_NO_NEWLINE] == 1, "no newline noted");
    CHECK(ns.n[TFMT_JNOTE_UNKNOWN_FIELD] == 1, "extra noted");
    CHECK(tfmt_jsonl_next(x.r, &rec) == TFMT_DONE, "done");
    rd_close(&x);
}

/* Deep nesting is refused by depth, without recursion or a crash. */
TEST(deep_nesting_refused)
{
    static char text[300100];
    size_t n = strlen(META);
    memcpy(text, META, n);
    memset(text + n, '[', 300000);
    text[n + 300000] = '\n';
    tfmt_jsonl_options o = TFMT_JSONL_OPTIONS_INIT;
    o.keep_going = true;
    rd x = rd_open(text, &o);
    const tfmt_jsonl_record *rec;
    CHECK(tfmt_jsonl_next(x.r, &rec) == TFMT_OK, "meta");
    CHECK(tfmt_jsonl_next(x.r, &rec) == TFMT_EFORMAT, "deep line");
    CHECK(strcmp(tfmt_jsonl_error(x.r)->msg,
                 "invalid JSON at column 33: nesting too deep") == 0,
          "%s", tfmt_jsonl_error(x.r)->msg);
    CHECK(tfmt_jsonl_next(x.r, &rec) == TFMT_ETRUNC, "no end");
    rd_close(&x);
}

/* Bytes already read to sniff the format are handed back through head. */
TEST(head_bytes_come_first)
{
    const char *text = META END;
    tfmt_jsonl_options o = TFMT_JSONL_OPTIONS_INIT;
    o.head = text;
    o.head_len = 4;
    tfmt_source *src;
    tfmt_jsonl_reader *r;
    tfmt_source_open_memory(&src, text + 4, strlen(text) - 4, 3, NULL);
    REQUIRE(tfmt_jsonl_open(&r, src, &o, NULL) == TFMT_OK, "open");
    const tfmt_jsonl_record *rec;
    CHECK(tfmt_jsonl_next(r, &rec) == TFMT_OK && rec->type == TFMT_JREC_META &&
              rec->sample_interval_usec == 100,
          "meta read across head and source");
    CHECK(tfmt_jsonl_next(r, &rec) == TFMT_OK && rec->type == TFMT_JREC_END,
          "end");
    CHECK(tfmt_jsonl_next(r, &rec) == TFMT_DONE, "done");
    tfmt_jsonl_free(r);
    tfmt_source_free(src);
}

TEST(failing_allocator_every_site)
{
    size_t len = 0;
    unsigned char *data = fixture("workload/expected.jsonl", &len);
    REQUIRE(data, "fixture");
    int failures = 0;
    for (int nth = 1; nth < 200; nth++) {
        test_failing f = {nth, 0, false};
        tfmt_allocator a = test_failing_alloc(&f);
        tfmt_jsonl_options o = TFMT_JSONL_OPTIONS_INIT;
        o.alloc = &a;
        counts c = read_all(data, len, 7, &o);
        if (f.calls < f.at) {
            CHECK(c.rc == TFMT_DONE, "no failure injected: rc %d", c.rc);
            break;
        }
        failures++;
        CHECK(c.rc == TFMT_ENOMEM, "nth %d: rc %d", nth, c.rc);
    }
    CHECK(failures > 2, "%d allocation sites hit", failures);
    free(data);
}

/* Collects the rule ids of every finding. */
typedef struct findings {
    char rules[256];
    int errors, warnings;
} findings;

static void collect(void *ctx, const tfmt_error *w)
{
    findings *f = ctx;
    const char *rule = tfmt_jsonl_rule(w->check);
    size_t n = strlen(f->rules);
    snprintf(f->rules + n, sizeof f->rules - n, "%s%s:%llu", n ? " " : "",
             rule ? rule : "?", (unsigned long long)w->line);
    if (w->code == TFMT_ESCHEMA)
        f->errors++;
    else
        f->warnings++;
}

#define R "\"run_id\":\"0123456789abcdef0123456789abcdef\""
static const char broken[] =
    "{\"type\":\"meta\",\"v\":0," R ",\"sample_interval_usec\":250,"
    "\"mode\":\"7\"}\n"
    "{\"type\":\"string_table\",\"v\":0," R ",\"strings\":["
    "{\"str_id\":0,\"value\":\"f\"},{\"str_id\":0,\"value\":\"g\"}]}\n"
    "{\"type\":\"frame_table\",\"v\":0," R ",\"frames\":["
    "{\"frame_id\":0,\"path_str_id\":0,\"func_str_id\":5,\"line\":1},"
    "{\"frame_id\":1,\"path_str_id\":0,\"func_str_id\":0,\"line\":2}]}\n"
    "{\"type\":\"agg\",\"v\":0," R ",\"kind\":\"frame\","
    "\"scope\":\"final\",\"samples_total\":4,\"entries\":["
    "{\"frame_id\":0,\"self\":9,\"cumulative\":5}]}\n"
    "{\"type\":\"end\",\"v\":0," R ",\"samples_total\":4}\n";

/*
 * The rulebook: without on_finding the first error ends the input with
 * its check; with it every finding comes, in line order, and the reader
 * reaches the end.
 */
TEST(cross_record_rules_both_ways)
{
    counts c = read_all(broken, sizeof broken - 1, 7, NULL);
    CHECK(c.rc == TFMT_ESCHEMA, "strict: rc %d", c.rc);
    tfmt_source *src = NULL;
    tfmt_jsonl_reader *r = NULL;
    tfmt_source_open_memory(&src, broken, sizeof broken - 1, 0, NULL);
    REQUIRE(tfmt_jsonl_open(&r, src, NULL, NULL) == TFMT_OK, "open");
    const tfmt_jsonl_record *rec;
    while (tfmt_jsonl_next(r, &rec) == TFMT_OK)
        ;
    const tfmt_error *e = tfmt_jsonl_error(r);
    CHECK(e->line == 2 && e->check == TFMT_JCHK_STR_DUP &&
              strcmp(tfmt_jsonl_rule(e->check), "TV120") == 0 &&
              strcmp(e->msg, "strings[1]: str_id 0 defined twice") == 0,
          "first error: line %llu check %d %s", (unsigned long long)e->line,
          e->check, e->msg);
    const tfmt_jsonl_info *info = tfmt_jsonl_get_info(r);
    CHECK(info->has_meta && info->mode == 7 &&
              info->sample_interval_usec == 250 && info->run_id.len == 32,
          "info: mode %d interval %llu", info->mode,
          (unsigned long long)info->sample_interval_usec);
    tfmt_jsonl_free(r);
    tfmt_source_free(src);

    findings f;
    memset(&f, 0, sizeof f);
    tfmt_jsonl_options o = TFMT_JSONL_OPTIONS_INIT;
    o.on_finding = collect;
    o.finding_ctx = &f;
    c = read_all(broken, sizeof broken - 1, 1, &o);
    CHECK(c.rc == TFMT_DONE, "lenient: rc %d", c.rc);
    CHECK(strcmp(f.rules, "TV120:2 TV122:3 TV126:4 TV127:4 TV131:5") == 0 &&
              f.errors == 4 && f.warnings == 1,
          "findings: %s (%d errors)", f.rules, f.errors);
}

/* Ids far apart: a bitmap for the dense ones, the table for the rest. */
TEST(idbits_dense_and_sparse)
{
    tfmt_idbits s;
    tfmt__idbits_init(&s, NULL);
    static const uint32_t ids[] = {UINT32_MAX, 5,      0, 1u << 30,
                                   70000,      200000, 3};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        CHECK(tfmt__idbits_add(&s, ids[i]) == 1, "add %u", ids[i]);
    /* Enough dense ids to grow the bitmap over 70000 and 200000. */
    for (uint32_t id = 6; id < 4000; id++)
        tfmt__idbits_add(&s, id);
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        CHECK(tfmt__idbits_has(&s, ids[i]), "has %u", ids[i]);
        CHECK(tfmt__idbits_add(&s, ids[i]) == 0, "re-add %u", ids[i]);
    }
    CHECK(!tfmt__idbits_has(&s, 4) && !tfmt__idbits_has(&s, 70001) &&
              !tfmt__idbits_has(&s, UINT32_MAX - 1),
          "absent ids");
    CHECK(s.count == 3994 + 7, "count %zu", s.count);
    CHECK(s.nwords * 64 < 64 * 4096 + 65536 * 2, "bitmap %zu words", s.nwords);
    tfmt__idbits_free(&s);
}

TESTS(TCASE(fixture_counts_every_chunking), TCASE(chunked_tables),
      TCASE(cross_record_rules_both_ways), TCASE(idbits_dense_and_sparse),
      TCASE(v1_ids_become_zero_based_and_synthetic_kept),
      TCASE(missing_end_is_truncated), TCASE(bad_lines_exact_messages),
      TCASE(errors_are_final_without_keep_going),
      TCASE(line_limit_skips_and_resumes),
      TCASE(unknown_types_and_fields_are_notes), TCASE(head_bytes_come_first),
      TCASE(deep_nesting_refused), TCASE(failing_allocator_every_site))
