#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hostile_test.py - issue 14's hostile and interrupted runs, and issue
22's security review, as regression tests: crafted inputs (gen_hostile,
made on the spot) against every tool with its resources bounded, real
signals against runs writing -o, a tree of links out of a source root,
names that try to forge report lines, -o through /dev/stdout.

usage: hostile_test.py CASE    (CASE: see CASES at the end; "all" runs all)

Environment: TOOLS_DIR (the tools), GEN (gen_hostile), TACHYON_GEN and
DIFF_GEN (bench generators), TESTDATA, SANITIZED (non-empty: a sanitizer
build, so memory is not measured). Each tool runs with a file-size limit
(RLIMIT_FSIZE: a spool past it fails with "File too large" instead of
filling the disk) and a time limit (a hang guard, not a measurement).
"""
import glob
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.dom.minidom

TOOLS = os.path.abspath(os.environ.get("TOOLS_DIR", "build/tools"))
GEN = os.path.abspath(os.environ.get("GEN",
                                     "build/tests/hostile/gen_hostile"))
TACHYON_GEN = os.path.abspath(os.environ.get("TACHYON_GEN",
                                             "build/bench/tachyon-gen"))
DIFF_GEN = os.path.abspath(os.environ.get("DIFF_GEN",
                                          "build/bench/tachyon-diff-gen"))
SANITIZED = bool(os.environ.get("SANITIZED"))
MIB = 1 << 20
# Peak RSS every tool must stay under on these inputs (issue 14: 256 MB).
RSS_MAX = 256 * MIB

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)
    return ok


def tool(name):
    return os.path.join(TOOLS, "tachyon-" + name)


class Result:
    def __init__(self, code, err, rss, secs):
        self.code, self.err, self.rss, self.secs = code, err, rss, secs


def run(args, cwd, env=None, fsize=64 * MIB, timeout=None, stdin=None):
    """Run args with a file-size limit; exit code, stderr, peak RSS."""
    def limits():
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        # past the limit write() fails with EFBIG instead of killing
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    if timeout is None:
        timeout = 600 if SANITIZED else 120
    with tempfile.TemporaryFile() as err:
        start = time.monotonic()
        p = subprocess.Popen(args, cwd=cwd, env=env, stdin=stdin,
                             stdout=subprocess.DEVNULL, stderr=err,
                             preexec_fn=limits)
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > timeout:
                p.kill()
                pid, status, usage = os.wait4(p.pid, 0)
                check(False, "%s: still running after %d s" %
                      (" ".join(args), timeout))
                break
            time.sleep(0.005)
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    return Result(p.returncode, text, usage.ru_maxrss * 1024,
                  time.monotonic() - start)


def expect(res, code, pattern, what):
    """Exit code, a stderr line matching `pattern`, RSS bound."""
    line = next((l for l in res.err.splitlines() if re.search(pattern, l)),
                None)
    check(res.code == code, "%s: exit %d, want %d; stderr: %s" %
          (what, res.code, code, res.err.strip()[:400]))
    check(line is not None, "%s: no stderr line matches %r; stderr: %s" %
          (what, pattern, res.err.strip()[:400]))
    if not SANITIZED:
        check(res.rss < RSS_MAX, "%s: peak RSS %.1f MB" %
              (what, res.rss / MIB))
    print("ok   %-58s %6.2f s %6.1f MB  %s" %
          (what, res.secs, res.rss / MIB, (line or "")[:90]))


def gen(case, path, mib=None):
    args = [GEN, case, path] + ([str(mib)] if mib is not None else [])
    subprocess.run(args, check=True)
    return path


# ---- item 2: check before copy, decompression caps, ignorable JSONL ----

def case_refuse_early(d):
    """Non-Tachyon streams fail at once, before anything is spooled:
    TMPDIR does not exist, so any temporary file would be an error. (One
    random stream in 50 starts with '{' or blank space and is refused as
    bad JSONL instead, as fast.)"""
    env = dict(os.environ, TMPDIR=os.path.join(d, "missing"))
    # The same words in every tool (validate adds its rule ids); random
    # bytes may also start like text (about one stream in 50).
    magic = r"(: byte 0: (TV202: )?invalid magic number: 0x|: (TV003: )?" \
            r"not a Tachyon profile \(|:1: TV10\d: )"
    for dev in ("/dev/zero", "/dev/urandom"):
        res = run([tool("validate"), dev], d, env, fsize=MIB)
        expect(res, 1, "^tachyon-validate: " + dev + magic, "validate " + dev)
        res = run([tool("conv"), dev], d, env, fsize=MIB)
        expect(res, 1, "^tachyon-conv: " + dev + magic, "conv " + dev)
        res = run([tool("diff"), dev, dev], d, env, fsize=MIB)
        expect(res, 1, "^tachyon-diff: " + dev + magic, "diff " + dev)
    with open("/dev/urandom", "rb") as rnd:
        res = run([tool("conv"), "-"], d, env, fsize=MIB, stdin=rnd)
    expect(res, 1, "^tachyon-conv: <stdin>" + magic, "conv - < /dev/urandom")
    check(not os.listdir(d), "files left in the scratch dir: %s" %
          os.listdir(d))


RATIO = r"exceeds 1000 times its compressed size \(max input ratio\)"


def case_bombs(d):
    """A 96 KiB zstd file (3 GiB decompressed) and a log whose zstd sample
    region expands 3 GiB: a ratio error after at most 256 MiB."""
    whole = gen("whole-bomb", os.path.join(d, "bomb.bin.zst"), 3072)
    region = gen("region-bomb", os.path.join(d, "region.bin"), 3072)
    clean = gen("clean", os.path.join(d, "clean.bin"))
    fs = 300 * MIB  # the spool may take the 256 MiB before the ratio check
    res = run([tool("validate"), whole], d, fsize=fs)
    expect(res, 1, r"bomb.bin.zst: byte \d+: TV005: decompressed input " +
           RATIO, "validate whole-file bomb")
    res = run([tool("conv"), whole], d, fsize=fs)
    expect(res, 1, r"^tachyon-conv: .*bomb.bin.zst: byte \d+: "
           r"decompressed input " + RATIO, "conv whole-file bomb")
    res = run([tool("diff"), clean, whole], d, fsize=fs)
    expect(res, 1, r"^tachyon-diff: .*bomb.bin.zst: byte \d+: "
           r"decompressed input " + RATIO, "diff whole-file bomb")
    res = run([tool("validate"), region], d, fsize=MIB)
    expect(res, 1, r"region.bin: byte \d+: TV005: decompressed sample data "
           + RATIO, "validate region bomb")
    res = run([tool("conv"), "--to", "bin", "-o", "out.bin", region], d,
              fsize=MIB)
    expect(res, 1, r"^tachyon-conv: .*region.bin: byte \d+: decompressed "
           r"sample data " + RATIO, "conv --to bin region bomb")
    res = run([tool("diff"), region, clean], d, fsize=MIB)
    expect(res, 1, "region.bin: byte \\d+: decompressed sample data " +
           RATIO, "diff region bomb")
    # the options: a size cap instead, and both off (then the file-size
    # limit of this test stops the spool: the caps were what did it)
    res = run([tool("validate"), "--max-input-ratio", "0",
               "--max-input-size", "64M", whole], d, fsize=fs)
    expect(res, 1, r"TV005: decompressed input exceeds the max input size "
           r"\(64 MiB\)", "validate --max-input-size 64M")
    res = run([tool("conv"), "--max-input-ratio", "0", "--max-input-size",
               "0", whole], d, fsize=32 * MIB)
    expect(res, 2, r"File too large", "conv with both limits off")
    res = run([tool("diff"), "--max-input-size", "12X", clean, clean], d)
    expect(res, 2, r"invalid --max-input-size '12X'", "diff bad option")
    check(sorted(os.listdir(d)) == ["bomb.bin.zst", "clean.bin",
                                    "region.bin"],
          "files left: %s" % os.listdir(d))


def case_ignorable(d):
    """Records of an unknown type: skipped on the fast path; a 300 MiB
    export of them is over the ratio limit, a 64 MiB one (16 MiB in a
    sanitizer build) reads fine, and diff skips them as quietly as validate
    without -v does (notes are validate's, TV140)."""
    small = gen("ignorable", os.path.join(d, "small.jsonl.zst"),
                16 if SANITIZED else 64)
    res = run([tool("validate"), "--max-input-size", "8M", small], d)
    expect(res, 1, r"small.jsonl.zst:\d+: TV005: decompressed input exceeds "
           r"the max input size \(8 MiB\)", "validate --max-input-size 8M")
    res = run([tool("validate"), "-v", small], d)
    expect(res, 0, r"small.jsonl.zst:4: note: TV140: unknown record type "
           r"\"x_annotation\" ignored", "validate 64 MiB of ignorable")
    res = run([tool("diff"), small, small], d)
    check(res.code == 0, "diff 64 MiB of ignorable records: exit %d; "
          "stderr: %s" % (res.code, res.err.strip()[:400]))
    check(res.err.count("unknown record type") == 0,
          "diff: no unknown-type warning, got %d" %
          res.err.count("unknown record type"))
    if SANITIZED:
        return  # 256 MiB of JSONL through the sanitizers takes minutes
    big = gen("ignorable", os.path.join(d, "big.jsonl.zst"), 300)
    res = run([tool("validate"), big], d)
    expect(res, 1, r"big.jsonl.zst:\d+: TV005: decompressed input " + RATIO,
           "validate 300 MiB of ignorable records")
    res = run([tool("diff"), big, small], d)
    expect(res, 1, r"big.jsonl.zst:\d+: TV005: decompressed input " + RATIO,
           "diff 300 MiB of ignorable records")


# ---- issue 22, items 6 and 8: no JSONL line costs more than a multiple ----

# What reading one line may cost (docs/limits.md): the line, its decoded
# strings, its entries and the names of its unknown members, at most
# LINE_COST times the line; a tool that builds a profile (conv) or flat
# tables (diff) adds those tables, bounded by what the line defines:
# TABLES_COST times the line in all. Plus a fixed BASE for the program.
LINE_COST = 2.5
TABLES_COST = 4.0
BASE = 24 * MIB

# A value of about 64 MiB (the line limit) where readers skip it, and
# big valid records (gen_jsonl_lines.c names them).
JSONL_LINES = [
    "arrays-member", "arrays-entry", "arrays-unknown", "deep-member",
    "deep-entry", "string-member", "escapes-entry", "members-member",
    "members-names", "numbers-member", "numbers-entry", "strings-record",
    "value-record", "frames-record",
]


def longest_line(path):
    with open(path, "rb") as f:
        return max(len(line) for line in f)


def bounded(res, what, cost, line):
    """Exit 0 and peak RSS within cost * line + BASE."""
    limit = cost * line + BASE
    check(res.code == 0, "%s: exit %d; stderr: %s" %
          (what, res.code, res.err.strip()[:400]))
    if not SANITIZED:
        check(res.rss <= limit, "%s: peak RSS %.1f MB, over %.1f MB (%.1f "
              "times the %.1f MiB line + %d MiB)" %
              (what, res.rss / MIB, limit / MIB, cost, line / MIB,
               BASE // MIB))
    print("ok   %-58s %6.2f s %6.1f MB  %.2f x the line" %
          (what, res.secs, res.rss / MIB, res.rss / line))


def jsonl_line(d, name, mib, small, with_diff):
    """validate, conv (and diff) on one line; diff reads JSONL with the
    same reader as the others, so only some lines run it."""
    path = gen("jsonl-" + name, os.path.join(d, name + ".jsonl"), mib)
    line = longest_line(path)
    tables = TABLES_COST if name.endswith("-record") else LINE_COST
    bounded(run([tool("validate"), path], d), "validate " + name,
            LINE_COST, line)
    bounded(run([tool("conv"), "-o", os.devnull, path], d),
            "conv " + name, tables, line)
    if with_diff:
        bounded(run([tool("diff"), small, path], d), "diff " + name,
                tables, line)
    os.unlink(path)


def case_jsonl_lines(d):
    """The line of issue 22 (8.4 MB, 2.8 million empty arrays in an
    unknown member: 426 MB in validate and conv before), then lines at
    the 64 MiB limit (16 MiB in a sanitizer build) holding many empty
    arrays, deep arrays, long strings, many members or many numbers, in an
    unknown member of a known record, in one of its entries or in a
    record of an unknown type, and big valid records: each costs at most
    a stated multiple of its length."""
    small = gen("jsonl-arrays-member", os.path.join(d, "small.jsonl"), 0)
    jsonl_line(d, "arrays-member", 8, small, True)
    for name in JSONL_LINES:
        jsonl_line(d, name, 16 if SANITIZED else 64, small,
                   name.endswith("-record") or name == "arrays-member")


# ---- item 4: interruptions leave nothing behind ----

def temp_exists(d, out, pid, named):
    """The run's temporary output: PATH.tmp.XXXXXX, or (O_TMPFILE) an open
    file of the tool in `d` that has no name ("d/#123 (deleted)")."""
    if named:
        return bool(glob.glob(os.path.join(d, out + ".tmp.*")))
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return False
    for fd in fds:
        try:
            link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if link.startswith(d + "/#") and link.endswith("(deleted)"):
            return True
    return False


def interrupt(d, args, out, sig, named, keep):
    """Start `args` writing `out`, catch it with its temporary file open
    (SIGSTOP), send `sig`; afterwards the directory holds only `keep`."""
    env = dict(os.environ)
    env.pop("TACHYON_NO_TMPFILE", None)
    if named:
        env["TACHYON_NO_TMPFILE"] = "1"
    what = "%s -o %s, %s, %s temporary file" % (
        os.path.basename(args[0]), out, signal.Signals(sig).name,
        "named" if named else "anonymous")
    for attempt in range(8):
        p = subprocess.Popen(args, cwd=d, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        seen = False
        while p.poll() is None and not seen:
            seen = temp_exists(d, out, p.pid, named)
        if seen:
            os.kill(p.pid, signal.SIGSTOP)
            seen = p.poll() is None and temp_exists(d, out, p.pid, named)
        if not seen:    # it finished first: try again
            os.kill(p.pid, signal.SIGCONT) if p.poll() is None else None
            p.wait()
            if os.path.exists(os.path.join(d, out)):
                os.unlink(os.path.join(d, out))
            continue
        os.kill(p.pid, sig)
        os.kill(p.pid, signal.SIGCONT)
        code = p.wait(timeout=60)
        left = sorted(set(os.listdir(d)) - set(keep))
        ok = check(code == -sig, "%s: exit %d, want death by the signal" %
                   (what, code))
        if check(not left, "%s: left %s" % (what, left)) and ok:
            print("ok   %-58s (attempt %d)" % (what, attempt + 1))
        return
    check(False, "%s: never caught with its temporary file open" % what)


def case_interrupt(d):
    """SIGINT, SIGTERM and SIGHUP (and SIGKILL where the file has no name)
    during conv and diff runs writing -o leave no file behind."""
    region = gen("region-bomb", os.path.join(d, "region.bin"), 3072)
    d1, d2 = os.path.join(d, "d1.bin"), os.path.join(d, "d2.bin")
    for path, seed in ((d1, "1"), (d2, "2")):
        subprocess.run([DIFF_GEN, "big", "-o", path, "--frames", "100000",
                        "--seed", seed], check=True,
                       stdout=subprocess.DEVNULL)
    keep = ["region.bin", "d1.bin", "d2.bin"]
    # conv stays busy decoding the region's empty records, -o open
    conv = [tool("conv"), "--max-input-ratio", "0", "--to", "bin", "-o",
            "out.bin", region]
    diff = [tool("diff"), "-q", "-F", "json", "-o", "out.json.zst", d1, d2]
    for args, out in ((conv, "out.bin"), (diff, "out.json.zst")):
        for named in (False, True):
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                interrupt(d, args, out, sig, named, keep)
        # no handler runs on SIGKILL: only a nameless file leaves nothing
        interrupt(d, args, out, signal.SIGKILL, False, keep)


# ---- item 6: the low items ----

def case_low(d):
    """POP_PUSH beyond the stack, reserved config bits, overflowing
    timestamps, rewrite growth, a match limit, counts near 2^64."""
    pop = gen("pop-beyond", os.path.join(d, "pop.bin"))
    cfg = gen("config-bits", os.path.join(d, "cfg.bin"))
    ts = gen("ts-overflow", os.path.join(d, "ts.bin"))
    clean = gen("clean", os.path.join(d, "clean.bin"))
    res = run([tool("validate"), pop], d)
    expect(res, 0, r"pop.bin: byte 82: warning: TV235: pop count 5 exceeds "
           r"current stack depth 2 \(read as popping all of it, as CPython "
           r"does\)", "validate POP_PUSH beyond the stack")
    res = run([tool("validate"), "--strict", pop], d)
    expect(res, 1, r"TV235", "validate --strict POP_PUSH beyond")
    res = run([tool("conv"), "--to", "collapsed", pop], d)
    expect(res, 0, r"pop.bin: byte 82: warning: pop count 5",
           "conv POP_PUSH beyond the stack")
    res = run([tool("validate"), cfg], d)
    expect(res, 0, r"cfg.bin: byte 60: warning: TV236: reserved bits of the "
           r"profiling config word are set: 0x00100200",
           "validate reserved config bits")
    res = run([tool("validate"), "--strict", cfg], d)
    expect(res, 1, r"TV236", "validate --strict reserved config bits")
    res = run([tool("validate"), ts], d)
    expect(res, 0, r"ts.bin: byte 82: warning: TV237: timestamp "
           r"9223372036854775808 us is past 2\^63-1: the deltas overflow a "
           r"signed clock \(read as unsigned, as CPython does\)",
           "validate overflowing timestamp")
    res = run([tool("validate"), "--strict", ts], d)
    expect(res, 1, r"TV237", "validate --strict overflowing timestamp")
    res = run([tool("conv"), "--to", "gecko", ts], d)
    expect(res, 0, r"ts.bin: byte 82: warning: timestamp "
           r"9223372036854775808 us is past 2\^63-1",
           "conv --to gecko overflowing timestamp")
    twenty = ["--rewrite=(.+)=>$1$1"] * 20
    res = run([tool("conv"), "--to", "collapsed"] + twenty + [clean], d)
    expect(res, 2, r"pattern '\(\.\+\)=>\$1\$1': rewritten name longer "
           r"than 65536 bytes", "conv chained --rewrite")
    res = run([tool("diff")] + twenty + [clean, clean], d)
    expect(res, 2, r"rewritten name longer than 65536 bytes",
           "diff chained --rewrite")
    slow = ["--rewrite", "^main$=>" + "a" * 40 + "b", "--exclude",
            "^(a+)+$"]
    res = run([tool("conv"), "--to", "collapsed"] + slow + [clean], d)
    expect(res, 2, r"pattern '\^\(a\+\)\+\$': match limit exceeded",
           "conv match limit")
    res = run([tool("diff")] + slow + [clean, clean], d)
    expect(res, 2, r"match limit exceeded", "diff match limit")
    big, small = os.path.join(d, "big.jsonl"), os.path.join(d, "small.jsonl")
    top = 2 ** 64 - 2
    jsonl(big, [(top, top)], top)
    jsonl(small, [(1, 1)], 1)
    res = run([tool("diff"), "-F", "csv", "-o", "d.csv", big, small], d)
    expect(res, 0, r"", "diff counts near 2^64")
    with open(os.path.join(d, "d.csv")) as f:
        row = f.read().splitlines()[1].split(",")
    want = str(1 - top)
    check(row[24] == want and row[25] == want,
          "csv delta_samples %s, %s; want %s" % (row[24], row[25], want))
    bad = os.path.join(d, "bad.jsonl")
    jsonl(bad, [(top, top), (top, top)], top)
    res = run([tool("validate"), bad], d)
    expect(res, 1, r"bad.jsonl:4: TV128: self counts add up to at least "
           r"18446744073709551615, more than samples_total "
           r"18446744073709551614", "validate totals that cannot add up")


def jsonl(path, entries, total):
    """A small export: one frame per (self, cumulative) entry."""
    run_id = "0" * 32
    env = '{"type":"%s","v":0,"run_id":"' + run_id + '"'
    frames = ",".join('{"frame_id":%d,"path_str_id":0,"func_str_id":%d,'
                      '"line":1}' % (i, i + 1) for i in range(len(entries)))
    strings = ",".join('{"str_id":%d,"value":"f%d"}' % (i + 1, i)
                       for i in range(len(entries)))
    aggs = ",".join('{"frame_id":%d,"self":%d,"cumulative":%d}' % (i, s, c)
                    for i, (s, c) in enumerate(entries))
    lines = [env % "meta" + ',"sample_interval_usec":1000}',
             env % "string_table" + ',"strings":[{"str_id":0,"value":'
             '"a.py"},' + strings + ']}',
             env % "frame_table" + ',"frames":[' + frames + ']}',
             env % "agg" + ',"kind":"frame","scope":"final","samples_total":'
             '%d,"entries":[%s]}' % (total, aggs),
             env % "end" + ',"samples_total":%d}' % total]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# ---- issue 22: a security review's holes ----

def frames(path, pairs, n=1):
    """A log whose frame i names pairs[i] = (file, func) (gen_hostile)."""
    args = [GEN, "frames", path, str(n)]
    for f, fn in pairs:
        args += [f, fn]
    subprocess.run(args, check=True)
    return path


def capture(args, cwd, env=None, stdin=None):
    """Run args (bounded as run() is); (exit code, stdout, stderr) bytes."""
    def limits():
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * MIB, 64 * MIB))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    p = subprocess.run(args, cwd=cwd, env=env, stdin=stdin,
                       capture_output=True, preexec_fn=limits,
                       timeout=600 if SANITIZED else 120)
    return p.returncode, p.stdout, p.stderr


SECRETS = (b"s3cret-settings", b"root:x:0:", b"TOKEN-git")


def source_tree(d):
    """The issue's tree: a root with links out of it, a secret beside it,
    and a checkout's .git/config (where CI keeps a token) inside it."""
    root = os.path.join(d, "root")
    for sub in ("app", ".git", "usr/lib64/python3.15"):
        os.makedirs(os.path.join(root, sub))
    os.makedirs(os.path.join(d, "secret"))
    with open(os.path.join(d, "secret", "settings.py"), "w") as f:
        f.write('TOKEN = "s3cret-settings"\n')
    with open(os.path.join(root, ".git", "config"), "w") as f:
        f.write("[http]\n\textraheader = AUTHORIZATION: basic TOKEN-git\n")
    with open(os.path.join(root, "app", "ok.py"), "w") as f:
        f.write("print('ok')\n")
    with open(os.path.join(root, "usr/lib64/python3.15/venv.py"), "w") as f:
        f.write("print('venv')\n")
    os.symlink("/etc/passwd", os.path.join(root, "app", "link.py"))
    os.symlink("../../secret", os.path.join(root, "app", "dirlink"))
    os.symlink("../.git/config", os.path.join(root, "app", "leak.py"))
    os.symlink(os.path.join(d, "secret", "settings.py"),
               os.path.join(root, "app", "abs.py"))
    os.symlink("lib64", os.path.join(root, "usr", "lib"))
    return root


def pages_hold_secret(out):
    found = []
    for name in sorted(os.listdir(out)):
        with open(os.path.join(out, name), "rb") as f:
            text = f.read()
        found += ["%s: %s" % (name, s.decode()) for s in SECRETS if s in text]
    return found


def read_from(out):
    """'source read from X' of every page, and the pages' notes."""
    said = []
    for name in sorted(os.listdir(out)):
        with open(os.path.join(out, name), encoding="utf-8") as f:
            said += re.findall(r"source read from ([^<]*)", f.read())
    return said


def case_source_root(d):
    """Issue 22, item 1: with --source-root or --path-map nothing outside
    the root is read: not through '..', a link to a file or a folder
    outside, an absolute path, nor a link named *.py to a file that is not
    a Python source (.git/config); a link that stays inside (a venv's
    lib64) is followed, and /ci/build/app/ok.py is still found as
    app/ok.py. Without openat2 (the realpath fallback) the same."""
    root = source_tree(d)
    secret = os.path.join(d, "secret", "settings.py")
    log = frames(os.path.join(d, "p.bin"), [
        ("/ci/../../secret/settings.py", "f1"),
        ("../secret/settings.py", "f2"),
        ("app/link.py", "f3"),
        ("app/dirlink/settings.py", "f4"),
        (secret, "f5"),
        ("app/leak.py", "f6"),
        ("app/abs.py", "f7"),
        ("/ci/build/app/ok.py", "f8"),
        ("/usr/lib/python3.15/venv.py", "f9")])
    runs = [("--source-root", ["--source-root", "."]),
            ("--path-map", ["--path-map", "/ci/build=.", "--path-map",
                            "app=app", "--path-map", "/usr=usr",
                            "--path-map", "/=."])]
    for no_openat2 in ("", "1"):
        env = dict(os.environ, TACHYON_NO_OPENAT2=no_openat2)
        for what, opts in runs:
            out = os.path.join(d, "hm%s%s" % (what, no_openat2))
            code, _, err = capture([tool("conv"), "-q", "--to", "heatmap",
                                    "-o", out] + opts + [log], root, env)
            label = "heatmap %s%s" % (what, " (no openat2)"
                                      if no_openat2 else "")
            check(code == 0, "%s: exit %d: %s" % (label, code, err[:300]))
            leaks = pages_hold_secret(out)
            check(not leaks, "%s: read outside the root: %s" %
                  (label, leaks))
            said = read_from(out)
            want = ["./app/ok.py", "./usr/lib/python3.15/venv.py"]
            if what == "--path-map":
                want = ["./app/ok.py", "usr/lib/python3.15/venv.py"]
            check(sorted(said) == sorted(want), "%s: read %s, want %s" %
                  (label, said, want))
            print("ok   %-58s read only %s" % (label, ", ".join(said)))
    # without a root the recorded paths are read, but only a regular file
    # whose resolved name is a Python source: not the links to
    # /etc/passwd and .git/config
    out = os.path.join(d, "hm-none")
    code, _, err = capture([tool("conv"), "-q", "--to", "heatmap", "-o", out,
                            log], root)
    leaks = [l for l in pages_hold_secret(out)
             if "s3cret" not in l]  # the absolute path names it: read
    check(code == 0 and not leaks, "heatmap without a root: exit %d, "
          "read %s" % (code, leaks))
    print("ok   %-58s" % "heatmap without a root: no link to a non-source")


# Control bytes that must never reach a text output as they are.
CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|"
                     rb"\xe2\x80[\xa8\xa9]")

# What XML (and the HTML pages) cannot carry; C1 controls are XML's.
NOT_XML = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]|\xef\xbf[\xbe\xbf]")

