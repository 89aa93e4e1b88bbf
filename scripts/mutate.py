#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mutate.py - mutation testing: do the tests catch small deliberate bugs?

Each mutant of the curated list (tests/mutate/mutants.txt) replaces one
exact snippet of one source file. The runner copies the tree (tracked and
untracked-but-not-ignored files) to a scratch directory, builds it once in
the sanitizer configuration (clang, ASan + UBSan, static library, Debug,
ccache), checks that the fast suite passes there unmutated, then for each
mutant in turn: applies it, rebuilds incrementally, runs the tests named
by the mutant's `tests:` hint and then the rest of the fast suite (both
stopping at the first failure), and puts the file back. A mutant is

  KILLED      a test failed (or timed out): the named test caught it
  SURVIVED    every test passed: a bug the suite cannot see
  STALE       its snippet is not in the file exactly once: fix the list
  BUILD-FAIL  it does not compile: an invalid mutant, fix the list

The score is killed / (killed + survived); the run exits 0 only when
every mutant was killed (STALE and BUILD-FAIL fail it too). Results are
kept per mutant in the scratch directory, keyed by the mutant and a
digest of the tree, so an interrupted run resumes where it stopped and
an unchanged tree is not tested twice.

usage:
  scripts/mutate.py [--only ID,...] [--dir DIR] [--jobs N] [--timeout S]
                    [--fresh] [--list FILE]
  scripts/mutate.py --check [--list FILE]      every snippet matches once
  scripts/mutate.py --generate FILE...         propose candidates by operator

`make mutate` runs the first form (MUTANTS=id,id runs a subset).
"""
import argparse
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST = os.path.join(ROOT, "tests", "mutate", "mutants.txt")
KEYS = ("id", "layer", "op", "file", "find", "replace", "why", "tests",
        "suite")
REQUIRED = ("id", "layer", "op", "file", "find", "replace", "why")
# The fast suite: what a mutant must fail. `mutate` is the list's own
# check, which any applied mutant would fail by construction.
EXCLUDE = "record|clickhouse|package|docs|mutate"
# A mutant with `suite: record` (tachyon-record's memory readers) runs the
# recorder's own suite instead: the record label, which needs the
# interpreters it tests (scripts/build-cpython.sh for 3.14 and 3.14t).
SUITES = {"fast": ["-LE", EXCLUDE], "record": ["-L", "record"]}
CONFIGURE = [
    "-DCMAKE_C_COMPILER=clang", "-DCMAKE_BUILD_TYPE=Debug",
    "-DTACHYON_SANITIZE=address,undefined", "-DBUILD_SHARED_LIBS=OFF",
    "-DCMAKE_C_COMPILER_LAUNCHER=ccache",
    # A mutant may leave a variable unused; that is not a kill.
    "-DTACHYON_WERROR=OFF",
]


# ---- the list ----

class ListError(Exception):
    pass


def parse_list(path):
    """Mutants in file order: blocks of `key: value` lines separated by
    blank lines; `#` starts a comment line. Values are exact (only the
    newline and the one space after the colon are dropped); a line that
    starts with `+` continues the value before it on a new line (the
    rest of the line, as is), for a snippet of several lines."""
    mutants, cur, lineno, last = [], {}, 0, None

    def close():
        if not cur:
            return
        missing = [k for k in REQUIRED if k not in cur]
        if missing:
            raise ListError("%s:%d: mutant %s lacks %s" %
                            (path, lineno, cur.get("id", "?"),
                             ", ".join(missing)))
        mutants.append(dict(cur))
        cur.clear()

    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("#"):
                continue
            if not line.strip():
                close()
                last = None
                continue
            if line.startswith("+"):
                if last is None:
                    raise ListError("%s:%d: a continuation line without a "
                                    "value before it" % (path, lineno))
                cur[last] += "\n" + line[1:]
                continue
            key, sep, value = line.partition(":")
            if not sep or key not in KEYS:
                raise ListError("%s:%d: expected one of %s, got %r" %
                                (path, lineno, "/".join(KEYS), line))
            if key in cur:
                raise ListError("%s:%d: %s given twice" % (path, lineno, key))
            cur[key] = value[1:] if value.startswith(" ") else value
            last = key
        close()
    seen = set()
    for m in mutants:
        if m["id"] in seen:
            raise ListError("%s: mutant id %s twice" % (path, m["id"]))
        seen.add(m["id"])
        if m.get("suite", "fast") not in SUITES:
            raise ListError("%s: mutant %s: suite %r is not one of %s" %
                            (path, m["id"], m["suite"], "/".join(SUITES)))
        if m["find"] == m["replace"]:
            raise ListError("%s: mutant %s changes nothing" % (path, m["id"]))
    return mutants


def stale_reason(m, root):
    """None when the mutant applies to the tree at `root`."""
    path = os.path.join(root, m["file"])
    if not os.path.isfile(path):
        return "no file %s" % m["file"]
    with open(path, encoding="utf-8") as f:
        n = f.read().count(m["find"])
    if n != 1:
        return "snippet found %d times in %s" % (n, m["file"])
    return None


def mutant_key(m):
    return hashlib.sha256(json.dumps(
        [m[k] for k in ("file", "find", "replace")]).encode()).hexdigest()


# ---- the scratch tree ----

def tree_files():
    out = subprocess.run(
        ["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others",
         "--exclude-standard"], check=True, capture_output=True).stdout
    files = [p for p in out.decode().split("\0") if p]
    return sorted(p for p in files if os.path.isfile(os.path.join(ROOT, p)))


def sync_tree(dest, list_path):
    """Copy the tree to dest, touching only files that differ (so the
    scratch build stays incremental); returns the tree's digest."""
    digest = hashlib.sha256()
    files = tree_files()
    skip = os.path.relpath(list_path, ROOT)
    for rel in files:
        src = os.path.join(ROOT, rel)
        with open(src, "rb") as f:
            data = f.read()
        if rel != skip:
            digest.update(rel.encode() + b"\0" + data + b"\0")
        dst = os.path.join(dest, rel)
        try:
            with open(dst, "rb") as f:
                same = f.read() == data
        except OSError:
            same = False
        if not same:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            # copy, not copy2: a copy keeping the source's older mtime
            # would look older than an object the scratch build made
            # since, from the file before, and never be compiled
            shutil.copy(src, dst)
        elif os.stat(src).st_mode != os.stat(dst).st_mode:
            os.chmod(dst, os.stat(src).st_mode)
    gone = set(_walk(dest)) - set(files)
    for rel in gone:
        os.unlink(os.path.join(dest, rel))
    return digest.hexdigest()


