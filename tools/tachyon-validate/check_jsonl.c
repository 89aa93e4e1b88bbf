/*
 * check_jsonl.c - the JSONL rules of tachyon-validate. The library reader
 * checks each line on its own (and keeps going after a bad one); this file
 * adds the rules that span records: meta first and once, end last and once,
 * one run_id and one dialect, ids unique and defined before use, equal
 * samples_total, and self <= cumulative <= samples_total.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "idset.h"

typedef struct jstate {
    tv_report *rep;
    tv_file *f;
    tv_idset strings, frames, agg;
    uint64_t records;       /* well-formed records so far */
    bool saw_meta, saw_end, first_reported;
    int64_t v;              /* the meta record's version */
    char *run_id;           /* the first record's run_id */
    size_t run_id_len;
    bool have_total;
    uint64_t total;
    uint64_t total_line;
    bool dropped;           /* a line could not be read as a record */
    bool oom;
} jstate;

/* Ids as written in the file (the v 1 dialect counts from 1). */
static unsigned long long shown(const tfmt_jsonl_record *rec, uint32_t id)
{
    return (unsigned long long)id + (rec->v == 1 ? 1 : 0);
}

/* One finding located on the record's line. */
#define ADD(s, rec, rule, ...) \
    tv_add((s)->rep, (s)->f, rule, (rec)->line, false, 0, __VA_ARGS__)

