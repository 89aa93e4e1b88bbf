/* SPDX-License-Identifier: MIT */
/*
 * async_offsets.c - the asyncio layout of a CPython 3.14 process (3.15:
 * untested) from the target itself: the 13 words of the AsyncioDebug
 * section that its _asyncio module defines (Modules/_asynciomodule.c,
 * _AsyncioDebug), and from _Py_DebugOffsets the coroutine, list node,
 * type, int and set words. Every offset is checked against the size its
 * own table gives, and every size against a bound, before any task is
 * read with them. 3.11 to 3.13 publish no such section (their Task
 * objects and task sets differ per release), so they are refused.
 */
#include "async_offsets.h"

#include <stdio.h>
#include <string.h>

#include "locate.h"
#include "py_offsets_314.h"
#include "py_offsets_315.h"
#include "remote_mem.h"

/* Largest struct sizes believed (CPython's own reader copies a Task
 * into 4096 bytes). */
#define TASK_MAX 4096u
#define SMALL_MAX 4096u
#define BIG_MAX (1u << 24)

/* Words of the AsyncioDebug section. */
enum {
    S_TASK_SIZE,
    S_TASK_NAME,
    S_TASK_AWAITED_BY,
    S_TASK_IS_TASK,
    S_TASK_AWAITED_BY_IS_SET,
    S_TASK_CORO,
    S_TASK_NODE,
    S_INTERP_SIZE,
    S_INTERP_TASKS_HEAD,
    S_TS_SIZE,
    S_TS_RUNNING_LOOP,
    S_TS_RUNNING_TASK,
    S_TS_TASKS_HEAD
};

/* Where one version's _Py_DebugOffsets keeps the words used here. */
typedef struct async_map {
    unsigned minor;
    int rt_interp_head, is_next, is_id;
    int llist_next, llist_prev;
    int gen_size, gen_iframe, gen_frame_state, fr_stackpointer, fr_localsplus;
    int type_size, type_flags;
    int long_size, long_tag, long_digit;
    int set_size, set_used, set_table, set_mask;
    unsigned yield_from_words;
} async_map;

static const async_map map_314 = {
    14,
    D314_RT_INTERPRETERS_HEAD,
    D314_IS_NEXT,
    D314_IS_ID,
    D314_LLIST_NEXT,
    D314_LLIST_PREV,
    D314_GEN_SIZE,
    D314_GEN_GI_IFRAME,
    D314_GEN_GI_FRAME_STATE,
    D314_FR_STACKPOINTER,
    D314_FR_LOCALSPLUS,
    D314_TYPE_SIZE,
    D314_TYPE_TP_FLAGS,
    D314_LONG_SIZE,
    D314_LONG_LV_TAG,
    D314_LONG_OB_DIGIT,
    D314_SET_SIZE,
    D314_SET_USED,
    D314_SET_TABLE,
    D314_SET_MASK,
    1, /* SEND leaves the awaited object just below the top */
};

/* 3.15 as its main branch reads it: the awaited object two words below
 * the stack pointer. UNTESTED. */
static const async_map map_315 = {
    15,
    D315_RT_INTERPRETERS_HEAD,
    D315_IS_NEXT,
    D315_IS_ID,
    D315_LLIST_NEXT,
    D315_LLIST_PREV,
    D315_GEN_SIZE,
    D315_GEN_GI_IFRAME,
    D315_GEN_GI_FRAME_STATE,
    D315_FR_STACKPOINTER,
    D315_FR_LOCALSPLUS,
    D315_TYPE_SIZE,
    D315_TYPE_TP_FLAGS,
    D315_LONG_SIZE,
    D315_LONG_LV_TAG,
    D315_LONG_OB_DIGIT,
    D315_SET_SIZE,
    D315_SET_USED,
    D315_SET_TABLE,
    D315_SET_MASK,
    2,
};

int async_version_check(uint32_t hexversion, bool untested, char *msg,
                        size_t msg_len)
{
    unsigned major = hexversion >> 24, minor = (hexversion >> 16) & 0xff;
    unsigned micro = (hexversion >> 8) & 0xff;
    if (major == 3 && (minor == 14 || (minor == 15 && untested)))
        return 0;
    if (major == 3 && minor < 14)
        snprintf(msg, msg_len,
                 "--async-aware needs CPython 3.14 or later (this is "
                 "%u.%u.%u): asyncio's task layout is only published from "
                 "3.14",
                 major, minor, micro);
    else
        snprintf(msg, msg_len,
                 "--async-aware does not read CPython %u.%u.%u (read: 3.14)",
                 major, minor, micro);
    return -1;
}

/* One field: its offset, width and the size of the struct holding it. */
typedef struct field {
    uint64_t off, width, size;
    const char *name;
} field;

