/* SPDX-License-Identifier: MIT */
/*
 * fuzz_read_jsonl.c - the JSONL reader on arbitrary bytes, fed 7 bytes at
 * a time with a small line limit so the carry buffer and the over-long-line
 * skip are exercised. Invariant: every record that parses is written back
 * as a JSON line, read again, and must come back equal.
 */
#include <stdio.h>
#include <stdlib.h>

#include <tachyon/fmt.h>

#include "internal.h"

#define check(ok) check_at(ok, __LINE__)
static void check_at(bool ok, int line)
{
    if (!ok) {
        fprintf(stderr, "fuzz_read_jsonl: invariant at line %d failed\n", line);
        abort();
    }
}

static void put_str(tfmt_buf *b, tfmt_str s)
{
    tfmt__buf_putc(b, '"');
    for (size_t i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        if (c == '"' || c == '\\') {
            tfmt__buf_putc(b, '\\');
            tfmt__buf_putc(b, (char)c);
        } else if (c < 0x20) {
            tfmt__buf_printf(b, "\\u%04x", c);
        } else {
            tfmt__buf_putc(b, (char)c);
        }
    }
    tfmt__buf_putc(b, '"');
}

static void put_key_str(tfmt_buf *b, const char *key, tfmt_str s)
{
    tfmt__buf_printf(b, ",\"%s\":", key);
    put_str(b, s);
}

static void put_loc(tfmt_buf *b, const char *key, int32_t v)
{
    if (v != TFMT_JSONL_ABSENT)
        tfmt__buf_printf(b, ",\"%s\":%d", key, (int)v);
}

/* Write `rec` back as one JSON line (ids in the record's dialect). */
static void serialize(tfmt_buf *b, const tfmt_jsonl_record *rec)
{
    unsigned base = rec->v == 1 ? 1 : 0;
    bool v1 = rec->v == 1;
    const char *name = tfmt_jsonl_type_name(rec->type);
    if (v1 && rec->type == TFMT_JREC_STRINGS)
        name = "str_def";
    if (v1 && rec->type == TFMT_JREC_FRAMES)
        name = "frame_def";
    tfmt__buf_printf(b, "{\"type\":\"%s\",\"v\":%lld", name, (long long)rec->v);
    put_key_str(b, "run_id", rec->run_id);
    if (rec->type == TFMT_JREC_META) {
        tfmt__buf_printf(b, ",\"sample_interval_usec\":%llu",
                         (unsigned long long)rec->sample_interval_usec);
        if (rec->mode.ptr)
            put_key_str(b, "mode", rec->mode);
    }
    if (rec->type == TFMT_JREC_STRINGS) {
        tfmt__buf_printf(b, ",\"%s\":[", v1 ? "defs" : "strings");
        for (size_t i = 0; i < rec->n_strings; i++) {
            tfmt__buf_printf(b, "%s{\"str_id\":%llu,\"value\":", i ? "," : "",
                             (unsigned long long)rec->strings[i].id + base);
            put_str(b, rec->strings[i].value);
            tfmt__buf_putc(b, '}');
        }
        tfmt__buf_putc(b, ']');
    }
    if (rec->type == TFMT_JREC_FRAMES) {
        tfmt__buf_printf(b, ",\"%s\":[", v1 ? "defs" : "frames");
        for (size_t i = 0; i < rec->n_frames; i++) {
            const tfmt_jsonl_frame *f = &rec->frames[i];
            tfmt__buf_printf(b,
                             "%s{\"frame_id\":%llu,\"path_str_id\":%llu,"
                             "\"func_str_id\":%llu,\"line\":%d",
                             i ? "," : "", (unsigned long long)f->id + base,
                             (unsigned long long)f->path_str_id + base,
                             (unsigned long long)f->func_str_id + base,
                             (int)f->line);
            put_loc(b, "end_line", f->end_line);
            put_loc(b, "col", f->col);
            put_loc(b, "end_col", f->end_col);
            if (f->synthetic)
                tfmt__buf_puts(b, ",\"synthetic\":true");
            tfmt__buf_putc(b, '}');
        }
        tfmt__buf_putc(b, ']');
    }
    if (rec->type == TFMT_JREC_AGG) {
        put_key_str(b, "kind", rec->kind);
        put_key_str(b, "scope", rec->scope);
    }
    if (rec->type == TFMT_JREC_AGG || rec->type == TFMT_JREC_END)
        tfmt__buf_printf(b, ",\"samples_total\":%llu",
                         (unsigned long long)rec->samples_total);
    if (rec->type == TFMT_JREC_AGG) {
        tfmt__buf_puts(b, ",\"entries\":[");
        for (size_t i = 0; i < rec->n_entries; i++)
            tfmt__buf_printf(b,
                             "%s{\"frame_id\":%llu,\"self\":%llu,"
                             "\"cumulative\":%llu}",
                             i ? "," : "",
                             (unsigned long long)rec->entries[i].frame_id +
                                 base,
                             (unsigned long long)rec->entries[i].self,
                             (unsigned long long)rec->entries[i].cumulative);
        tfmt__buf_putc(b, ']');
    }
    tfmt__buf_puts(b, "}\n");
}

static bool str_eq(tfmt_str a, tfmt_str b)
{
    if (!a.ptr || !b.ptr)
        return a.ptr == b.ptr;
    return a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0;
}

/* Field by field: the structs have padding. */
static bool frame_eq(const tfmt_jsonl_frame *a, const tfmt_jsonl_frame *b)
{
    return a->id == b->id && a->path_str_id == b->path_str_id &&
           a->func_str_id == b->func_str_id && a->line == b->line &&
           a->end_line == b->end_line && a->col == b->col &&
           a->end_col == b->end_col && a->synthetic == b->synthetic;
}

