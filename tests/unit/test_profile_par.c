/* SPDX-License-Identifier: MIT */
/*
 * test_profile_par.c - a binary log read on several threads gives the
 * profile one reader gives, byte for byte in every export, and a log
 * that is odd anywhere gives the one reader's error or notes.
 *
 * The logs are written here by a small random program: threads that
 * start late, calls, returns, jumps, repeats, empty stacks and stacks
 * past the 256-frame cap, so that parts start inside every kind of
 * record and inherit stacks of every depth.
 */
#include <unistd.h>

#include "harness.h"
#include "log_files.h"
#include "profile_internal.h"

#define RUN_ID "00000000000000000000000000000000"
#define NFRAMES 300

static char logpath[512], outpath[512];

static void make_paths(void)
{
    const char *t = getenv("TMPDIR");
    t = t && *t ? t : "/tmp";
    snprintf(logpath, sizeof logpath, "%s/test_par_%ld.bin", t, (long)getpid());
    snprintf(outpath, sizeof outpath, "%s/test_par_%ld.out", t, (long)getpid());
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t part_bytes = 16 << 10;
static bool phased;     /* write_log: each thread in turn, none at once */
static bool semicolons; /* write_log: some function names hold a ';' */
static bool clashes;    /* write_log: frames of other files that print
                           alike in collapsed lines (same basename) */

static uint32_t next(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* One step of thread t's stack (root first, up to 300 deep). */
static void step(uint32_t *st, uint32_t *depth)
{
    uint32_t op = next(100);
    if (op < 45)
        return;    /* a repeat */
    if (op < 70) { /* a call */
        for (uint32_t k = 1 + next(3); k-- > 0 && *depth < 300;)
            st[(*depth)++] = next(NFRAMES);
    } else if (op < 84) { /* a return */
        uint32_t k = 1 + next(5);
        *depth = k > *depth ? 0 : *depth - k;
    } else if (op < 90) { /* returns, then calls: a POP_PUSH that pushes,
                             so that a part's scan sees pops below the
                             frames its own records pushed */
        uint32_t k = 1 + next(4);
        *depth = k > *depth ? 0 : *depth - k;
        for (k = 1 + next(3); k-- > 0 && *depth < 300;)
            st[(*depth)++] = next(NFRAMES);
    } else if (op < 97) { /* a jump, sometimes past the cap */
        *depth = next(30) == 0 ? 250 + next(50) : 1 + next(30);
        for (uint32_t i = 0; i < *depth; i++)
            st[i] = next(NFRAMES);
    } else {
        *depth = 0;
    }
}

/* A log of `samples` samples over `nthreads` threads, some late. */
static int write_log(uint32_t nthreads, uint32_t samples)
{
    test_log_out o;
    tfmt_error err;
    int rc = test_log_create(&o, logpath, NULL, &err);
    uint32_t frames[NFRAMES];
    for (uint32_t f = 0; rc == TFMT_OK && f < NFRAMES; f++) {
        char file[32], func[32];
        /* files of one name in two directories: one collapsed text */
        snprintf(file, sizeof file, "d%u/m%u.py", f % 2, f % 17);
        /* every 7th frame a twin of the one before: one profile frame */
        uint32_t g = f % 7 == 6 ? f - 1 : f;
        snprintf(func, sizeof func, semicolons && g % 5 == 0 ? "f;n%u" : "fn%u",
                 g);
        if (clashes) {
            snprintf(file, sizeof file, "d%u/m%u.py", f / 30 % 2, f % 3);
            snprintf(func, sizeof func, "fn%u", g % 10);
        }
        rc = tfmt_bin_writer_location(
            o.w, file, strlen(file), func, strlen(func),
            (int32_t)(clashes ? g % 5 + 1 : g % 50 + 1), -1, -1, -1, -1,
            &frames[f]);
    }
    static uint32_t st[64][300], depth[64];
    memset(depth, 0, sizeof depth);
    uint32_t stack[300];
    uint64_t ts = 1000;
    for (uint32_t i = 0; rc == TFMT_OK && i < samples; i++) {
        /* thread t joins after t * samples / (2 * nthreads) samples */
        uint32_t live = 1 + (uint32_t)((uint64_t)i * 2 * nthreads / samples);
        uint32_t t = phased ? (uint32_t)((uint64_t)i * nthreads / samples)
                            : next(live < nthreads ? live : nthreads);
        step(st[t], &depth[t]);
        for (uint32_t k = 0; k < depth[t]; k++)
            stack[k] = frames[st[t][k]];
        ts += 1 + next(2000);
        /* threads 2k and 2k + 1 share a thread id, in two interpreters */
        rc = tfmt_bin_writer_sample(o.w, 1000 + t / 2 * 7919, t % 2, ts,
                                    (uint8_t)next(32), stack, depth[t]);
    }
    return test_log_finish(&o, rc);
}

enum {
    JSONL,
    COLLAPSED,
    PSTATS,
    SVG,
    PPROF,      /* not gzipped */
    SPEEDSCOPE, /* without a timeline */
    TOP,        /* with a table per thread */
    HTML,
    CLICKHOUSE, /* rows in the order (thread, stack) first came */
    NEXPORTS
};
#define EXPORTS(from, to) (((1u << (to)) - 1) & ~((1u << (from)) - 1))
#define ALL EXPORTS(0, NEXPORTS)
/* the writers that split by thread */
#define BY_THREAD (EXPORTS(SVG, NEXPORTS) | 1u << COLLAPSED)

static unsigned char *export(tfmt_profile *p, int which, size_t *len)
{
    tfmt_sink *sink;
    tfmt_error err;
    int rc = tfmt_sink_open(&sink, outpath, TFMT_SINK_FORCE, NULL, &err);
    if (rc != TFMT_OK)
        return NULL;
    tfmt_export_options xo = TFMT_EXPORT_OPTIONS_INIT;
    xo.gzip = false;
    xo.per_thread = true;
    if (which == JSONL)
        rc = tfmt_profile_write_jsonl(p, sink, RUN_ID);
    else if (which == COLLAPSED)
        rc = tfmt_profile_write_collapsed(p, sink);
    else if (which == PSTATS)
        rc = tfmt_profile_write_pstats(p, sink);
    else if (which == SVG)
        rc = tfmt_profile_write_svg(p, sink, NULL);
    else if (which == PPROF)
        rc = tfmt_profile_write_pprof(p, sink, &xo);
    else if (which == SPEEDSCOPE)
        rc = tfmt_profile_write_speedscope(p, sink, &xo);
    else if (which == TOP)
        rc = tfmt_profile_write_top(p, sink, &xo);
    else if (which == HTML)
        rc = tfmt_profile_write_html(p, sink, &xo);
    else {
        tfmt_clickhouse_run run = TFMT_CLICKHOUSE_RUN_INIT;
        run.run_id = RUN_ID;
        rc = tfmt_profile_write_clickhouse(p, sink, &run);
    }
    int frc = tfmt_sink_finish(sink);
    tfmt_sink_free(sink);
    unsigned char *data =
        rc == TFMT_OK && frc == TFMT_OK ? harness_slurp(outpath, len) : NULL;
    unlink(outpath);
    return data;
}

/* What reading the log gave: status, error, parts, exports. */
typedef struct outcome {
    int rc;
    tfmt_error err;
    size_t parts;
    uint64_t bytes_read;
    unsigned char *out[NEXPORTS];
    size_t len[NEXPORTS];
} outcome;

/* Read the log (from memory when mem is set) and export it the ways in
 * mask `which` (bit JSONL, bit COLLAPSED, ...). */
static void read_log(const tfmt_profile_options *po, unsigned threads,
                     const void *mem, size_t memlen, unsigned which,
                     outcome *oc)
{
    memset(oc, 0, sizeof *oc);
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    tfmt_profile *p = NULL;
    oc->rc = mem ? tfmt_source_open_memory(&src, mem, memlen, 0, NULL)
                 : tfmt_source_open_path(&src, logpath, NULL, &oc->err);
    if (oc->rc == TFMT_OK)
        oc->rc = tfmt_bin_open(&r, src, NULL, &oc->err);
    if (oc->rc == TFMT_OK)
        oc->rc = tfmt_profile_new(&p, po);
    if (oc->rc == TFMT_OK) {
        tfmt_profile_set_threads(p, threads);
        p->par_part_bytes = part_bytes; /* more parts than threads */
        oc->rc = tfmt_profile_add_bin(p, r);
        oc->parts = p->par_parts;
        oc->bytes_read = tfmt_bin_bytes_read(r);
        if (oc->rc != TFMT_OK)
            oc->err = *tfmt_profile_error(p);
    }
    for (int k = 0; oc->rc == TFMT_OK && k < NEXPORTS; k++)
        if (which & (1u << k))
            oc->out[k] = export(p, k, &oc->len[k]);
    tfmt_profile_free(p);
    tfmt_bin_free(r);
    tfmt_source_free(src);
}

static void outcome_free(outcome *oc)
{
    for (int k = 0; k < NEXPORTS; k++)
        free(oc->out[k]);
}

static void check_same(const outcome *a, const outcome *b, const char *what)
{
    static const char *names[] = {"jsonl", "collapsed", "pstats",
                                  "svg",   "pprof",     "speedscope",
                                  "top",   "html",      "clickhouse"};
    CHECK(a->rc == b->rc, "%s: status %d, on threads %d", what, a->rc, b->rc);
    CHECK(strcmp(a->err.msg, b->err.msg) == 0 && a->err.offset == b->err.offset,
          "%s: error '%s' at %llu, on threads '%s' at %llu", what, a->err.msg,
          (unsigned long long)a->err.offset, b->err.msg,
          (unsigned long long)b->err.offset);
    for (int k = 0; k < NEXPORTS; k++)
        CHECK(a->len[k] == b->len[k] &&
                  (a->len[k] == 0 ||
                   memcmp(a->out[k], b->out[k], a->len[k]) == 0),
              "%s: %s differs (%zu and %zu bytes)", what, names[k], a->len[k],
              b->len[k]);
}

/* The log at logpath read whole and on 2..6 threads, with options po. */
static void check_threads(const tfmt_profile_options *po, const char *what)
{
    outcome one, many;
    read_log(po, 1, NULL, 0, EXPORTS(JSONL, PPROF), &one);
    REQUIRE(one.rc == TFMT_OK && one.parts == 0, "%s: read whole: %d %s", what,
            one.rc, one.err.msg);
    for (unsigned t = 2; t <= 6; t++) {
        char label[96];
        snprintf(label, sizeof label, "%s, %u threads", what, t);
        read_log(po, t, NULL, 0, EXPORTS(JSONL, PPROF), &many);
        /* more parts than threads: scans run ahead of the decodes */
        CHECK(many.parts > t, "%s: read in %zu parts", label, many.parts);
        CHECK(many.bytes_read == one.bytes_read,
              "%s: %llu bytes read, not %llu", label,
              (unsigned long long)many.bytes_read,
              (unsigned long long)one.bytes_read);
        check_same(&one, &many, label);
        outcome_free(&many);
    }
    outcome_free(&one);
}

TEST(same_profile)
{
    make_paths();
    static const uint32_t shapes[][2] = {{1, 12000}, {5, 20000}, {40, 30000}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        REQUIRE(write_log(shapes[i][0], shapes[i][1]) == TFMT_OK, "write");
        char what[64];
        snprintf(what, sizeof what, "%u threads, %u samples", shapes[i][0],
                 shapes[i][1]);
        tfmt_profile_options po = TFMT_PROFILE_OPTIONS_INIT;
        check_threads(&po, what);
        po.mark_truncated = true; /* the viewers' cut-stack marker */
        po.no_lines = true;       /* twins of frames: one profile frame */
        check_threads(&po, what);
        tfmt_profile_options shared = TFMT_PROFILE_OPTIONS_INIT;
        shared.shared_tree = true; /* one tree for all threads (jsonl and
                                      pstats; the rest refuse) */
        check_threads(&shared, what);
    }
    unlink(logpath);
}

/*
 * A shared tree with thread leaves gives what a tree per thread gives in
 * every writer that splits by thread (collapsed, tfmt_tviews'), read
 * whole or on threads: logs of one thread (its pairs never written out),
 * of threads at once, and of threads in turn (parts of one thread that is
 * not the whole profile's first).
 */
TEST(thread_leaves)
{
    make_paths();
    /* threads, samples, in turn, names with ';', clashing texts */
    static const uint32_t shapes[][5] = {
        {1, 8000, 0, 0, 0},  {5, 12000, 0, 0, 0}, {40, 20000, 0, 0, 0},
        {5, 20000, 1, 0, 0}, {9, 12000, 0, 1, 0}, {7, 15000, 0, 0, 1},
        {7, 15000, 0, 1, 1}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        phased = shapes[i][2];
        semicolons = shapes[i][3];
        clashes = shapes[i][4];
        REQUIRE(write_log(shapes[i][0], shapes[i][1]) == TFMT_OK, "write");
        phased = semicolons = clashes = false;
        /* the truncation marker on every other shape, a tree per thread
         * and status byte (as for clickhouse) on every third */
        tfmt_profile_options per = TFMT_PROFILE_OPTIONS_INIT;
        per.mark_truncated = i % 2;
        per.split_status = i % 3 == 2;
        tfmt_profile_options leaves = per;
        leaves.shared_tree = leaves.thread_leaves = true;
        outcome a, b;
        read_log(&per, 1, NULL, 0, BY_THREAD, &a);
        for (int k = 0; k < NEXPORTS; k++)
            CHECK(!(BY_THREAD & 1u << k) || a.len[k] > 0,
                  "shape %zu: export %d failed", i, k);
        for (unsigned t = 1; t <= 4; t += 3) {
            char what[64];
            snprintf(what, sizeof what, "shape %zu, %u threads", i, t);
            read_log(&leaves, t, NULL, 0, BY_THREAD, &b);
            CHECK(t == 1 || per.split_status || b.parts > t, "%s: %zu parts",
                  what, b.parts);
            check_same(&a, &b, what);
            outcome_free(&b);
        }
        outcome_free(&a);
    }
    unlink(logpath);
}

/*
 * One thread whose every record after the first is a POP_PUSH that pushes:
 * pop 2 push 1, then pop 2 push 3, over and over (depth 20, 19, 20, ...).
 * A part's scan sees its second record pop below the frame its first
 * pushed, and must count only the frames below (one) as taken from the
 * stack the part inherits: a scan that counts both pops leaves the part
 * one frame short, its end disagrees with its decode, and the read falls
 * back to one thread, which gives the same profile, only slower, so the
 * parts are counted too.
 */
static int write_pop_push_log(uint32_t samples)
{
    test_log_out o;
    int rc = test_log_create(&o, logpath, NULL, NULL);
    uint32_t frames[NFRAMES], st[24], depth = 20;
    for (uint32_t f = 0; rc == TFMT_OK && f < NFRAMES; f++) {
        char func[16];
        snprintf(func, sizeof func, "fn%u", f);
        rc = tfmt_bin_writer_location(o.w, "m.py", 4, func, strlen(func),
                                      (int32_t)f + 1, -1, -1, -1, -1,
                                      &frames[f]);
    }
    for (uint32_t k = 0; k < depth; k++)
        st[k] = frames[k];
    for (uint32_t i = 0; rc == TFMT_OK && i < samples; i++) {
        if (i > 0) {
            uint32_t push = i % 2 ? 1 : 3;
            depth -= 2;
            for (uint32_t k = 0; k < push; k++)
                st[depth++] = frames[next(NFRAMES)];
        }
        rc = tfmt_bin_writer_sample(o.w, 1, 0, 1000 + (uint64_t)i * 1000, 3, st,
                                    depth);
    }
    return test_log_finish(&o, rc);
}

TEST(parts_inherit_pops_below_their_frames)
{
    make_paths();
    REQUIRE(write_pop_push_log(12000) == TFMT_OK, "write");
    tfmt_profile_options po = TFMT_PROFILE_OPTIONS_INIT;
    check_threads(&po, "POP_PUSH only");
    unlink(logpath);
}

/* Options that need samples in order, or filter them, read whole. */
TEST(filters_read_whole)
{
    make_paths();
    REQUIRE(write_log(5, 15000) == TFMT_OK, "write");
    tfmt_profile_options po = TFMT_PROFILE_OPTIONS_INIT;
    po.status_all = TFMT_STATUS_HAS_GIL;
    outcome a, b;
    read_log(&po, 1, NULL, 0, ALL, &a);
    read_log(&po, 4, NULL, 0, ALL, &b);
    CHECK(b.parts == 0, "a status filter: read in %zu parts", b.parts);
    check_same(&a, &b, "status filter");
    outcome_free(&a);
    outcome_free(&b);
    unlink(logpath);
}

/*
 * Damage a log at random (bytes changed, bits flipped, runs replaced) and
 * read it from memory whole and on three threads: the same status, error
 * text, location and exports, whether the parts were used or not.
 */
TEST(damaged_logs)
{
    make_paths();
    REQUIRE(write_log(6, 15000) == TFMT_OK, "write");
    size_t len = 0;
    unsigned char *orig = harness_slurp(logpath, &len);
    REQUIRE(orig && len > 4096, "read back");
    unsigned char *buf = malloc(len);
    REQUIRE(buf, "memory");
    tfmt_profile_options po = TFMT_PROFILE_OPTIONS_INIT;
    int used = 0, failed = 0;
    for (int i = 0; i < 100; i++) {
        memcpy(buf, orig, len);
        for (uint32_t k = 1 + next(4); k-- > 0;) {
            size_t at = 64 + next((uint32_t)(len * 9 / 10 - 64));
            uint32_t how = next(3);
            if (how == 0)
                buf[at] = (unsigned char)next(256);
            else if (how == 1)
                buf[at] ^= (unsigned char)(1u << next(8));
            else
                for (uint32_t j = next(24); j-- > 0 && at + j < len;)
                    buf[at + j] = (unsigned char)next(256);
        }
        outcome a, b;
        read_log(&po, 1, buf, len, EXPORTS(JSONL, PSTATS), &a);
        read_log(&po, 3, buf, len, EXPORTS(JSONL, PSTATS), &b);
        char what[48];
        snprintf(what, sizeof what, "damage %d", i);
        check_same(&a, &b, what);
        used += b.parts > 0;
        failed += a.rc != TFMT_OK;
        outcome_free(&a);
        outcome_free(&b);
    }
    /* both kinds came up: clean reads on threads, and errors */
    CHECK(used > 0 && failed > 0, "%d read on threads, %d failed", used,
          failed);
    free(buf);
    free(orig);
    unlink(logpath);
}

TESTS(TCASE(same_profile), TCASE(thread_leaves),
      TCASE(parts_inherit_pops_below_their_frames), TCASE(filters_read_whole),
      TCASE(damaged_logs))
