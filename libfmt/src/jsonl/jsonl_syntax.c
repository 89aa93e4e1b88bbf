/* SPDX-License-Identifier: MIT */
/*
 * jsonl_syntax.c - decides whether a JSONL line is JSON the way json-c
 * 0.16 does (json_tokener_parse_ex with JSON_TOKENER_STRICT and
 * JSON_TOKENER_VALIDATE_UTF8, 32 levels), without building anything: the
 * same verdict, the same error code at the same offset (so the reader's
 * "invalid JSON at column N: ..." messages stay as they were), in one
 * pass and a fixed amount of memory whatever the line holds.
 *
 * json-c's tokener is a state machine with a stack of (state, saved
 * state) pairs, one pair per nesting level; this is the same machine
 * with nothing but the pairs. Its quirks are part of the verdict and are
 * kept: UTF-8 is checked byte by byte wherever the tokener looks (leniently:
 * lead byte and continuation bytes only), single-quoted member names,
 * NaN, Infinity and -Infinity, "00", "-01" and "1." as numbers, strings
 * with raw control bytes; a NUL byte ends the parse. fuzz_jsonl_syntax
 * holds it to json-c on arbitrary lines.
 */
#include "jsonl_internal.h"

#define MAX_DEPTH 32

enum state {
    S_EATWS,
    S_START,
    S_FINISH,
    S_NULL,
    S_INF,
    S_STRING,
    S_ESCAPE,
    S_UNICODE,
    S_NEED_ESCAPE,
    S_NEED_U,
    S_BOOLEAN,
    S_NUMBER,
    S_ARRAY,
    S_ARRAY_AFTER_SEP,
    S_ARRAY_ADD,
    S_ARRAY_SEP,
    S_FIELD_START,
    S_FIELD_START_AFTER_SEP,
    S_FIELD,
    S_FIELD_END,
    S_VALUE,
    S_VALUE_ADD,
    S_OBJECT_SEP
};

/* What a state does after its character: move on, look again, stop. */
enum act { ADVANCE, REDO, OUT };

typedef struct jsm {
    const unsigned char *p;
    size_t n, pos;
    int depth;
    uint8_t state[MAX_DEPTH], saved[MAX_DEPTH];
    unsigned char c; /* the character last looked at */
    unsigned nb;     /* UTF-8 continuation bytes still expected */
    int err;
    int st_pos;          /* literals, \u escapes: characters so far */
    char lit[6];         /* a literal's characters so far */
    unsigned char quote; /* the quote of the string being read */
    uint32_t ucs, high;  /* \u escapes: value, pending high surrogate */
    bool is_double;      /* the number has '.', 'e' or 'E' */
    int top;             /* the top-level value's kind */
} jsm;

#define ST(m) ((m)->state[(m)->depth])
#define SV(m) ((m)->saved[(m)->depth])

static const char *const descs[] = {
    "success",
    "continue",
    "nesting too deep",
    "unexpected end of data",
    "unexpected character",
    "null expected",
    "boolean expected",
    "number expected",
    "array value separator ',' expected",
    "quoted object property name expected",
    "object property name separator ':' expected",
    "object value separator ',' expected",
    "invalid string sequence",
    "expected comment",
    "invalid utf-8 string",
};

const char *tfmt__jsyn_desc(int code)
{
    if (code < 0 || code >= (int)(sizeof descs / sizeof *descs))
        return "unknown error";
    return descs[code];
}

/* json-c's UTF-8 check of one byte: lead bytes and continuation bytes. */
static bool utf8_step(unsigned *nb, unsigned char b)
{
    if (*nb) {
        if ((b & 0xc0) != 0x80)
            return false;
        --*nb;
        return true;
    }
    if (b < 0x80)
        return true;
    if ((b & 0xe0) == 0xc0)
        *nb = 1;
    else if ((b & 0xf0) == 0xe0)
        *nb = 2;
    else if ((b & 0xf8) == 0xf0)
        *nb = 3;
    else
        return false;
    return true;
}

/*
 * Look at the character at pos. At the end of the line the parse is
 * complete only after a finished top-level value and its whitespace.
 */
