/* SPDX-License-Identifier: MIT */
/*
 * test_alloc.c - base/alloc.c and base/bigmap.c: big tables of libc's
 * allocator are mappings of their own that keep their contents as they
 * grow, in place or moved; free and realloc tell them from libc's blocks;
 * a caller's allocator still gets every block. Where there are no such
 * mappings (not Linux, or AddressSanitizer) the same tables come from
 * libc and the checks on mappings are skipped (the sanitizer builds link
 * bigmap.c in with TFMT_BIGMAP_ALWAYS, so they run there too).
 */
#define _GNU_SOURCE /* MAP_FIXED_NOREPLACE */
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#include "bigmap.h"
#include "harness.h"
#include "internal.h"

#define MIB ((size_t)1 << 20)

static bool have_bigmap(void)
{
    void *p = tfmt__bigmap_alloc(1);
    if (!p)
        return false;
    tfmt__bigmap_free(p);
    return true;
}

static bool aligned(const void *p)
{
    return ((uintptr_t)p & (2 * MIB - 1)) == 0;
}

/* Entry i of a table holds i * 2654435761 (mod 2^32). */
static void fill(uint32_t *t, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        t[i] = (uint32_t)(i * 2654435761u);
}

static size_t first_wrong(const uint32_t *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (t[i] != (uint32_t)(i * 2654435761u))
            return i;
    return n;
}

/* A table grown from empty to 48 MiB keeps every entry written. */
TEST(grown_table_keeps_contents)
{
    uint32_t *t = NULL;
    size_t cap = 0, n = 0;
    for (size_t want = 1000; want <= 12 * MIB; want = want * 3 + 7) {
        REQUIRE(tfmt__grow(NULL, (void **)&t, &cap, want, sizeof *t) == TFMT_OK,
                "grow to %zu", want);
        fill(t, n, want);
        n = want;
        CHECK(first_wrong(t, n) == n, "entry %zu lost at %zu entries",
              first_wrong(t, n), n);
        if (have_bigmap() && cap * sizeof *t >= 2 * MIB) {
            CHECK(tfmt__bigmap_size(t) >= cap * sizeof *t,
                  "a %zu-byte table is not a mapping", cap * sizeof *t);
            CHECK(aligned(t), "table at %p", (void *)t);
        }
    }
    tfmt__free(NULL, t);
}

/* Whether [p, p + n) lies in one mapping of /proc/self/maps (one VMA,
 * which mremap needs to grow or move a block). */
static bool one_mapping(const void *p, size_t n)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return true; /* nothing to check against */
    unsigned long from, to;
    bool found = false;
    char line[512];
    while (!found && fgets(line, sizeof line, f))
        found = sscanf(line, "%lx-%lx", &from, &to) == 2 &&
                from <= (uintptr_t)p && (uintptr_t)p + n <= to;
    fclose(f);
    return found;
}

/* Map a page right after [p, p + n) so the block cannot grow in place;
 * NULL when that address was taken already (then it cannot either). */