def _walk(top):
    for d, _, names in os.walk(top):
        for n in names:
            yield os.path.relpath(os.path.join(d, n), top)


def run(cmd, log, timeout=None, cwd=None):
    """Run cmd with its output appended to `log`; returns (rc, seconds).
    A command still running after `timeout` seconds is killed (rc None)."""
    t0 = time.monotonic()
    with open(log, "a") as out:
        out.write("$ %s\n" % " ".join(cmd))
        out.flush()
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                             cwd=cwd, start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = None
        except BaseException:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            raise
    return rc, time.monotonic() - t0


def build(build_dir, src, jobs, log):
    if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        env_cc = ["env", "CC=clang"]
        rc, _ = run(env_cc + ["cmake", "-S", src, "-B", build_dir] +
                    CONFIGURE, log)
        if rc != 0:
            return False
    rc, _ = run(["cmake", "--build", build_dir, "-j", str(jobs)], log)
    return rc == 0


FAILED_RE = re.compile(r"^\s*\d+ - (\S+) \((.*)\)\s*$")


def ctest(build_dir, log, jobs, timeout, regex=None, stop=True, skip=None,
          suite="fast"):
    """Run the fast suite (only tests matching `regex` when given, none
    matching `skip`).
    Returns (ok, failed_tests, seconds); ok is None when nothing ran."""
    cmd = ["ctest", "--test-dir", build_dir] + SUITES[suite] + [
        "-j", str(jobs), "--timeout", str(timeout), "--no-tests=ignore"]
    if stop:
        cmd.append("--stop-on-failure")
    if regex:
        cmd += ["-R", regex]
    if skip:
        cmd += ["-E", skip]
    start = os.path.getsize(log) if os.path.exists(log) else 0
    rc, secs = run(cmd, log)
    with open(log, errors="replace") as f:
        f.seek(start)
        text = f.read()
    failed = []
    if "The following tests FAILED:" in text:
        section = text.split("The following tests FAILED:", 1)[1]
        for line in section.splitlines()[1:]:
            m = FAILED_RE.match(line)
            if not m:
                break
            failed.append(m.group(1) + ("" if m.group(2) == "Failed" else
                                        " (%s)" % m.group(2)))
    if "No tests were found" in text or re.search(r"\b0 tests failed out "
                                                  r"of 0\b", text):
        return None, [], secs
    if rc != 0 and not failed:
        failed = ["ctest exit %s" % rc]
    return rc == 0, failed, secs


