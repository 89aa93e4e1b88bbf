/* SPDX-License-Identifier: MIT */
/*
 * jsonl_rules.c - the JSONL rulebook: the rules that span records (meta
 * first and once, end last and once, one run_id and one dialect, ids
 * unique and defined before use, equal samples_total, and self <=
 * cumulative <= samples_total), checked on every record the reader
 * delivers. It is the only copy of these rules: tachyon-validate reports
 * every finding through the reader's on_finding callback, every other
 * reader stops at the first error. Messages are those of
 * schemas/RULES.md's rules, ids as written in the file.
 */
#include "jsonl_internal.h"

static const char *const rule_ids[] = {
    [TFMT_JCHK_LINE_LENGTH] = "TV101", [TFMT_JCHK_SYNTAX] = "TV102",
    [TFMT_JCHK_NOT_OBJECT] = "TV103",  [TFMT_JCHK_ENVELOPE] = "TV104",
    [TFMT_JCHK_VERSION] = "TV105",     [TFMT_JCHK_MISSING] = "TV106",
    [TFMT_JCHK_TYPE] = "TV107",        [TFMT_JCHK_RANGE] = "TV108",
    [TFMT_JCHK_INCOMPLETE] = "TV112",  [TFMT_JCHK_INPUT] = "TV004",
    [TFMT_JCHK_META_FIRST] = "TV110",  [TFMT_JCHK_META_DUP] = "TV111",
    [TFMT_JCHK_END_DUP] = "TV113",     [TFMT_JCHK_AFTER_END] = "TV114",
    [TFMT_JCHK_RUN_ID] = "TV115",      [TFMT_JCHK_DIALECT] = "TV116",
    [TFMT_JCHK_STR_DUP] = "TV120",     [TFMT_JCHK_FRAME_DUP] = "TV121",
    [TFMT_JCHK_STR_REF] = "TV122",     [TFMT_JCHK_FRAME_REF] = "TV123",
    [TFMT_JCHK_AGG_DUP] = "TV124",     [TFMT_JCHK_TOTAL] = "TV125",
    [TFMT_JCHK_SELF_CUM] = "TV126",    [TFMT_JCHK_CUM_TOTAL] = "TV127",
    [TFMT_JCHK_NO_AGG] = "TV131",      [TFMT_JCHK_RUN_ID_FORM] = "TV132",
    [TFMT_JCHK_SELF_SUM] = "TV128",    [TFMT_JCHK_INPUT_LIMIT] = "TV005",
};

const char *tfmt_jsonl_rule(int check)
{
    if (check <= 0 || check >= (int)(sizeof rule_ids / sizeof *rule_ids))
        return NULL;
    return rule_ids[check];
}

const char *tfmt_jsonl_note_rule(int note)
{
    switch (note) {
    case TFMT_JNOTE_UNKNOWN_TYPE: return "TV140";
    case TFMT_JNOTE_UNKNOWN_FIELD: return "TV141";
    case TFMT_JNOTE_NO_NEWLINE: return "TV130";
    default: return NULL;
    }
}

void tfmt__jrules_init(tfmt_jrules *s, const tfmt_allocator *a)
{
    memset(s, 0, sizeof *s);
    tfmt__idbits_init(&s->strings, a);
    tfmt__idbits_init(&s->frames, a);
    tfmt__idbits_init(&s->agg, a);
    tfmt__buf_init(&s->run_id, a);
    s->info.mode = TFMT_MODE_UNKNOWN;
}

void tfmt__jrules_free(tfmt_jrules *s)
{
    tfmt__idbits_free(&s->strings);
    tfmt__idbits_free(&s->frames);
    tfmt__idbits_free(&s->agg);
    tfmt__buf_free(&s->run_id);
}

static bool is_warning(int check)
{
    return check == TFMT_JCHK_NO_AGG || check == TFMT_JCHK_RUN_ID_FORM;
}

/*
 * One finding on `line`: to on_finding, or (the first error) into the
 * reader's error. Returns TFMT_ESCHEMA when the reader must stop.
 */
static int finding(tfmt_jsonl_reader *r, int check, uint64_t line,
                   const char *fmt, ...) TFMT_PRINTF(4, 5);
