/* SPDX-License-Identifier: MIT */
/*
 * gen_profile.c - tachyon-gen: writes a realistic, deterministic Tachyon
 * binary log through the public writer API, for benchmarks.
 *
 * A synthetic program of a few hundred functions over ~40 files is
 * "executed" by several threads as a random walk over call stacks 10-60
 * deep: each thread has a fixed outer part and wanders up to 15 frames
 * below it along mostly hot paths; most ticks keep the stack (REPEAT),
 * calls and returns near the leaf give SUFFIX and POP_PUSH, and
 * occasional jumps give FULL. Every thread is sampled each tick, about
 * 1 ms apart.
 *
 * Knobs for the scale benchmarks (bench/scale.sh):
 *   --unique N   instead of the walk, N distinct stacks over all threads:
 *                each thread's fixed outer part, then the leaves of a
 *                32-ary call tree below it in depth-first order, each
 *                visited once for a run of equal samples
 *   --depth D    stacks about D frames deep (at most 256)
 *   --size MB    write until the log holds about MB megabytes (what the
 *                writer still holds, up to a 16 KiB REPEAT group a
 *                thread, comes on top)
 *   --threads T  threads (thousands are fine: above 16 the threads share
 *                16 scripted walks, each with its own position)
 *
 * usage: tachyon-gen -o OUT.bin [--samples N] [--threads T] [--unique N]
 *                    [--depth D] [--size MB] [--compression none|zstd]
 *                    [--seed S] [--program P] [--report]
 *
 * --program P builds the program from seed P and walks it with --seed S,
 * so logs of different S share their functions (a fleet running one
 * program); without it one seed drives both, as before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tachyon/fmt.h>

#define NFILES 40
#define NFUNCS 360
#define MAXSITES 12
#define MIN_DEPTH 10
#define MAX_DEPTH_WALK 60
#define LEAF_SPAN 15    /* how far below its base a thread wanders */
#define SCRIPT_LEN 4096 /* stacks in each thread's recorded script */
#define MAX_SCRIPTS 16  /* scripted walks; more threads share them */
#define DEPTH_CAP (TFMT_MAX_DEPTH + LEAF_SPAN + 8)
#define RADIX 32 /* fan-out of the --unique call tree */

typedef struct gen_opts {
    const char *out;
    uint64_t samples;
    unsigned threads;
    uint32_t compression;
    uint64_t seed;
    uint64_t program;
    int has_program;
    uint64_t unique; /* 0: the scripted walk */
    unsigned depth;  /* 0: the walk's own 10-60 */
    uint64_t size;   /* bytes; 0: stop after --samples */
    int report;
} gen_opts;

typedef struct func {
    unsigned file;
    int32_t line; /* first line */
    unsigned nsites;
    unsigned callees[6];
} func;

typedef struct program {
    func funcs[NFUNCS];
    uint32_t ids[NFUNCS][MAXSITES]; /* writer frame ids, lazily */
    unsigned depth;                 /* --depth, 0 if not given */
} program;

typedef struct thread {
    uint16_t fn[DEPTH_CAP]; /* root first */
    uint8_t site[DEPTH_CAP];
    uint32_t stack[DEPTH_CAP]; /* writer frame ids, root first */
    uint32_t depth;
    uint32_t base; /* frames that stay put: main loop, framework */
} thread;

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static unsigned pick(uint64_t *s, unsigned n)
{
    return (unsigned)(rng(s) % n);
}

/*
 * A choice among n where option k has probability about 2^-(k+1): real
 * programs run a few hot paths most of the time, so unique stacks stay in
 * the tens of thousands however many samples are taken.
 */
static unsigned pick_hot(uint64_t *s, unsigned n)
{
    unsigned k = (unsigned)__builtin_ctzll(rng(s) | (1ULL << 63));
    return k < n ? k : n - 1;
}

static const char *const pkgs[] = {"json",    "re",  "email", "http",
                                   "asyncio", "app", "core",  "db"};
static const char *const mods[] = {"decoder", "parser", "client",
                                   "models",  "views",  "utils"};
static const char *const verbs[] = {"parse",    "handle",   "load",   "render",
                                    "compute",  "dispatch", "read",   "encode",
                                    "validate", "fetch",    "update", "run"};