static bool peek(jsm *m)
{
    if (m->pos == m->n) {
        bool done = m->depth == 0 && ST(m) == S_EATWS && SV(m) == S_FINISH;
        m->err = done ? TFMT_JSYN_OK : TFMT_JSYN_CONTINUE;
        return false;
    }
    unsigned char b = m->p[m->pos];
    if (!utf8_step(&m->nb, b)) {
        m->err = TFMT_JSYN_EUTF8;
        return false;
    }
    m->c = b;
    return true;
}

/* Step over the current character (not NUL) and look at the next one. */
static bool next(jsm *m)
{
    m->pos++;
    return peek(m);
}

static int fail(jsm *m, int err)
{
    m->err = err;
    return OUT;
}

static bool is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * A value is complete: whitespace, then back to the level's caller. The
 * top-level value's kind is what a successful parse returns.
 */
static void set_done(jsm *m, int kind)
{
    if (m->depth == 0)
        m->top = kind;
    SV(m) = S_FINISH;
    ST(m) = S_EATWS;
}

static int value_done(jsm *m, int kind)
{
    set_done(m, kind);
    return REDO;
}

/* Start a new level for a member value or an array element. */
static int push(jsm *m, int add_state)
{
    if (m->depth >= MAX_DEPTH - 1)
        return fail(m, TFMT_JSYN_EDEPTH);
    ST(m) = add_state;
    m->depth++;
    ST(m) = S_EATWS;
    SV(m) = S_START;
    return REDO;
}

static int eat_ws(jsm *m)
{
    while (is_ws(m->c)) {
        if (!next(m))
            return OUT;
    }
    ST(m) = SV(m); /* strict: no comments */
    return REDO;
}

static int start(jsm *m)
{
    m->st_pos = 0;
    if (m->depth == 0 && (m->c == '{' || m->c == '['))
        m->top = m->c == '{' ? TFMT_JSYN_TOP_OBJECT : TFMT_JSYN_TOP_ARRAY;
    switch (m->c) {
    case '{':
        ST(m) = S_EATWS;
        SV(m) = S_FIELD_START;
        return ADVANCE;
    case '[':
        ST(m) = S_EATWS;
        SV(m) = S_ARRAY;
        return ADVANCE;
    case 'I':
    case 'i': ST(m) = S_INF; return REDO;
    case 'N':
    case 'n': ST(m) = S_NULL; return REDO;
    case '"':
        ST(m) = S_STRING;
        m->quote = '"';
        return ADVANCE;
    case 'T':
    case 't':
    case 'F':
    case 'f': ST(m) = S_BOOLEAN; return REDO;
    default: break;
    }
    if ((m->c >= '0' && m->c <= '9') || m->c == '-') {
        ST(m) = S_NUMBER;
        m->is_double = false;
        return REDO;
    }
    return fail(m, TFMT_JSYN_EUNEXPECTED); /* single quotes too (strict) */
}

/* The first `k` characters of the literal read so far equal `word`'s. */
static bool lit_prefix(const jsm *m, const char *word, int k)
{
    return memcmp(m->lit, word, (size_t)k) == 0;
}

static int literal_char(jsm *m)
{
    if (m->st_pos < (int)sizeof m->lit)
        m->lit[m->st_pos] = (char)m->c;
    return m->st_pos + 1;
}

/* null, or NaN (also starting with 'n' or 'N'). */
static int null_state(jsm *m)
{
    int have = literal_char(m);
    if (lit_prefix(m, "null", have < 4 ? have : 4)) {
        if (m->st_pos == 4)
            return value_done(m, TFMT_JSYN_TOP_NULL);
    } else if (lit_prefix(m, "NaN", have < 3 ? have : 3)) {
        if (m->st_pos == 3)
            return value_done(m, TFMT_JSYN_TOP_SCALAR);
    } else {
        return fail(m, TFMT_JSYN_ENULL);
    }
    m->st_pos++;
    return ADVANCE;
}

static int boolean_state(jsm *m)
{
    int have = literal_char(m);
    if (lit_prefix(m, "true", have < 4 ? have : 4)) {
        if (m->st_pos == 4)
            return value_done(m, TFMT_JSYN_TOP_SCALAR);
    } else if (lit_prefix(m, "false", have < 5 ? have : 5)) {
        if (m->st_pos == 5)
            return value_done(m, TFMT_JSYN_TOP_SCALAR);
    } else {
        return fail(m, TFMT_JSYN_EBOOLEAN);
    }
    m->st_pos++;
    return ADVANCE;
}