static bool is_hex32(tfmt_str id)
{
    if (id.len != 32)
        return false;
    for (size_t i = 0; i < 32; i++) {
        char c = id.ptr[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    }
    return true;
}

/* meta first and once; end last and once; nothing after end. */
static void check_order(jstate *s, const tfmt_jsonl_record *rec)
{
    const char *name = tfmt_jsonl_type_name(rec->type);
    if (rec->type == TFMT_JREC_UNKNOWN)
        name = "unknown";
    if (s->saw_end) {
        if (rec->type == TFMT_JREC_END)
            ADD(s, rec, R_END_DUP, "second end record");
        else
            ADD(s, rec, R_AFTER_END, "%s record after the end record",
                name);
    }
    if (rec->type == TFMT_JREC_META) {
        if (s->saw_meta)
            ADD(s, rec, R_META_DUP, "second meta record");
        else if (s->records > 0 && !s->first_reported)
            ADD(s, rec, R_META_FIRST, "meta record is not the first record");
        s->first_reported = true;
        s->saw_meta = true;
        s->v = rec->v;
        if (!is_hex32(rec->run_id))
            ADD(s, rec, R_RUN_ID_FORM,
                "run_id is not 32 lowercase hex digits");
    } else if (!s->saw_meta && !s->first_reported && !s->dropped) {
        ADD(s, rec, R_META_FIRST, "first record is %s, expected meta", name);
        s->first_reported = true;
    }
    if (rec->type == TFMT_JREC_END)
        s->saw_end = true;
}

/* One run_id on every record; one dialect on every known record. */
static void check_identity(jstate *s, const tfmt_jsonl_record *rec)
{
    if (!s->run_id) {
        s->run_id = malloc(rec->run_id.len + 1);
        if (!s->run_id) {
            s->oom = true;
            return;
        }
        memcpy(s->run_id, rec->run_id.ptr, rec->run_id.len);
        s->run_id_len = rec->run_id.len;
    } else if (rec->run_id.len != s->run_id_len ||
               memcmp(rec->run_id.ptr, s->run_id, s->run_id_len) != 0) {
        ADD(s, rec, R_RUN_ID, "run_id differs from the first record's");
    }
    if (s->saw_meta && rec->type != TFMT_JREC_UNKNOWN && rec->v != s->v)
        ADD(s, rec, R_DIALECT, "record version %lld, but meta has %lld",
            (long long)rec->v, (long long)s->v);
}

static void check_strings(jstate *s, const tfmt_jsonl_record *rec)
{
    const char *arr = rec->v == 1 ? "defs" : "strings";
    for (size_t i = 0; i < rec->n_strings && tv_more(s->rep, s->f); i++) {
        int rc = tv_idset_add(&s->strings, rec->strings[i].id);
        if (rc < 0)
            s->oom = true;
        else if (rc == 0)
            ADD(s, rec, R_STR_DUP, "%s[%zu]: str_id %llu defined twice",
                arr, i, shown(rec, rec->strings[i].id));
    }
}

static void check_frame(jstate *s, const tfmt_jsonl_record *rec, size_t i)
{
    const char *arr = rec->v == 1 ? "defs" : "frames";
    const tfmt_jsonl_frame *fr = &rec->frames[i];
    int rc = tv_idset_add(&s->frames, fr->id);
    if (rc < 0)
        s->oom = true;
    else if (rc == 0)
        ADD(s, rec, R_FRAME_DUP, "%s[%zu]: frame_id %llu defined twice",
            arr, i, shown(rec, fr->id));
    /* A dropped line may have defined it: no cascade of findings. */
    if (s->dropped)
        return;
    if (!tv_idset_has(&s->strings, fr->path_str_id))
        ADD(s, rec, R_STR_REF,
            "%s[%zu].path_str_id: string %llu is not defined earlier", arr,
            i, shown(rec, fr->path_str_id));
    if (!tv_idset_has(&s->strings, fr->func_str_id))
        ADD(s, rec, R_STR_REF,
            "%s[%zu].func_str_id: string %llu is not defined earlier", arr,
            i, shown(rec, fr->func_str_id));
}

static void check_frames(jstate *s, const tfmt_jsonl_record *rec)
{
    for (size_t i = 0; i < rec->n_frames && tv_more(s->rep, s->f); i++)
        check_frame(s, rec, i);
}

/* samples_total equal on every agg chunk and on end. */
static void check_total(jstate *s, const tfmt_jsonl_record *rec)
{
    if (!s->have_total) {
        s->have_total = true;
        s->total = rec->samples_total;
        s->total_line = rec->line;
    } else if (rec->samples_total != s->total) {
        ADD(s, rec, R_TOTAL, "samples_total %llu differs from %llu on line "
            "%llu", (unsigned long long)rec->samples_total,
            (unsigned long long)s->total, (unsigned long long)s->total_line);
    }
}

static void check_entry(jstate *s, const tfmt_jsonl_record *rec, size_t i)
{
    const tfmt_jsonl_agg *e = &rec->entries[i];
    if (!s->dropped && !tv_idset_has(&s->frames, e->frame_id))
        ADD(s, rec, R_FRAME_REF,
            "entries[%zu].frame_id: frame %llu is not defined earlier", i,
            shown(rec, e->frame_id));
    int rc = tv_idset_add(&s->agg, e->frame_id);
    if (rc < 0)
        s->oom = true;
    else if (rc == 0)
        ADD(s, rec, R_AGG_DUP, "entries[%zu]: frame %llu listed twice", i,
            shown(rec, e->frame_id));
    if (e->self > e->cumulative)
        ADD(s, rec, R_SELF_CUM, "entries[%zu]: self %llu > cumulative %llu",
            i, (unsigned long long)e->self,
            (unsigned long long)e->cumulative);
    if (e->cumulative > rec->samples_total)
        ADD(s, rec, R_CUM_TOTAL,
            "entries[%zu]: cumulative %llu > samples_total %llu", i,
            (unsigned long long)e->cumulative,
            (unsigned long long)rec->samples_total);
}

static void check_agg(jstate *s, const tfmt_jsonl_record *rec)
{
    check_total(s, rec);
    for (size_t i = 0; i < rec->n_entries && tv_more(s->rep, s->f); i++)
        check_entry(s, rec, i);
}

static void check_record(jstate *s, const tfmt_jsonl_record *rec)
{
    check_order(s, rec);
    check_identity(s, rec);
    switch (rec->type) {
    case TFMT_JREC_STRINGS: check_strings(s, rec); break;
    case TFMT_JREC_FRAMES: check_frames(s, rec); break;
    case TFMT_JREC_AGG: check_agg(s, rec); break;
    case TFMT_JREC_END: check_total(s, rec); break;
    default: break;
    }
    s->records++;
}

static const char *check_rule(int check)
{
    static const char *const rules[] = {
        [TFMT_JCHK_NONE] = R_SYNTAX,
        [TFMT_JCHK_LINE_LENGTH] = R_LINE_LENGTH,
        [TFMT_JCHK_SYNTAX] = R_SYNTAX,
        [TFMT_JCHK_NOT_OBJECT] = R_NOT_OBJECT,
        [TFMT_JCHK_ENVELOPE] = R_ENVELOPE,
        [TFMT_JCHK_VERSION] = R_VERSION,
        [TFMT_JCHK_MISSING] = R_MISSING,
        [TFMT_JCHK_TYPE] = R_TYPE,
        [TFMT_JCHK_RANGE] = R_RANGE,
        [TFMT_JCHK_INCOMPLETE] = R_NO_END,
        [TFMT_JCHK_INPUT] = R_INPUT,
    };
    if (check < 0 || check > TFMT_JCHK_INPUT)
        return R_SYNTAX;
    return rules[check];
}

static void on_note(void *ctx, tfmt_jsonl_note kind, const tfmt_error *w)
{
    jstate *s = ctx;
    const char *rule = kind == TFMT_JNOTE_UNKNOWN_TYPE ? R_UNKNOWN_TYPE
                       : kind == TFMT_JNOTE_UNKNOWN_FIELD ? R_UNKNOWN_FIELD
                                                          : R_NO_NEWLINE;
    tv_add(s->rep, s->f, rule, w->line, false, 0, "%s", w->msg);
}

/* A reader failure: a finding on its line, or trouble (I/O, memory). */
static void reader_error(jstate *s, int rc, const tfmt_error *e,
                         uint64_t lines)
{
    if (rc == TFMT_EIO || rc == TFMT_ENOMEM || rc == TFMT_EINVAL) {
        tv_trouble(s->rep, s->f, e->msg);
        return;
    }
    s->dropped = true;
    if (e->check == TFMT_JCHK_INCOMPLETE && lines == 0) {
        tv_add(s->rep, s->f, R_EMPTY, 0, false, 0, "file is empty");
        return;
    }
    tv_add(s->rep, s->f, check_rule(e->check), e->line, false, 0, "%s",
           e->msg);
}

typedef struct missing_ctx {
    jstate *s;
    uint64_t count;
    uint32_t first;
} missing_ctx;

static void count_missing(void *ctx, uint32_t id)
{
    missing_ctx *m = ctx;
    if (tv_idset_has(&m->s->agg, id))
        return;
    if (m->count == 0 || id < m->first)
        m->first = id;
    m->count++;
}

/* Every frame should have an agg entry (CPython lists all of them). */
static void check_coverage(jstate *s, uint64_t last_line)
{
    missing_ctx m = {s, 0, 0};
    tv_idset_each(&s->frames, count_missing, &m);
    if (m.count)
        tv_add(s->rep, s->f, R_NO_AGG, last_line, false, 0,
               "%llu frame%s without an agg entry (first: frame_id %llu)",
               (unsigned long long)m.count, m.count == 1 ? "" : "s",
               (unsigned long long)m.first + (s->v == 1 ? 1 : 0));
}

/* Errors after which the reader goes on with the next line. */
static bool line_local(int check)
{
    return check >= TFMT_JCHK_LINE_LENGTH && check <= TFMT_JCHK_RANGE;
}

void tv_check_jsonl(tv_report *rep, tv_file *f, const tv_input *in)
{
    jstate s;
    memset(&s, 0, sizeof s);
    s.rep = rep;
    s.f = f;
    f->format = "jsonl";
    tfmt_jsonl_options o = TFMT_JSONL_OPTIONS_INIT;
    o.keep_going = true;
    o.max_line = in->max_line;
    o.on_note = on_note;
    o.note_ctx = &s;
    tfmt_jsonl_reader *r = NULL;
    tfmt_error err;
    int rc = tfmt_jsonl_open(&r, in->src, &o, &err);
    if (rc < 0) {
        tv_trouble(rep, f, err.msg);
        return;
    }
    const tfmt_jsonl_record *rec;
    while (tv_more(rep, f) && !s.oom) {
        rc = tfmt_jsonl_next(r, &rec);
        if (rc == TFMT_OK)
            check_record(&s, rec);
        else if (rc == TFMT_DONE)
            break;
        else
            reader_error(&s, rc, tfmt_jsonl_error(r), tfmt_jsonl_lines(r));
        if (rc < 0 && !line_local(tfmt_jsonl_error(r)->check))
            break;
    }
    if (s.oom)
        tv_trouble(rep, f, "out of memory");
    else if (rc == TFMT_DONE && !s.dropped)
        check_coverage(&s, tfmt_jsonl_lines(r));
    tfmt_jsonl_free(r);
    tv_idset_free(&s.strings);
    tv_idset_free(&s.frames);
    tv_idset_free(&s.agg);
    free(s.run_id);
}
