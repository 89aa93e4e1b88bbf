/* SPDX-License-Identifier: MIT */
/*
 * tachyon/fmt_match.h - name matching rules for frames: include and exclude
 * regular expressions and 'REGEX=>REPLACEMENT' rewrites (PCRE2 syntax).
 *
 * A tfmt_match holds an ordered list of compiled rules. Tools use it as:
 *
 *   1. rewrite each frame's file name and function name with
 *      tfmt_match_rewrite() (every rewrite rule, in the order added);
 *   2. test the rewritten names with tfmt_match_filter().
 *
 * Subject of include/exclude: each pattern is tried on the function name
 * and on the file name separately; the frame matches the pattern when
 * either name matches (unanchored search, like grep: use ^ and $ to
 * anchor). A frame is kept when there is no include rule or at least one
 * include rule matches, and no exclude rule matches.
 *
 * Rewrites: each rule replaces EVERY match in the name (like sed's s///g)
 * with REPLACEMENT, where $1..$99 / ${1} / ${name} insert a capture group
 * and $$ a dollar sign; an unset group inserts nothing. Rules apply in the
 * order added, each to the result of the previous one, to file names and
 * function names alike.
 *
 * Patterns are UTF-8 with Unicode support; names that are not valid UTF-8
 * can still match: an invalid byte never matches any pattern item, the
 * valid parts around it match normally (PCRE2_MATCH_INVALID_UTF).
 * Patterns are JIT-compiled when possible, and every match runs under a
 * match limit, so a pattern with catastrophic backtracking fails with
 * TFMT_EINVAL instead of hanging: the pattern is at fault, not the data
 * (tools exit 2). Likewise a rewrite may not grow a name past
 * TFMT_MATCH_MAX_NAME bytes (chained rules could double it each time).
 *
 * Errors are one line: "missing closing parenthesis at offset 7" (with
 * err->has_offset and err->offset set to the pattern offset); the tool
 * prefixes the option name. A handle is not thread-safe.
 */
#ifndef TACHYON_FMT_MATCH_H
#define TACHYON_FMT_MATCH_H

#include "fmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tfmt_match tfmt_match;

/* Longest name a rewrite may produce (a longer input name may stay long). */
#define TFMT_MATCH_MAX_NAME ((size_t)64 << 10)

typedef enum {
    TFMT_MATCH_INCLUDE = 1, /* keep frames matching any include */
    TFMT_MATCH_EXCLUDE = 2, /* drop frames matching any exclude */
    TFMT_MATCH_REWRITE = 3  /* 'REGEX=>REPLACEMENT' */
} tfmt_match_kind;

/* Which name of a frame is rewritten. */
typedef enum { TFMT_MATCH_FILE = 1, TFMT_MATCH_FUNC = 2 } tfmt_match_field;

/* An empty rule set (keeps everything, rewrites nothing). alloc may be NULL. */
TFMT_API int tfmt_match_new(tfmt_match **out, const tfmt_allocator *alloc);

/*
 * Compile and append one rule. `spec` (NUL-terminated) is a regex for
 * INCLUDE/EXCLUDE and 'REGEX=>REPLACEMENT' for REWRITE (split at the FIRST
 * "=>"; the replacement may be empty). Returns TFMT_OK, TFMT_EINVAL with a
 * one-line message in *err (may be NULL) for a bad pattern or replacement,
 * or TFMT_ENOMEM. A failed call leaves the rule set unchanged.
 */
TFMT_API int tfmt_match_add(tfmt_match *m, tfmt_match_kind kind,
                            const char *spec, tfmt_error *err);

/* Number of rules of `kind` in the set. */
TFMT_API size_t tfmt_match_count(const tfmt_match *m, tfmt_match_kind kind);

/*
 * Apply every rewrite rule to name[0..len). On TFMT_OK, *out and *out_len
 * give the result: `name` itself when nothing changed, else a buffer owned
 * by `m`, valid until the next tfmt_match_rewrite call or tfmt_match_free.
 * Use *out_len: the result is NUL-terminated only when it is not `name`.
 * Returns TFMT_ENOMEM, or TFMT_EINVAL for a replacement that fails, a
 * match over the match limit, or a result longer than both
 * TFMT_MATCH_MAX_NAME and the name it came from (message in *err, which
 * may be NULL, naming the rule).
 */
TFMT_API int tfmt_match_rewrite(tfmt_match *m, tfmt_match_field field,
                                const char *name, size_t len, const char **out,
                                size_t *out_len, tfmt_error *err);

/*
 * Decide whether a frame with these (already rewritten) names is kept by
 * the include/exclude rules: *keep is set on TFMT_OK. Returns TFMT_EINVAL
 * (match limit exceeded; message names the pattern) or TFMT_ENOMEM.
 */
TFMT_API int tfmt_match_filter(tfmt_match *m, const char *file, size_t file_len,
                               const char *func, size_t func_len, bool *keep,
                               tfmt_error *err);

TFMT_API void tfmt_match_free(tfmt_match *m);

#ifdef __cplusplus
}
#endif
#endif
