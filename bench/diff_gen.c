/* SPDX-License-Identifier: MIT */
/*
 * diff_gen.c - tachyon-diff-gen: writes binary logs for tachyon-diff's
 * tests and benchmark through the public writer API.
 *
 *   tachyon-diff-gen spec -o OUT.bin [--duration S] < SPEC
 *       SPEC lines: "TID COUNT FRAME;FRAME;..." (root first), each FRAME
 *       "file:func:line"; '#' starts a comment line. COUNT samples of
 *       that stack, 1 ms apart. --duration writes a statistics block.
 *
 *   tachyon-diff-gen big -o OUT.bin --frames N [--seed S]
 *       N unique leaf functions under 1000 files: sample i has the stack
 *       app.py:main -> pkg/mNNN.py:group -> pkg/mNNN.py:f_i and a weight
 *       of 1..4 drawn from (i, seed), so two seeds give two runs of the
 *       same program with every count slightly different.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tachyon/fmt.h>

typedef struct gen {
    tfmt_sink *sink;
    tfmt_bin_writer *w;
    uint64_t ts;
} gen;

static int gen_open(gen *g, const char *path)
{
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    tfmt_error err;
    o.sample_interval_us = 1000;
    o.start_time_us = 1000000;
    memset(g, 0, sizeof *g);
    g->ts = o.start_time_us;
    if (tfmt_sink_open(&g->sink, path, TFMT_SINK_SEEKABLE | TFMT_SINK_FORCE,
                       NULL, &err) < 0 ||
        tfmt_bin_writer_open(&g->w, g->sink, &o, &err) < 0) {
        fprintf(stderr, "tachyon-diff-gen: %s: %s\n", path, err.msg);
        return -1;
    }
    return 0;
}

static int gen_close(gen *g, double duration)
{
    int rc = 0;
    if (duration > 0) {
        tfmt_stats st = {.present = true,
                         .size = 32,
                         .version = 1,
                         .duration_s = duration,
                         .sample_rate = 1000};
        rc = tfmt_bin_writer_stats(g->w, &st);
    }
    if (rc == 0)
        rc = tfmt_bin_writer_finish(g->w);
    if (rc == 0)
        rc = tfmt_sink_finish(g->sink);
    if (rc < 0)
        fprintf(stderr, "tachyon-diff-gen: %s\n",
                tfmt_bin_writer_error(g->w)->msg);
    tfmt_bin_writer_free(g->w);
    tfmt_sink_free(g->sink);
    return rc;
}

static int add(gen *g, uint64_t tid, const uint32_t *stack, uint32_t depth,
               unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        if (tfmt_bin_writer_sample(g->w, tid, 0, g->ts++ * 1000,
                                   TFMT_STATUS_HAS_GIL | TFMT_STATUS_ON_CPU,
                                   stack, depth) < 0)
            return -1;
    return 0;
}

/* "file:func:line" -> frame index. */
static int frame(gen *g, char *spec, uint32_t *out)
{
    char *c1 = strchr(spec, ':');
    char *c2 = c1 ? strrchr(c1 + 1, ':') : NULL;
    if (!c2) {
        fprintf(stderr, "tachyon-diff-gen: bad frame '%s'\n", spec);
        return -1;
    }
    *c1 = *c2 = '\0';
    int line = atoi(c2 + 1);
    return tfmt_bin_writer_location(g->w, spec, strlen(spec), c1 + 1,
                                    strlen(c1 + 1), line, line, 0, 1, -1, out);
}

static int spec_line(gen *g, char *line)
{
    uint32_t stack[TFMT_MAX_DEPTH], depth = 0;
    unsigned long long tid;
    unsigned count;
    int used = 0;
    if (sscanf(line, "%llu %u %n", &tid, &count, &used) < 2)
        return -1;
    char *save = NULL;
    for (char *f = strtok_r(line + used, ";\n", &save); f && depth < 256;
         f = strtok_r(NULL, ";\n", &save))
        if (frame(g, f, &stack[depth++]) < 0)
            return -1;
    return add(g, tid, stack, depth, count);
}

static int run_spec(const char *out, double duration)
{
    gen g;
    char line[8192];
    if (gen_open(&g, out) < 0)
        return 2;
    while (fgets(line, sizeof line, stdin)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (spec_line(&g, line) < 0) {
            fprintf(stderr, "tachyon-diff-gen: bad spec line: %s", line);
            gen_close(&g, 0);
            return 2;
        }
    }
    return gen_close(&g, duration) < 0 ? 2 : 0;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static int run_big(const char *out, uint64_t n, uint64_t seed)
{
    gen g;
    char file[64], func[64];
    if (gen_open(&g, out) < 0)
        return 2;
    uint32_t stack[3];
    int rc = tfmt_bin_writer_location(g.w, "app.py", 6, "main", 4, 1, 1, 0, 1,
                                      -1, &stack[0]);
    uint64_t samples = 0;
    for (uint64_t i = 0; rc == 0 && i < n; i++) {
        snprintf(file, sizeof file, "pkg/m%03u.py", (unsigned)(i % 1000));
        snprintf(func, sizeof func, "f_%07llu", (unsigned long long)i);
        unsigned w = 1 + (unsigned)(mix(i * 2654435761u ^ seed) % 4);
        rc = tfmt_bin_writer_location(g.w, file, strlen(file), "group", 5, 10,
                                      10, 0, 1, -1, &stack[1]);
        if (rc == 0)
            rc = tfmt_bin_writer_location(
                g.w, file, strlen(file), func, strlen(func),
                (int32_t)(i % 5000), (int32_t)(i % 5000), 0, 1, -1, &stack[2]);
        if (rc == 0)
            rc = add(&g, 1, stack, 3, w);
        samples += w;
    }
    if (rc < 0)
        fprintf(stderr, "tachyon-diff-gen: write failed\n");
    return gen_close(&g, (double)samples / 1000.0) < 0 || rc < 0 ? 2 : 0;
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    double duration = 0;
    uint64_t frames = 0, seed = 1;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-o"))
            out = argv[i + 1];
        else if (!strcmp(argv[i], "--duration"))
            duration = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--frames"))
            frames = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 10);
    }
    if (argc < 2 || !out) {
        fprintf(stderr, "usage: tachyon-diff-gen spec|big -o OUT.bin "
                        "[--duration S] [--frames N] [--seed S]\n");
        return 2;
    }
    if (!strcmp(argv[1], "spec"))
        return run_spec(out, duration);
    return run_big(out, frames, seed);
}
