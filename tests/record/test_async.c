/* SPDX-License-Identifier: MIT */
/*
 * test_async - tachyon-record's --async-aware pieces that need no
 * interpreter, against tables and objects placed in this process's own
 * memory (process_vm_readv works on oneself): the asyncio offsets of real
 * 3.14.7 builds and broken ones, task lists that are long, cyclic,
 * misaligned or torn, task names of every kind, and how task stacks are
 * joined (the lowest awaiter, cycles, the 256 frames a stack keeps).
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "../unit/harness.h"
#include "async_graph.h"
#include "py_offsets_314.h"
#include "real_314_offsets.h"

static char msg[256];

/* What unwind.c would give: the tests link no unwinder. */
uint64_t unwind_u64(const uint8_t *p, uint64_t off)
{
    uint64_t v;
    memcpy(&v, p + off, 8);
    return v;
}

/* The AsyncioDebug sections of 3.14.7's _asyncio modules (objcopy). */
static const uint64_t section_314[ASYNC_SECTION_WORDS] = {
    168, 136, 96, 108, 109, 128, 152, 225864, 10880, 936, 864, 872, 880};
static const uint64_t section_314t[ASYNC_SECTION_WORDS] = {
    192, 152, 112, 124, 125, 144, 168, 246720, 17632, 15608, 864, 872, 880};

/* The py_offsets fields async_offsets_fill and the names read. */
static py_offsets offs(bool ft)
{
    py_offsets o;
    memset(&o, 0, sizeof o);
    o.ts_size = 832;
    o.fr_size = 88; /* sizeof(_PyInterpreterFrame), word 31 */
    o.ob_type = ft ? 24 : 8;
    o.u_length = ft ? 32 : 16;
    o.u_state = ft ? 48 : 32;
    o.u_ascii_size = ft ? 56 : 40;
    o.u_compact_size = o.u_ascii_size + 16;
    o.u_kind_shift = ft ? 8 : 2;
    return o;
}

TEST(offsets_314_accepted)
{
    async_offsets a;
    py_offsets o = offs(false);
    REQUIRE(async_offsets_fill(section_314, 14, real_314, &o, &a, msg,
                               sizeof msg) == 0,
            "3.14.7 refused: %s", msg);
    CHECK(a.task_lo == 96 && a.task_hi == 168, "span %llu-%llu",
          (unsigned long long)a.task_lo, (unsigned long long)a.task_hi);
    CHECK(a.ts_end == 896 && a.yield_from_words == 1, "ts_end %llu",
          (unsigned long long)a.ts_end);
    CHECK(a.gen_iframe == 72 && a.gen_frame_state == 67 &&
              a.fr_stackpointer == 64 && a.fr_localsplus == 80 &&
              a.type_flags == 168 && a.long_tag == 16 && a.long_digit == 24,
          "table words");
    o = offs(true);
    CHECK(async_offsets_fill(section_314t, 14, real_314t, &o, &a, msg,
                             sizeof msg) == 0,
          "3.14.7t refused: %s", msg);
}

static int fill_with(uint64_t *s, uint64_t *t)
{
    async_offsets a;
    py_offsets o = offs(false);
    return async_offsets_fill(s, 14, t, &o, &a, msg, sizeof msg);
}

TEST(offsets_rejected)
{
    uint64_t s[ASYNC_SECTION_WORDS], t[D314_WORDS];
    memcpy(t, real_314, sizeof t);
    memcpy(s, section_314, sizeof s);
    s[6] = 160; /* node past the Task's end */
    CHECK(fill_with(s, t) == -1 && strstr(msg, "task_node"), "%s", msg);
    memcpy(s, section_314, sizeof s);
    s[0] = 5000;
    CHECK(fill_with(s, t) == -1 && strstr(msg, "implausible"), "%s", msg);
    memcpy(s, section_314, sizeof s);
    s[11] = 832 + 600; /* beyond what a thread state copy reaches */
    s[9] = 4096;
    CHECK(fill_with(s, t) == -1 && strstr(msg, "running task"), "%s", msg);
    memcpy(s, section_314, sizeof s);
    t[D314_GEN_GI_IFRAME] = 200; /* the frame past the coroutine's end */
    CHECK(fill_with(s, t) == -1 && strstr(msg, "gi_iframe"), "%s", msg);
    memcpy(t, real_314, sizeof t);
    t[D314_LONG_OB_DIGIT] = 8; /* an int's digits before its tag */
    t[D314_LONG_SIZE] = 64;
    CHECK(fill_with(s, t) == -1 && strstr(msg, "int and str"), "%s", msg);
    async_offsets a;
    py_offsets o = offs(false);
    CHECK(async_offsets_fill(section_314, 16, real_314, &o, &a, msg,
                             sizeof msg) == -1,
          "a 3.16 map");
}