static const char *const nouns[] = {
    "request", "header", "token", "row",  "event", "config", "node", "buffer",
    "query",   "value",  "block", "item", "frame", "record", "chunk"};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void build_program(program *p, uint64_t *s)
{
    for (unsigned f = 0; f < NFUNCS; f++) {
        func *fn = &p->funcs[f];
        fn->file = pick(s, NFILES);
        fn->line = (int32_t)(10 + pick(s, 900));
        fn->nsites = 3 + pick(s, MAXSITES - 3);
        /* Callees are mostly "deeper" functions, so stacks layer. */
        for (unsigned c = 0; c < 6; c++)
            fn->callees[c] = (f + 1 + pick(s, 40)) % NFUNCS;
    }
    memset(p->ids, 0xff, sizeof p->ids);
}

static int intern_site(tfmt_bin_writer *w, program *p, unsigned f,
                       unsigned site, uint32_t *out)
{
    if (p->ids[f][site] != UINT32_MAX) {
        *out = p->ids[f][site];
        return TFMT_OK;
    }
    char file[96], name[64];
    const func *fn = &p->funcs[f];
    snprintf(file, sizeof file, "/usr/lib/python3.15/%s/%s%u.py",
             pkgs[fn->file % NELEM(pkgs)], mods[fn->file % NELEM(mods)],
             fn->file);
    snprintf(name, sizeof name, "%s_%s%s", verbs[f % NELEM(verbs)],
             nouns[(f / NELEM(verbs)) % NELEM(nouns)], f >= 180 ? "_2" : "");
    int32_t line = fn->line + 1 + (int32_t)site * 3;
    int rc = tfmt_bin_writer_location(
        w, file, strlen(file), name, strlen(name), line, line + site % 2, 4,
        20 + (int32_t)site, (int)(site * 17 + f) % 200, out);
    if (rc == TFMT_OK)
        p->ids[f][site] = *out;
    return rc;
}

static int push(tfmt_bin_writer *w, program *p, thread *t, unsigned f,
                unsigned site)
{
    uint32_t d = t->depth;
    t->fn[d] = (uint16_t)f;
    t->site[d] = (uint8_t)site;
    t->depth++;
    return intern_site(w, p, f, site, &t->stack[d]);
}

/* Call one of the leaf's callees. */
static int call(tfmt_bin_writer *w, program *p, thread *t, uint64_t *s)
{
    unsigned caller = t->depth ? t->fn[t->depth - 1] : pick_hot(s, 8);
    unsigned f = p->funcs[caller].callees[pick_hot(s, 6)];
    return push(w, p, t, f, pick_hot(s, p->funcs[f].nsites));
}

/* Return: pop the leaf and move the caller to its next line. */
static int ret(tfmt_bin_writer *w, program *p, thread *t, uint64_t *s)
{
    t->depth--;
    unsigned f = t->fn[t->depth - 1];
    t->depth--;
    return push(w, p, t, f, pick_hot(s, p->funcs[f].nsites));
}

/*
 * Unwind to a random frame above the thread's fixed base and call down
 * again: like real programs, the outer part of a stack (main loop,
 * framework, request handler) stays put and the variety is near the leaf.
 */
static int jump(tfmt_bin_writer *w, program *p, thread *t, uint64_t *s)
{
    uint32_t keep = t->base + pick(s, t->depth - t->base + 1);
    uint32_t target = t->base + 1 + pick(s, LEAF_SPAN);
    t->depth = keep < t->depth ? keep : t->depth;
    int rc = TFMT_OK;
    while (rc == TFMT_OK && t->depth < target)
        rc = call(w, p, t, s);
    return rc;
}

/* The fixed base: 10 to 45 frames, or about --depth less half the span. */
static uint32_t base_depth(const program *p, uint64_t *s)
{
    uint32_t base = MIN_DEPTH + pick(s, MAX_DEPTH_WALK - MIN_DEPTH - LEAF_SPAN);
    if (!p->depth)
        return base;
    int64_t want = (int64_t)p->depth - LEAF_SPAN / 2;
    if (want < 1)
        want = 1;
    if (want > TFMT_MAX_DEPTH - LEAF_SPAN)
        want = TFMT_MAX_DEPTH - LEAF_SPAN;
    return (uint32_t)want;
}

