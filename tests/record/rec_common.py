# SPDX-License-Identifier: MIT
"""Shared pieces of the tachyon-record tests: the decoded log, checks that
collect failures, a CPU hog, the toolkit's own tools on a log.

Every check script runs under the CPython being tested (record_test.sh
picks it), prints FAIL lines and ends with "N passed, N failed".
"""
import contextlib
import json
import os
import subprocess
import sys

HAS_GIL, ON_CPU, UNKNOWN, GIL_REQUESTED = 1, 2, 4, 8
HAS_EXCEPTION, MAIN_THREAD = 16, 32
MODES = {"wall": 0, "cpu": 1, "gil": 2, "exception": 4}
FEATURES = {"all_threads": 1, "native": 2, "gc": 4, "opcodes": 8}

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)
    return cond


def finish():
    """Print the verdict line and return the exit code."""
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


def config_word(mode="wall", all_threads=False, gc=True, native=False,
                opcodes=False):
    """The header's profiling config word CPython writes (spec 1.9)."""
    f = ((FEATURES["all_threads"] if all_threads else 0) |
         (FEATURES["native"] if native else 0) |
         (FEATURES["gc"] if gc else 0) |
         (FEATURES["opcodes"] if opcodes else 0))
    return (MODES[mode] + 1) | 8 | f << 4


def parse_dump(text):
    """record_dump's text: info and stats dicts, samples as (tid, status,
    weight, stack root first of (func, file, line, end, col, endcol[,
    opcode]))."""
    info, stats, samples = {}, {}, []
    # lines end at \n only: a name may hold U+2028, which splitlines
    # would take for a line end
    for line in text.split("\n"):
        if not line:
            continue
        head, *frames = line.split("\t")
        words = head.split()
        if words[0] in ("info", "stats"):
            target = info if words[0] == "info" else stats
            target.update(w.split("=", 1) for w in words[1:])
            continue
        tid, status, weight, depth = map(int, words[1:5])
        stack = []
        for fr in frames:
            func, rest = fr.split("@", 1)
            path, *nums = rest.rsplit(":", 5)
            stack.append((func, path, *map(int, nums)))
        assert len(stack) == depth
        samples.append((tid, status, weight, stack))
    return info, stats, samples


def decode(dump, path, must=True):
    """Decode a log with record_dump; (info, stats, samples) or None (a
    failed check too, unless must is False)."""
    p = subprocess.run([dump, path], capture_output=True, encoding="utf-8",
                       errors="replace")
    if p.returncode != 0:
        check(not must, f"record_dump {path}: exit {p.returncode}: {p.stderr}")
        return None
    return parse_dump(p.stdout)


def share(samples, pred):
    """Weighted share of samples for which pred(sample) holds."""
    total = sum(w for _, _, w, _ in samples)
    return sum(s[2] for s in samples if pred(s)) / max(total, 1)


def names(sample):
    return [f[0] for f in sample[3]]


@contextlib.contextmanager
def cpu_hog(enabled=True):
    """One process spinning on a CPU for the duration, as the issue's
    loaded-machine case: the recorder must still sample on time."""
    if not enabled:
        yield
        return
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        hog.kill()
        hog.wait()


def record(recorder, out, args, target=None, pid=None, timeout=60,
           capture=False):
    """Run tachyon-record; returns the CompletedProcess."""
    cmd = [recorder, "-q", "-f", "-o", out] + list(args)
    cmd += ["-p", str(pid)] if pid else ["--"] + list(target)
    return subprocess.run(cmd, timeout=timeout, capture_output=capture,
                          encoding="utf-8" if capture else None)


def load_avg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def toolkit_checks(path, validate=None, conv=None,
                   formats=("jsonl", "collapsed", "bin")):
    """The toolkit's own tools accept the log."""
    if validate:
        p = subprocess.run([validate, "--strict", path])
        check(p.returncode == 0, f"tachyon-validate exit {p.returncode}")
    outs = {}
    for fmt in formats if conv else ():
        out = f"{path}.{fmt}"
        p = subprocess.run([conv, "--to", fmt, "-f", "-o", out, path])
        check(p.returncode == 0 and os.path.getsize(out) > 0,
              f"tachyon-conv --to {fmt} exit {p.returncode}")
        outs[fmt] = out
    return outs


def tool_args(ap):
    """The options every check script takes."""
    ap.add_argument("--recorder", required=True)
    ap.add_argument("--dump", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--validate")
    ap.add_argument("--conv")


def cpython_reader():
    """The Pyodide package folder holding CPython 3.15's own reader
    (scripts/get-cpython-reader.sh), and node; None when either is
    missing."""
    import shutil
    pyo = os.environ.get("TACHYON_PYODIDE") or os.path.expanduser(
        "~/.cache/tachyon/cpython-reader/node_modules/pyodide")
    if not shutil.which("node") or not os.path.exists(
            os.path.join(pyo, "pyodide.mjs")):
        return None
    return pyo


def cpython_collapsed(logs, conv, scratch):
    """Read uncompressed logs with CPython 3.15's reader and collapsed
    collector; each must replay its declared samples and give the bytes
    tachyon-conv --to collapsed gives. Skipped (with a message) without
    the reader."""
    pyo = cpython_reader()
    if pyo is None or not conv:
        print("CPython's reader: skipped (no node, no Pyodide; "
              "scripts/get-cpython-reader.sh installs it)")
        return
    here = os.path.dirname(os.path.abspath(__file__))
    p = subprocess.run(["node", os.path.join(here, "cpython_reader.mjs"),
                        pyo, scratch, "collapsed"] + list(logs),
                       capture_output=True, encoding="utf-8", timeout=300)
    if not check(p.returncode == 0, f"cpython_reader.mjs: {p.stderr[-500:]}"):
        return
    res = json.loads(p.stdout.strip().splitlines()[-1])
    for log, r in zip(logs, res["results"]):
        name = os.path.basename(log)
        if not check("error" not in r, f"CPython {res['python']}: {name}: "
                     f"{r.get('error')}"):
            continue
        ours = os.path.join(scratch, name + ".tachyon.collapsed")
        subprocess.run([conv, "-q", "-f", "--to", "collapsed", "-o", ours,
                        log], check=True)
        with open(ours, "rb") as a, \
                open(os.path.join(scratch, name + ".collapsed"), "rb") as b:
            same = a.read() == b.read()
        print(f"CPython {res['python']}'s reader: {name}: "
              f"{r['replayed']} of {r['info']['sample_count']} samples "
              f"replayed, collapsed {'equal to' if same else 'DIFFERS from'}"
              f" tachyon-conv's")
        check(same and r["replayed"] == r["info"]["sample_count"],
              f"CPython's reader on {name}")
