/* SPDX-License-Identifier: MIT */
/*
 * test_collapsed_order.c - the collapsed output's line order against an
 * independent model of CPython's CollapsedStackCollector on random
 * profiles built to collide: file names with one basename in two folders,
 * function names that are prefixes of each other ("f", "f1", "f10") or
 * hold ':' or UTF-8, lines 1 and 10, synthetic frames, frames that differ
 * only in columns (folded together), thread ids that are prefixes of each
 * other (1, 12, 123) and one thread id in two interpreters (folded too).
 * The model counts (thread id, (file, line, func)...) keys in a Counter,
 * spells each line and sorts by count descending, text, first appearance.
 * Runs with a ';' in some names cover the comparison sort, the others
 * the trie ranking.
 */
#include <unistd.h>

#include "harness.h"
#include "profile_internal.h"

#define NFRAMES 40
#define MAXD 7

typedef struct tframe {
    const char *file, *func;
    int32_t line;
} tframe;

typedef struct mkey { /* one Counter key of the model */
    char *key;        /* tid + frames as bytes */
    size_t klen;
    char *text; /* the line without its count */
    uint64_t count;
    size_t first;
} mkey;

typedef struct model {
    mkey *k;
    size_t n, cap;
} model;

static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void pick_frames(tframe *f, uint64_t *s, bool semicolon)
{
    static const char *const files[] = {"/a/x.py", "/b/x.py", "x.py",
                                        "/c/y.py", "~",       "/d/\xc3\xa9.py"};
    static const char *const funcs[] = {
        "f", "f1", "f10", "g", "<lambda>", "f:1", "\xc3\xa9t\xc3\xa9", "h"};
    for (int i = 0; i < NFRAMES; i++) {
        f[i].file = files[rnd(s) % 6];
        f[i].func = funcs[rnd(s) % 8];
        if (semicolon && i % 9 == 0)
            f[i].func = i % 2 ? "a;b" : "f;";
        unsigned l = (unsigned)(rnd(s) % 6);
        f[i].line = l == 0 ? TFMT_NO_LOCATION : l == 5 ? 10 : (int32_t)l;
    }
    /* Frames printed as their bare name ("~" at no line), names that are
     * prefixes of others followed by letters, digits or ':'. */
    static const char *const bare[] = {"f", "fa", "f1", "g", "ga", "g:"};
    for (int i = 0; i < 12; i += 2) {
        f[i].file = "~";
        f[i].func = bare[rnd(s) % 6];
        f[i].line = TFMT_NO_LOCATION;
    }
}

/* basename:func:line, or func for "~" frames at line 0 (as CPython). */
static size_t frame_text(const tframe *f, char *out)
{
    int32_t line = f->line == TFMT_NO_LOCATION ? 0 : f->line;
    if (strcmp(f->file, "~") == 0 && line == 0)
        return (size_t)sprintf(out, "%s", f->func);
    const char *b = strrchr(f->file, '/');
    return (size_t)sprintf(out, "%s:%s:%d", b ? b + 1 : f->file, f->func, line);
}

static void model_add(model *m, uint64_t tid, const tframe *f, const int *stack,
                      int depth, uint64_t w, size_t seq)
{
    char key[1024], text[2048];
    size_t kl = 0,
           tl = (size_t)sprintf(text, "tid:%llu", (unsigned long long)tid);
    memcpy(key, &tid, 8);
    kl = 8;
    for (int i = 0; i < depth; i++) {
        const tframe *x = &f[stack[i]];
        int32_t line = x->line == TFMT_NO_LOCATION ? 0 : x->line;
        kl += (size_t)sprintf(key + kl, "%s%c%s%c", x->file, 0, x->func, 0);
        memcpy(key + kl, &line, 4);
        kl += 4;
        text[tl++] = ';';
        tl += frame_text(x, text + tl);
    }
    for (size_t i = 0; i < m->n; i++) {
        if (m->k[i].klen == kl && memcmp(m->k[i].key, key, kl) == 0) {
            m->k[i].count += w;
            return;
        }
    }
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 256;
        m->k = realloc(m->k, m->cap * sizeof *m->k);
    }
    mkey *k = &m->k[m->n++];
    k->key = malloc(kl);
    memcpy(k->key, key, kl);
    k->klen = kl;
    k->text = malloc(tl + 1);
    memcpy(k->text, text, tl);
    k->text[tl] = 0;
    k->count = w;
    k->first = seq;
}

static int cmp_model(const void *a, const void *b)
{
    const mkey *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    int d = strcmp(x->text, y->text);
    if (d)
        return d;
    return x->first < y->first ? -1 : x->first > y->first;
}

static char *model_output(model *m, size_t *len)
{
    qsort(m->k, m->n, sizeof *m->k, cmp_model);
    size_t cap = 1, n = 0;
    for (size_t i = 0; i < m->n; i++)
        cap += strlen(m->k[i].text) + 24;
    char *out = malloc(cap);
    for (size_t i = 0; i < m->n; i++)
        n += (size_t)sprintf(out + n, "%s %llu\n", m->k[i].text,
                             (unsigned long long)m->k[i].count);
    *len = n;
    return out;
}