static int check_fields(const field *f, size_t n, char *msg, size_t msg_len)
{
    for (size_t i = 0; i < n; i++) {
        if (f[i].off > f[i].size || f[i].width > f[i].size - f[i].off) {
            snprintf(msg, msg_len,
                     "asyncio offsets: %s (%llu) outside its struct (%llu "
                     "bytes)",
                     f[i].name, (unsigned long long)f[i].off,
                     (unsigned long long)f[i].size);
            return -1;
        }
    }
    return 0;
}

static void fill_section(const uint64_t *s, async_offsets *o)
{
    o->task_size = s[S_TASK_SIZE];
    o->task_name = s[S_TASK_NAME];
    o->task_awaited_by = s[S_TASK_AWAITED_BY];
    o->task_is_task = s[S_TASK_IS_TASK];
    o->task_awaited_by_is_set = s[S_TASK_AWAITED_BY_IS_SET];
    o->task_coro = s[S_TASK_CORO];
    o->task_node = s[S_TASK_NODE];
    o->interp_tasks_head = s[S_INTERP_TASKS_HEAD];
    o->ts_running_loop = s[S_TS_RUNNING_LOOP];
    o->ts_running_task = s[S_TS_RUNNING_TASK];
    o->ts_tasks_head = s[S_TS_TASKS_HEAD];
}

static void fill_table(const async_map *m, const uint64_t *w, async_offsets *o)
{
    o->rt_interp_head = w[m->rt_interp_head];
    o->is_next = w[m->is_next];
    o->is_id = w[m->is_id];
    o->llist_next = w[m->llist_next];
    o->llist_prev = w[m->llist_prev];
    o->gen_size = w[m->gen_size];
    o->gen_iframe = w[m->gen_iframe];
    o->gen_frame_state = w[m->gen_frame_state];
    o->fr_stackpointer = w[m->fr_stackpointer];
    o->fr_localsplus = w[m->fr_localsplus];
    o->type_size = w[m->type_size];
    o->type_flags = w[m->type_flags];
    o->long_size = w[m->long_size];
    o->long_tag = w[m->long_tag];
    o->long_digit = w[m->long_digit];
    o->set_size = w[m->set_size];
    o->set_used = w[m->set_used];
    o->set_table = w[m->set_table];
    o->set_mask = w[m->set_mask];
    o->yield_from_words = m->yield_from_words;
}

/* The span of a Task that holds every field read. */
static void task_span(async_offsets *o)
{
    const uint64_t start[] = {o->task_name,    o->task_awaited_by,
                              o->task_is_task, o->task_awaited_by_is_set,
                              o->task_coro,    o->task_node};
    const uint64_t width[] = {8, 8, 1, 1, 8, 16};
    o->task_lo = UINT64_MAX;
    o->task_hi = 0;
    for (size_t i = 0; i < 6; i++) {
        if (start[i] < o->task_lo)
            o->task_lo = start[i];
        if (start[i] + width[i] > o->task_hi)
            o->task_hi = start[i] + width[i];
    }
}

/* Sizes first (each bounded), then every field inside its struct. */
static int check_all(const async_offsets *o, const uint64_t *s,
                     const py_offsets *off, char *msg, size_t msg_len)
{
    uint64_t ts_copy = off->ts_size + ASYNC_TS_EXTRA;
    if (o->task_size == 0 || o->task_size > TASK_MAX ||
        s[S_INTERP_SIZE] > BIG_MAX || s[S_TS_SIZE] > BIG_MAX ||
        o->gen_size > SMALL_MAX || o->type_size > SMALL_MAX ||
        o->long_size > SMALL_MAX || o->set_size > SMALL_MAX ||
        off->fr_size > SMALL_MAX) {
        snprintf(msg, msg_len, "asyncio offsets: struct sizes implausible");
        return -1;
    }
    const field f[] = {
        {o->task_name, 8, o->task_size, "task_name"},
        {o->task_awaited_by, 8, o->task_size, "task_awaited_by"},
        {o->task_is_task, 1, o->task_size, "task_is_task"},
        {o->task_awaited_by_is_set, 1, o->task_size, "task_awaited_by_is_set"},
        {o->task_coro, 8, o->task_size, "task_coro"},
        {o->task_node, 16, o->task_size, "task_node"},
        {o->interp_tasks_head, 16, s[S_INTERP_SIZE], "interpreter tasks"},
        {o->ts_running_loop, 8, s[S_TS_SIZE], "running loop"},
        {o->ts_running_task, 8, s[S_TS_SIZE], "running task"},
        {o->ts_tasks_head, 16, s[S_TS_SIZE], "thread tasks"},
        /* and inside what a thread state copy holds */
        {o->ts_running_loop, 8, ts_copy, "running loop"},
        {o->ts_running_task, 8, ts_copy, "running task"},
        {o->ts_tasks_head, 16, ts_copy, "thread tasks"},
        {o->llist_next, 8, 16, "llist next"},
        {o->llist_prev, 8, 16, "llist prev"},
        {o->gen_iframe, off->fr_size, o->gen_size, "gi_iframe"},
        {o->gen_frame_state, 1, o->gen_size, "gi_frame_state"},
        {off->ob_type, 8, o->gen_size, "ob_type"},
        {o->fr_stackpointer, 8, off->fr_size, "stackpointer"},
        {o->fr_localsplus, 0, off->fr_size, "localsplus"}, /* flexible */
        {o->type_flags, 8, o->type_size, "tp_flags"},
        {o->long_tag, 8, o->long_size, "lv_tag"},
        {o->long_digit, 4, o->long_size, "ob_digit"},
        {o->set_used, 8, o->set_size, "set used"},
        {o->set_table, 8, o->set_size, "set table"},
        {o->set_mask, 8, o->set_size, "set mask"},
    };
    return check_fields(f, sizeof f / sizeof *f, msg, msg_len);
}