/* Build the thread's fixed base, then a first leaf. */
static int start_thread(tfmt_bin_writer *w, program *p, thread *t, uint64_t *s)
{
    t->base = base_depth(p, s);
    int rc = TFMT_OK;
    while (rc == TFMT_OK && t->depth < t->base)
        rc = call(w, p, t, s);
    return rc == TFMT_OK ? jump(w, p, t, s) : rc;
}

/* One move of the walk: a call, a return, a new line or a jump. */
static int walk(tfmt_bin_writer *w, program *p, thread *t, uint64_t *s)
{
    unsigned r = pick(s, 220);
    if (r < 80 && t->depth < t->base + LEAF_SPAN)
        return call(w, p, t, s);
    if (r < 150 && t->depth > t->base + 1)
        return ret(w, p, t, s);
    if (r < 210) { /* next line */
        unsigned f = t->fn[--t->depth];
        return push(w, p, t, f, pick_hot(s, p->funcs[f].nsites));
    }
    return jump(w, p, t, s);
}

/*
 * A script of SCRIPT_LEN stacks recorded from one walk, like a program's
 * loop: a thread mostly moves on to the next stack of its script,
 * sometimes jumps to a hot one, and most ticks it stays put. This bounds
 * the unique stacks (scripts x SCRIPT_LEN) as a real program's are.
 * Stacks are stored back to back, root first.
 */
typedef struct script {
    uint32_t *frames;
    size_t len, cap;
    uint32_t off[SCRIPT_LEN + 1];
} script;

static int script_add(script *sc, uint32_t i, const thread *t)
{
    if (sc->len + t->depth > sc->cap) {
        size_t cap = sc->cap ? sc->cap * 2 : 65536;
        uint32_t *f = realloc(sc->frames, cap * sizeof *f);
        if (!f)
            return TFMT_ENOMEM;
        sc->frames = f;
        sc->cap = cap;
    }
    sc->off[i] = (uint32_t)sc->len;
    memcpy(sc->frames + sc->len, t->stack, t->depth * sizeof t->stack[0]);
    sc->len += t->depth;
    sc->off[i + 1] = (uint32_t)sc->len;
    return TFMT_OK;
}

static int record_script(tfmt_bin_writer *w, program *p, script *sc,
                         uint64_t *s)
{
    thread *t = calloc(1, sizeof *t);
    int rc = t ? start_thread(w, p, t, s) : TFMT_ENOMEM;
    for (uint32_t i = 0; i < SCRIPT_LEN && rc == TFMT_OK; i++) {
        rc = walk(w, p, t, s);
        if (rc == TFMT_OK)
            rc = script_add(sc, i, t);
    }
    free(t);
    return rc;
}

static void step(uint32_t *cursor, uint64_t *s)
{
    unsigned r = pick(s, 1000);
    if (r < 780)
        return; /* same stack */
    if (r < 975)
        *cursor = (*cursor + 1) % SCRIPT_LEN; /* next statement */
    else                                      /* a hot spot */
        *cursor = (uint32_t)(SCRIPT_LEN * (rng(s) % 1000) / 1000 *
                             (rng(s) % 1000) / 1000);
}

static uint8_t status_of(unsigned ti, unsigned gil_holder, uint64_t *s)
{
    uint8_t st = 0;
    if (ti == gil_holder)
        st |= 0x01 | 0x02; /* HAS_GIL, ON_CPU */
    else if (pick(s, 4) == 0)
        st |= 0x08; /* GIL_REQUESTED */
    if (pick(s, 50) == 0)
        st |= 0x10; /* HAS_EXCEPTION */
    if (ti == 0)
        st |= 0x20; /* MAIN_THREAD */
    return st;
}

/* ---- the --unique call tree ---- */

/*
 * Thread t's stacks: its fixed base, then `levels` frames spelling leaf j
 * in base RADIX, most significant digit first, so consecutive leaves
 * differ near the leaf (POP_PUSH records) and every leaf is a new stack.
 * A digit d at level l is function (l * RADIX + 11 d) mod NFUNCS, one of
 * RADIX distinct functions per level.
 */
typedef struct utree {
    uint64_t leaves; /* per thread */
    unsigned levels;
    uint32_t ids[8][RADIX]; /* writer frame per level and digit */
} utree;

