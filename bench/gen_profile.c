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
 * usage: tachyon-gen -o OUT.bin [--samples N] [--threads T]
 *                    [--compression none|zstd] [--seed S] [--program P]
 *                    [--report]
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
#define LEAF_SPAN 15        /* how far below its base a thread wanders */
#define SCRIPT_LEN 4096     /* stacks in each thread's recorded script */

typedef struct gen_opts {
    const char *out;
    uint64_t samples;
    unsigned threads;
    uint32_t compression;
    uint64_t seed;
    uint64_t program;
    int has_program;
    int report;
} gen_opts;

typedef struct func {
    unsigned file;
    int32_t line;               /* first line */
    unsigned nsites;
    unsigned callees[6];
} func;

typedef struct program {
    func funcs[NFUNCS];
    uint32_t ids[NFUNCS][MAXSITES];     /* writer frame ids, lazily */
} program;

typedef struct thread {
    uint16_t fn[MAX_DEPTH_WALK + 8];    /* root first */
    uint8_t site[MAX_DEPTH_WALK + 8];
    uint32_t stack[MAX_DEPTH_WALK + 8]; /* writer frame ids, root first */
    uint32_t depth;
    uint32_t base;      /* frames that stay put: main loop, framework */
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

static const char *const pkgs[] = {"json", "re", "email", "http", "asyncio",
                                   "app", "core", "db"};
static const char *const mods[] = {"decoder", "parser", "client", "models",
                                   "views", "utils"};
static const char *const verbs[] = {"parse", "handle", "load", "render",
                                    "compute", "dispatch", "read", "encode",
                                    "validate", "fetch", "update", "run"};
static const char *const nouns[] = {"request", "header", "token", "row",
                                    "event", "config", "node", "buffer",
                                    "query", "value", "block", "item",
                                    "frame", "record", "chunk"};
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
    int rc = tfmt_bin_writer_location(w, file, strlen(file), name,
                                      strlen(name), line, line + site % 2,
                                      4, 20 + (int32_t)site,
                                      (int)(site * 17 + f) % 200, out);
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

/* Build the thread's fixed base (10 to 45 frames), then a first leaf. */
static int start_thread(tfmt_bin_writer *w, program *p, thread *t,
                        uint64_t *s)
{
    t->base = MIN_DEPTH + pick(s, MAX_DEPTH_WALK - MIN_DEPTH - LEAF_SPAN);
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
    if (r < 210) {                                  /* next line */
        unsigned f = t->fn[--t->depth];
        return push(w, p, t, f, pick_hot(s, p->funcs[f].nsites));
    }
    return jump(w, p, t, s);
}

/*
 * Each thread runs a script of SCRIPT_LEN stacks recorded from its walk,
 * like a program's loop: it mostly moves on to the next stack of the
 * script, sometimes jumps to a hot one, and most ticks it stays put. This
 * bounds the unique stacks (threads x SCRIPT_LEN) as a real program's are.
 */
typedef struct script {
    uint32_t stack[SCRIPT_LEN][MAX_DEPTH_WALK + 8];
    uint32_t depth[SCRIPT_LEN];
    uint32_t cursor;
} script;

static int record_script(tfmt_bin_writer *w, program *p, thread *t,
                         script *sc, uint64_t *s)
{
    int rc = start_thread(w, p, t, s);
    for (uint32_t i = 0; i < SCRIPT_LEN && rc == TFMT_OK; i++) {
        rc = walk(w, p, t, s);
        memcpy(sc->stack[i], t->stack, t->depth * sizeof t->stack[0]);
        sc->depth[i] = t->depth;
    }
    return rc;
}

static void step(script *sc, uint64_t *s)
{
    unsigned r = pick(s, 1000);
    if (r < 780)
        return;                                     /* same stack */
    if (r < 975)
        sc->cursor = (sc->cursor + 1) % SCRIPT_LEN; /* next statement */
    else                                            /* a hot spot */
        sc->cursor = (uint32_t)(SCRIPT_LEN * (rng(s) % 1000) / 1000 *
                                (rng(s) % 1000) / 1000);
}

static uint8_t status_of(unsigned ti, unsigned gil_holder, uint64_t *s)
{
    uint8_t st = 0;
    if (ti == gil_holder)
        st |= 0x01 | 0x02;                          /* HAS_GIL, ON_CPU */
    else if (pick(s, 4) == 0)
        st |= 0x08;                                 /* GIL_REQUESTED */
    if (pick(s, 50) == 0)
        st |= 0x10;                                 /* HAS_EXCEPTION */
    if (ti == 0)
        st |= 0x20;                                 /* MAIN_THREAD */
    return st;
}

static int run(tfmt_bin_writer *w, const gen_opts *o, uint64_t start)
{
    uint64_t s = o->seed;
    program *p = malloc(sizeof *p);
    thread *ts = calloc(o->threads, sizeof *ts);
    script *sc = calloc(o->threads, sizeof *sc);
    int rc = p && ts && sc ? TFMT_OK : TFMT_ENOMEM;
    uint64_t ps = o->program;
    if (rc == TFMT_OK)
        build_program(p, o->has_program ? &ps : &s);
    for (unsigned i = 0; i < o->threads && rc == TFMT_OK; i++)
        rc = record_script(w, p, &ts[i], &sc[i], &s);
    unsigned holder = 0;
    for (uint64_t n = 0, tick = 1; n < o->samples && rc == TFMT_OK; tick++) {
        if (pick(&s, 8) == 0)
            holder = pick(&s, o->threads);
        for (unsigned i = 0; i < o->threads && n < o->samples; i++, n++) {
            step(&sc[i], &s);
            uint64_t when = start + tick * 1000 + pick(&s, 40);
            uint32_t c = sc[i].cursor;
            rc = tfmt_bin_writer_sample(w, 0x7f0000001000ULL + i * 0x1000,
                                        0, when, status_of(i, holder, &s),
                                        sc[i].stack[c], sc[i].depth[c]);
        }
    }
    free(sc);
    free(ts);
    free(p);
    return rc;
}

static int usage(const char *msg)
{
    fprintf(stderr, "tachyon-gen: %s\nusage: tachyon-gen -o OUT.bin "
            "[--samples N] [--threads T] [--compression none|zstd] "
            "[--seed S] [--program P] [--report]\n", msg);
    return 2;
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
        }
        else if (!strcmp(a, "--compression") && !strcmp(v, "none"))
            o->compression = TFMT_COMPRESSION_NONE;
        else if (!strcmp(a, "--compression") && !strcmp(v, "zstd"))
            o->compression = TFMT_COMPRESSION_ZSTD;
        else
            return usage("unknown option or value");
    }
    if (!o->out || !o->threads)
        return usage("-o OUT and at least one thread are required");
    return 0;
}