static int finding(tfmt_jsonl_reader *r, int check, uint64_t line,
                   const char *fmt, ...)
{
    bool warn = is_warning(check);
    if (!r->opts.on_finding && warn && !r->opts.on_note)
        return TFMT_OK;
    tfmt_error e;
    memset(&e, 0, sizeof e);
    e.code = warn ? TFMT_OK : TFMT_ESCHEMA;
    e.check = check;
    e.line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.msg, sizeof e.msg, fmt, ap);
    va_end(ap);
    if (r->opts.on_finding) {
        r->opts.on_finding(r->opts.finding_ctx, &e);
        return TFMT_OK;
    }
    if (warn) {
        r->opts.on_note(r->opts.note_ctx, TFMT_JNOTE_WARNING, &e);
        return TFMT_OK;
    }
    r->err = e;
    return TFMT_ESCHEMA;
}

/* Ids as written in the file (the v 1 dialect counts from 1). */
static unsigned long long shown(const tfmt_jsonl_record *rec, uint32_t id)
{
    return (unsigned long long)id + (rec->v == 1 ? 1 : 0);
}

#define FIND(r, rec, check, ...) finding(r, check, (rec)->line, __VA_ARGS__)
#define TRY(x)                                                                 \
    do {                                                                       \
        int rc_ = (x);                                                         \
        if (rc_ != TFMT_OK)                                                    \
            return rc_;                                                        \
    } while (0)

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

/* meta's "mode": a name, or the decimal number CPython writes for others. */
static int parse_mode(tfmt_str m)
{
    if (!m.ptr)
        return TFMT_MODE_UNKNOWN;
    for (int i = TFMT_MODE_WALL; i <= TFMT_MODE_EXCEPTION; i++) {
        const char *n = tfmt_mode_name(i);
        if (strlen(n) == m.len && memcmp(n, m.ptr, m.len) == 0)
            return i;
    }
    int v = 0;
    for (size_t i = 0; i < m.len; i++) {
        if (m.ptr[i] < '0' || m.ptr[i] > '9' || v > 100000000)
            return TFMT_MODE_UNKNOWN;
        v = v * 10 + (m.ptr[i] - '0');
    }
    return m.len ? v : TFMT_MODE_UNKNOWN;
}

static void meta_info(tfmt_jrules *s, const tfmt_jsonl_record *rec)
{
    s->info.has_meta = true;
    s->info.v = rec->v;
    s->info.sample_interval_usec = rec->sample_interval_usec;
    s->info.mode = parse_mode(rec->mode);
}

/* meta first and once; end last and once; nothing after end. */
static int check_order(tfmt_jsonl_reader *r, const tfmt_jsonl_record *rec)
{
    tfmt_jrules *s = &r->rules;
    const char *name = tfmt_jsonl_type_name(rec->type);
    if (s->saw_end) {
        if (rec->type == TFMT_JREC_END)
            TRY(FIND(r, rec, TFMT_JCHK_END_DUP, "second end record"));
        else
            TRY(FIND(r, rec, TFMT_JCHK_AFTER_END,
                     "%s record after the end record", name));
    }
    if (rec->type == TFMT_JREC_META) {
        if (s->saw_meta)
            TRY(FIND(r, rec, TFMT_JCHK_META_DUP, "second meta record"));
        else if (s->records > 0 && !s->first_reported)
            TRY(FIND(r, rec, TFMT_JCHK_META_FIRST,
                     "meta record is not the first record"));
        s->first_reported = true;
        if (!s->saw_meta)
            meta_info(s, rec);
        s->saw_meta = true;
        s->v = rec->v;
        if (!is_hex32(rec->run_id))
            TRY(FIND(r, rec, TFMT_JCHK_RUN_ID_FORM,
                     "run_id is not 32 lowercase hex digits"));
    } else if (!s->saw_meta && !s->first_reported && !s->dropped) {
        s->first_reported = true;
        TRY(FIND(r, rec, TFMT_JCHK_META_FIRST,
                 "first record is %s, expected meta", name));
    }
    if (rec->type == TFMT_JREC_END)
        s->saw_end = true;
    return TFMT_OK;
}