int async_offsets_fill(const uint64_t section[ASYNC_SECTION_WORDS],
                       unsigned minor, const uint64_t *table,
                       const py_offsets *off, async_offsets *out, char *msg,
                       size_t msg_len)
{
    const async_map *m = minor == 14 ? &map_314 : minor == 15 ? &map_315 : 0;
    if (!m) {
        snprintf(msg, msg_len, "asyncio offsets: no map for 3.%u", minor);
        return -1;
    }
    memset(out, 0, sizeof *out);
    fill_section(section, out);
    fill_table(m, table, out);
    if (check_all(out, section, off, msg, msg_len) != 0)
        return -1;
    /* A name is an int or a str: the head async_names.c reads first,
     * from ob_type to the first digit's end, must lie in both. */
    uint64_t head_end = out->long_digit + 4;
    if (off->ob_type + 8 > head_end || off->u_length + 8 > head_end ||
        out->long_tag + 8 > head_end || head_end - off->ob_type > 64 ||
        head_end > off->u_ascii_size || off->u_state + 4 > off->u_ascii_size) {
        snprintf(msg, msg_len,
                 "asyncio offsets: int and str objects not laid out as "
                 "expected");
        return -1;
    }
    task_span(out);
    out->ts_end = out->ts_tasks_head + 16;
    if (out->ts_running_loop + 8 > out->ts_end)
        out->ts_end = out->ts_running_loop + 8;
    if (out->ts_running_task + 8 > out->ts_end)
        out->ts_end = out->ts_running_task + 8;
    return 0;
}

/* The target's own _Py_DebugOffsets words, for its version. */
static int read_table(pid_t pid, unsigned minor, uint64_t runtime,
                      uint64_t runtime_size, uint64_t *w, char *msg,
                      size_t msg_len)
{
    if (minor == 14)
        return py_offsets_314_read(pid, runtime, runtime_size, w, msg, msg_len);
    return py_offsets_315_read(pid, runtime, runtime_size, w, msg, msg_len);
}

int async_offsets_load(pid_t pid, uint32_t hexversion, uint64_t runtime,
                       uint64_t runtime_size, const py_offsets *off,
                       async_offsets *out, char *msg, size_t msg_len)
{
    static const char *const needles[] = {"_asyncio", "python", NULL};
    uint64_t addr, size, section[ASYNC_SECTION_WORDS];
    uint64_t table[D315_WORDS > D314_WORDS ? D315_WORDS : D314_WORDS];
    char where[512];
    unsigned minor = (hexversion >> 16) & 0xff;
    int rc = locate_section(pid, needles, ".AsyncioDebug", &addr, &size, where,
                            sizeof where);
    if (rc == LOCATE_NOT_YET)
        return ASYNC_NOT_LOADED;
    if (rc != LOCATE_FOUND) {
        snprintf(msg, msg_len, "cannot read the maps of process %d", (int)pid);
        return ASYNC_BAD;
    }
    if (size < sizeof section ||
        rmem_read(pid, addr, section, sizeof section) != RMEM_OK) {
        snprintf(msg, msg_len, "%s: cannot read its AsyncioDebug section",
                 where);
        return ASYNC_BAD;
    }
    if (read_table(pid, minor, runtime, runtime_size, table, msg, msg_len) !=
            0 ||
        async_offsets_fill(section, minor, table, off, out, msg, msg_len) != 0)
        return ASYNC_BAD;
    snprintf(out->where, sizeof out->where, "%s", where);
    return ASYNC_FOUND;
}