static void check_equal(const tfmt_jsonl_record *a, const tfmt_jsonl_record *b)
{
    check(a->type == b->type && a->v == b->v);
    check(str_eq(a->run_id, b->run_id) && str_eq(a->mode, b->mode));
    check(a->sample_interval_usec == b->sample_interval_usec);
    check(a->samples_total == b->samples_total);
    check(str_eq(a->kind, b->kind) && str_eq(a->scope, b->scope));
    check(a->n_strings == b->n_strings && a->n_frames == b->n_frames &&
          a->n_entries == b->n_entries);
    for (size_t i = 0; i < a->n_strings; i++)
        check(a->strings[i].id == b->strings[i].id &&
              str_eq(a->strings[i].value, b->strings[i].value));
    for (size_t i = 0; i < a->n_frames; i++)
        check(frame_eq(&a->frames[i], &b->frames[i]));
    for (size_t i = 0; i < a->n_entries; i++)
        check(a->entries[i].frame_id == b->entries[i].frame_id &&
              a->entries[i].self == b->entries[i].self &&
              a->entries[i].cumulative == b->entries[i].cumulative);
}

/* Cross-record findings are not this target's business: read on. */
static void ignore_finding(void *ctx, const tfmt_error *where)
{
    (void)ctx;
    check(where->msg[0] != 0);
}

static void roundtrip(const tfmt_jsonl_record *rec)
{
    if (rec->type == TFMT_JREC_UNKNOWN)
        return;
    tfmt_buf b;
    tfmt__buf_init(&b, NULL);
    serialize(&b, rec);
    tfmt_source *src = NULL;
    tfmt_jsonl_reader *r = NULL;
    const tfmt_jsonl_record *back = NULL;
    tfmt_jsonl_options o = TFMT_JSONL_OPTIONS_INIT;
    o.on_finding = ignore_finding;
    check(tfmt_source_open_memory(&src, b.data, b.len, 0, NULL) == TFMT_OK);
    check(tfmt_jsonl_open(&r, src, &o, NULL) == TFMT_OK);
    check(tfmt_jsonl_next(r, &back) == TFMT_OK);
    check_equal(rec, back);
    tfmt_jsonl_free(r);
    tfmt_source_free(src);
    tfmt__buf_free(&b);
}

/* Counts the errors among the findings of the lenient pass. */
static void count_finding(void *ctx, const tfmt_error *where)
{
    check(where->msg[0] != 0 && tfmt_jsonl_rule(where->check) != NULL);
    if (where->code == TFMT_ESCHEMA)
        (*(uint64_t *)ctx)++;
}

/*
 * Every error, as tachyon-validate sees them (keep_going, every finding):
 * returns how many, each record read back through roundtrip.
 */
static uint64_t lenient_pass(const uint8_t *data, size_t size)
{
    tfmt_source *src = NULL;
    tfmt_jsonl_reader *r = NULL;
    tfmt_jsonl_options o = TFMT_JSONL_OPTIONS_INIT;
    uint64_t errors = 0;
    o.keep_going = true;
    o.max_line = 4096;
    o.on_finding = count_finding;
    o.finding_ctx = &errors;
    check(tfmt_source_open_memory(&src, data, size, 7, NULL) == TFMT_OK);
    check(tfmt_jsonl_open(&r, src, &o, NULL) == TFMT_OK);
    const tfmt_jsonl_record *rec;
    uint64_t last = 0;
    int rc;
    do {
        rc = tfmt_jsonl_next(r, &rec);
        if (rc == TFMT_OK) {
            check(rec->line > last);
            last = rec->line;
            roundtrip(rec);
        } else if (rc < 0) {
            check(tfmt_jsonl_error(r)->msg[0] != 0);
            errors++;
        }
    } while (rc == TFMT_OK || rc == TFMT_EFORMAT || rc == TFMT_ESCHEMA ||
             rc == TFMT_EVERSION || rc == TFMT_ELIMIT);
    check(rc == TFMT_DONE || rc == TFMT_ETRUNC);
    check(tfmt_jsonl_lines(r) <= size);
    tfmt_jsonl_free(r);
    tfmt_source_free(src);
    return errors;
}

/*
 * As every other reader sees it: the first error is final. Returns the
 * last status (TFMT_DONE for a clean file).
 */
static int strict_pass(const uint8_t *data, size_t size)
{
    tfmt_source *src = NULL;
    tfmt_jsonl_reader *r = NULL;
    tfmt_jsonl_options o = TFMT_JSONL_OPTIONS_INIT;
    o.max_line = 4096;
    check(tfmt_source_open_memory(&src, data, size, 7, NULL) == TFMT_OK);
    check(tfmt_jsonl_open(&r, src, &o, NULL) == TFMT_OK);
    const tfmt_jsonl_record *rec;
    int rc;
    while ((rc = tfmt_jsonl_next(r, &rec)) == TFMT_OK)
        ;
    const tfmt_jsonl_record *again;
    check(tfmt_jsonl_next(r, &again) == rc);
    if (rc < 0)
        check(tfmt_jsonl_rule(tfmt_jsonl_error(r)->check) != NULL ||
              rc == TFMT_ENOMEM);
    tfmt_jsonl_free(r);
    tfmt_source_free(src);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Invariant of the one rulebook: a reader that stops at the first error
 * reads an input to its end exactly when tachyon-validate's way of
 * reading it finds no error.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t errors = lenient_pass(data, size);
    int rc = strict_pass(data, size);
    check((rc == TFMT_DONE) == (errors == 0));
    return 0;
}
