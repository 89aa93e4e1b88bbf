/* SPDX-License-Identifier: MIT */
/*
 * load.c - read one side of the diff (one or more files) into a flat
 * profile, and in runs mode each file's own counts too (runs.c). The
 * format is recognized by content, not by name (tfmt_detect); either
 * format may be compressed as a whole (the source removes that). Binary
 * logs stream into the flat profile (through a call tree only when folded
 * stacks are wanted), with exact cumulative counts; ClickHouse query
 * results go through a call tree, every run in them summed (one input in
 * runs mode), also exact; JSONL gives per-frame aggregates.
 *
 * Exit codes follow every tool's rule: a malformed input is bad data
 * (exit 1), an unreadable one is trouble (exit 2); a tripped gate is 3.
 */
#include <string.h>

#include "diff.h"

static void bin_note(void *ctx, tfmt_note kind, const tfmt_error *where)
{
    (void)kind;
    cli_report_warning(cli_input_name(ctx), where);
}

/*
 * Keep the first error of a side for diff_load_report: the two sides load
 * on two threads, and messages must come out in a fixed order. Returns
 * the exit code of the error (cli_exit_code).
 */
static int trouble(diff_side *side, const char *path, const tfmt_error *e)
{
    if (!side->failed) {
        side->failed = true;
        side->fail = *e;
        side->fail_file = cli_input_name(path);
    }
    return cli_exit_code(e->code);
}

/* As trouble, with a status and message of the tool's own. */
static int trouble_msg(diff_side *side, const char *path, int code,
                       const char *msg)
{
    tfmt_error e;
    memset(&e, 0, sizeof e);
    e.code = code;
    snprintf(e.msg, sizeof e.msg, "%s", msg);
    return trouble(side, path, &e);
}

int diff_load_report(const diff_side *side)
{
    if (!side->failed)
        return CLI_EXIT_OK;
    if (side->fail_jsonl)
        return cli_report_jsonl(side->fail_file, &side->fail);
    return cli_report(side->fail_file, &side->fail);
}

/* Folded stacks need the call tree; everything else streams. */
static int add_bin(diff_side *side, tfmt_bin_reader *r, bool stacks,
                   const char *path)
{
    tfmt_flat *flat = side->flat;
    tfmt_profile *p = NULL;
    if (!stacks) {
        if (tfmt_flat_add_bin(flat, r) < 0)
            return trouble(side, path, tfmt_flat_error(flat));
        return CLI_EXIT_OK;
    }
    int code = CLI_EXIT_OK;
    if (tfmt_profile_new(&p, NULL) < 0) {
        code = trouble_msg(side, path, TFMT_ENOMEM, "out of memory");
    } else if (tfmt_profile_add_bin(p, r) < 0) {
        code = trouble(side, path, tfmt_profile_error(p));
    } else if (tfmt_flat_add_profile(flat, p) < 0) {
        code = trouble(side, path, tfmt_flat_error(flat));
    }
    tfmt_profile_free(p);
    return code;
}

static int load_bin(diff_side *side, tfmt_source *src, const char *path,
                    const diff_settings *set)
{
    bool stacks = diff_format_stacks(set->format);
    tfmt_bin_options bo = set->bin;
    tfmt_bin_reader *r = NULL;
    tfmt_error err;
    memset(&err, 0, sizeof err);
    bo.on_note = bin_note;
    bo.note_ctx = (void *)path;
    int rc = tfmt_bin_open(&r, src, &bo, &err);
    if (rc < 0)
        return trouble(side, path, &err);
    int code = add_bin(side, r, stacks, path);
    tfmt_bin_free(r);
    return code;
}

static int load_jsonl(diff_side *side, tfmt_source *src, const char *path)
{
    tfmt_jsonl_options jo = TFMT_JSONL_OPTIONS_INIT;
    tfmt_jsonl_reader *r = NULL;
    tfmt_error err;
    memset(&err, 0, sizeof err);
    jo.on_note = cli_jsonl_note;
    jo.note_ctx = (void *)path;
    if (tfmt_jsonl_open(&r, src, &jo, &err) < 0)
        return trouble(side, path, &err);
    int code = CLI_EXIT_OK;
    /* The reader applies the JSONL rulebook: the first error stops it. */
    if (tfmt_flat_add_jsonl(side->flat, r) < 0) {
        if (!side->failed)
            side->fail_jsonl = true;
        code = trouble(side, path, tfmt_flat_error(side->flat));
    }
    tfmt_jsonl_free(r);
    return code;
}

/* A query result (ClickHouse rows) has stacks: through a call tree. */
static int load_rows(diff_side *side, tfmt_source *src, const char *path)
{
    tfmt_rows_reader *r = NULL;
    tfmt_profile *p = NULL;
    tfmt_error err;
    memset(&err, 0, sizeof err);
    if (tfmt_rows_open(&r, src, NULL, &err) < 0)
        return trouble(side, path, &err);
    int code = CLI_EXIT_OK;
    if (tfmt_profile_new(&p, NULL) < 0)
        code = trouble_msg(side, path, TFMT_ENOMEM, "out of memory");
    else if (tfmt_profile_add_rows(p, r) < 0)
        code = trouble(side, path, tfmt_profile_error(p));
    if (code == CLI_EXIT_OK) {
        cli_rows_warn(cli_input_name(path), r);
        if (tfmt_flat_add_profile(side->flat, p) < 0)
            code = trouble(side, path, tfmt_flat_error(side->flat));
    }
    tfmt_profile_free(p);
    tfmt_rows_free(r);
    return code;
}

/* The library tells the kind; each gets its reader or its message. */
static int load_kind(diff_side *side, tfmt_source *src, const char *path,
                     const diff_settings *set, const tfmt_detection *d)
{
    tfmt_error err;
    if (tfmt_detect_error(d, &err) < 0) /* empty, or text */
        return trouble(side, path, &err);
    if (tfmt_kind_is_jsonl(d->kind)) {
        if (!side->jsonl_file)
            side->jsonl_file = path;
        return load_jsonl(side, src, path);
    }
    if (d->kind == TFMT_KIND_ROWS)
        return load_rows(side, src, path);
    /* a log, or bytes the binary reader says what is wrong with */
    return load_bin(side, src, path, set);
}

static int load_file(diff_side *side, const char *path,
                     const diff_settings *set)
{
    tfmt_source *src = NULL;
    tfmt_detection d;
    tfmt_error err;
    int rc = cli_open_input(path, &src, &d, &err);
    int code = rc < 0 ? trouble(side, path, &err)
                      : load_kind(side, src, path, set, &d);
    tfmt_source_free(src);
    return code;
}

int diff_load(diff_side *side, const diff_settings *set, tfmt_match *m)
{
    tfmt_flat_options fo = TFMT_FLAT_OPTIONS_INIT;
    fo.key = set->key;
    fo.match = m;
    fo.stacks = diff_format_stacks(set->format);
    if (tfmt_flat_new(&side->flat, &fo) < 0)
        return trouble_msg(side, NULL, TFMT_ENOMEM, "out of memory");
    for (size_t i = 0; i < side->files->count; i++) {
        int code = load_file(side, side->files->items[i], set);
        if (code != CLI_EXIT_OK)
            return code;
        if (side->runs && diff_runs_take(side, i) < 0)
            return trouble_msg(side, NULL, TFMT_ENOMEM, "out of memory");
    }
    if (side->runs)
        diff_runs_finish(side);
    return CLI_EXIT_OK;
}
