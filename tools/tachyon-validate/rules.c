/* SPDX-License-Identifier: MIT */
/* rules.c - the rule table of tachyon-validate (ids, severities, texts). */
#include <string.h>

#include <tachyon/fmt.h>

#include "rules.h"

#define E SEV_ERROR
#define W SEV_WARNING
#define N SEV_NOTE

const tv_rule tv_rules[] = {
    {"TV001", E, "the file cannot be opened or read (exit status 2)"},
    {"TV002", E, "the file is empty"},
    {"TV003", E, "neither a binary log (TACH magic) nor JSONL ('{')"},
    {"TV004", E, "whole-file compression corrupt or truncated"},
    {"TV005", E, "input over --max-input-size or --max-input-ratio"},
    {"TV101", E, "JSONL: line longer than the maximum line length"},
    {"TV102", E, "JSONL: line is not valid JSON (syntax, UTF-8, nesting)"},
    {"TV103", E, "JSONL: line is not a JSON object (or is empty)"},
    {"TV104", E, "JSONL: type, v or run_id missing or of the wrong type"},
    {"TV105", E, "JSONL: unsupported record version v for the type"},
    {"TV106", E, "JSONL: required field missing"},
    {"TV107", E, "JSONL: field of the wrong JSON type"},
    {"TV108", E, "JSONL: field value out of range or not allowed"},
    {"TV110", E, "JSONL: the first record is not meta"},
    {"TV111", E, "JSONL: more than one meta record"},
    {"TV112", E, "JSONL: no end record (incomplete file)"},
    {"TV113", E, "JSONL: more than one end record"},
    {"TV114", E, "JSONL: record after the end record"},
    {"TV115", E, "JSONL: run_id differs from the meta record's"},
    {"TV116", E, "JSONL: record version differs from the meta record's"},
    {"TV120", E, "JSONL: str_id defined twice"},
    {"TV121", E, "JSONL: frame_id defined twice"},
    {"TV122", E, "JSONL: path_str_id/func_str_id not defined earlier"},
    {"TV123", E, "JSONL: agg frame_id not defined earlier"},
    {"TV124", E, "JSONL: frame listed twice in agg entries"},
    {"TV125", E, "JSONL: samples_total differs between agg and end records"},
    {"TV126", E, "JSONL: self greater than cumulative"},
    {"TV127", E, "JSONL: cumulative greater than samples_total"},
    {"TV128", E, "JSONL: self counts add up to more than samples_total"},
    {"TV130", W, "JSONL: no newline at the end of the file"},
    {"TV131", W, "JSONL: frame without an agg entry"},
    {"TV132", W, "JSONL: run_id is not 32 lowercase hex digits"},
    {"TV140", N, "JSONL: unknown record type ignored"},
    {"TV141", N, "JSONL: unknown field ignored"},
    {"TV200", E, "binary: other reader error"},
    {"TV201", E, "binary: file too small for header or footer"},
    {"TV202", E, "binary: bad magic number"},
    {"TV203", E, "binary: unsupported format version"},
    {"TV204", E, "binary: no header layout fits the table offsets"},
    {"TV205", E, "binary: string table offset out of bounds"},
    {"TV206", E, "binary: frame table offset out of bounds"},
    {"TV207", E, "binary: string table after frame table"},
    {"TV208", E, "binary: string count exceeds what the bytes allow"},
    {"TV209", E, "binary: frame count exceeds what the bytes allow"},
    {"TV210", E, "binary: footer file size differs from the real size"},
    {"TV211", E, "binary: statistics block size, signature or values"},
    {"TV212", E, "binary: malformed or overflowing string table entry"},
    {"TV213", E, "binary: malformed or overflowing frame table entry"},
    {"TV214", E, "binary: bytes after the frame table / statistics"},
    {"TV215", E, "binary: unknown compression id"},
    {"TV216", E, "binary: corrupt or incomplete zstd frame"},
    {"TV217", E, "binary: truncated sample record"},
    {"TV218", E, "binary: more threads than the header declares"},
    {"TV219", E, "binary: unknown stack encoding"},
    {"TV220", E, "binary: bad REPEAT (RLE) record"},
    {"TV221", E, "binary: malformed varint in sample data"},
    {"TV222", E, "binary: stack depth beyond 256 or shared count too big"},
    {"TV223", E, "binary: frame index out of range"},
    {"TV224", E, "binary: string index out of range in a frame"},
    {"TV225", E, "binary: decoded samples differ from the declared count"},
    {"TV226", E, "binary: invalid profiling mode in the header"},
    {"TV228", E, "binary: more distinct threads than --max-threads"},
    {"TV230", W, "binary: header declares more threads than found"},
    {"TV231", W, "binary: footer checksum bytes are not zero"},
    {"TV232", W, "binary: reserved header bytes are not zero"},
    {"TV233", W, "binary: statistics block of an unknown version"},
    {"TV234", W, "binary: compression id > 1 read as uncompressed"},
    {"TV235", W, "binary: a POP_PUSH pops more frames than the stack has"},
    {"TV236", W, "binary: reserved bits of the config word are set"},
    {"TV237", W, "binary: a timestamp past 2^63-1 us (deltas overflow)"},
    {"TV300", E, "rows: other reader error"},
    {"TV301", E, "rows: line longer than the maximum line length"},
    {"TV302", E, "rows: line is not one valid JSON object"},
    {"TV303", E, "rows: required column missing"},
    {"TV304", E, "rows: column of the wrong JSON type"},
    {"TV305", E, "rows: value out of its column's range"},
    {"TV306", E, "rows: frames.* of unequal length or over 256 frames"},
    {"TV307", E,
     "rows: interval, mode, start time or run id version "
     "differ in a run"},
    {"TV308", E, "rows: (run_id, row) repeated with other columns"},
    {"TV309", W, "rows: identical copies of a run's rows (loaded twice)"},
    {"TV310", W,
     "rows: two run ids with the same start time, interval, "
     "mode"},
};
const size_t tv_rule_count = sizeof tv_rules / sizeof tv_rules[0];

const tv_rule *tv_rule_find(const char *id)
{
    for (size_t i = 0; i < tv_rule_count; i++) {
        if (strcmp(tv_rules[i].id, id) == 0)
            return &tv_rules[i];
    }
    return NULL;
}

/*
 * TFMT_BCHK_n maps to TV2nn; unknown checks to TV200. A failed whole-file
 * decompression is the same fault as for JSONL input: TV004.
 */
const char *tv_bin_check_rule(int check)
{
    if (check == TFMT_BCHK_INPUT)
        return R_INPUT;
    static const char *const ids[] = {
        "TV200", "TV201", "TV202", "TV203", "TV204", "TV205", "TV206", "TV207",
        "TV208", "TV209", "TV210", "TV211", "TV212", "TV213", "TV214", "TV215",
        "TV216", "TV217", "TV218", "TV219", "TV220", "TV221", "TV222", "TV223",
        "TV224", "TV225", "TV226", "TV200", "TV228",
    };
    if (check <= 0 || check >= (int)(sizeof ids / sizeof ids[0]))
        return "TV200";
    return ids[check];
}

/* TFMT_NOTE_n maps to TV23(n-1). */
const char *tv_bin_note_rule(int note)
{
    static const char *const ids[] = {"TV230", "TV231", "TV232", "TV233",
                                      "TV234", "TV235", "TV236", "TV237"};
    if (note < 1 || note > (int)(sizeof ids / sizeof ids[0]))
        return "TV230";
    return ids[note - 1];
}