FORGED = [
    ("x.py", "f\n::error file=x.py,line=1::injected\n"),
    ("y.py", "md\n\n## All clear\n<!--"),
    ("z.py", "esc\x1b[31m\x07\rX\x7f\u009b\u2028\u2029"),
    ("w.py", "=HYPERLINK(\"http://e\")"),
    ("v.py", "nc\ufffe\uffff"),
    ("u.py", "+cmd|' /C calc'!A0"),
    ("t.py", "-2+3"),
    ("s.py", "@SUM(A1)"),
]


def forged_logs(d):
    base = frames(os.path.join(d, "base.bin"), FORGED)
    new = frames(os.path.join(d, "new.bin"), FORGED[::-1], 3)
    return base, new


def lines_ok(what, data, start=None, control=CONTROL):
    """No control byte but the line ends (SGR colours aside); no line a
    forged one; each line starts as `start` says when given."""
    data = re.sub(rb"\x1b\[[0-9;]*m", b"", data)
    check(not control.search(data), "%s: control bytes: %r" %
          (what, control.findall(data)[:5]))
    for line in data.decode("utf-8").splitlines():
        forged = line.startswith("::error file=x.py") or \
            line.startswith("## All") or line.startswith("<!--") or \
            (line.startswith("::") and not what.endswith("github"))
        check(not forged, "%s: a forged line: %r" % (what, line))
        if start is not None:
            check(line == "" or re.match(start, line),
                  "%s: a line out of place: %r" % (what, line))