static int utree_init(tfmt_bin_writer *w, program *p, utree *u,
                      const gen_opts *o)
{
    u->leaves = (o->unique + o->threads - 1) / o->threads;
    u->levels = 1;
    for (uint64_t span = RADIX; span < u->leaves && u->levels < 8;
         span *= RADIX)
        u->levels++;
    int rc = TFMT_OK;
    for (unsigned l = 0; l < u->levels && rc == TFMT_OK; l++) {
        for (unsigned d = 0; d < RADIX && rc == TFMT_OK; d++) {
            unsigned f = (l * RADIX + 11 * d) % NFUNCS;
            rc = intern_site(w, p, f, d % p->funcs[f].nsites, &u->ids[l][d]);
        }
    }
    return rc;
}

/* Write leaf j below the thread's base into t->stack. */
static void utree_leaf(const utree *u, thread *t, uint64_t j)
{
    t->depth = t->base;
    for (unsigned l = u->levels; l-- > 0; j /= RADIX)
        t->stack[t->base + l] = u->ids[l][j % RADIX];
    t->depth = t->base + u->levels;
}

/* ---- the run ---- */

typedef struct run_state {
    const gen_opts *o;
    tfmt_bin_writer *w;
    tfmt_sink *sink;
    program *p;
    script *sc; /* walk mode: one per script */
    unsigned nscripts;
    uint32_t *cursor; /* walk mode: per thread */
    thread *bases;    /* unique mode: per thread */
    utree u;
    uint64_t *seen; /* unique mode: samples per thread so far */
} run_state;

static int setup(run_state *r, uint64_t *s)
{
    const gen_opts *o = r->o;
    uint64_t ps = o->program;
    build_program(r->p, o->has_program ? &ps : s);
    if (!o->unique) {
        r->nscripts = o->threads < MAX_SCRIPTS ? o->threads : MAX_SCRIPTS;
        r->sc = calloc(r->nscripts, sizeof *r->sc);
        r->cursor = calloc(o->threads, sizeof *r->cursor);
        if (!r->sc || !r->cursor)
            return TFMT_ENOMEM;
        int rc = TFMT_OK;
        for (unsigned i = 0; i < r->nscripts && rc == TFMT_OK; i++)
            rc = record_script(r->w, r->p, &r->sc[i], s);
        return rc;
    }
    r->bases = calloc(o->threads, sizeof *r->bases);
    r->seen = calloc(o->threads, sizeof *r->seen);
    if (!r->bases || !r->seen)
        return TFMT_ENOMEM;
    int rc = utree_init(r->w, r->p, &r->u, o);
    uint32_t cap = TFMT_MAX_DEPTH - r->u.levels;
    for (unsigned i = 0; i < o->threads && rc == TFMT_OK; i++) {
        thread *t = &r->bases[i];
        rc = start_thread(r->w, r->p, t, s);
        /* --depth counts the tree's levels too. */
        uint32_t want = t->base;
        if (o->depth)
            want = o->depth > r->u.levels ? o->depth - r->u.levels : 1;
        want = want < cap ? want : cap;
        while (rc == TFMT_OK && t->depth < want)
            rc = call(r->w, r->p, t, s);
        t->base = t->depth = want;
    }
    return rc;
}

/* The stack thread i shows this tick. */
static void next_stack(run_state *r, unsigned i, uint64_t per_thread,
                       uint64_t *s, const uint32_t **stack, uint32_t *depth)
{
    if (!r->o->unique) {
        script *sc = &r->sc[i % r->nscripts];
        step(&r->cursor[i], s);
        uint32_t c = r->cursor[i];
        *stack = sc->frames + sc->off[c];
        *depth = sc->off[c + 1] - sc->off[c];
        return;
    }
    thread *t = &r->bases[i];
    uint64_t n = r->seen[i]++;
    uint64_t j = per_thread ? n * r->u.leaves / per_thread : n;
    utree_leaf(&r->u, t, j < r->u.leaves ? j : r->u.leaves - 1);
    *stack = t->stack;
    *depth = t->depth;
}

static bool done(const run_state *r, uint64_t n)
{
    if (!r->o->size)
        return n >= r->o->samples;
    return (n & 4095) == 0 && tfmt_sink_tell(r->sink) >= r->o->size;
}

