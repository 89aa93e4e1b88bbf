/* SPDX-License-Identifier: MIT */
/*
 * test_perm.c - tachyon-record's permission diagnosis (linux/perm.c):
 * /proc/PID/status and ptrace_scope files parsed (crafted ones, and this
 * process's own), and the message for each rule of the kernel's check,
 * chosen by capabilities and Yama, never by the user id alone.
 */
#include <unistd.h>

#include "../unit/harness.h"
#include "perm.h"

#define ALL_CAPS 0x000001ffffffffffull
#define PTRACE_BIT (1ull << PERM_CAP_SYS_PTRACE)

static char scratch[] = "/tmp/test_perm_XXXXXX";
static bool made; /* not strchr(scratch, 'X'): the name mkdtemp picks
                     may hold an X (one run in nine) */
static char path[256];

/* A file holding `text`, in a scratch directory made at the first use
 * (cleanup, the last test, removes them). */
static const char *put(const char *name, const char *text)
{
    if (!made && !mkdtemp(scratch))
        return "/nonexistent/mkdtemp-failed";
    made = true;
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

TEST(status_parsing)
{
    perm_status st;
    const char *p = put("status", "Name:\tpython3\nUid:\t1000\t1001\t1002\t"
                                  "1003\nGid:\t100\t101\t102\t103\n"
                                  "CapInh:\t0000000000000000\n"
                                  "CapPrm:\t00000000a80425fb\n"
                                  "CapEff:\t0000000000080000\n");
    REQUIRE(perm_read_status(p, &st) == 0, "read");
    CHECK(st.ok, "every line found");
    CHECK(st.uid[0] == 1000 && st.uid[1] == 1001 && st.uid[2] == 1002,
          "uids %u %u %u", st.uid[0], st.uid[1], st.uid[2]);
    CHECK(st.gid[0] == 100 && st.gid[2] == 102, "gids");
    CHECK(st.cap_prm == 0xa80425fbull, "CapPrm %llx",
          (unsigned long long)st.cap_prm);
    CHECK(st.cap_eff == PTRACE_BIT, "CapEff %llx",
          (unsigned long long)st.cap_eff);
    p = put("partial", "Uid:\t0\t0\t0\t0\nCapEff:\tffff\n");
    REQUIRE(perm_read_status(p, &st) == 0, "read partial");
    CHECK(!st.ok, "a file without Gid and CapPrm is not ok");
    CHECK(perm_read_status("/nonexistent/status", &st) == -1 && !st.ok,
          "missing file");
    REQUIRE(perm_read_status("/proc/self/status", &st) == 0, "own status");
    CHECK(st.ok && st.uid[1] == geteuid() && st.gid[1] == getegid(),
          "this process's own ids");
}

TEST(scope_parsing)
{
    CHECK(perm_read_scope(put("s0", "0\n")) == 0, "0");
    CHECK(perm_read_scope(put("s1", "1\n")) == 1, "1");
    CHECK(perm_read_scope(put("s3", "3")) == 3, "3 without newline");
    CHECK(perm_read_scope(put("bad", "x\n")) == -1, "garbage");
    CHECK(perm_read_scope(put("neg", "-1\n")) == -1, "negative");
    CHECK(perm_read_scope("/nonexistent/ptrace_scope") == -1, "no Yama");
}

/* Facts: recorder uid `me` with effective caps `eff`, target uid `them`
 * with permitted caps `their_prm`. */
static perm_facts facts(uid_t me, uint64_t eff, uid_t them, uint64_t their_prm,
                        int scope, bool child)
{
    perm_facts f;
    memset(&f, 0, sizeof f);
    f.self.ok = f.target.ok = true;
    for (int i = 0; i < 3; i++) {
        f.self.uid[i] = f.self.gid[i] = me;
        f.target.uid[i] = f.target.gid[i] = them;
    }
    f.self.cap_eff = f.self.cap_prm = eff;
    f.target.cap_prm = their_prm;
    f.scope = scope;
    f.child = child;
    f.dumpable = true;
    return f;
}

static void explain(const perm_facts *f, char *buf)
{
    perm_explain(f, buf, 1024);
    printf("  %s\n", buf);
}

TEST(root_without_cap_sys_ptrace)
{
    char msg[1024];
    /* A default container: root, every capability but CAP_SYS_PTRACE,
     * reading a root process that holds them all. */
    perm_facts f = facts(0, ALL_CAPS & ~PTRACE_BIT, 0, ALL_CAPS, -1, false);
    explain(&f, msg);
    CHECK(strstr(msg, "runs as root but without CAP_SYS_PTRACE") != NULL,
          "root told it lacks CAP_SYS_PTRACE: %s", msg);
    CHECK(strstr(msg, "--cap-add SYS_PTRACE") != NULL, "container hint");
    CHECK(strstr(msg, "holds capabilities tachyon-record lacks (0x80000)"),
          "the missing capability is the reason: %s", msg);
    CHECK(strstr(msg, "runs as uid") == NULL, "no user mismatch claimed");
}

TEST(other_user)
{
    char msg[1024];
    perm_facts f = facts(1000, 0, 1001, 0, 0, false);
    explain(&f, msg);
    CHECK(strstr(msg, "it runs as uid 1001 (gid 1001) and tachyon-record as "
                      "uid 1000 (gid 1000)") != NULL,
          "user mismatch: %s", msg);
    CHECK(strstr(msg, "tachyon-record has no CAP_SYS_PTRACE") != NULL,
          "no capability: %s", msg);
    CHECK(strstr(msg, "root") == NULL, "nothing about root for uid 1000");
    /* The same user, but not dumpable (a set-user-ID program). */
    f = facts(1000, 0, 1000, 0, 0, false);
    f.dumpable = false;
    explain(&f, msg);
    CHECK(strstr(msg, "not dumpable") != NULL && !strstr(msg, "runs as uid"),
          "dumpability: %s", msg);
}

TEST(yama_scopes)
{
    char msg[1024];
    perm_facts f = facts(1000, 0, 1000, 0, 1, false);
    explain(&f, msg);
    CHECK(strstr(msg, "ptrace_scope is 1") && strstr(msg, "not -p PID"),
          "scope 1, -p: %s", msg);
    f.child = true;
    explain(&f, msg);
    CHECK(strstr(msg, "ptrace_scope") == NULL,
          "scope 1 allows a started COMMAND: %s", msg);
    f = facts(1000, 0, 1000, 0, 2, true);
    explain(&f, msg);
    CHECK(strstr(msg, "ptrace_scope is 2") && strstr(msg, "give it "
                                                          "CAP_SYS_PTRACE"),
          "scope 2: %s", msg);
    f = facts(0, ALL_CAPS, 0, ALL_CAPS, 3, true);
    explain(&f, msg);
    CHECK(strstr(msg, "ptrace_scope is 3") && strstr(msg, "whatever its "
                                                          "rights"),
          "scope 3 even with the capability: %s", msg);
}

TEST(with_cap_sys_ptrace)
{
    char msg[1024];
    /* Not root, but with the capability: the kernel's own rules pass, so
     * something else refused. */
    perm_facts f = facts(1000, PTRACE_BIT, 0, ALL_CAPS, 1, false);
    explain(&f, msg);
    CHECK(strstr(msg, "has CAP_SYS_PTRACE") && strstr(msg, "security module"),
          "LSM or seccomp: %s", msg);
    CHECK(strstr(msg, "runs as uid") == NULL, "uid is no reason then");
}

TEST(cleanup)
{
    static const char *const names[] = {"status", "partial", "s0", "s1",
                                        "s3",     "bad",     "neg"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s", scratch, names[i]);
        unlink(path);
    }
    CHECK(!made || rmdir(scratch) == 0, "scratch dir left");
}

TESTS(TCASE(status_parsing), TCASE(scope_parsing),
      TCASE(root_without_cap_sys_ptrace), TCASE(other_user), TCASE(yama_scopes),
      TCASE(with_cap_sys_ptrace), TCASE(cleanup))
