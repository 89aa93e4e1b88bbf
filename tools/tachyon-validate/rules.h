/* SPDX-License-Identifier: MIT */
/*
 * rules.h - the stable rule ids of tachyon-validate. Ids are never reused
 * or renumbered; schemas/RULES.md documents each one.
 */
#ifndef TV_RULES_H
#define TV_RULES_H

#include <stddef.h>

typedef enum { SEV_NOTE = 0, SEV_WARNING = 1, SEV_ERROR = 2 } tv_severity;

typedef struct tv_rule {
    const char *id;       /* "TV125" */
    tv_severity severity; /* default severity (--strict raises warnings) */
    const char *summary;  /* one line for --list-rules and RULES.md */
} tv_rule;

/* Rule ids used by the checkers. */
#define R_IO "TV001"
#define R_EMPTY "TV002"
#define R_UNKNOWN_FORMAT "TV003"
#define R_INPUT "TV004"
#define R_INPUT_LIMIT "TV005"
#define R_LINE_LENGTH "TV101"
#define R_SYNTAX "TV102"
#define R_NOT_OBJECT "TV103"
#define R_ENVELOPE "TV104"
#define R_VERSION "TV105"
#define R_MISSING "TV106"
#define R_TYPE "TV107"
#define R_RANGE "TV108"
#define R_META_FIRST "TV110"
#define R_META_DUP "TV111"
#define R_NO_END "TV112"
#define R_END_DUP "TV113"
#define R_AFTER_END "TV114"
#define R_RUN_ID "TV115"
#define R_DIALECT "TV116"
#define R_STR_DUP "TV120"
#define R_FRAME_DUP "TV121"
#define R_STR_REF "TV122"
#define R_FRAME_REF "TV123"
#define R_AGG_DUP "TV124"
#define R_TOTAL "TV125"
#define R_SELF_CUM "TV126"
#define R_CUM_TOTAL "TV127"
#define R_SELF_SUM "TV128"
#define R_NO_NEWLINE "TV130"
#define R_NO_AGG "TV131"
#define R_RUN_ID_FORM "TV132"
#define R_UNKNOWN_TYPE "TV140"
#define R_UNKNOWN_FIELD "TV141"
#define R_BIN_OTHER "TV200"

/* The whole table, in id order. */
extern const tv_rule tv_rules[];
extern const size_t tv_rule_count;

/* The rule `id`, or NULL. */
const tv_rule *tv_rule_find(const char *id);

/* Rule id of a binary reader check (tfmt_bin_check) or note (tfmt_note). */
const char *tv_bin_check_rule(int check);
const char *tv_bin_note_rule(int note);

#endif
