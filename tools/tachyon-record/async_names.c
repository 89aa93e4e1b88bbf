/* SPDX-License-Identifier: MIT */
/*
 * async_names.c - task names. A Task's name is an int until the program
 * asks for it (CPython 3.14 defers formatting "Task-N"), else a str; the
 * <task> frame shows "Task-N" for the int, as CPython's reader does, and
 * the str (its first 255 characters, in UTF-8 whatever its kind; an
 * empty one is shown as "Task-ID", the task's id, as CPython's collector
 * does). A task with several awaiters is "NAME (N parents)".
 *
 * Read in rounds over all names at once, never past the object: first
 * the head every int and str has (type, length or size, first digit),
 * then what the kind needs (a str's state, an int's other digits), then
 * a str's characters. The kind of a type (its tp_flags) is learnt once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "async_graph.h"
#include "pystr.h"

#define HEAD_MAX 64
#define TPFLAGS_LONG_SUBCLASS (1ul << 24)
#define TPFLAGS_UNICODE_SUBCLASS (1ul << 28)
#define DIGIT_BITS 30
#define MAX_DIGITS 3 /* enough for any value of a C long */

enum { KIND_UNKNOWN, KIND_INT, KIND_STR, KIND_OTHER };

typedef struct name_job {
    uint32_t task;
    uint8_t kind;
    uint8_t head[HEAD_MAX];
    uint32_t state;
    uint32_t digits[MAX_DIGITS];
    size_t data_off, data_len; /* characters, in name_data */
    unsigned chars, char_size;
} name_job;

static uint64_t u64_at(const uint8_t *p, uint64_t off)
{
    uint64_t v;
    memcpy(&v, p + off, 8);
    return v;
}

/* The head: from ob_type to the first digit's end, inside any int and
 * any str (async_offsets.c checks). */
static void head_range(const unwinder *u, uint64_t *lo, uint64_t *len)
{
    *lo = u->off.ob_type;
    *len = u->as->off.long_digit + 4 - *lo;
}

static int type_kind(const async_state *a, uint64_t type)
{
    for (uint32_t i = 0; i < a->ntypes; i++)
        if (a->type_addr[i] == type)
            return a->type_kind[i];
    return KIND_UNKNOWN;
}

/* Read the tp_flags of up to 16 types not known yet (the cache is
 * emptied when full) and learn their kinds. */
static int learn_some(unwinder *u, const name_job *j, uint32_t n)
{
    async_state *a = u->as;
    uint64_t types[16];
    unsigned long flags[16];
    rmem_piece p[16];
    uint32_t nt = 0;
    if (a->ntypes == 16)
        a->ntypes = 0;
    for (uint32_t i = 0; i < n && nt < 16 - a->ntypes; i++) {
        uint64_t type = u64_at(j[i].head, 0);
        bool seen = false;
        for (uint32_t k = 0; k < nt; k++)
            seen |= types[k] == type;
        if (j[i].kind != KIND_UNKNOWN || seen)
            continue;
        if (!type || (type & 7))
            return RMEM_FAULT;
        types[nt] = type;
        p[nt] = (rmem_piece){type + a->off.type_flags, &flags[nt], 8};
        nt++;
    }
    int rc = async_read(u, p, nt);
    for (uint32_t k = 0; rc == RMEM_OK && k < nt; k++) {
        a->type_addr[a->ntypes] = types[k];
        a->type_kind[a->ntypes++] = flags[k] & TPFLAGS_LONG_SUBCLASS ? KIND_INT
                                    : flags[k] & TPFLAGS_UNICODE_SUBCLASS
                                        ? KIND_STR
                                        : KIND_OTHER;
    }
    return rc;
}

/* Every job's kind, from its type (ob_type starts the head). */
static int learn_types(unwinder *u, name_job *j, uint32_t n)
{
    for (uint32_t round = 0; round <= n; round++) {
        bool unknown = false;
        for (uint32_t i = 0; i < n; i++) {
            j[i].kind = (uint8_t)type_kind(u->as, u64_at(j[i].head, 0));
            unknown |= j[i].kind == KIND_UNKNOWN;
        }
        if (!unknown)
            return RMEM_OK;
        int rc = learn_some(u, j, n);
        if (rc != RMEM_OK)
            return rc;
    }
    return RMEM_FAULT;
}

/* Round 2: a str's state, an int's digits past the first. */
static int read_more(unwinder *u, name_job *j, uint32_t n, rmem_piece *p)
{
    const async_state *a = u->as;
    uint64_t lo, len;
    uint32_t np = 0;
    head_range(u, &lo, &len);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t obj = a->tasks[j[i].task].name_obj;
        if (j[i].kind == KIND_STR) {
            p[np++] = (rmem_piece){obj + u->off.u_state, &j[i].state, 4};
        } else if (j[i].kind == KIND_INT) {
            uint64_t ndigits = u64_at(j[i].head, a->off.long_tag - lo) >> 3;
            if (ndigits > MAX_DIGITS)
                return RMEM_FAULT;
            if (ndigits > 1)
                p[np++] = (rmem_piece){obj + a->off.long_digit, j[i].digits,
                                       4 * ndigits};
            else
                memcpy(j[i].digits, j[i].head + (a->off.long_digit - lo), 4);
        } else {
            return RMEM_FAULT; /* a Task's name is an int or a str */
        }
    }
    return np ? async_read(u, p, np) : RMEM_OK;
}