/* "Infinity", exactly (strict), after an optional '-'. */
static int inf_state(jsm *m)
{
    static const char word[] = "Infinity";
    while (m->st_pos < 8) {
        if (m->c != (unsigned char)word[m->st_pos])
            return fail(m, TFMT_JSYN_EUNEXPECTED);
        m->st_pos++;
        if (!next(m))
            return OUT;
    }
    return value_done(m, TFMT_JSYN_TOP_SCALAR);
}

/* ---- strings and member names ---- */

/* A byte a string run may skip without looking (ASCII, no UTF-8 state). */
static bool plain(unsigned char b, unsigned char quote)
{
    return b != quote && b != '\\' && b != 0 && b < 0x80;
}

/*
 * The characters of a string or member name up to its closing quote or a
 * backslash. A NUL byte ends the parse (the tokener steps over it first).
 */
static int string_state(jsm *m, bool name)
{
    for (;;) {
        if (m->c == m->quote && name) {
            SV(m) = S_FIELD_END;
            ST(m) = S_EATWS;
            return ADVANCE;
        }
        if (m->c == m->quote) {
            set_done(m, TFMT_JSYN_TOP_SCALAR);
            return ADVANCE;
        }
        if (m->c == '\\') {
            SV(m) = name ? S_FIELD : S_STRING;
            ST(m) = S_ESCAPE;
            return ADVANCE;
        }
        unsigned char was = m->c;
        m->pos++;
        if (was == 0)
            return OUT;
        while (m->nb == 0 && m->pos < m->n && plain(m->p[m->pos], m->quote))
            m->c = m->p[m->pos++];
        if (!peek(m))
            return OUT;
    }
}

static int escape_state(jsm *m)
{
    switch (m->c) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'n':
    case 'r':
    case 't':
    case 'f': ST(m) = SV(m); return ADVANCE;
    case 'u':
        m->ucs = 0;
        m->st_pos = 0;
        ST(m) = S_UNICODE;
        return ADVANCE;
    default: return fail(m, TFMT_JSYN_ESTRING);
    }
}

static bool hex_digit(unsigned char c, uint32_t *v)
{
    if (c >= '0' && c <= '9')
        *v = (uint32_t)(c - '0');
    else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
        *v = (uint32_t)((c | 0x20) - 'a' + 10);
    else
        return false;
    return true;
}

/*
 * Four hex digits of a \u escape. A high surrogate waits for a "\u" low
 * one (what does not follow is read as it comes, the surrogate being
 * replaced): the same states as json-c, though only the decoding of
 * jsonl_text.c depends on the outcome.
 */
static int unicode_state(jsm *m)
{
    for (;;) {
        uint32_t d;
        if (!hex_digit(m->c, &d))
            return fail(m, TFMT_JSYN_ESTRING);
        m->ucs |= d << ((3 - m->st_pos) * 4);
        if (++m->st_pos >= 4)
            break;
        if (!next(m))
            return OUT;
    }
    m->st_pos = 0;
    bool low = (m->ucs & 0xfc00) == 0xdc00;
    if (m->high && low)
        m->ucs = 0x10000; /* a pair: not a surrogate any more */
    m->high = 0;
    if ((m->ucs & 0xfc00) == 0xd800) {
        m->high = m->ucs;
        m->ucs = 0;
        ST(m) = S_NEED_ESCAPE;
        return ADVANCE;
    }
    ST(m) = SV(m);
    return ADVANCE;
}

static int need_escape_state(jsm *m)
{
    if (m->c != '\\') {
        m->high = m->ucs = 0;
        m->st_pos = 0;
        ST(m) = SV(m);
        return REDO;
    }
    ST(m) = S_NEED_U;
    return ADVANCE;
}

static int need_u_state(jsm *m)
{
    if (m->c != 'u') {
        m->high = m->ucs = 0;
        m->st_pos = 0;
        ST(m) = S_ESCAPE;
        return REDO;
    }
    ST(m) = S_UNICODE;
    return ADVANCE;
}

/* ---- numbers ---- */

/*
 * Whether strtod reads all of a number's characters (json-c parses a
 * number with a '.', 'e' or 'E' with strtod and wants all of it used):
 * [-] (digits [. digits?] | . digits) [(e|E) [+|-] digits], fed one
 * character at a time.
 */