TEST(versions)
{
    CHECK(async_version_check(0x030c01f0, false, msg, sizeof msg) == -1 &&
              strcmp(msg, "--async-aware needs CPython 3.14 or later (this "
                          "is 3.12.1): asyncio's task layout is only "
                          "published from 3.14") == 0,
          "%s", msg);
    CHECK(async_version_check(0x030b07f0, false, msg, sizeof msg) == -1 &&
              strstr(msg, "(this is 3.11.7)"),
          "%s", msg);
    CHECK(async_version_check(0x030e07f0, false, msg, sizeof msg) == 0, "3.14");
    CHECK(async_version_check(0x030f00c3, false, msg, sizeof msg) == -1,
          "3.15 without --allow-untested");
    CHECK(async_version_check(0x030f00c3, true, msg, sizeof msg) == 0,
          "3.15 with --allow-untested");
    CHECK(async_version_check(0x031000a1, true, msg, sizeof msg) == -1 &&
              strcmp(msg, "--async-aware does not read CPython 3.16.0 "
                          "(read: 3.14)") == 0,
          "%s", msg);
}

/* --- task lists in this process's memory --- */

/* A fake layout: Task of 64 bytes, node at 40; thread state of 64 bytes
 * with the list head at 32 (the copy given is the thread state itself). */
enum {
    T_SIZE = 64,
    T_NAME = 8,
    T_AB = 16,
    T_IS_TASK = 24,
    T_AB_SET = 25,
    T_CORO = 32,
    T_NODE = 40,
    TS_HEAD = 32,
    TS_TID = 8
};

#define NTASKS (ASYNC_MAX_TASKS + 10)
static uint8_t tasks[NTASKS][T_SIZE] __attribute__((aligned(16)));
static uint8_t tstate[64] __attribute__((aligned(16)));
static uint8_t interp[64] __attribute__((aligned(16)));
static listed_thread listed[1];
static unwinder uw;