/* One run_id on every record; one dialect on every known record. */
static int check_identity(tfmt_jsonl_reader *r, const tfmt_jsonl_record *rec)
{
    tfmt_jrules *s = &r->rules;
    if (!s->have_run_id) {
        if (tfmt__buf_put(&s->run_id, rec->run_id.ptr, rec->run_id.len) < 0)
            return TFMT_ENOMEM;
        s->have_run_id = true;
        s->info.run_id.ptr = s->run_id.data ? s->run_id.data : "";
        s->info.run_id.len = s->run_id.len;
    } else if (rec->run_id.len != s->run_id.len ||
               (s->run_id.len &&
                memcmp(rec->run_id.ptr, s->run_id.data, s->run_id.len))) {
        TRY(FIND(r, rec, TFMT_JCHK_RUN_ID,
                 "run_id differs from the first record's"));
    }
    if (s->saw_meta && rec->type != TFMT_JREC_UNKNOWN && rec->v != s->v)
        TRY(FIND(r, rec, TFMT_JCHK_DIALECT,
                 "record version %lld, but meta has %lld", (long long)rec->v,
                 (long long)s->v));
    return TFMT_OK;
}

static int check_strings(tfmt_jsonl_reader *r, const tfmt_jsonl_record *rec)
{
    const char *arr = rec->v == 1 ? "defs" : "strings";
    for (size_t i = 0; i < rec->n_strings; i++) {
        int rc = tfmt__idbits_add(&r->rules.strings, rec->strings[i].id);
        if (rc < 0)
            return rc;
        if (rc == 0)
            TRY(FIND(r, rec, TFMT_JCHK_STR_DUP,
                     "%s[%zu]: str_id %llu defined twice", arr, i,
                     shown(rec, rec->strings[i].id)));
    }
    r->rules.info.strings = r->rules.strings.count;
    return TFMT_OK;
}

static int check_frame(tfmt_jsonl_reader *r, const tfmt_jsonl_record *rec,
                       size_t i)
{
    const char *arr = rec->v == 1 ? "defs" : "frames";
    const tfmt_jsonl_frame *fr = &rec->frames[i];
    tfmt_jrules *s = &r->rules;
    int rc = tfmt__idbits_add(&s->frames, fr->id);
    if (rc < 0)
        return rc;
    if (rc == 0)
        TRY(FIND(r, rec, TFMT_JCHK_FRAME_DUP,
                 "%s[%zu]: frame_id %llu defined twice", arr, i,
                 shown(rec, fr->id)));
    /* A dropped line may have defined it: no cascade of findings. */
    if (s->dropped)
        return TFMT_OK;
    if (!tfmt__idbits_has(&s->strings, fr->path_str_id))
        TRY(FIND(r, rec, TFMT_JCHK_STR_REF,
                 "%s[%zu].path_str_id: string %llu is not defined earlier", arr,
                 i, shown(rec, fr->path_str_id)));
    if (!tfmt__idbits_has(&s->strings, fr->func_str_id))
        TRY(FIND(r, rec, TFMT_JCHK_STR_REF,
                 "%s[%zu].func_str_id: string %llu is not defined earlier", arr,
                 i, shown(rec, fr->func_str_id)));
    return TFMT_OK;
}

static int check_frames(tfmt_jsonl_reader *r, const tfmt_jsonl_record *rec)
{
    for (size_t i = 0; i < rec->n_frames; i++)
        TRY(check_frame(r, rec, i));
    r->rules.info.frames = r->rules.frames.count;
    return TFMT_OK;
}

/* samples_total equal on every agg chunk and on end. */
static int check_total(tfmt_jsonl_reader *r, const tfmt_jsonl_record *rec)
{
    tfmt_jrules *s = &r->rules;
    if (!s->have_total) {
        s->have_total = true;
        s->info.samples_total = rec->samples_total;
        s->total_line = rec->line;
    } else if (rec->samples_total != s->info.samples_total) {
        TRY(FIND(r, rec, TFMT_JCHK_TOTAL,
                 "samples_total %llu differs from %llu on line %llu",
                 (unsigned long long)rec->samples_total,
                 (unsigned long long)s->info.samples_total,
                 (unsigned long long)s->total_line));
    }
    return TFMT_OK;
}