def case_forge(d):
    """Issue 22, items 4, 7 and 9: names with newlines, ESC, BEL, CR, DEL,
    C1, U+2028/9, XML non-characters or spreadsheet formulas do not forge
    a report line, reach a terminal, break XML or run as a formula."""
    base, new = forged_logs(d)
    code, out, err = capture([tool("diff"), "-F", "markdown", "--min-delta",
                              "0", base, new], d)
    check(code == 0, "diff markdown: exit %d" % code)
    lines_ok("diff -F markdown", out)
    rows = [l for l in out.decode().splitlines() if l.startswith("| ")]
    check(len(rows) == 1 + len(FORGED), "markdown rows: %d" % len(rows))
    for row in rows:
        cells = re.split(r"(?<!\\)\|", row)
        check(len(cells) == 12, "markdown row cells: %d in %r" %
              (len(cells), row))
    check(b"`y.py:md  ## All clear <!--`" in out, "markdown keeps the name "
          "readable in its code span")
    code, out, err = capture([tool("diff"), "--color", "always", "--top",
                              "0", base, new], d)
    lines_ok("diff table", out, r"(VERDICT|[a-z]+ +[-+\d.]|[\w(]|$)")
    check(b"x.py:f\\n::error file=x.py,line=1::injected\\n" in out,
          "table shows the escape")
    code, out, err = capture([tool("diff"), "-F", "csv", base, new], d)
    lines_ok("diff -F csv", out)
    text = out.decode()
    for formula in ('"\'=HYPERLINK(""http://e"")"', '"\'+cmd|\' /C calc\'!A0"',
                    '"\'-2+3"', '"\'@SUM(A1)"'):
        check(formula in text, "csv: %s not quoted as text" % formula)
    check(len(text.splitlines()) == 2 + len(FORGED), "csv lines: %d" %
          len(text.splitlines()))
    code, out, err = capture([tool("conv"), "--to", "top", base], d)
    lines_ok("conv --to top", out, r"(\d+ samples|  self%| +[\d.]+%)")
    for fmt, args in (("svg", [tool("conv"), "--to", "svg", base]),
                      ("diff svg", [tool("diff"), "-F", "svg", base, new])):
        code, out, err = capture(args, d)
        try:
            xml.dom.minidom.parseString(out)
            ok = True
        except Exception as e:  # not well-formed
            ok = str(e)
        check(code == 0 and ok is True, "%s: exit %d, XML: %s" %
              (fmt, code, ok))
        lines_ok(fmt, out, control=NOT_XML)
    code, out, err = capture([tool("conv"), "--to", "html", base], d)
    lines_ok("conv --to html", out, control=NOT_XML)
    code, out, err = capture([tool("diff"), "-F", "html", base, new], d)
    lines_ok("diff html", out, control=NOT_XML)
    print("ok   %-58s" % "diff markdown/table/csv/svg/html, conv top/svg")
    # validate: a JSONL whose unknown record type and field are forged
    bad = os.path.join(d, "forged.jsonl")
    with open(bad, "w") as f:
        f.write('{"type":"meta","v":0,"run_id":"%s","sample_interval_usec":'
                '1000}\n' % ("0" * 32))
        f.write('{"type":"x\\n::error file=x.py,line=1::injected\\u001b[2J'
                '\\u2028","v":0,"run_id":"%s"}\n' % ("0" * 32))
    for fmt in ("text", "github", "junit", "json"):
        code, out, err = capture([tool("validate"), "-v", "--format", fmt,
                                  bad], d)
        lines_ok("validate -f %s (stderr)" % fmt, err, r"tachyon-validate: ")
        if fmt == "github":
            lines_ok("validate -f github", out, r"::(notice|warning|error) ")
        elif fmt == "junit":
            lines_ok("validate -f junit", out, control=NOT_XML)
            xml.dom.minidom.parseString(out)
        elif fmt == "json":
            lines_ok("validate -f json", out)
            json.loads(out)
    print("ok   %-58s" % "validate text/github/junit/json")