static int run(run_state *r, uint64_t start)
{
    const gen_opts *o = r->o;
    uint64_t s = o->seed;
    int rc = setup(r, &s);
    uint64_t per_thread = o->size ? 0 : o->samples / o->threads;
    unsigned holder = 0;
    for (uint64_t n = 0, tick = 1; !done(r, n) && rc == TFMT_OK; tick++) {
        if (pick(&s, 8) == 0)
            holder = pick(&s, o->threads);
        for (unsigned i = 0; i < o->threads && !done(r, n) && rc == TFMT_OK;
             i++, n++) {
            const uint32_t *stack;
            uint32_t depth;
            next_stack(r, i, per_thread, &s, &stack, &depth);
            uint64_t when = start + tick * 1000 + pick(&s, 40);
            rc = tfmt_bin_writer_sample(r->w, 0x7f0000001000ULL + i * 0x1000, 0,
                                        when, status_of(i, holder, &s), stack,
                                        depth);
        }
    }
    return rc;
}

static void run_free(run_state *r)
{
    for (unsigned i = 0; r->sc && i < r->nscripts; i++)
        free(r->sc[i].frames);
    free(r->sc);
    free(r->cursor);
    free(r->bases);
    free(r->seen);
    free(r->p);
}

static int usage(const char *msg)
{
    fprintf(stderr,
            "tachyon-gen: %s\nusage: tachyon-gen -o OUT.bin "
            "[--samples N] [--threads T] [--unique N] [--depth D] "
            "[--size MB] [--compression none|zstd] [--seed S] [--program P] "
            "[--report]\n",
            msg);
    return 2;
}

static int parse_value(gen_opts *o, const char *a, const char *v)
{
    if (!strcmp(a, "-o"))
        o->out = v;
    else if (!strcmp(a, "--samples"))
        o->samples = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--threads"))
        o->threads = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--seed"))
        o->seed = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--program")) {
        o->program = strtoull(v, NULL, 10);
        o->has_program = 1;
    } else if (!strcmp(a, "--unique"))
        o->unique = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--depth"))
        o->depth = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--size"))
        o->size = (uint64_t)(strtod(v, NULL) * 1e6);
    else if (!strcmp(a, "--compression") && !strcmp(v, "none"))
        o->compression = TFMT_COMPRESSION_NONE;
    else if (!strcmp(a, "--compression") && !strcmp(v, "zstd"))
        o->compression = TFMT_COMPRESSION_ZSTD;
    else
        return usage("unknown option or value");
    return 0;
}

static int parse_args(int argc, char **argv, gen_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--report")) {
            o->report = 1;
            continue;
        }
        if (!v)
            return usage("missing option or value");
        i++;
        if (parse_value(o, a, v))
            return 2;
    }
    if (!o->out || !o->threads)
        return usage("-o OUT and at least one thread are required");
    if (o->depth > TFMT_MAX_DEPTH)
        return usage("--depth is at most 256");
    if (o->unique && o->unique < o->threads)
        return usage("--unique needs at least one stack per thread");
    return 0;
}

/* ---- --report: read the log back ---- */

/* Distinct (thread, stack) pairs, counted by a 64-bit hash of each. */
typedef struct hset {
    uint64_t *keys;
    size_t cap, count;
} hset;

static int hset_add(hset *h, uint64_t key)
{
    key |= 1; /* 0 marks an empty slot */
    if ((h->count + 1) * 2 > h->cap) {
        size_t ncap = h->cap ? h->cap * 2 : 1024;
        uint64_t *nk = calloc(ncap, sizeof *nk);
        if (!nk)
            return -1;
        for (size_t i = 0; i < h->cap; i++) {
            size_t j = h->keys[i] & (ncap - 1);
            while (h->keys[i] && nk[j])
                j = (j + 1) & (ncap - 1);
            if (h->keys[i])
                nk[j] = h->keys[i];
        }
        free(h->keys);
        h->keys = nk;
        h->cap = ncap;
    }
    size_t j = key & (h->cap - 1);
    while (h->keys[j] && h->keys[j] != key)
        j = (j + 1) & (h->cap - 1);
    h->count += h->keys[j] == 0;
    h->keys[j] = key;
    return 0;
}

