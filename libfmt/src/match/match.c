/* SPDX-License-Identifier: MIT */
/*
 * match.c - include/exclude/rewrite rules on frame names (fmt_match.h).
 * The only module that uses PCRE2. Patterns are compiled in UTF mode with
 * PCRE2_MATCH_INVALID_UTF (names from binary logs need not be valid UTF-8
 * and must neither fail nor be checked on every call), JIT-compiled when
 * the platform allows it, and matched under a match limit so that a user
 * pattern with catastrophic backtracking fails fast instead of hanging.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdlib.h>

#include <tachyon/fmt_match.h>

#include "internal.h"

/* Backtracking budget per match: about 2 ms of JIT work at worst. */
#define MATCH_LIMIT 1000000u
/* Interpreter nesting budget (the heap limit stays PCRE2's default). */
#define DEPTH_LIMIT 100000u
#define JIT_STACK_MAX (1024u * 1024u)

typedef struct rule {
    tfmt_match_kind kind;
    pcre2_code *re;
    pcre2_match_data *md;
    char *repl; /* rewrite replacement, NUL-terminated */
    size_t repl_len;
    char *pattern; /* for messages */
} rule;

struct tfmt_match {
    const tfmt_allocator *alloc;
    pcre2_general_context *gctx;
    pcre2_compile_context *cctx;
    pcre2_match_context *mctx;
    pcre2_jit_stack *jit_stack; /* NULL: JIT unavailable */
    rule *rules;
    size_t nrules, caprules;
    tfmt_buf out[2]; /* rewrite results, used alternately */
};

static void *gctx_malloc(PCRE2_SIZE size, void *ctx)
{
    return tfmt__malloc(ctx, size);
}

static void gctx_free(void *ptr, void *ctx)
{
    tfmt__free(ctx, ptr);
}

static int make_contexts(tfmt_match *m)
{
    /* PCRE2 keeps the data pointer; the allocator outlives the handle. */
    m->gctx =
        pcre2_general_context_create(gctx_malloc, gctx_free, (void *)m->alloc);
    if (!m->gctx)
        return TFMT_ENOMEM;
    m->cctx = pcre2_compile_context_create(m->gctx);
    m->mctx = pcre2_match_context_create(m->gctx);
    if (!m->cctx || !m->mctx)
        return TFMT_ENOMEM;
    pcre2_set_match_limit(m->mctx, MATCH_LIMIT);
    pcre2_set_depth_limit(m->mctx, DEPTH_LIMIT);
    uint32_t jit = 0;
    pcre2_config(PCRE2_CONFIG_JIT, &jit);
    if (jit) {
        m->jit_stack =
            pcre2_jit_stack_create(32 * 1024, JIT_STACK_MAX, m->gctx);
        if (!m->jit_stack)
            return TFMT_ENOMEM;
        pcre2_jit_stack_assign(m->mctx, NULL, m->jit_stack);
    }
    return TFMT_OK;
}

int tfmt_match_new(tfmt_match **out, const tfmt_allocator *alloc)
{
    *out = NULL;
    tfmt_match *m = tfmt__calloc(alloc, 1, sizeof *m);
    if (!m)
        return TFMT_ENOMEM;
    m->alloc = alloc;
    tfmt__buf_init(&m->out[0], alloc);
    tfmt__buf_init(&m->out[1], alloc);
    int rc = make_contexts(m);
    if (rc < 0) {
        tfmt_match_free(m);
        return rc;
    }
    *out = m;
    return TFMT_OK;
}

static void rule_free(tfmt_match *m, rule *r)
{
    pcre2_match_data_free(r->md);
    pcre2_code_free(r->re);
    tfmt__free(m->alloc, r->repl);
    tfmt__free(m->alloc, r->pattern);
}

void tfmt_match_free(tfmt_match *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nrules; i++)
        rule_free(m, &m->rules[i]);
    tfmt__free(m->alloc, m->rules);
    tfmt__buf_free(&m->out[0]);
    tfmt__buf_free(&m->out[1]);
    pcre2_jit_stack_free(m->jit_stack);
    pcre2_match_context_free(m->mctx);
    pcre2_compile_context_free(m->cctx);
    pcre2_general_context_free(m->gctx);
    tfmt__free(m->alloc, m);
}

size_t tfmt_match_count(const tfmt_match *m, tfmt_match_kind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nrules; i++)
        n += m->rules[i].kind == kind;
    return n;
}

