#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hostile_test.py - issue 14's hostile and interrupted runs, as regression
tests: crafted inputs (gen_hostile, made on the spot) against every tool
with its resources bounded, and real signals against runs writing -o.

usage: hostile_test.py CASE    (CASE: see CASES at the end; "all" runs all)

Environment: TOOLS_DIR (the tools), GEN (gen_hostile), TACHYON_GEN and
DIFF_GEN (bench generators), TESTDATA, SANITIZED (non-empty: a sanitizer
build, so memory is not measured). Each tool runs with a file-size limit
(RLIMIT_FSIZE: a spool past it fails with "File too large" instead of
filling the disk) and a time limit (a hang guard, not a measurement).
"""
import glob
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

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


CASES = {
    "refuse-early": case_refuse_early,
    "bombs": case_bombs,
    "ignorable": case_ignorable,
    "interrupt": case_interrupt,
    "low": case_low,
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