enum {
    D_START,
    D_SIGN,
    D_INT,
    D_DOT0,
    D_FRAC,
    D_EXP,
    D_ESIGN,
    D_EDIGITS,
    D_BAD
};

static int dfa_step(int s, unsigned char c)
{
    bool digit = c >= '0' && c <= '9';
    switch (s) {
    case D_START:
        return c == '-' ? D_SIGN : digit ? D_INT : c == '.' ? D_DOT0 : D_BAD;
    case D_SIGN: return digit ? D_INT : c == '.' ? D_DOT0 : D_BAD;
    case D_INT:
        return digit                    ? D_INT
               : c == '.'               ? D_FRAC
               : (c == 'e' || c == 'E') ? D_EXP
                                        : D_BAD;
    case D_DOT0: return digit ? D_FRAC : D_BAD;
    case D_FRAC: return digit ? D_FRAC : (c == 'e' || c == 'E') ? D_EXP : D_BAD;
    case D_EXP:
        return digit ? D_EDIGITS : (c == '-' || c == '+') ? D_ESIGN : D_BAD;
    case D_ESIGN:
    case D_EDIGITS: return digit ? D_EDIGITS : D_BAD;
    default: return D_BAD;
    }
}

/* What the number's characters read so far say about it. */
typedef struct numscan {
    int len; /* characters */
    unsigned char first;
    bool nonzero; /* a digit other than 0 */
    int dfa;
} numscan;

/* The characters json-c takes into a number, as it takes them. */
static bool number_char(jsm *m, unsigned char c, bool *exp, bool *neg_ok,
                        bool *pos_ok)
{
    bool ok = (c >= '0' && c <= '9') || (!*exp && (c == 'e' || c == 'E')) ||
              (*neg_ok && c == '-') || (*pos_ok && c == '+') ||
              (!m->is_double && c == '.');
    if (!ok)
        return false;
    *neg_ok = *pos_ok = false;
    if (c == '.' || c == 'e' || c == 'E') {
        m->is_double = true;
        *exp |= c != '.';
        *neg_ok = *pos_ok = true;
    }
    return true;
}

/* After the number's characters: may this one follow a number here? */
static bool may_follow(const jsm *m)
{
    unsigned char c = m->c;
    return m->depth == 0 || c == ',' || c == ']' || c == '}' || c == '/' ||
           c == 'I' || c == 'i' || is_ws(c);
}

/* The number as json-c converts it: int64, uint64 (strict: no leading
 * zero before a non-zero value) or a double strtod reads whole. */
static bool number_converts(const jsm *m, const numscan *s)
{
    if (m->is_double)
        return s->dfa == D_INT || s->dfa == D_FRAC || s->dfa == D_EDIGITS;
    if (s->first == '-')
        return s->len > 1;
    return !(s->nonzero && s->first == '0');
}

static int number_state(jsm *m)
{
    numscan s = {0, m->c, false, D_START};
    bool exp = false, neg_ok = true, pos_ok = false;
    while (m->c && number_char(m, m->c, &exp, &neg_ok, &pos_ok)) {
        s.len++;
        s.nonzero |= m->c >= '1' && m->c <= '9';
        s.dfa = dfa_step(s.dfa, m->c);
        if (!next(m))
            return OUT;
    }
    if (!may_follow(m))
        return fail(m, TFMT_JSYN_ENUMBER);
    if (s.first == '-' && s.len <= 1 && (m->c == 'i' || m->c == 'I')) {
        ST(m) = S_INF;
        m->st_pos = 0;
        return REDO;
    }
    if (!number_converts(m, &s))
        return fail(m, TFMT_JSYN_ENUMBER);
    return value_done(m, TFMT_JSYN_TOP_SCALAR);
}

/* ---- arrays and objects ---- */

static int array_state(jsm *m)
{
    if (m->c == ']') {
        if (ST(m) == S_ARRAY_AFTER_SEP)
            return fail(m, TFMT_JSYN_EUNEXPECTED); /* strict: no [1,] */
        SV(m) = S_FINISH;
        ST(m) = S_EATWS;
        return ADVANCE;
    }
    return push(m, S_ARRAY_ADD);
}

static int array_sep_state(jsm *m)
{
    if (m->c == ']') {
        SV(m) = S_FINISH;
        ST(m) = S_EATWS;
        return ADVANCE;
    }
    if (m->c != ',')
        return fail(m, TFMT_JSYN_EARRAY_SEP);
    SV(m) = S_ARRAY_AFTER_SEP;
    ST(m) = S_EATWS;
    return ADVANCE;
}