/* Round 3: the characters of the str names, into name_data. */
static int read_chars(unwinder *u, name_job *j, uint32_t n, rmem_piece *p)
{
    async_state *a = u->as;
    const py_offsets *o = &u->off;
    uint64_t lo, len;
    size_t need = 0;
    uint32_t np = 0;
    head_range(u, &lo, &len);
    for (uint32_t i = 0; i < n; i++) {
        if (j[i].kind != KIND_STR)
            continue;
        int64_t length = (int64_t)u64_at(j[i].head, o->u_length - lo);
        unsigned shift = (unsigned)o->u_kind_shift, st = j[i].state;
        unsigned kind = (st >> shift) & 7, compact = (st >> (shift + 3)) & 1;
        unsigned ascii = (st >> (shift + 4)) & 1;
        if (!compact || (kind != 1 && kind != 2 && kind != 4) || length < 0 ||
            (ascii && kind != 1))
            return RMEM_FAULT;
        j[i].chars =
            length > ASYNC_NAME_CHARS ? ASYNC_NAME_CHARS : (unsigned)length;
        j[i].char_size = kind;
        j[i].data_off = need;
        j[i].data_len = (size_t)j[i].chars * kind;
        need += j[i].data_len;
    }
    if (need > a->name_data_cap) {
        uint8_t *d = realloc(a->name_data, need);
        if (!d)
            return RMEM_OTHER;
        a->name_data = d;
        a->name_data_cap = need;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (j[i].kind != KIND_STR || !j[i].data_len)
            continue;
        unsigned st = j[i].state >> ((unsigned)o->u_kind_shift + 4);
        uint64_t at = a->tasks[j[i].task].name_obj +
                      ((st & 1) ? o->u_ascii_size : o->u_compact_size);
        p[np++] = (rmem_piece){at, a->name_data + j[i].data_off, j[i].data_len};
    }
    return np ? async_read(u, p, np) : RMEM_OK;
}

/* An int name's value; RMEM_FAULT for digits no int has. */
static int int_value(const unwinder *u, const name_job *j, int64_t *out)
{
    uint64_t lo, len;
    head_range(u, &lo, &len);
    uint64_t tag = u64_at(j->head, u->as->off.long_tag - lo);
    uint64_t ndigits = tag >> 3, sign = tag & 3, v = 0;
    if (sign == 3 || ndigits > MAX_DIGITS)
        return RMEM_FAULT;
    for (uint64_t k = ndigits; k-- > 0;) {
        if (j->digits[k] >> DIGIT_BITS || v >> (63 - DIGIT_BITS))
            return RMEM_FAULT;
        v = v << DIGIT_BITS | j->digits[k];
    }
    *out = sign == 2 ? -(int64_t)v : (int64_t)v;
    return RMEM_OK;
}

/* The <task> frame's name of job j's task, into the names. */
static int put_name(unwinder *u, const name_job *j)
{
    async_state *a = u->as;
    async_task *t = &a->tasks[j->task];
    char buf[4 * ASYNC_NAME_CHARS + 64];
    size_t n;
    if (j->kind == KIND_INT) {
        int64_t v;
        int rc = int_value(u, j, &v);
        if (rc != RMEM_OK)
            return rc;
        n = (size_t)snprintf(buf, sizeof buf, "Task-%lld", (long long)v);
    } else {
        n = pystr_to_utf8(a->name_data + j->data_off, j->char_size, j->chars,
                          buf);
        if (n == 0)
            n = (size_t)snprintf(buf, sizeof buf, "Task-%llu",
                                 (unsigned long long)t->addr);
    }
    if (t->nparents > 1)
        n += (size_t)snprintf(buf + n, sizeof buf - n, " (%u parents)",
                              t->nparents);
    if (async_name_put(a, buf, n, &t->name_off) != 0) {
        a->truncated = true;
        t->name_off = ASYNC_NONE;
        return RMEM_OK;
    }
    t->name_len = (uint32_t)n;
    return RMEM_OK;
}

/* The jobs: every Task of the graph, and its head read (round 1). */
static int start_jobs(unwinder *u, name_job **out, uint32_t *n, rmem_piece *p)
{
    async_state *a = u->as;
    uint64_t lo, len;
    size_t need = (size_t)a->ntasks * sizeof(name_job);
    head_range(u, &lo, &len);
    if (need > a->name_jobs_cap) {
        void *m = realloc(a->name_jobs, need);
        if (!m)
            return RMEM_OTHER;
        a->name_jobs = m;
        a->name_jobs_cap = need;
    }
    name_job *j = a->name_jobs;
    *n = 0;
    for (uint32_t i = 0; i < a->ntasks; i++) {
        if (!a->tasks[i].is_task)
            continue;
        j[*n] = (name_job){.task = i};
        p[*n] = (rmem_piece){a->tasks[i].name_obj + lo, j[*n].head, len};
        (*n)++;
    }
    *out = j;
    return *n ? async_read(u, p, *n) : RMEM_OK;
}

int async_names(unwinder *u)
{
    static rmem_piece p[ASYNC_MAX_TASKS];
    name_job *j;
    uint32_t n;
    int rc = start_jobs(u, &j, &n, p);
    if (rc == RMEM_OK)
        rc = learn_types(u, j, n);
    if (rc == RMEM_OK)
        rc = read_more(u, j, n, p);
    if (rc == RMEM_OK)
        rc = read_chars(u, j, n, p);
    for (uint32_t i = 0; rc == RMEM_OK && i < n; i++)
        rc = put_name(u, &j[i]);
    return rc;
}
