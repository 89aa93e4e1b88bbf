/* SPDX-License-Identifier: MIT */
/*
 * fuzz_source_path.c - the heatmap's source lookup (tachyon-conv's
 * conv_source.c and conv_source_open.c) on arbitrary recorded paths and
 * --path-map rules, against a fixed tree of traps built once in a
 * scratch directory:
 *
 *   BASE/secret.py            "SECRET"   outside every root
 *   BASE/root/cfg             "CONFIG"   inside, but not a Python name
 *   BASE/root/ok.py           "OK-top"
 *   BASE/root/app/ok.py       "OK-app"
 *   BASE/root/app/up.py    -> ../../secret.py      climbs out
 *   BASE/root/app/abs.py   -> BASE/secret.py       absolute
 *   BASE/root/app/leak.py  -> ../cfg               stays in, not *.py
 *   BASE/root/app/out      -> ../..                a folder outside
 *   BASE/root/lib          -> app                  a folder inside
 *   BASE/root/app/loop.py  -> loop.py              a loop
 *   BASE/root/app/fifo.py                          a FIFO
 *
 * Input: byte 0 chooses the options (bit 0: --source-root BASE/root;
 * bit 1: a --path-map; bits 2-3: its TO, BASE/root, BASE/root/app or
 * BASE/root/lib; bit 4: the fallback without openat2); the rest is
 * "FROM\nPATH" (no newline: PATH alone), FROM without '='.
 * Invariants: nothing read is ever a file outside the root or a file not
 * named *.py (only "OK-top" or "OK-app" can come back), and it is said
 * to come from beneath the root or TO in force; a missing source always
 * has a note.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conv.h"

#define check(ok) check_at(ok, __LINE__)
static void check_at(bool ok, int line)
{
    if (!ok) {
        fprintf(stderr, "fuzz_source_path: invariant at line %d failed\n",
                line);
        abort();
    }
}

static char base[256];
static char root[300], tos[3][320];

static void put(const char *rel, const char *text)
{
    char p[400];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    FILE *f = fopen(p, "w");
    check(f != NULL);
    fputs(text, f);
    fclose(f);
}

static void link_to(const char *target, const char *rel)
{
    char p[400];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    check(symlink(target, p) == 0);
}

static void remove_tree(void)
{
    static const char *const names[] = {
        "root/app/up.py",   "root/app/abs.py", "root/app/leak.py",
        "root/app/out",     "root/lib",        "root/app/loop.py",
        "root/app/fifo.py", "root/app/ok.py",  "root/ok.py",
        "root/cfg",         "secret.py"};
    char p[400];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(p, sizeof p, "%s/%s", base, names[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/root/app", base);
    rmdir(p);
    rmdir(root);
    rmdir(base);
}

static void build_tree(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(base, sizeof base, "%s/fuzz_source_XXXXXX", t && *t ? t : "/tmp");
    check(mkdtemp(base) != NULL);
    snprintf(root, sizeof root, "%s/root", base);
    check(mkdir(root, 0700) == 0);
    char p[400], abs[400];
    snprintf(p, sizeof p, "%s/app", root);
    check(mkdir(p, 0700) == 0);
    put("secret.py", "SECRET");
    put("root/cfg", "CONFIG");
    put("root/ok.py", "OK-top");
    put("root/app/ok.py", "OK-app");
    link_to("../../secret.py", "root/app/up.py");
    snprintf(abs, sizeof abs, "%s/secret.py", base);
    link_to(abs, "root/app/abs.py");
    link_to("../cfg", "root/app/leak.py");
    link_to("../..", "root/app/out");
    link_to("app", "root/lib");
    link_to("loop.py", "root/app/loop.py");
    snprintf(p, sizeof p, "%s/app/fifo.py", root);
    check(mkfifo(p, 0600) == 0);
    snprintf(tos[0], sizeof tos[0], "%s", root);
    snprintf(tos[1], sizeof tos[1], "%s/app", root);
    snprintf(tos[2], sizeof tos[2], "%s/lib/", root);
    atexit(remove_tree);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!base[0])
        build_tree();
    if (size < 1)
        return 0;
    uint8_t how = data[0];
    const char *rest = (const char *)data + 1;
    size_t n = size - 1;
    const char *nl = memchr(rest, '\n', n);
    size_t flen = nl ? (size_t)(nl - rest) : 0;
    if (memchr(rest, '=', flen) || memchr(rest, '\0', flen))
        return 0; /* the option parser would split FROM there */
    tfmt_str path = {nl ? nl + 1 : rest, nl ? n - flen - 1 : n};
    const char *to = tos[(how >> 2) % 3];
    char map[1024];
    const char *maps[1] = {map};
    bool use_map = (how & 2) && flen > 0 && flen < 512;
    snprintf(map, sizeof map, "%.*s=%s", (int)flen, rest, to);
    conv_source_opts o = {(how & 1) ? root : NULL, maps, use_map ? 1 : 0,
                          false};
    if (!o.root && !o.nmaps)
        o.root = root; /* never the unconfined recorded path here */
    if (how & 16)
        setenv("TACHYON_NO_OPENAT2", "1", 1);
    else
        unsetenv("TACHYON_NO_OPENAT2");
    conv_source s;
    check(conv_source_find(&s, &o, path) == CLI_EXIT_OK);
    if (s.text) {
        check((s.len == 6 && memcmp(s.text, "OK-top", 6) == 0) ||
              (s.len == 6 && memcmp(s.text, "OK-app", 6) == 0));
        check(s.origin != NULL);
        bool under_root = o.root && strncmp(s.origin, root, strlen(root)) == 0;
        bool under_to = o.nmaps && strncmp(s.origin, to, strlen(to)) == 0;
        check(under_root || under_to);
    } else {
        check(s.note[0] != '\0');
    }
    conv_source_free(&s);
    return 0;
}
