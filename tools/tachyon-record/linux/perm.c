/* SPDX-License-Identifier: MIT */
/*
 * perm.c - the kernel's ptrace access check (kernel/ptrace.c
 * __ptrace_may_access, security/commoncap.c cap_ptrace_access_check,
 * security/yama) as seen from outside, to say which of its rules refused
 * a read and what would let it through. process_vm_readv and
 * /proc/PID/maps are checked in PTRACE_MODE_ATTACH_REALCREDS mode:
 *
 *   - the recorder's real uid and gid must equal the target's real,
 *     effective and saved ones, and the target must be dumpable,
 *   - the target's permitted capabilities must be a subset of the
 *     recorder's,
 *   - Yama: scope 1 admits only descendants, 2 only CAP_SYS_PTRACE, 3
 *     nothing;
 *
 * CAP_SYS_PTRACE overrides the first three (not Yama's 3). Anything else
 * that refuses is a security module or a seccomp filter.
 */
#include "perm.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define YAMA_SCOPE_PATH "/proc/sys/kernel/yama/ptrace_scope"

/* Parse "Uid:\t0\t0\t0\t0" or "CapEff:\t000001ff..." lines into *out. */
static void parse_line(const char *line, perm_status *out, unsigned *seen)
{
    unsigned long a, b, c;
    uint64_t v;
    if (sscanf(line, "Uid: %lu %lu %lu", &a, &b, &c) == 3) {
        out->uid[0] = (uid_t)a;
        out->uid[1] = (uid_t)b;
        out->uid[2] = (uid_t)c;
        *seen |= 1;
    } else if (sscanf(line, "Gid: %lu %lu %lu", &a, &b, &c) == 3) {
        out->gid[0] = (gid_t)a;
        out->gid[1] = (gid_t)b;
        out->gid[2] = (gid_t)c;
        *seen |= 2;
    } else if (sscanf(line, "CapPrm: %" SCNx64, &v) == 1) {
        out->cap_prm = v;
        *seen |= 4;
    } else if (sscanf(line, "CapEff: %" SCNx64, &v) == 1) {
        out->cap_eff = v;
        *seen |= 8;
    }
}

int perm_read_status(const char *path, perm_status *out)
{
    char line[256];
    unsigned seen = 0;
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        parse_line(line, out, &seen);
    fclose(f);
    out->ok = seen == 15;
    return 0;
}

int perm_read_scope(const char *path)
{
    FILE *f = fopen(path, "r");
    int v = -1;
    if (!f)
        return -1;
    if (fscanf(f, "%d", &v) != 1 || v < 0)
        v = -1;
    fclose(f);
    return v;
}

void perm_gather(pid_t pid, bool child, perm_facts *out)
{
    char path[64];
    struct stat st;
    memset(out, 0, sizeof *out);
    perm_read_status("/proc/self/status", &out->self);
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    perm_read_status(path, &out->target);
    out->scope = perm_read_scope(YAMA_SCOPE_PATH);
    out->child = child;
    /* A process that is not dumpable has its /proc files owned by root. */
    snprintf(path, sizeof path, "/proc/%d", (int)pid);
    out->dumpable = !out->target.ok || stat(path, &st) != 0 ||
                    st.st_uid == out->target.uid[1];
}

static bool has_cap(const perm_status *s, int cap)
{
    return (s->cap_eff >> cap) & 1;
}

/* Whether the target's ids all equal the recorder's real ones. */
static bool same_user(const perm_facts *f)
{
    for (int i = 0; i < 3; i++)
        if (f->target.uid[i] != f->self.uid[0] ||
            f->target.gid[i] != f->self.gid[0])
            return false;
    return true;
}

/* Append "; "-separated text to buf. */
static void add(char *buf, size_t len, const char *text)
{
    size_t used = strlen(buf);
    if (used + 1 < len)
        snprintf(buf + used, len - used, "%s%s", used ? "; " : "", text);
}

/* The reasons CAP_SYS_PTRACE would override; returns how many. */
static int rule_reasons(const perm_facts *f, char *buf, size_t len)
{
    char text[160];
    int n = 0;
    if (f->target.ok && !same_user(f)) {
        snprintf(text, sizeof text,
                 "it runs as uid %lu (gid %lu) and tachyon-record as uid "
                 "%lu (gid %lu)",
                 (unsigned long)f->target.uid[1],
                 (unsigned long)f->target.gid[1], (unsigned long)f->self.uid[0],
                 (unsigned long)f->self.gid[0]);
        add(buf, len, text);
        n++;
    }
    if (f->target.ok && (f->target.cap_prm & ~f->self.cap_prm) != 0) {
        snprintf(text, sizeof text,
                 "it holds capabilities tachyon-record lacks "
                 "(%#" PRIx64 ")",
                 f->target.cap_prm & ~f->self.cap_prm);
        add(buf, len, text);
        n++;
    }
    if (!f->dumpable) {
        add(buf, len,
            "it is not dumpable (a set-user-ID program, or "
            "prctl(PR_SET_DUMPABLE, 0))");
        n++;
    }
    return n;
}

/* Without CAP_SYS_PTRACE: every rule that stands in the way. */
static void explain_no_cap(const perm_facts *f, char *buf, size_t len)
{
    rule_reasons(f, buf, len);
    if (f->scope == 2)
        add(buf, len,
            "kernel.yama.ptrace_scope is 2: only a process with "
            "CAP_SYS_PTRACE may read another");
    else if (f->scope == 1 && !f->child)
        add(buf, len,
            "kernel.yama.ptrace_scope is 1: without CAP_SYS_PTRACE only a "
            "COMMAND tachyon-record starts can be read, not -p PID");
    if (f->self.uid[1] == 0)
        add(buf, len,
            "tachyon-record runs as root but without CAP_SYS_PTRACE in its "
            "effective capabilities (as in a default container: docker run "
            "--cap-add SYS_PTRACE)");
    else
        add(buf, len, "tachyon-record has no CAP_SYS_PTRACE");
    add(buf, len,
        f->scope == 2 ? "give it CAP_SYS_PTRACE"
                      : "run it as the target's user or with CAP_SYS_PTRACE");
}

void perm_explain(const perm_facts *f, char *buf, size_t len)
{
    if (len == 0)
        return;
    buf[0] = '\0';
    if (f->scope >= 3) {
        add(buf, len,
            "kernel.yama.ptrace_scope is 3: no process may read another's "
            "memory, whatever its rights, until a reboot");
        return;
    }
    if (!f->self.ok || !has_cap(&f->self, PERM_CAP_SYS_PTRACE)) {
        explain_no_cap(f, buf, len);
        return;
    }
    add(buf, len,
        "tachyon-record has CAP_SYS_PTRACE, so a security module (SELinux, "
        "AppArmor) or a seccomp filter refused it");
}