# ---- running the list ----

class Runner:
    def __init__(self, args):
        self.args = args
        self.dir = os.path.abspath(args.dir)
        self.src = os.path.join(self.dir, "src")
        self.bld = os.path.join(self.dir, "build")
        self.res = os.path.join(self.dir, "results")
        for d in (self.src, self.res):
            os.makedirs(d, exist_ok=True)
        # One run at a time in a scratch directory (it edits the copy).
        self.lock = open(os.path.join(self.dir, "lock"), "w")
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            sys.exit("mutate: another run is using %s" % self.dir)

    def say(self, msg):
        print(msg, flush=True)

    def result_path(self, mid):
        return os.path.join(self.res, mid + ".json")

    def cached(self, mid, key):
        try:
            with open(self.result_path(mid)) as f:
                r = json.load(f)
        except (OSError, ValueError):
            return None
        return r if r.get("key") == key and not self.args.fresh else None

    def store(self, mid, result):
        tmp = self.result_path(mid) + ".tmp"
        with open(tmp, "w") as f:
            json.dump(result, f, indent=1)
        os.replace(tmp, self.result_path(mid))

    def prepare(self):
        self.say("mutate: copying the tree to %s" % self.src)
        self.digest = sync_tree(self.src, self.args.list)
        log = os.path.join(self.dir, "build.log")
        open(log, "w").close()
        self.say("mutate: building (clang, ASan + UBSan) in %s" % self.bld)
        if not build(self.bld, self.src, self.args.jobs, log):
            self.say("mutate: the unmutated tree does not build; see %s" % log)
            return False
        key = hashlib.sha256(self.digest.encode() + b"baseline").hexdigest()
        if self.cached("_baseline", key):
            return True
        self.say("mutate: running the fast suite on the unmutated tree")
        log = os.path.join(self.res, "_baseline.log")
        open(log, "w").close()
        ok, failed, secs = ctest(self.bld, log, self.args.jobs,
                                 self.args.timeout, stop=False)
        if not ok:
            self.say("mutate: the unmutated tree fails %s (%s); every "
                     "mutant would look killed" %
                     (", ".join(failed) or "to run tests", log))
            return False
        self.store("_baseline", {"key": key, "status": "PASSED",
                                 "seconds": round(secs)})
        self.say("mutate: baseline passed in %.0f s" % secs)
        return True

    def one(self, m):
        key = hashlib.sha256((self.digest + mutant_key(m)).encode()) \
            .hexdigest()
        hit = self.cached(m["id"], key)
        if hit:
            return hit, True
        why = stale_reason(m, self.src)
        if why:
            return {"status": "STALE", "detail": why}, False
        path = os.path.join(self.src, m["file"])
        with open(path, "rb") as f:
            orig = f.read()
        log = os.path.join(self.res, m["id"] + ".log")
        open(log, "w").close()
        t0 = time.monotonic()
        try:
            mutated = orig.decode().replace(m["find"], m["replace"])
            with open(path, "w", encoding="utf-8") as f:
                f.write(mutated)
            result = self.judge(m, log)
        finally:
            with open(path, "wb") as f:
                f.write(orig)
        result.update(key=key, seconds=round(time.monotonic() - t0))
        self.store(m["id"], result)
        return result, False

    def judge(self, m, log):
        if not build(self.bld, self.src, self.args.jobs, log):
            return {"status": "BUILD-FAIL", "detail": "see " + log}
        a = self.args
        suite = m.get("suite", "fast")
        if m.get("tests"):
            ok, failed, _ = ctest(self.bld, log, a.jobs, a.timeout,
                                  regex=m["tests"], suite=suite)
            if ok is False:
                return {"status": "KILLED", "detail": failed[0]}
        ok, failed, _ = ctest(self.bld, log, a.jobs, a.timeout,
                              skip=m.get("tests"), suite=suite)
        if ok is False:
            return {"status": "KILLED", "detail": failed[0]}
        return {"status": "SURVIVED", "detail": "every test passed"}

    def main(self, mutants):
        stale = [(m, stale_reason(m, ROOT)) for m in mutants]
        if not self.prepare():
            return 2
        rows, t_all = [], time.monotonic()
        for i, m in enumerate(mutants, 1):
            self.say("mutate: [%d/%d] %s (%s, %s)" %
                     (i, len(mutants), m["id"], m["layer"], m["op"]))
            if stale[i - 1][1]:
                r, reused = {"status": "STALE", "detail": stale[i - 1][1]}, \
                    False
            else:
                r, reused = self.one(m)
            rows.append((m, r))
            self.say("  %-10s %s%s" % (r["status"], r.get("detail", ""),
                                       "  (kept from an earlier run)"
                                       if reused else
                                       "  (%s s)" % r.get("seconds", 0)))
        return self.report(rows, time.monotonic() - t_all)

    def report(self, rows, secs):
        count = {}
        for _, r in rows:
            count[r["status"]] = count.get(r["status"], 0) + 1
        killed = count.get("KILLED", 0)
        survived = count.get("SURVIVED", 0)
        self.say("")
        self.say("%-34s %-10s %-10s %s" % ("mutant", "layer", "status",
                                           "detail"))
        for m, r in rows:
            self.say("%-34s %-10s %-10s %s" % (m["id"], m["layer"],
                                               r["status"],
                                               r.get("detail", "")))
        bad = [(m, r) for m, r in rows if r["status"] != "KILLED"]
        if bad:
            self.say("")
            for m, r in bad:
                self.say("%s %s: %s:" % (r["status"], m["id"], m["file"]))
                self.say("    - %s\n    + %s\n    why: %s" %
                         (m["find"], m["replace"], m["why"]))
        scored = killed + survived
        score = 100.0 * killed / scored if scored else 0.0
        self.say("")
        self.say("mutation score: %.1f%% (%d killed, %d survived of %d "
                 "mutants; %d stale, %d build failures) in %.0f s" %
                 (score, killed, survived, len(rows), count.get("STALE", 0),
                  count.get("BUILD-FAIL", 0), secs))
        return 0 if killed == len(rows) else 1