static uint64_t stack_hash(const tfmt_sample *s)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL * (s->thread_index + 1);
    for (uint32_t i = 0; i < s->depth; i++) {
        h = (h ^ s->stack[i]) * 0xff51afd7ed558ccdULL;
        h ^= h >> 29;
    }
    return h;
}

static int read_back(tfmt_bin_reader *r, uint64_t rec[4], uint64_t w[4],
                     hset *u)
{
    const tfmt_sample *s;
    int rc;
    while ((rc = tfmt_bin_next(r, &s)) == TFMT_OK) {
        rec[s->encoding & 3]++;
        w[s->encoding & 3] += s->weight;
        if (s->encoding != TFMT_ENC_REPEAT && hset_add(u, stack_hash(s)))
            return TFMT_ENOMEM;
    }
    return rc;
}

/* Read the log back and print its encoding mix and unique stacks. */
static int report(const char *path)
{
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    tfmt_error err;
    tfmt_bin_options bo = TFMT_BIN_OPTIONS_INIT;
    bo.max_threads = UINT32_MAX; /* floods are generated on purpose */
    if (tfmt_source_open_path(&src, path, NULL, &err) != TFMT_OK ||
        tfmt_bin_open(&r, src, &bo, &err) != TFMT_OK) {
        fprintf(stderr, "tachyon-gen: %s: %s\n", path, err.msg);
        tfmt_source_free(src);
        return 1;
    }
    uint64_t rec[4] = {0}, weight[4] = {0};
    hset u = {NULL, 0, 0};
    int rc = read_back(r, rec, weight, &u);
    const tfmt_info *in = tfmt_bin_info(r);
    printf("samples %llu threads %u strings %u frames %u size %llu\n"
           "FULL %llu SUFFIX %llu POP_PUSH %llu REPEAT samples %llu\n"
           "unique stacks %zu\n",
           (unsigned long long)in->sample_count, in->thread_count,
           in->string_count, in->frame_count, (unsigned long long)in->file_size,
           (unsigned long long)rec[1], (unsigned long long)rec[2],
           (unsigned long long)rec[3], (unsigned long long)weight[0], u.count);
    if (rc != TFMT_DONE)
        fprintf(stderr, "tachyon-gen: %s\n", tfmt_bin_error(r)->msg);
    free(u.keys);
    tfmt_bin_free(r);
    tfmt_source_free(src);
    return rc == TFMT_DONE ? 0 : 1;
}

/* Write the whole log; on failure *err says why. */
static int write_log(const gen_opts *o, tfmt_error *err)
{
    tfmt_bin_writer_options wo = TFMT_BIN_WRITER_OPTIONS_INIT;
    wo.start_time_us = 1000000000;
    wo.sample_interval_us = 1000;
    wo.compression = o->compression;
    wo.config = 1 | 8; /* wall mode, no capture features */
    run_state r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.p = calloc(1, sizeof *r.p);
    if (!r.p)
        return TFMT_ENOMEM;
    r.p->depth = o->depth;
    int rc = tfmt_sink_open(&r.sink, o->out,
                            TFMT_SINK_SEEKABLE | TFMT_SINK_FORCE, NULL, err);
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_open(&r.w, r.sink, &wo, err);
    if (rc == TFMT_OK)
        rc = run(&r, wo.start_time_us);
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_finish(r.w);
    if (rc != TFMT_OK && r.w)
        *err = *tfmt_bin_writer_error(r.w);
    if (rc == TFMT_OK) {
        rc = tfmt_sink_finish(r.sink);
        if (rc != TFMT_OK)
            *err = *tfmt_sink_error(r.sink);
    }
    tfmt_bin_writer_free(r.w);
    tfmt_sink_free(r.sink);
    run_free(&r);
    return rc;
}

int main(int argc, char **argv)
{
    gen_opts o = {NULL, 4000000, 8, TFMT_COMPRESSION_NONE, 1, 0, 0, 0, 0, 0, 0};
    if (parse_args(argc, argv, &o))
        return 2;
    tfmt_error err;
    memset(&err, 0, sizeof err);
    if (write_log(&o, &err) != TFMT_OK) {
        fprintf(stderr, "tachyon-gen: %s: %s\n", o.out,
                err.msg[0] ? err.msg : "out of memory");
        return 2;
    }
    return o.report ? report(o.out) : 0;
}