static int check_entry(tfmt_jsonl_reader *r, const tfmt_jsonl_record *rec,
                       size_t i)
{
    const tfmt_jsonl_agg *e = &rec->entries[i];
    tfmt_jrules *s = &r->rules;
    s->self_sum = tfmt__add_sat(s->self_sum, e->self);
    s->entry_bad |=
        e->self > e->cumulative || e->cumulative > rec->samples_total;
    if (!s->dropped && !tfmt__idbits_has(&s->frames, e->frame_id))
        TRY(FIND(r, rec, TFMT_JCHK_FRAME_REF,
                 "entries[%zu].frame_id: frame %llu is not defined earlier", i,
                 shown(rec, e->frame_id)));
    int rc = tfmt__idbits_add(&s->agg, e->frame_id);
    if (rc < 0)
        return rc;
    s->entry_bad |= rc == 0;
    if (rc == 0)
        TRY(FIND(r, rec, TFMT_JCHK_AGG_DUP,
                 "entries[%zu]: frame %llu listed twice", i,
                 shown(rec, e->frame_id)));
    if (e->self > e->cumulative)
        TRY(FIND(r, rec, TFMT_JCHK_SELF_CUM,
                 "entries[%zu]: self %llu > cumulative %llu", i,
                 (unsigned long long)e->self,
                 (unsigned long long)e->cumulative));
    if (e->cumulative > rec->samples_total)
        TRY(FIND(r, rec, TFMT_JCHK_CUM_TOTAL,
                 "entries[%zu]: cumulative %llu > samples_total %llu", i,
                 (unsigned long long)e->cumulative,
                 (unsigned long long)rec->samples_total));
    return TFMT_OK;
}

/*
 * Each sample is the leaf of one frame, so the self counts cannot add up
 * to more than samples_total (sums saturate: counts near 2^64 cannot
 * wrap into a plausible total). Checked once, and only while no entry was
 * wrong on its own: one defect, one message.
 */
static int check_self_sum(tfmt_jsonl_reader *r, const tfmt_jsonl_record *rec)
{
    tfmt_jrules *s = &r->rules;
    if (s->self_over || s->entry_bad || s->self_sum <= rec->samples_total)
        return TFMT_OK;
    s->self_over = true;
    return FIND(r, rec, TFMT_JCHK_SELF_SUM,
                "self counts add up to %s%llu, more than samples_total %llu",
                s->self_sum == UINT64_MAX ? "at least " : "",
                (unsigned long long)s->self_sum,
                (unsigned long long)rec->samples_total);
}

static int check_agg(tfmt_jsonl_reader *r, const tfmt_jsonl_record *rec)
{
    TRY(check_total(r, rec));
    for (size_t i = 0; i < rec->n_entries; i++)
        TRY(check_entry(r, rec, i));
    r->rules.info.entries += rec->n_entries;
    return check_self_sum(r, rec);
}

int tfmt__jrules_record(tfmt_jsonl_reader *r)
{
    const tfmt_jsonl_record *rec = &r->rec;
    TRY(check_order(r, rec));
    TRY(check_identity(r, rec));
    int rc = TFMT_OK;
    switch (rec->type) {
    case TFMT_JREC_STRINGS: rc = check_strings(r, rec); break;
    case TFMT_JREC_FRAMES: rc = check_frames(r, rec); break;
    case TFMT_JREC_AGG: rc = check_agg(r, rec); break;
    case TFMT_JREC_END: rc = check_total(r, rec); break;
    default: break;
    }
    r->rules.records++;
    return rc;
}

typedef struct missing_ctx {
    const tfmt_jrules *s;
    uint64_t count;
    uint32_t first;
} missing_ctx;

static void count_missing(void *ctx, uint32_t id)
{
    missing_ctx *m = ctx;
    if (tfmt__idbits_has(&m->s->agg, id))
        return;
    if (m->count == 0 || id < m->first)
        m->first = id;
    m->count++;
}

void tfmt__jrules_end(tfmt_jsonl_reader *r)
{
    const tfmt_jrules *s = &r->rules;
    if ((!r->opts.on_finding && !r->opts.on_note) || s->dropped)
        return;
    /* Every frame should have an agg entry (CPython lists all of them). */
    missing_ctx m = {s, 0, 0};
    tfmt__idbits_each(&s->frames, count_missing, &m);
    if (m.count)
        finding(r, TFMT_JCHK_NO_AGG, r->lines.line,
                "%llu frame%s without an agg entry (first: frame_id %llu)",
                (unsigned long long)m.count, m.count == 1 ? "" : "s",
                (unsigned long long)m.first + (s->v == 1 ? 1 : 0));
}