static char *dup_bytes(const tfmt_allocator *a, const char *s, size_t n)
{
    char *d = tfmt__malloc(a, n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* Compile `pat` (n bytes) into r->re and r->md; message on error. */
static int compile_rule(tfmt_match *m, rule *r, const char *pat, size_t n,
                        tfmt_error *err)
{
    int code = 0;
    PCRE2_SIZE off = 0;
    r->re =
        pcre2_compile((PCRE2_SPTR)pat, n, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF,
                      &code, &off, m->cctx);
    if (!r->re) {
        if (code == PCRE2_ERROR_HEAP_FAILED || code == PCRE2_ERROR_NOMEMORY)
            return tfmt__error(err, TFMT_ENOMEM, "out of memory");
        PCRE2_UCHAR text[160];
        if (pcre2_get_error_message(code, text, sizeof text) < 0)
            snprintf((char *)text, sizeof text, "error %d", code);
        return tfmt__error_at(err, TFMT_EINVAL, off, "%s at offset %zu",
                              (const char *)text, (size_t)off);
    }
    /* JIT failure only costs speed: the interpreter runs the pattern. */
    if (m->jit_stack)
        pcre2_jit_compile(r->re, PCRE2_JIT_COMPLETE);
    r->md = pcre2_match_data_create_from_pattern(r->re, m->gctx);
    if (!r->md)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    return TFMT_OK;
}

static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
}

/* Check that group reference g[0..n) names a group of `re`. */
static int check_group(const pcre2_code *re, const char *g, size_t n, size_t at,
                       tfmt_error *err)
{
    char name[64];
    if (n == 0 || n >= sizeof name)
        return tfmt__error(err, TFMT_EINVAL,
                           "replacement: invalid group "
                           "reference at offset %zu",
                           at);
    memcpy(name, g, n);
    name[n] = '\0';
    if (name[0] == '*')
        return TFMT_OK; /* ${*MARK} */
    if (strspn(name, "0123456789") == n) {
        uint32_t count = 0;
        pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &count);
        if (strtoul(name, NULL, 10) <= count)
            return TFMT_OK;
        return tfmt__error(err, TFMT_EINVAL,
                           "replacement: no group %s in "
                           "the pattern (it has %u)",
                           name, (unsigned)count);
    }
    if (pcre2_substring_number_from_name(re, (PCRE2_SPTR)name) >= 0)
        return TFMT_OK;
    return tfmt__error(err, TFMT_EINVAL,
                       "replacement: no group named '%s' in the pattern", name);
}

/*
 * PCRE2 checks a replacement only when a match happens, so a typo would
 * surface on some name deep into a run: check the syntax ($$, $N, ${N},
 * $name, ${name}, ${*MARK}) and the group references up front.
 */
static int check_replacement(const pcre2_code *re, const char *s, size_t n,
                             tfmt_error *err)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '$')
            continue;
        size_t at = i++;
        if (i < n && s[i] == '$')
            continue;
        size_t start = i, end = i;
        if (i < n && s[i] == '{') {
            const char *close = memchr(s + i, '}', n - i);
            if (!close)
                return tfmt__error(err, TFMT_EINVAL,
                                   "replacement: missing "
                                   "'}' after offset %zu",
                                   at);
            start = i + 1;
            end = (size_t)(close - s);
            i = end;
        } else if (i < n && s[i] >= '0' && s[i] <= '9') {
            /* Like PCRE2: "$1x" is group 1 then "x", not a group "1x". */
            while (end < n && s[end] >= '0' && s[end] <= '9')
                end++;
            i = end - 1;
        } else {
            if (i < n && s[i] == '*')
                end++;
            while (end < n && is_name_char(s[end]))
                end++;
            i = end - 1;
        }
        int rc = check_group(re, s + start, end - start, at, err);
        if (rc < 0)
            return rc;
    }
    return TFMT_OK;
}

/* Split 'REGEX=>REPLACEMENT' and compile it into `r`. */
static int compile_rewrite(tfmt_match *m, rule *r, const char *spec,
                           tfmt_error *err)
{
    const char *arrow = strstr(spec, "=>");
    if (!arrow)
        return tfmt__error(err, TFMT_EINVAL,
                           "expected 'REGEX=>REPLACEMENT', got '%s'", spec);
    int rc = compile_rule(m, r, spec, (size_t)(arrow - spec), err);
    if (rc < 0)
        return rc;
    r->repl_len = strlen(arrow + 2);
    r->repl = dup_bytes(m->alloc, arrow + 2, r->repl_len);
    if (!r->repl)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    return check_replacement(r->re, r->repl, r->repl_len, err);
}

int tfmt_match_add(tfmt_match *m, tfmt_match_kind kind, const char *spec,
                   tfmt_error *err)
{
    if (kind < TFMT_MATCH_INCLUDE || kind > TFMT_MATCH_REWRITE || !spec)
        return tfmt__error(err, TFMT_EINVAL, "invalid match rule");
    if (tfmt__grow(m->alloc, (void **)&m->rules, &m->caprules, m->nrules + 1,
                   sizeof *m->rules) < 0)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    rule r = {.kind = kind};
    int rc;
    if (kind == TFMT_MATCH_REWRITE)
        rc = compile_rewrite(m, &r, spec, err);
    else
        rc = compile_rule(m, &r, spec, strlen(spec), err);
    if (rc == TFMT_OK) {
        r.pattern = dup_bytes(m->alloc, spec, strlen(spec));
        if (!r.pattern)
            rc = tfmt__error(err, TFMT_ENOMEM, "out of memory");
    }
    if (rc < 0) {
        rule_free(m, &r);
        return rc;
    }
    m->rules[m->nrules++] = r;
    return TFMT_OK;
}