# Run a command with /dev a private tmpfs (stdout, stderr, fd as links,
# null a device) and check /dev afterwards: as root, a tool that renamed
# over /dev/stdout or made a file in /dev would damage the machine's.
DEV_SANDBOX = r"""
mount -t tmpfs tmpfs /dev || exit 97
ln -s /proc/self/fd /dev/fd; ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr; mknod -m 666 /dev/null c 1 3
"$@"; status=$?
[ -L /dev/stdout ] || { echo "sandbox: /dev/stdout replaced" >&2; exit 99; }
[ "$(ls -A /dev | wc -l)" = 4 ] || { echo "sandbox: made in /dev:" $(ls -A /dev) >&2; exit 98; }
exit $status
"""


def dev_prefix():
    """[] as a user (who cannot damage /dev); as root a private mount
    namespace with a tmpfs /dev, or None when there is none to be had
    (then the /dev/stdout and /dev checks are skipped)."""
    if os.geteuid() != 0:
        return []
    args = ["unshare", "-m", "sh", "-c", DEV_SANDBOX, "sh"]
    try:
        ok = subprocess.run(args + ["true"], capture_output=True).returncode
    except OSError:
        return None
    return args if ok == 0 else None


def through(prefix, args, d, out, mode):
    """Run args (in the sandbox prefix) with stdout on `out` opened with
    `mode` after b"pre\\n" was written; the exit code and stderr."""
    with open(out, "wb") as f:
        f.write(b"pre\n")
    with open(out, mode) as f:
        p = subprocess.run(prefix + args, cwd=d, stdout=f,
                           stderr=subprocess.PIPE)
    return p.returncode, p.stderr