static void model_free(model *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->k[i].key);
        free(m->k[i].text);
    }
    free(m->k);
}

/* Intern the frames with column 0 and, with 2 columns, 4 too (one
 * collector key: the export folds them). */
static int intern(tfmt_profile *p, const tframe *f, uint32_t ids[][2],
                  int columns)
{
    for (int i = 0; i < NFRAMES; i++) {
        tfmt_frame fr = {0, 0, f[i].line, f[i].line, 0, 8, 255};
        if (tfmt__profile_intern_string(p, f[i].file, strlen(f[i].file),
                                        &fr.filename) != TFMT_OK ||
            tfmt__profile_intern_string(p, f[i].func, strlen(f[i].func),
                                        &fr.funcname) != TFMT_OK)
            return -1;
        for (int c = 0; c < columns; c++) {
            fr.column = 4 * c;
            if (tfmt__profile_intern_frame(p, &fr, &ids[i][c]) != TFMT_OK)
                return -1;
        }
    }
    return 0;
}

static unsigned char *export_collapsed(tfmt_profile *p, size_t *len)
{
    char path[512];
    const char *t = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/test_corder_%ld.out", t && *t ? t : "/tmp",
             (long)getpid());
    tfmt_sink *sink = NULL;
    int rc = tfmt_sink_open(&sink, path, TFMT_SINK_FORCE, NULL, NULL);
    if (rc == TFMT_OK)
        rc = tfmt_profile_write_collapsed(p, sink);
    if (rc == TFMT_OK)
        rc = tfmt_sink_finish(sink);
    tfmt_sink_free(sink);
    unsigned char *d = rc == TFMT_OK ? harness_slurp(path, len) : NULL;
    unlink(path);
    return d;
}

/*
 * `plain`: one column per frame and distinct thread ids, so the export's
 * fold is the identity (its fast path); else the fold merges nodes.
 */
static void one_run(uint64_t seed, bool semicolon, bool plain, int samples)
{
    static const uint64_t tids[] = {1, 12, 123, 2, 12};
    static const uint32_t interps[] = {0, 0, 0, 0, 1};
    uint64_t s = seed;
    tframe f[NFRAMES];
    uint32_t ids[NFRAMES][2];
    pick_frames(f, &s, semicolon);
    tfmt_profile *p = NULL;
    model m = {NULL, 0, 0};
    REQUIRE(tfmt_profile_new(&p, NULL) == TFMT_OK, "profile");
    REQUIRE(intern(p, f, ids, plain ? 1 : 2) == 0, "intern");
    for (int i = 0; i < samples; i++) {
        int t = (int)(rnd(&s) % (plain ? 4 : 5));
        int depth = 1 + (int)(rnd(&s) % MAXD);
        int stack[MAXD];
        uint32_t pst[MAXD];
        for (int d = 0; d < depth; d++) {
            /* Few choices near the root, so paths share prefixes. */
            stack[d] = (int)(rnd(&s) % (d < 2 ? 3 : NFRAMES));
            pst[d] = ids[stack[d]][plain ? 0 : rnd(&s) % 2];
        }
        uint64_t w = 1 + rnd(&s) % 2;
        CHECK(tfmt__profile_add_stack(p, tids[t], interps[t], pst,
                                      (uint32_t)depth, w) == TFMT_OK,
              "add");
        model_add(&m, tids[t], f, stack, depth, w, (size_t)i);
    }
    size_t glen = 0, wlen = 0;
    unsigned char *got = export_collapsed(p, &glen);
    char *want = model_output(&m, &wlen);
    size_t at = 0;
    while (got && at < glen && at < wlen && got[at] == (unsigned char)want[at])
        at++;
    CHECK(got && glen == wlen && at == wlen,
          "seed %llu%s: differs at byte %zu of %zu: got \"%.60s\" want "
          "\"%.60s\"",
          (unsigned long long)seed, semicolon ? " (';' names)" : "", at, wlen,
          got ? (const char *)got + at : "", want + at);
    free(got);
    free(want);
    model_free(&m);
    tfmt_profile_free(p);
}

TEST(trie_order_matches_the_counter_model)
{
    for (uint64_t seed = 1; seed <= 40; seed++)
        one_run(seed, false, seed % 2, 2000);
}

TEST(comparison_order_matches_the_counter_model)
{
    for (uint64_t seed = 100; seed <= 120; seed++)
        one_run(seed, true, seed % 2, 2000);
}

TEST(big_profile_matches_the_counter_model)
{
    one_run(7, false, false, 30000);
    one_run(8, false, true, 30000);
}

TESTS(TCASE(trie_order_matches_the_counter_model),
      TCASE(comparison_order_matches_the_counter_model),
      TCASE(big_profile_matches_the_counter_model))