static char *block_after(void *p, size_t n)
{
    char *next = (char *)p + n;
    char *b = mmap(next, 4096, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (b != next) {
        if (b != MAP_FAILED)
            munmap(b, 4096);
        return NULL;
    }
    b[0] = 42;
    return b;
}

static void unblock(char *b)
{
    if (!b)
        return;
    CHECK(b[0] == 42, "the neighbour changed");
    munmap(b, 4096);
}

/*
 * A block whose next addresses are taken moves: its pages go to a new
 * aligned mapping, contents and the neighbour intact, and it stays one
 * mapping, so it can move again.
 */
TEST(blocked_block_moves)
{
    if (!have_bigmap()) {
        fprintf(stderr, "no mappings here: skipped\n");
        return;
    }
    uint32_t *t = tfmt__bigmap_alloc(2 * MIB);
    REQUIRE(t != NULL, "no block");
    fill(t, 0, 2 * MIB / 4);
    char *blocker = block_after(t, 2 * MIB);
    uint32_t *u = tfmt__bigmap_resize(t, 16 * MIB);
    REQUIRE(u != NULL, "resize failed");
    CHECK(!blocker || u != t, "grew over the neighbour");
    CHECK(aligned(u), "moved to %p", (void *)u);
    CHECK(one_mapping(u, 16 * MIB), "the moved block is several mappings");
    CHECK(first_wrong(u, 2 * MIB / 4) == 2 * MIB / 4, "entry %zu lost",
          first_wrong(u, 2 * MIB / 4));
    CHECK(tfmt__bigmap_size(u) == 16 * MIB, "size %zu", tfmt__bigmap_size(u));
    CHECK(!blocker || tfmt__bigmap_size(t) == 0, "old address still listed");
    fill(u, 2 * MIB / 4, 16 * MIB / 4);
    char *blocker2 = block_after(u, 16 * MIB);
    uint32_t *v = tfmt__bigmap_resize(u, 64 * MIB);
    REQUIRE(v != NULL, "second resize failed");
    CHECK(one_mapping(v, 64 * MIB), "the block is several mappings");
    CHECK(first_wrong(v, 16 * MIB / 4) == 16 * MIB / 4, "entry %zu lost",
          first_wrong(v, 16 * MIB / 4));
    unblock(blocker);
    unblock(blocker2);
    CHECK(tfmt__bigmap_free(v), "not freed as a mapping");
}

TEST(realloc_of_a_table)
{
    uint32_t *t = tfmt__malloc_table(NULL, 3 * MIB / 4, sizeof *t);
    REQUIRE(t != NULL, "no table");
    fill(t, 0, 3 * MIB / 4);
    uint32_t *u = tfmt__realloc(NULL, t, MIB);
    REQUIRE(u != NULL, "shrink failed");
    CHECK(first_wrong(u, MIB / 4) == MIB / 4, "entry %zu lost",
          first_wrong(u, MIB / 4));
    uint32_t *v = tfmt__realloc(NULL, u, 10 * MIB);
    REQUIRE(v != NULL, "grow failed");
    CHECK(first_wrong(v, MIB / 4) == MIB / 4, "entry %zu lost",
          first_wrong(v, MIB / 4));
    if (have_bigmap())
        CHECK(tfmt__bigmap_size(v) == 10 * MIB, "size %zu",
              tfmt__bigmap_size(v));
    tfmt__free(NULL, v);
}

/* libc's blocks are libc's: never listed, freed by free(). */
TEST(libc_blocks_are_not_mappings)
{
    for (size_t size = 16; size <= 8 * MIB; size *= 4) {
        char *p = tfmt__malloc(NULL, size);
        REQUIRE(p != NULL, "malloc %zu", size);
        p[size - 1] = 1;
        CHECK(tfmt__bigmap_size(p) == 0, "a %zu-byte malloc is listed", size);
        CHECK(!tfmt__bigmap_free(p), "a %zu-byte malloc was unmapped", size);
        tfmt__free(NULL, p);
    }
    char *small = tfmt__malloc_table(NULL, 100, 8);
    REQUIRE(small != NULL, "small table");
    CHECK(tfmt__bigmap_size(small) == 0, "an 800-byte table is a mapping");
    tfmt__free(NULL, small);
    CHECK(tfmt__bigmap_size(NULL) == 0 && !tfmt__bigmap_free(NULL), "NULL");
}

typedef struct counting {
    size_t mallocs, frees;
} counting;

static void *count_malloc(size_t n, void *ctx)
{
    ((counting *)ctx)->mallocs++;
    return malloc(n);
}

static void *count_realloc(void *p, size_t n, void *ctx)
{
    ((counting *)ctx)->mallocs += p == NULL;
    return realloc(p, n);
}

static void count_free(void *p, void *ctx)
{
    ((counting *)ctx)->frees += p != NULL;
    free(p);
}

/* A caller's allocator gets the big tables too, never a mapping. */
TEST(caller_allocator_gets_big_tables)
{
    counting c = {0, 0};
    tfmt_allocator a = {count_malloc, count_realloc, count_free, &c};
    uint64_t *t = tfmt__malloc_table(&a, MIB, sizeof *t);
    REQUIRE(t != NULL, "no table");
    CHECK(tfmt__bigmap_size(t) == 0, "a caller's table is a mapping");
    size_t cap = MIB;
    CHECK(tfmt__grow(&a, (void **)&t, &cap, 3 * MIB, sizeof *t) == TFMT_OK,
          "grow");
    CHECK(tfmt__bigmap_size(t) == 0, "a caller's grown table is a mapping");
    tfmt__free(&a, t);
    CHECK(c.mallocs == 1 && c.frees == 1, "%zu mallocs, %zu frees", c.mallocs,
          c.frees);
}

/* Threads grow and free tables at once: the list stays whole. */
static void *churn(void *arg)
{
    size_t *bad = arg;
    for (int round = 0; round < 40; round++) {
        uint32_t *t = NULL;
        size_t cap = 0;
        size_t n = MIB + (size_t)round * 4099;
        if (tfmt__grow(NULL, (void **)&t, &cap, n, sizeof *t) != TFMT_OK) {
            (*bad)++;
            continue;
        }
        fill(t, 0, n);
        *bad += first_wrong(t, n) != n;
        tfmt__free(NULL, t);
    }
    return NULL;
}

TEST(threads_share_the_list)
{
    pthread_t th[4];
    size_t bad[4] = {0};
    for (int i = 0; i < 4; i++)
        REQUIRE(pthread_create(&th[i], NULL, churn, &bad[i]) == 0, "thread");
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK(bad[i] == 0, "thread %d: %zu bad rounds", i, bad[i]);
    }
}

TESTS(TCASE(grown_table_keeps_contents), TCASE(blocked_block_moves),
      TCASE(realloc_of_a_table), TCASE(libc_blocks_are_not_mappings),
      TCASE(caller_allocator_gets_big_tables), TCASE(threads_share_the_list))