def case_devices(d):
    """Issue 22, item 5: -o /dev/stdout (and /dev/fd/N, /proc/self/fd/N)
    writes through the inherited descriptor: a redirection to a file gets
    the output, '>>' appends, /dev/stdout is never replaced, no file is
    made in /dev. As root the /dev/stdout and /dev runs happen in a
    private /dev (dev_prefix), so a regression cannot damage the
    machine's."""
    log = gen("clean", os.path.join(d, "clean.bin"))
    want = subprocess.run([tool("conv"), "--to", "collapsed", log],
                          capture_output=True, check=True).stdout
    prefix = dev_prefix()
    paths = ["/dev/fd/1", "/proc/self/fd/1"]
    if prefix is None:
        print("skip -o /dev/stdout and a new file in /dev: root without a "
              "private mount namespace")
    else:
        paths.insert(0, "/dev/stdout")
    out = os.path.join(d, "out.txt")
    for path in paths:
        pre = prefix if path == "/dev/stdout" else []
        for mode in ("wb", "ab"):
            code, err = through(pre, [tool("conv"), "--to", "collapsed",
                                      "--force", "-o", path, log], d, out,
                                mode)
            with open(out, "rb") as f:
                got = f.read()
            expect_bytes = (b"pre\n" + want) if mode == "ab" else want
            check(code == 0 and got == expect_bytes,
                  "-o %s (%s): exit %d, %r; stderr %r" %
                  (path, ">>" if mode == "ab" else ">", code, got[:60],
                   err[:200]))
    # a log patched in place (bin) through the descriptor: the bytes -o
    # FILE gets
    ref = os.path.join(d, "ref.bin")
    subprocess.run([tool("conv"), "--to", "bin", "-o", ref, log], check=True)
    out = os.path.join(d, "out.bin")
    for mode in ("wb", "ab"):
        code, err = through(prefix or [], [tool("conv"), "--to", "bin", "-o",
                                           paths[0], log], d, out, mode)
        with open(out, "rb") as f, open(ref, "rb") as g:
            want_bin = (b"pre\n" if mode == "ab" else b"") + g.read()
            check(code == 0 and f.read() == want_bin,
                  "conv --to bin -o %s (%s): not -o FILE's bytes; %r" %
                  (paths[0], mode, err[:200]))
    if prefix is not None:
        new = "/dev/tachyon-hostile.txt"
        code, _, err = capture(prefix + [tool("conv"), "--to", "collapsed",
                                         "-o", new, log], d)
        check(code == 2 and b"no file is created" in err and
              (prefix or not os.path.exists(new)),
              "a new file in /dev: exit %d, %r" % (code, err))
    left = sorted(set(os.listdir(d)) - {"clean.bin", "out.txt", "out.bin",
                                         "ref.bin"})
    check(not left, "files left: %s" % left)
    print("ok   %-58s" % ("-o " + ", ".join(paths)))


