/* SPDX-License-Identifier: MIT */
/*
 * gate_sim.c - tachyon-gate-sim: how often tachyon-diff's gate trips on
 * run sets drawn from a model of real run-to-run variation (false alarms
 * with no change, power with one).
 *
 *   tachyon-gate-sim --model FILE --diff PATH [--runs 2,3,5,8,10]
 *       [--change 0,1,1.4,2,3] [--trials N] [--gate PP] [--target KEY]
 *       [--metric self|cumulative|both] [--seed S] [--extra ARGS]
 *
 * The model (bench/gate/fit_model.py writes it from real recordings)
 * gives every folded stack its mean share of a run's samples, the
 * standard deviation of that share from run to run and, after a `runs R`
 * line, its share in each of the R real runs; and the runs' mean and
 * standard deviation of samples. A simulated run draws its samples from
 * a normal law and its stacks' shares jointly, as the mean plus a random
 * normal combination of the real runs' deviations from it,
 *
 *     share_k = mean_k + sum_r z_r (share_rk - mean_k) / sqrt(R - 1),
 *
 * which has the real runs' covariance: shares still sum to 1, and two
 * stacks that trade samples from run to run (a generator and its caller)
 * stay linked. Without per-run shares each stack is drawn alone from its
 * mean and deviation and the shares are scaled to sum to 1 afterwards;
 * that scaling adds the other stacks' noise to every share (a 20% stack
 * moved 0.59 points a run instead of the real 0.43). Shares are cut at 0
 * and rounded to counts of share * samples: the model's deviations
 * already hold the sampling noise, so no second draw is added. A change
 * of N points multiplies every stack whose leaf is KEY by the factor
 * that moves KEY's mean self share by N points.
 *
 * Each trial writes R runs a side as binary logs (through the public
 * writer, 1 ms apart) and runs the real tachyon-diff binary on them:
 * --fail-on-regression PP, exit 3 = tripped. It prints one Markdown table
 * per metric: the percentage of trials that tripped, per change (rows)
 * and runs per side (columns); the 0 row is the false-alarm rate.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tachyon/fmt.h>

extern char **environ;

#define MAX_LIST 16
#define MAX_FRAMES 256

typedef struct stack {
    double mean, sd;
    double *dev; /* [runs]: (share in run r - mean) / sqrt(runs - 1) */
    uint32_t depth;
    uint32_t frames[MAX_FRAMES]; /* model frame ids, root first */
    int target;                  /* leaf is the target key */
} stack;

typedef struct model {
    double samples_mean, samples_sd;
    size_t runs; /* real runs behind the per-run shares; 0: none */
    stack *stacks;
    size_t n, cap;
    char **frames; /* "file:func" */
    size_t nframes, capframes;
    double target_share; /* mean self share of the target */
} model;

typedef struct sim {
    const char *model_path, *diff, *target, *metric, *extra;
    double runs[MAX_LIST], changes[MAX_LIST], gate;
    size_t nruns, nchanges;
    unsigned trials;
    uint64_t seed;
    char dir[64];
} sim;

/* splitmix64 and Box-Muller: deterministic for a seed. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s)
{
    return ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(uint64_t *s)
{
    double u = rng_unit(s), v = rng_unit(s);
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

static int frame_id(model *m, const char *name, uint32_t *out)
{
    for (size_t i = 0; i < m->nframes; i++)
        if (!strcmp(m->frames[i], name)) {
            *out = (uint32_t)i;
            return 0;
        }
    if (m->nframes == m->capframes) {
        m->capframes = m->capframes ? 2 * m->capframes : 64;
        char **f = realloc(m->frames, m->capframes * sizeof *f);
        if (!f)
            return -1;
        m->frames = f;
    }
    m->frames[m->nframes] = strdup(name);
    if (!m->frames[m->nframes])
        return -1;
    *out = (uint32_t)m->nframes++;
    return 0;
}

static int parse_stack(model *m, char *text, stack *st, const char *target)
{
    char *save = NULL;
    st->depth = 0;
    for (char *f = strtok_r(text, ";\n", &save); f;
         f = strtok_r(NULL, ";\n", &save)) {
        if (st->depth == MAX_FRAMES || frame_id(m, f, &st->frames[st->depth]))
            return -1;
        st->target = target && !strcmp(f, target);
        st->depth++;
    }
    return st->depth ? 0 : -1;
}

/* The per-run shares after "stack MEAN SD": deviations, scaled. */
static int parse_shares(const model *m, stack *st, const char **text)
{
    st->dev = NULL;
    if (m->runs == 0)
        return 0;
    st->dev = malloc(m->runs * sizeof *st->dev);
    if (!st->dev)
        return -1;
    for (size_t r = 0; r < m->runs; r++) {
        char *end;
        double x = strtod(*text, &end);
        if (end == *text)
            return -1;
        st->dev[r] = (x - st->mean) / sqrt((double)m->runs - 1);
        *text = end;
    }
    while (**text == ' ')
        (*text)++;
    return 0;
}

