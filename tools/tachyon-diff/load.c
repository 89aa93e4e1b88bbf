/*
 * load.c - read one side of the diff (one or more files) into a flat
 * profile. The format is recognized by content, not by name: a binary log
 * starts with "TACH" (or "HCAT", byte-swapped), JSONL with '{'; either may
 * be compressed as a whole (the source removes that). Binary logs stream
 * into the flat profile (through a call tree only when folded stacks are
 * wanted), with exact cumulative counts; JSONL gives per-frame aggregates.
 *
 * Exit codes follow every tool's rule: a malformed input is bad data
 * (exit 1, like a tripped gate), an unreadable one is trouble (exit 2).
 */
#include <string.h>

#include "diff.h"

static void bin_note(void *ctx, tfmt_note kind, const tfmt_error *where)
{
    (void)kind;
    cli_report_warning(cli_input_name(ctx), where);
}

static void jsonl_note(void *ctx, tfmt_jsonl_note kind,
                       const tfmt_error *where)
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
        const tfmt_error *e = tfmt_bin_error(r);
        code = trouble(side, path, e->code < 0 ? e : tfmt_profile_error(p));
    } else if (tfmt_flat_add_profile(flat, p) < 0) {
        code = trouble(side, path, tfmt_flat_error(flat));
    }
    tfmt_profile_free(p);
    return code;
}

static int load_bin(diff_side *side, tfmt_source *src, const char *path,
                    bool stacks)
{
    tfmt_bin_options bo = TFMT_BIN_OPTIONS_INIT;
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

static int load_jsonl(diff_side *side, tfmt_source *src, const char *path,
                      const unsigned char *head, size_t n)
{
    tfmt_jsonl_options jo = TFMT_JSONL_OPTIONS_INIT;
    tfmt_jsonl_reader *r = NULL;
    tfmt_error err;
    memset(&err, 0, sizeof err);
    jo.on_note = jsonl_note;
    jo.note_ctx = (void *)path;
    jo.head = head;
    jo.head_len = n;
    if (tfmt_jsonl_open(&r, src, &jo, &err) < 0)
        return trouble(side, path, &err);
    int code = CLI_EXIT_OK;
    if (tfmt_flat_add_jsonl(side->flat, r) < 0)
        code = trouble(side, path, tfmt_flat_error(side->flat));
    tfmt_jsonl_free(r);
    return code;
}

static int load_file(diff_side *side, const char *path, bool stacks)
{
    tfmt_source *src = NULL;
    tfmt_error err;
    unsigned char head[4];
    size_t n = 0;
    memset(&err, 0, sizeof err);
    int rc = tfmt_source_open_path(&src, path, NULL, &err);
    if (rc == TFMT_OK)
        rc = cli_read_head(src, head, sizeof head, &n, &err);
    if (rc < 0) {
        tfmt_source_free(src);
        return trouble(side, path, &err);
    }
    int code;
    if (n == 4 && (!memcmp(head, "TACH", 4) || !memcmp(head, "HCAT", 4)))
        code = load_bin(side, src, path, stacks);
    else if (n > 0 && head[0] && strchr("{ \t\r\n", head[0]))
        code = load_jsonl(side, src, path, head, n);
    else if (n == 0)
        code = trouble_msg(side, path, TFMT_EFORMAT, "empty input");
    else {
        char msg[80];
        snprintf(msg, sizeof msg, "neither a Tachyon binary log nor JSONL "
                 "(first byte 0x%02x)", head[0]);
        code = trouble_msg(side, path, TFMT_EFORMAT, msg);
    }
    tfmt_source_free(src);
    return code;
}

int diff_load(diff_side *side, const diff_settings *set, tfmt_match *m)
{
    tfmt_flat_options fo = TFMT_FLAT_OPTIONS_INIT;
    fo.key = set->key;
    fo.match = m;
    fo.stacks = set->format == FMT_FOLDED;
    if (tfmt_flat_new(&side->flat, &fo) < 0)
        return trouble_msg(side, NULL, TFMT_ENOMEM, "out of memory");
    for (size_t i = 0; i < side->files->count; i++) {
        int code = load_file(side, side->files->items[i], fo.stacks);
        if (code != CLI_EXIT_OK)
            return code;
    }
    return CLI_EXIT_OK;
}