def case_header_bomb(d):
    """Issue 22, item 10: a whole-file bomb whose header puts the tables
    at bytes 81 and 88 is refused from its own numbers (1 MiB in; 35 MiB
    when its header says the 17-byte sample region is zstd), with a 64
    MiB file-size limit standing in for a 64 MB TMPDIR."""
    clean = gen("clean", os.path.join(d, "clean.bin"))
    past = r"decompressed input runs past the (\d+) bytes its header allows"
    for case, limit in (("table-bomb", 2 * MIB), ("table-bomb-zstd",
                                                  64 * MIB)):
        bomb = gen(case, os.path.join(d, case + ".bin.zst"), 3072)
        size = os.path.getsize(bomb)
        check(size < 110 * 1024, "%s: %d bytes" % (case, size))
        res = run([tool("validate"), bomb], d, fsize=limit)
        expect(res, 1, r"%s.bin.zst: byte \d+: TV005: %s" % (case, past),
               "validate " + case)
        res = run([tool("conv"), "--to", "collapsed", bomb], d, fsize=limit)
        expect(res, 1, r"^tachyon-conv: .*%s.bin.zst: byte \d+: %s" %
               (case, past), "conv " + case)
        res = run([tool("diff"), clean, bomb], d, fsize=limit)
        expect(res, 1, past, "diff " + case)
        m = re.search(r"byte (\d+): .*runs past the (\d+)", res.err)
        check(m and m.group(1) == m.group(2) and int(m.group(1)) < limit,
              "%s: located at the bound, under the limit" % case)