static int load_model(model *m, const char *path, const char *target)
{
    FILE *fp = fopen(path, "r");
    char line[65536];
    if (!fp) {
        perror(path);
        return -1;
    }
    memset(m, 0, sizeof *m);
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, fp)) {
        int used = 0;
        if (sscanf(line, "samples %lf %lf", &m->samples_mean, &m->samples_sd) ==
            2)
            continue;
        if (m->n == 0 && sscanf(line, "runs %zu", &m->runs) == 1) {
            if (m->runs < 2 || m->runs > 1000)
                rc = -1;
            continue;
        }
        if (line[0] == '#')
            continue;
        if (m->n == m->cap) {
            m->cap = m->cap ? 2 * m->cap : 256;
            stack *s = realloc(m->stacks, m->cap * sizeof *s);
            if (!s)
                return -1;
            m->stacks = s;
        }
        stack *st = &m->stacks[m->n];
        const char *rest = line;
        if (sscanf(line, "stack %lf %lf %n", &st->mean, &st->sd, &used) < 2 ||
            (rest = line + used, parse_shares(m, st, &rest)) < 0 ||
            parse_stack(m, (char *)rest, st, target) < 0) {
            fprintf(stderr, "tachyon-gate-sim: %s: bad line: %s", path, line);
            rc = -1;
            break;
        }
        if (st->target)
            m->target_share += st->mean;
        m->n++;
    }
    fclose(fp);
    if (rc == 0 &&
        (m->n == 0 || m->samples_mean <= 0 || m->nframes > MAX_FRAMES * 4)) {
        fprintf(stderr,
                "tachyon-gate-sim: %s: no stacks or samples, or "
                "over %d frames\n",
                path, MAX_FRAMES * 4);
        rc = -1;
    }
    return rc;
}

/* The factor on the target's stacks that moves its share by `pp`. */
static double change_factor(const model *m, double pp)
{
    double s = m->target_share, n = pp / 100;
    if (pp == 0 || s <= 0)
        return 1;
    return (s + n) * (1 - s) / (s * (1 - s - n));
}

/* Write one simulated run to `path`. */
static int write_run(const model *m, const char *path, double factor,
                     uint64_t *rng, double *share)
{
    double total = 0, z[1000];
    for (size_t r = 0; r < m->runs; r++)
        z[r] = rng_normal(rng);
    for (size_t k = 0; k < m->n; k++) {
        const stack *st = &m->stacks[k];
        double x = st->mean;
        if (m->runs == 0)
            x += st->sd * rng_normal(rng);
        for (size_t r = 0; r < m->runs; r++)
            x += z[r] * st->dev[r];
        share[k] = x > 0 ? x * (st->target ? factor : 1) : 0;
        total += share[k];
    }
    double n = m->samples_mean + m->samples_sd * rng_normal(rng);
    n = n < 100 ? 100 : n;
    tfmt_bin_writer_options o = TFMT_BIN_WRITER_OPTIONS_INIT;
    o.sample_interval_us = 1000;
    o.start_time_us = 1000000;
    tfmt_sink *sink = NULL;
    tfmt_bin_writer *w = NULL;
    tfmt_error err;
    uint32_t ids[MAX_FRAMES * 4], stk[MAX_FRAMES];
    int rc = tfmt_sink_open(&sink, path, TFMT_SINK_SEEKABLE | TFMT_SINK_FORCE,
                            NULL, &err);
    if (rc == 0)
        rc = tfmt_bin_writer_open(&w, sink, &o, &err);
    for (size_t f = 0; rc == 0 && f < m->nframes && f < MAX_FRAMES * 4; f++) {
        const char *name = m->frames[f], *colon = strrchr(name, ':');
        size_t flen = colon ? (size_t)(colon - name) : 0;
        const char *func = colon ? colon + 1 : name;
        rc = tfmt_bin_writer_location(w, name, flen, func, strlen(func), 1, 1,
                                      0, 1, -1, &ids[f]);
    }
    uint64_t ts = o.start_time_us, written = 0;
    for (size_t k = 0; rc == 0 && k < m->n; k++) {
        const stack *st = &m->stacks[k];
        uint64_t count = (uint64_t)llround(share[k] / total * n);
        for (uint32_t d = 0; d < st->depth; d++)
            stk[d] = ids[st->frames[d]];
        for (uint64_t i = 0; rc == 0 && i < count; i++)
            rc = tfmt_bin_writer_sample(
                w, 1, 0, ts++, TFMT_STATUS_HAS_GIL | TFMT_STATUS_ON_CPU, stk,
                st->depth);
        written += count;
    }
    tfmt_stats stats = {.present = true,
                        .size = 32,
                        .version = 1,
                        .duration_s = (double)written / 1000,
                        .sample_rate = 1000};
    if (rc == 0)
        rc = tfmt_bin_writer_stats(w, &stats);
    if (rc == 0)
        rc = tfmt_bin_writer_finish(w);
    if (rc == 0)
        rc = tfmt_sink_finish(sink);
    if (rc < 0)
        fprintf(stderr, "tachyon-gate-sim: %s: write failed\n", path);
    tfmt_bin_writer_free(w);
    tfmt_sink_free(sink);
    return rc;
}