static int field_start_state(jsm *m)
{
    if (m->c == '}') {
        if (ST(m) == S_FIELD_START_AFTER_SEP)
            return fail(m, TFMT_JSYN_EUNEXPECTED); /* strict: no {"a":1,} */
        SV(m) = S_FINISH;
        ST(m) = S_EATWS;
        return ADVANCE;
    }
    if (m->c != '"' && m->c != '\'')
        return fail(m, TFMT_JSYN_EKEY_NAME);
    m->quote = m->c;
    ST(m) = S_FIELD;
    return ADVANCE;
}

static int field_end_state(jsm *m)
{
    if (m->c != ':')
        return fail(m, TFMT_JSYN_EKEY_SEP);
    SV(m) = S_VALUE;
    ST(m) = S_EATWS;
    return ADVANCE;
}

static int object_sep_state(jsm *m)
{
    if (m->c == '}') {
        SV(m) = S_FINISH;
        ST(m) = S_EATWS;
        return ADVANCE;
    }
    if (m->c != ',')
        return fail(m, TFMT_JSYN_EVALUE_SEP);
    SV(m) = S_FIELD_START_AFTER_SEP;
    ST(m) = S_EATWS;
    return ADVANCE;
}

/* A finished level goes back to its parent; the top level stops. */
static int finish_state(jsm *m)
{
    if (m->depth == 0)
        return OUT;
    m->depth--;
    return REDO;
}

static int step(jsm *m)
{
    switch (ST(m)) {
    case S_EATWS: return eat_ws(m);
    case S_START: return start(m);
    case S_FINISH: return finish_state(m);
    case S_NULL: return null_state(m);
    case S_INF: return inf_state(m);
    case S_STRING: return string_state(m, false);
    case S_FIELD: return string_state(m, true);
    case S_ESCAPE: return escape_state(m);
    case S_UNICODE: return unicode_state(m);
    case S_NEED_ESCAPE: return need_escape_state(m);
    case S_NEED_U: return need_u_state(m);
    case S_BOOLEAN: return boolean_state(m);
    case S_NUMBER: return number_state(m);
    case S_ARRAY:
    case S_ARRAY_AFTER_SEP: return array_state(m);
    case S_ARRAY_ADD:
        SV(m) = S_ARRAY_SEP;
        ST(m) = S_EATWS;
        return REDO;
    case S_ARRAY_SEP: return array_sep_state(m);
    case S_FIELD_START:
    case S_FIELD_START_AFTER_SEP: return field_start_state(m);
    case S_FIELD_END: return field_end_state(m);
    case S_VALUE: return push(m, S_VALUE_ADD);
    case S_VALUE_ADD:
        SV(m) = S_OBJECT_SEP;
        ST(m) = S_EATWS;
        return REDO;
    case S_OBJECT_SEP: return object_sep_state(m);
    default: return fail(m, TFMT_JSYN_EUNEXPECTED);
    }
}

/* The checks json-c makes when it stops, in its order. */
static void at_stop(jsm *m)
{
    if (m->nb)
        m->err = TFMT_JSYN_EUTF8;
    if (m->c && ST(m) == S_FINISH && m->depth == 0)
        m->err = TFMT_JSYN_EUNEXPECTED; /* strict: nothing after the value */
    if (!m->c && ST(m) != S_FINISH && SV(m) != S_FINISH)
        m->err = TFMT_JSYN_EEOF;
}

void tfmt__jsyn_check(const char *p, size_t n, tfmt_jsyn *out)
{
    jsm m;
    memset(&m, 0, sizeof m);
    m.p = (const unsigned char *)p;
    m.n = n;
    m.c = 1;
    m.top = TFMT_JSYN_TOP_SCALAR;
    ST(&m) = S_EATWS;
    SV(&m) = S_START;
    if (peek(&m)) {
        for (;;) {
            int a;
            do
                a = step(&m);
            while (a == REDO);
            if (a == OUT)
                break;
            unsigned char was = m.c;
            m.pos++;
            if (was == 0 || !peek(&m))
                break;
        }
    }
    at_stop(&m);
    out->code = m.err;
    out->end = m.pos;
    out->top = m.top;
}