/* Read the log back and print its encoding mix. */
static int report(const char *path)
{
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    tfmt_error err;
    if (tfmt_source_open_path(&src, path, NULL, &err) != TFMT_OK ||
        tfmt_bin_open(&r, src, NULL, &err) != TFMT_OK) {
        fprintf(stderr, "tachyon-gen: %s: %s\n", path, err.msg);
        tfmt_source_free(src);
        return 1;
    }
    uint64_t rec[4] = {0}, weight[4] = {0};
    const tfmt_sample *s;
    int rc;
    while ((rc = tfmt_bin_next(r, &s)) == TFMT_OK) {
        rec[s->encoding & 3]++;
        weight[s->encoding & 3] += s->weight;
    }
    const tfmt_info *in = tfmt_bin_info(r);
    printf("samples %llu threads %u strings %u frames %u size %llu\n"
           "FULL %llu SUFFIX %llu POP_PUSH %llu REPEAT samples %llu\n",
           (unsigned long long)in->sample_count, in->thread_count,
           in->string_count, in->frame_count,
           (unsigned long long)in->file_size, (unsigned long long)rec[1],
           (unsigned long long)rec[2], (unsigned long long)rec[3],
           (unsigned long long)weight[0]);
    if (rc != TFMT_DONE)
        fprintf(stderr, "tachyon-gen: %s\n", tfmt_bin_error(r)->msg);
    tfmt_bin_free(r);
    tfmt_source_free(src);
    return rc == TFMT_DONE ? 0 : 1;
}

/* Write the whole log; on failure *err says why. */
static int write_log(const gen_opts *o, tfmt_error *err)
{
    tfmt_sink *sink = NULL;
    tfmt_bin_writer *w = NULL;
    tfmt_bin_writer_options wo = TFMT_BIN_WRITER_OPTIONS_INIT;
    wo.start_time_us = 1000000000;
    wo.sample_interval_us = 1000;
    wo.compression = o->compression;
    wo.config = 1 | 8;          /* wall mode, no capture features */
    int rc = tfmt_sink_open(&sink, o->out,
                            TFMT_SINK_SEEKABLE | TFMT_SINK_FORCE, NULL, err);
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_open(&w, sink, &wo, err);
    if (rc == TFMT_OK)
        rc = run(w, o, wo.start_time_us);
    if (rc == TFMT_OK)
        rc = tfmt_bin_writer_finish(w);
    if (rc != TFMT_OK && w)
        *err = *tfmt_bin_writer_error(w);
    if (rc == TFMT_OK) {
        rc = tfmt_sink_finish(sink);
        if (rc != TFMT_OK)
            *err = *tfmt_sink_error(sink);
    }
    tfmt_bin_writer_free(w);
    tfmt_sink_free(sink);
    return rc;
}

int main(int argc, char **argv)
{
    gen_opts o = {NULL, 4000000, 8, TFMT_COMPRESSION_NONE, 1, 0, 0, 0};
    if (parse_args(argc, argv, &o))
        return 2;
    tfmt_error err;
    memset(&err, 0, sizeof err);
    if (write_log(&o, &err) != TFMT_OK) {
        fprintf(stderr, "tachyon-gen: %s: %s\n", o.out, err.msg);
        return 2;
    }
    return o.report ? report(o.out) : 0;
}