# ---- the candidate generator ----

REL = [("<=", "<"), (">=", ">"), ("==", "!="), ("!=", "=="),
       ("<", "<="), (">", ">="), ("&&", "||"), ("||", "&&")]
ARITH = [(" + ", " - "), (" - ", " + "), (" * ", " / ")]


def code_part(line):
    """The line with string literals and comments blanked out, so an
    operator inside them is not proposed."""
    out, i, q = [], 0, None
    while i < len(line):
        c = line[i]
        if q:
            if c == "\\":
                out.append("  ")
                i += 2
                continue
            out.append(" " if c != q else c)
            if c == q:
                q = None
        elif c in "\"'":
            q = c
            out.append(c)
        elif line.startswith("/*", i) or line.startswith("//", i):
            out.append(" " * (len(line) - i))
            break
        else:
            out.append(c)
        i += 1
    return "".join(out)


def candidates(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.splitlines()
    out, in_comment = [], False
    for no, line in enumerate(lines, 1):
        s = line.strip()
        if in_comment or s.startswith(("/*", "*", "#", "//")):
            in_comment = (in_comment or s.startswith("/*")) and "*/" not in s
            continue
        code = code_part(line)
        for op, kind in _ops(code):
            snippet = s
            if text.count(snippet) != 1:
                continue
            col = code.index(op[0], op[2]) - (len(line) - len(line.lstrip()))
            rep = snippet[:col] + op[1] + snippet[col + len(op[0]):]
            out.append((no, kind, snippet, rep))
        if re.match(r"^(return\b|[a-z_>.\[\]-]+ *(\+\+|--|[-+|&]?=) )", s) \
                and s.endswith(";") and text.count(s) == 1 \
                and not s.startswith("return"):
            out.append((no, "drop-stmt", s, ""))
        m = re.search(r"\b(\w+)\((\w+), (\w+)\)", code)
        if m and m.group(2) != m.group(3) and text.count(s) == 1:
            sw = s.replace(m.group(0), "%s(%s, %s)" % (m.group(1), m.group(3),
                                                       m.group(2)), 1)
            if sw != s:
                out.append((no, "swap-args", s, sw))
        for m in re.finditer(r"(?<![\w.])(\d+)(?![\w.])", code):
            if text.count(s) == 1 and s.count(m.group(1)) == 1:
                out.append((no, "bound+1", s, s.replace(
                    m.group(1), str(int(m.group(1)) + 1))))
    return out


def _ops(code):
    """(operator, replacement, column) and kind for each operator."""
    i = 0
    found = []
    while i < len(code):
        for a, b in REL:
            if code.startswith(a, i):
                prev = code[i - 1] if i else " "
                nxt = code[i + len(a)] if i + len(a) < len(code) else " "
                if a in ("<", ">") and (prev in "-<>" or nxt in "<>="):
                    break
                if a in ("<=", ">=") and prev in "<>":
                    break
                found.append(((a, b, i), "relational"))
                i += len(a) - 1
                break
        i += 1
    for a, b in ARITH:
        j = code.find(a)
        if j >= 0:
            found.append(((a, b, j), "arithmetic"))
    return found


def generate(files):
    for path in files:
        rel = os.path.relpath(os.path.abspath(path), ROOT)
        base = re.sub(r"\W+", "-", os.path.splitext(os.path.basename(rel))[0])
        for no, kind, find, rep in candidates(path):
            print("# %s:%d" % (rel, no))
            print("id: %s-%d-%s" % (base, no, kind))
            print("layer: ?\nop: %s\nfile: %s" % (kind, rel))
            print("find: %s\nreplace: %s\nwhy: ?\n" % (find, rep))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--list", default=LIST)
    p.add_argument("--dir", default=os.path.join(ROOT, "build-mutate"))
    p.add_argument("--only", default=os.environ.get("MUTANTS", ""),
                   help="comma-separated ids (default: $MUTANTS, or all)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=int, default=1500,
                   help="seconds a test may run before it counts as failed")
    p.add_argument("--fresh", action="store_true",
                   help="ignore results kept from earlier runs")
    p.add_argument("--check", action="store_true",
                   help="only check that every snippet matches once")
    p.add_argument("--generate", nargs="+", metavar="FILE")
    a = p.parse_args()
    if a.generate:
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        generate(a.generate)
        return 0
    try:
        mutants = parse_list(a.list)
    except ListError as e:
        print("mutate: %s" % e, file=sys.stderr)
        return 2
    if a.check:
        bad = [(m, stale_reason(m, ROOT)) for m in mutants]
        bad = [(m, why) for m, why in bad if why]
        for m, why in bad:
            print("STALE %s: %s" % (m["id"], why))
        layers = sorted({m["layer"] for m in mutants})
        print("%d mutants, %d stale; layers: %s" %
              (len(mutants), len(bad), ", ".join(layers)))
        return 1 if bad else 0
    # Stopped with SIGTERM as with ^C: the mutated file is put back and
    # the build or ctest under way is ended (Runner.one, run).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if a.only:
        want = [x for x in a.only.split(",") if x]
        ids = {m["id"] for m in mutants}
        unknown = [x for x in want if x not in ids]
        if unknown:
            print("mutate: no mutant %s" % ", ".join(unknown),
                  file=sys.stderr)
            return 2
        mutants = [m for m in mutants if m["id"] in want]
    return Runner(a).main(mutants)


if __name__ == "__main__":
    sys.exit(main())