/* Run tachyon-diff; returns its exit status, or -1. */
static int run_diff(const sim *s, unsigned runs, const char *metric)
{
    char *argv[64 + 4 * 32];
    char paths[2][32][96], gate[32];
    int k = 0;
    snprintf(gate, sizeof gate, "%g", s->gate);
    argv[k++] = (char *)s->diff;
    argv[k++] = "-q";
    argv[k++] = "-F";
    argv[k++] = "csv";
    argv[k++] = "--fail-on-regression";
    argv[k++] = gate;
    argv[k++] = "--metric";
    argv[k++] = (char *)metric;
    char extra[256], *save = NULL;
    snprintf(extra, sizeof extra, "%s", s->extra ? s->extra : "");
    for (char *a = strtok_r(extra, " ", &save); a && k < 60;
         a = strtok_r(NULL, " ", &save))
        argv[k++] = a;
    for (int side = 0; side < 2; side++)
        for (unsigned j = 0; j < runs; j++) {
            snprintf(paths[side][j], sizeof paths[side][j], "%s/%c%u.bin",
                     s->dir, side ? 'n' : 'b', j);
            argv[k++] = side ? "--new" : "--base";
            argv[k++] = paths[side][j];
        }
    argv[k] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int status = 0, rc = posix_spawn(&pid, s->diff, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

/* One trial: write both sides, run the gate per metric; trips[m] += 1. */
static int trial(const sim *s, const model *m, unsigned runs, double pp,
                 uint64_t *rng, double *share, unsigned *trips)
{
    static const char *const metrics[] = {"self", "cumulative"};
    char path[96];
    for (int side = 0; side < 2; side++)
        for (unsigned j = 0; j < runs; j++) {
            snprintf(path, sizeof path, "%s/%c%u.bin", s->dir, side ? 'n' : 'b',
                     j);
            if (write_run(m, path, side ? change_factor(m, pp) : 1, rng,
                          share) < 0)
                return -1;
        }
    for (int mi = 0; mi < 2; mi++) {
        if (strcmp(s->metric, "both") && strcmp(s->metric, metrics[mi]))
            continue;
        int code = run_diff(s, runs, metrics[mi]);
        bool tripped = code == 3;
        if (code != 0 && !tripped) {
            fprintf(stderr, "tachyon-gate-sim: tachyon-diff exited %d\n", code);
            return -1;
        }
        trips[mi] += tripped;
    }
    return 0;
}

static size_t parse_list(const char *s, double *out)
{
    size_t n = 0;
    char *end;
    while (n < MAX_LIST && *s) {
        out[n++] = strtod(s, &end);
        s = *end == ',' ? end + 1 : end;
        if (end == s && *s)
            break;
    }
    return n;
}

static int parse_args(sim *s, int argc, char **argv)
{
    memset(s, 0, sizeof *s);
    s->nruns = parse_list("2,3,5,8,10", s->runs);
    s->nchanges = parse_list("0,1,1.4,2,3", s->changes);
    s->trials = 200;
    s->gate = 0.5;
    s->seed = 1;
    s->metric = "both";
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--model"))
            s->model_path = v;
        else if (!strcmp(a, "--diff"))
            s->diff = v;
        else if (!strcmp(a, "--target"))
            s->target = v;
        else if (!strcmp(a, "--metric"))
            s->metric = v;
        else if (!strcmp(a, "--extra"))
            s->extra = v;
        else if (!strcmp(a, "--runs"))
            s->nruns = parse_list(v, s->runs);
        else if (!strcmp(a, "--change"))
            s->nchanges = parse_list(v, s->changes);
        else if (!strcmp(a, "--trials"))
            s->trials = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--gate"))
            s->gate = strtod(v, NULL);
        else if (!strcmp(a, "--seed"))
            s->seed = strtoull(v, NULL, 10);
        else
            return -1;
    }
    for (size_t r = 0; r < s->nruns; r++)
        if (s->runs[r] < 1 || s->runs[r] > 32)
            return -1;
    return s->model_path && s->diff && s->target && s->trials ? 0 : -1;
}

static void print_table(const sim *s, const char *metric,
                        unsigned trips[MAX_LIST][MAX_LIST])
{
    printf("\nmetric %s, gate %g pp, %u trials a cell: %% of trials that "
           "tripped\n\n| change (pp) |",
           metric, s->gate, s->trials);
    for (size_t r = 0; r < s->nruns; r++)
        printf(" %g runs |", s->runs[r]);
    printf("\n|--:|");
    for (size_t r = 0; r < s->nruns; r++)
        printf("--:|");
    printf("\n");
    for (size_t c = 0; c < s->nchanges; c++) {
        printf("| %g |", s->changes[c]);
        for (size_t r = 0; r < s->nruns; r++)
            printf(" %.1f |", 100.0 * trips[c][r] / s->trials);
        printf("\n");
    }
}

static int simulate(sim *s, const model *m)
{
    static unsigned trips[2][MAX_LIST][MAX_LIST];
    double *share = malloc(m->n * sizeof *share);
    uint64_t rng = s->seed;
    if (!share)
        return -1;
    for (size_t c = 0; c < s->nchanges; c++)
        for (size_t r = 0; r < s->nruns; r++)
            for (unsigned t = 0; t < s->trials; t++) {
                unsigned got[2] = {0, 0};
                if (trial(s, m, (unsigned)s->runs[r], s->changes[c], &rng,
                          share, got) < 0) {
                    free(share);
                    return -1;
                }
                trips[0][c][r] += got[0];
                trips[1][c][r] += got[1];
            }
    free(share);
    printf("model %s: %zu stacks, %s, %.0f +- %.0f samples a run; target "
           "%s (self share %.2f%%); seed %llu\n",
           s->model_path, m->n,
           m->runs ? "drawn jointly from the real runs"
                   : "each stack drawn alone",
           m->samples_mean, m->samples_sd, s->target, 100 * m->target_share,
           (unsigned long long)s->seed);
    if (strcmp(s->metric, "cumulative"))
        print_table(s, "self", trips[0]);
    if (strcmp(s->metric, "self"))
        print_table(s, "cumulative", trips[1]);
    return 0;
}

int main(int argc, char **argv)
{
    sim s;
    model m;
    if (parse_args(&s, argc, argv) < 0) {
        fprintf(stderr, "usage: tachyon-gate-sim --model FILE --diff PATH "
                        "--target KEY [--runs 2,3,5] [--change 0,1,2] "
                        "[--trials N] [--gate PP] [--metric self|cumulative"
                        "|both] [--seed S] [--extra 'ARGS']\n");
        return 2;
    }
    if (load_model(&m, s.model_path, s.target) < 0)
        return 2;
    if (m.target_share <= 0) {
        fprintf(stderr, "tachyon-gate-sim: no stack ends in %s\n", s.target);
        return 2;
    }
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(s.dir, sizeof s.dir, "%s/gate-sim-XXXXXX", base);
    if (!mkdtemp(s.dir)) {
        perror("mkdtemp");
        return 2;
    }
    int rc = simulate(&s, &m);
    if (getenv("GATE_SIM_KEEP")) { /* the last trial's runs, to look at */
        fprintf(stderr, "tachyon-gate-sim: kept %s\n", s.dir);
        return rc < 0 ? 2 : 0;
    }
    char path[96];
    for (int side = 0; side < 2; side++)
        for (unsigned j = 0; j < 32; j++) {
            snprintf(path, sizeof path, "%s/%c%u.bin", s.dir, side ? 'n' : 'b',
                     j);
            unlink(path);
        }
    rmdir(s.dir);
    return rc < 0 ? 2 : 0;
}