/* Map a negative pcre2_match/substitute status to a library error. */
static int match_error(const rule *r, int prc, tfmt_error *err)
{
    if (prc == PCRE2_ERROR_NOMEMORY)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    PCRE2_UCHAR text[160];
    if (pcre2_get_error_message(prc, text, sizeof text) < 0)
        snprintf((char *)text, sizeof text, "error %d", prc);
    /* match limits included: the pattern is at fault, not the name */
    return tfmt__error(err, TFMT_EINVAL, "pattern '%s': %s", r->pattern,
                       (const char *)text);
}

/* 1 when `r` matches s[0..n), 0 when not, < 0 on error. */
static int rule_test(tfmt_match *m, const rule *r, const char *s, size_t n,
                     tfmt_error *err)
{
    int prc =
        pcre2_match(r->re, (PCRE2_SPTR)(s ? s : ""), n, 0, 0, r->md, m->mctx);
    if (prc >= 0)
        return 1;
    if (prc == PCRE2_ERROR_NOMATCH)
        return 0;
    return match_error(r, prc, err);
}

int tfmt_match_filter(tfmt_match *m, const char *file, size_t file_len,
                      const char *func, size_t func_len, bool *keep,
                      tfmt_error *err)
{
    bool have_include = false, included = false;
    *keep = false;
    for (size_t i = 0; i < m->nrules; i++) {
        const rule *r = &m->rules[i];
        if (r->kind == TFMT_MATCH_REWRITE)
            continue;
        if (r->kind == TFMT_MATCH_INCLUDE) {
            have_include = true;
            if (included)
                continue;
        }
        int hit = rule_test(m, r, func, func_len, err);
        if (hit == 0)
            hit = rule_test(m, r, file, file_len, err);
        if (hit < 0)
            return hit;
        if (hit && r->kind == TFMT_MATCH_EXCLUDE)
            return TFMT_OK;
        if (hit)
            included = true;
    }
    *keep = !have_include || included;
    return TFMT_OK;
}

/* A rewrite may not make a name longer than this (see fmt_match.h). */
static int too_long(const rule *r, size_t n, size_t need, tfmt_error *err)
{
    size_t max = n > TFMT_MATCH_MAX_NAME ? n : TFMT_MATCH_MAX_NAME;
    if (need <= max)
        return TFMT_OK;
    return tfmt__error(err, TFMT_EINVAL,
                       "pattern '%s': rewritten name longer than %zu bytes",
                       r->pattern, max);
}

/*
 * Substitute every match of `r` in s[0..n) into `b`. Returns the number of
 * substitutions (0: `b` is not meaningful) or an error.
 */
static int rule_substitute(tfmt_match *m, const rule *r, const char *s,
                           size_t n, tfmt_buf *b, tfmt_error *err)
{
    const uint32_t opts = PCRE2_SUBSTITUTE_GLOBAL |
                          PCRE2_SUBSTITUTE_UNSET_EMPTY |
                          PCRE2_SUBSTITUTE_OVERFLOW_LENGTH;
    size_t want = n + r->repl_len + 64;
    for (int tries = 0; tries < 3; tries++) {
        b->len = 0;
        if (tfmt__buf_reserve(b, want) < 0)
            return tfmt__error(err, TFMT_ENOMEM, "out of memory");
        PCRE2_SIZE outlen = b->cap;
        int prc = pcre2_substitute(
            r->re, (PCRE2_SPTR)(s ? s : ""), n, 0, opts, r->md, m->mctx,
            (PCRE2_SPTR)r->repl, r->repl_len, (PCRE2_UCHAR *)b->data, &outlen);
        if (prc >= 0) {
            b->len = outlen;
            return too_long(r, n, outlen, err) < 0 ? TFMT_EINVAL : prc;
        }
        if (prc != PCRE2_ERROR_NOMEMORY)
            return match_error(r, prc, err);
        /* outlen now holds the size needed, terminator included. */
        if (too_long(r, n, outlen - 1, err) < 0)
            return TFMT_EINVAL;
        want = outlen + 1;
    }
    return tfmt__error(err, TFMT_ENOMEM, "out of memory");
}

int tfmt_match_rewrite(tfmt_match *m, tfmt_match_field field, const char *name,
                       size_t len, const char **out, size_t *out_len,
                       tfmt_error *err)
{
    const char *cur = name;
    size_t cur_len = len;
    int which = 0;
    (void)field; /* every rewrite rule applies to both names */
    for (size_t i = 0; i < m->nrules; i++) {
        const rule *r = &m->rules[i];
        if (r->kind != TFMT_MATCH_REWRITE)
            continue;
        tfmt_buf *b = &m->out[which];
        int n = rule_substitute(m, r, cur, cur_len, b, err);
        if (n < 0)
            return n;
        if (n > 0) {
            cur = b->data;
            cur_len = b->len;
            which ^= 1;
        }
    }
    *out = cur;
    *out_len = cur_len;
    return TFMT_OK;
}