static uint64_t addr_of(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

static void put64(uint8_t *p, uint64_t off, uint64_t v)
{
    memcpy(p + off, &v, 8);
}

static uint64_t node_of(int i)
{
    return i < 0 ? addr_of(tstate) + TS_HEAD : addr_of(tasks[i]) + T_NODE;
}

/* Tasks 0..n-1 in the thread's list, in order, each a Task. */
static void make_list(int n)
{
    memset(tstate, 0, sizeof tstate);
    put64(tstate, TS_TID, 4242);
    for (int i = 0; i < n; i++) {
        memset(tasks[i], 0, T_SIZE);
        tasks[i][T_IS_TASK] = 1;
        put64(tasks[i], T_NODE, i + 1 < n ? node_of(i + 1) : node_of(-1));
        put64(tasks[i], T_NODE + 8, node_of(i - 1));
    }
    put64(tstate, TS_HEAD, n ? node_of(0) : node_of(-1));
    put64(tstate, TS_HEAD + 8, n ? node_of(n - 1) : node_of(-1));
    /* the interpreter's list: empty */
    put64(interp, 16, addr_of(interp) + 16);
    put64(interp, 24, addr_of(interp) + 16);
}

static void setup_lists(void)
{
    async_free(uw.as);
    memset(&uw, 0, sizeof uw);
    uw.pid = getpid();
    uw.as = async_new(ASYNC_MODE_ALL);
    uw.as->found = true;
    async_offsets *o = &uw.as->off;
    o->task_size = T_SIZE;
    o->task_name = T_NAME;
    o->task_awaited_by = T_AB;
    o->task_is_task = T_IS_TASK;
    o->task_awaited_by_is_set = T_AB_SET;
    o->task_coro = T_CORO;
    o->task_node = T_NODE;
    o->task_lo = 8;
    o->task_hi = 56;
    o->ts_tasks_head = TS_HEAD;
    o->interp_tasks_head = 16;
    o->llist_next = 0;
    o->llist_prev = 8;
    uw.off.ts_native_tid = TS_TID;
    uw.single_interp = true;
    uw.last_interp = addr_of(interp);
    uw.listed = listed;
    uw.nlisted = 1;
    listed[0] = (listed_thread){.tstate = addr_of(tstate), .ts = tstate};
}

static int walk(void)
{
    async_reset(uw.as);
    return async_lists(&uw);
}

TEST(list_in_order)
{
    setup_lists();
    make_list(100);
    REQUIRE(walk() == RMEM_OK, "walk failed");
    CHECK(uw.as->ntasks == 100, "%u tasks", uw.as->ntasks);
    bool order = true;
    for (uint32_t i = 0; i < uw.as->ntasks; i++)
        order &= uw.as->tasks[i].addr == addr_of(tasks[i]) &&
                 uw.as->tasks[i].tid == 4242;
    CHECK(order, "tasks out of order or on the wrong thread");
    /* again: the tasks listed last time are read first, in one round */
    uint64_t before = uw.as->counters.rounds;
    REQUIRE(walk() == RMEM_OK, "second walk failed");
    CHECK(uw.as->ntasks == 100, "%u tasks", uw.as->ntasks);
    CHECK(uw.as->counters.rounds - before <= 2, "%llu rounds",
          (unsigned long long)(uw.as->counters.rounds - before));
    make_list(0);
    REQUIRE(walk() == RMEM_OK, "empty list");
    CHECK(uw.as->ntasks == 0, "%u tasks in an empty list", uw.as->ntasks);
}

TEST(list_torn)
{
    setup_lists();
    make_list(100);
    put64(tasks[50], T_NODE, node_of(10)); /* back to an earlier node */
    CHECK(walk() == RMEM_FAULT, "a node pointing back");
    make_list(100);
    /* a cycle whose links agree: never back to the head */
    put64(tasks[99], T_NODE, node_of(0));
    put64(tasks[0], T_NODE + 8, node_of(99));
    put64(tstate, TS_HEAD, node_of(0));
    CHECK(walk() == RMEM_FAULT, "a cycle");
    make_list(100);
    put64(tasks[20], T_NODE, node_of(21) + 4);
    CHECK(walk() == RMEM_FAULT, "a misaligned node");
    make_list(100);
    tasks[30][T_IS_TASK] = 0;
    CHECK(walk() == RMEM_FAULT, "a node of no Task");
    make_list(100);
    put64(tasks[40], T_NODE, 0x1000 + T_NODE); /* unmapped */
    CHECK(walk() == RMEM_FAULT, "a node in unmapped memory");
    make_list(100);
    put64(tasks[60], T_NODE, 0);
    CHECK(walk() == RMEM_FAULT, "a NULL next");
    /* and after all that, the list as it is */
    make_list(100);
    CHECK(walk() == RMEM_OK && uw.as->ntasks == 100, "recovered: %u",
          uw.as->ntasks);
}

TEST(list_over_the_limit)
{
    setup_lists();
    make_list(NTASKS);
    REQUIRE(walk() == RMEM_OK, "a long list failed");
    CHECK(uw.as->truncated && uw.as->ntasks == ASYNC_MAX_TASKS,
          "%u tasks, truncated %d", uw.as->ntasks, uw.as->truncated);
    /* the next sample reads the same tasks first */
    CHECK(walk() == RMEM_OK && uw.as->ntasks == ASYNC_MAX_TASKS, "again");
}

/* --- names --- */

enum { TYPE_FLAGS = 168 };
static uint8_t int_type[256] __attribute__((aligned(16)));
static uint8_t str_type[256] __attribute__((aligned(16)));
static uint8_t float_type[256] __attribute__((aligned(16)));
static uint8_t objs[16][2048] __attribute__((aligned(16)));

static uint64_t make_int(int slot, int sign, const uint32_t *digits, int n)
{
    uint8_t *p = objs[slot];
    memset(p, 0, sizeof objs[slot]);
    put64(p, 8, addr_of(int_type));
    put64(p, 16, (uint64_t)n << 3 | (uint64_t)sign);
    memcpy(p + 24, digits, 4 * (size_t)(n ? n : 1));
    return addr_of(p);
}

/* A compact str of `n` characters of `kind` bytes (ascii: at 40). */
static uint64_t make_str(int slot, const void *chars, size_t n, unsigned kind,
                         bool ascii)
{
    uint8_t *p = objs[slot];
    memset(p, 0, sizeof objs[slot]);
    put64(p, 8, addr_of(str_type));
    put64(p, 16, n);
    uint32_t state = kind << 2 | 1u << 5 | (ascii ? 1u << 6 : 0);
    memcpy(p + 32, &state, 4);
    memcpy(p + (ascii ? 40 : 56), chars, n * kind);
    return addr_of(p);
}

static void setup_names(void)
{
    setup_lists();
    uw.off = offs(false);
    uw.as->off.long_tag = 16;
    uw.as->off.long_digit = 24;
    uw.as->off.type_flags = TYPE_FLAGS;
    put64(int_type, TYPE_FLAGS, 1ul << 24);
    put64(str_type, TYPE_FLAGS, 1ul << 28);
    put64(float_type, TYPE_FLAGS, 0);
    async_reset(uw.as);
}

static uint32_t task_named(uint64_t name, uint32_t nparents)
{
    bool oom = false;
    uint32_t i =
        async_add_task(uw.as, 0x1000 + 16 * (uw.as->ntasks + 1), 1, 0, &oom);
    uw.as->tasks[i].is_task = true;
    uw.as->tasks[i].name_obj = name;
    uw.as->tasks[i].nparents = nparents;
    return i;
}

static const char *name_of(uint32_t i)
{
    size_t len;
    return async_task_name(uw.as, i, &len);
}

TEST(names)
{
    setup_names();
    uint32_t d7[] = {7}, big[] = {123, 456, 7}, zero[] = {0};
    uint16_t ucs2[] = {0x51fd, 0x6570};
    char long_name[300];
    memset(long_name, 'x', sizeof long_name);
    uint32_t a = task_named(make_int(0, 0, d7, 1), 0);
    uint32_t b = task_named(make_int(1, 0, big, 3), 0);
    uint32_t c = task_named(make_int(2, 2, d7, 1), 0);
    uint32_t z = task_named(make_int(3, 1, zero, 0), 0);
    uint32_t s = task_named(make_str(4, "worker", 6, 1, true), 3);
    uint32_t l1 = task_named(make_str(5, "\xe9t\xe9", 3, 1, false), 0);
    uint32_t u2 = task_named(make_str(6, ucs2, 2, 2, false), 0);
    uint32_t lg = task_named(make_str(7, long_name, 300, 1, true), 0);
    uint32_t em = task_named(make_str(8, "", 0, 1, true), 0);
    REQUIRE(async_names(&uw) == RMEM_OK, "names failed");
    CHECK(strcmp(name_of(a), "Task-7") == 0, "%s", name_of(a));
    uint64_t v = 123 + (456ull << 30) + (7ull << 60);
    char want[64];
    snprintf(want, sizeof want, "Task-%llu", (unsigned long long)v);
    CHECK(strcmp(name_of(b), want) == 0, "%s", name_of(b));
    CHECK(strcmp(name_of(c), "Task--7") == 0, "%s", name_of(c));
    CHECK(strcmp(name_of(z), "Task-0") == 0, "%s", name_of(z));
    CHECK(strcmp(name_of(s), "worker (3 parents)") == 0, "%s", name_of(s));
    CHECK(strcmp(name_of(l1), "\xc3\xa9t\xc3\xa9") == 0, "%s", name_of(l1));
    CHECK(strcmp(name_of(u2), "\xe5\x87\xbd\xe6\x95\xb0") == 0, "%s",
          name_of(u2));
    CHECK(strlen(name_of(lg)) == ASYNC_NAME_CHARS, "%zu", strlen(name_of(lg)));
    snprintf(want, sizeof want, "Task-%llu",
             (unsigned long long)uw.as->tasks[em].addr);
    CHECK(strcmp(name_of(em), want) == 0, "%s", name_of(em));
}

TEST(names_refused)
{
    uint32_t four[] = {1, 2, 3, 4}, bad[] = {1u << 30};
    setup_names();
    task_named(make_int(0, 0, four, 4), 0); /* more than a C long */
    CHECK(async_names(&uw) == RMEM_FAULT, "a 4-digit int");
    setup_names();
    task_named(make_int(0, 0, bad, 1), 0);
    CHECK(async_names(&uw) == RMEM_FAULT, "a digit of 30 bits");
    setup_names();
    uint64_t f = make_int(0, 0, four, 1);
    put64(objs[0], 8, addr_of(float_type));
    task_named(f, 0);
    CHECK(async_names(&uw) == RMEM_FAULT, "a name neither int nor str");
    setup_names();
    static const char six[8] = "abcdef";
    uint64_t st = make_str(1, six, 2, 3, false); /* kind 3 */
    task_named(st, 0);
    CHECK(async_names(&uw) == RMEM_FAULT, "a str of kind 3");
}

/* --- stacks --- */

/* Task i of the graph, with `nframes` fake frames of its own. */
static uint32_t graph_task(uint64_t addr, uint32_t nframes)
{
    bool oom = false;
    async_state *a = uw.as;
    uint32_t i = async_add_task(a, addr, 7, 0, &oom);
    a->tasks[i].is_task = true;
    a->tasks[i].frame0 = a->nframes;
    a->tasks[i].nframes = nframes;
    for (uint32_t k = 0; k < nframes; k++) {
        uint32_t idx;
        raw_frame *f = async_frame_new(a, &idx);
        *f = (raw_frame){.addr = addr + k};
    }
    return i;
}

static void awaits(uint32_t child, uint32_t parent)
{
    async_task *t = &uw.as->tasks[child];
    uint64_t p = uw.as->tasks[parent].addr;
    t->nparents++;
    if (!t->parent || p < t->parent)
        t->parent = p;
    t->parent_idx = async_find_task(uw.as, t->parent);
    uw.as->tasks[parent].awaits = true;
}

TEST(stacks_joined)
{
    setup_lists();
    async_reset(uw.as);
    uint32_t root = graph_task(0x9000, 1), hi = graph_task(0x8000, 2);
    uint32_t lo = graph_task(0x7000, 1), leaf = graph_task(0x6000, 3);
    awaits(hi, root);
    awaits(leaf, hi);
    awaits(leaf, lo); /* two awaiters: the lower address leads */
    awaits(lo, root);
    REQUIRE(async_find_leaves(uw.as) == 0, "leaves");
    REQUIRE(async_nstacks(uw.as) == 1, "%u stacks", async_nstacks(uw.as));
    static async_stack st;
    async_stack_get(uw.as, 0, &st);
    /* leaf's 3 frames, <task>, lo's 1, <task>, root's 1, <task> */
    CHECK(st.depth == 8 && st.leaf == 0x6000, "depth %u", st.depth);
    CHECK(st.frames[3].f == NULL && st.frames[3].task == leaf &&
              st.frames[4].f && st.frames[4].f->addr == 0x7000 &&
              st.frames[5].task == lo && st.frames[7].task == root,
          "not joined through the lowest awaiter");
}

TEST(stacks_bounded)
{
    setup_lists();
    async_reset(uw.as);
    /* a chain of 300 tasks: the innermost 256 frames are kept */
    uint32_t prev = graph_task(0x100000, 0);
    uint32_t first = prev;
    for (int i = 1; i < 300; i++) {
        uint32_t t = graph_task(0x100000 + 16 * (uint64_t)i, 0);
        awaits(prev, t);
        prev = t;
    }
    REQUIRE(async_find_leaves(uw.as) == 0 && async_nstacks(uw.as) == 1,
            "one leaf");
    static async_stack st;
    async_stack_get(uw.as, 0, &st);
    CHECK(st.depth == UNWIND_MAX_DEPTH && st.frames[0].task == first,
          "depth %u", st.depth);
    /* a cycle above a leaf ends where it meets itself */
    async_reset(uw.as);
    uint32_t l = graph_task(0x200000, 1), x = graph_task(0x200010, 1);
    uint32_t y = graph_task(0x200020, 1);
    awaits(l, x);
    awaits(x, y);
    awaits(y, x);
    REQUIRE(async_find_leaves(uw.as) == 0 && async_nstacks(uw.as) == 1,
            "one leaf in a cycle");
    async_stack_get(uw.as, 0, &st);
    CHECK(st.depth == 6, "a cycle: depth %u", st.depth);
    /* an awaiter that is no Task ends the stack */
    async_reset(uw.as);
    l = graph_task(0x300000, 1);
    x = graph_task(0x300010, 1);
    awaits(l, x);
    uw.as->tasks[x].is_task = false;
    REQUIRE(async_find_leaves(uw.as) == 0 && async_nstacks(uw.as) == 1,
            "a Future awaiter");
    async_stack_get(uw.as, 0, &st);
    CHECK(st.depth == 2, "depth %u", st.depth);
}

TESTS(TCASE(offsets_314_accepted), TCASE(offsets_rejected), TCASE(versions),
      TCASE(list_in_order), TCASE(list_torn), TCASE(list_over_the_limit),
      TCASE(names), TCASE(names_refused), TCASE(stacks_joined),
      TCASE(stacks_bounded))