def case_flood(d):
    """Hash flooding: keys a file chose so that they all met in one probe
    chain of a table while its hash had no secret (0.1): 200,000 str_ids
    of a JSONL export (tachyon-validate took 31 s on them), and 100,000
    function names of a log (conv about 25 s). Each run must take a small
    part of that: the tables hash with a secret drawn per process."""
    bound = 30 if SANITIZED else 5
    ids = gen("id-flood", os.path.join(d, "ids.jsonl"), 200000)
    names = gen("string-flood", os.path.join(d, "names.bin"), 100000)
    runs = [
        ([tool("validate"), ids], "validate, flooded ids"),
        ([tool("conv"), "--to", "top", ids], "conv --to top, flooded ids"),
        ([tool("conv"), "-o", "ids.out.jsonl", ids], "conv, flooded ids"),
        ([tool("validate"), names], "validate, flooded names"),
        ([tool("conv"), "--to", "collapsed", "-o", "names.txt", names],
         "conv --to collapsed, flooded names"),
        ([tool("conv"), "-o", "names.jsonl", names, names],
         "conv of two logs merged, flooded names"),
        ([tool("diff"), names, names], "diff, flooded names"),
    ]
    for args, what in runs:
        res = run(args, d, timeout=2 * bound)
        ok = res.code == 0 and res.secs < bound
        check(res.code == 0, "%s: exit %d; stderr: %s" %
              (what, res.code, res.err.strip()[:400]))
        check(res.secs < bound, "%s: %.1f s (bound %d s)" %
              (what, res.secs, bound))
        if ok:
            print("ok   %-58s %6.2f s %6.1f MB" % (what, res.secs,
                                                    res.rss / MIB))


CASES = {
    "refuse-early": case_refuse_early,
    "bombs": case_bombs,
    "ignorable": case_ignorable,
    "jsonl-lines": case_jsonl_lines,
    "interrupt": case_interrupt,
    "low": case_low,
    "source-root": case_source_root,
    "forge": case_forge,
    "devices": case_devices,
    "header-bomb": case_header_bomb,
    "flood": case_flood,
}


def main(argv):
    if len(argv) != 2 or (argv[1] not in CASES and argv[1] != "all"):
        print("usage: hostile_test.py CASE|all (%s)" % ", ".join(CASES))
        return 2
    names = list(CASES) if argv[1] == "all" else [argv[1]]
    for name in names:
        d = tempfile.mkdtemp(prefix="hostile-")
        try:
            CASES[name](d)
        finally:
            shutil.rmtree(d, ignore_errors=True)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
