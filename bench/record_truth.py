#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""record_truth.py [BUILD_DIR] - how true tachyon-record's profiles are,
measured against programs that measure themselves (the targets of
tests/record): prints Markdown tables.

1. Bias: a main thread spinning 2 ms and sleeping 2 ms (bias_target.py)
   recorded in the default mode, alone and beside one CPU hog, with the
   recorder's own scheduling and with default scheduling
   (TACHYON_RECORD_DEFAULT_SCHED): the share of samples in the busy
   function against the share of wall time the program measured there
   (medians of $RUNS runs, default 3).
2. Only real stacks: stacks_target.py (deep and shallow calls of the same
   frame size changing all the time, four threads) at 5 kHz with every
   thread and a hog, for $STACK_SECONDS seconds (default 20) per version: the
   thread-samples written, the impossible ones among them, the samples
   dropped.

$VERSIONS chooses the interpreters (default 3.11.7 3.12.1 3.13.0, found
as the tests find them: tests/tools/pyenv_python.sh; 3.14.7 and 3.14.7t
too).
"""
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests", "record")
sys.path.insert(0, TESTS)

import check_stacks  # noqa: E402
from rec_common import parse_dump  # noqa: E402


def find_python(ver):
    """The interpreter of CPython `ver` as the tests find it (pyenv, $PY313
    and the like, or scripts/build-cpython.sh's cache), or None."""
    helper = os.path.join(HERE, "..", "tests", "tools", "pyenv_python.sh")
    p = subprocess.run(["sh", helper, ver], capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else None


class Hog:
    def __init__(self, on):
        self.on, self.p = on, None

    def __enter__(self):
        if self.on:
            self.p = subprocess.Popen([sys.executable, "-c",
                                       "while True: pass"])

    def __exit__(self, *exc):
        if self.p:
            self.p.kill()
            self.p.wait()


def decode(build, path):
    out = subprocess.run([os.path.join(build, "tests/record/record_dump"),
                          path], capture_output=True, text=True, check=True)
    return parse_dump(out.stdout)


def bias_run(build, py, tmp, hog, default_sched):
    out, truth = os.path.join(tmp, "b.bin"), os.path.join(tmp, "b.truth")
    env = dict(os.environ)
    if default_sched:
        env["TACHYON_RECORD_DEFAULT_SCHED"] = "1"
    with Hog(hog):
        subprocess.run([os.path.join(build, "tools/tachyon-record"), "-q",
                        "-f", "-o", out, "--", py,
                        os.path.join(TESTS, "bias_target.py"), "3", truth],
                       env=env, check=True)
    _, stats, samples = decode(build, out)
    n = {"busy": 0, "idle": 0}
    for s in samples:
        names = [f[0] for f in s[3]]
        for leaf in n:
            n[leaf] += s[2] if leaf in names else 0
    with open(truth) as f:
        true = 100 * float(f.read())
    return (true, 100 * n["busy"] / max(sum(n.values()), 1),
            float(stats["rate"]), float(stats["missed"]))


def bias_table(build, versions, runs, tmp):
    print("| CPython | CPU hog | scheduling | busy, true | busy, recorded "
          "| error | achieved Hz | missed ticks |")
    print("|---|---|---|---|---|---|---|---|")
    for ver in versions:
        py = find_python(ver)
        if not py:
            print(f"| {ver} | skipped: not found |")
            continue
        for hog in (False, True):
            for default in ((False, True) if hog else (False,)):
                rows = [bias_run(build, py, tmp, hog, default)
                        for _ in range(runs)]
                med = [statistics.median(r[i] for r in rows)
                       for i in range(4)]
                err = statistics.median(r[1] - r[0] for r in rows)
                print(f"| {ver} | {'yes' if hog else 'no'} | "
                      f"{'default' if default else 'short slice'} | "
                      f"{med[0]:.1f}% | {med[1]:.1f}% | {err:+.1f} pp | "
                      f"{med[2]:.0f} | {med[3]:.1f}% |")


def stacks_table(build, versions, seconds, tmp):
    print("| CPython | thread-samples | impossible | dropped (failed) "
          "| achieved Hz |")
    print("|---|---|---|---|---|")
    for ver in versions:
        py = find_python(ver)
        if not py:
            print(f"| {ver} | skipped: not found |")
            continue
        out = os.path.join(tmp, "s.bin")
        with Hog(True):
            subprocess.run([os.path.join(build, "tools/tachyon-record"),
                            "-q", "-f", "-a", "-r", "5000", "-o", out, "--",
                            py, os.path.join(TESTS, "stacks_target.py"),
                            str(seconds), "3"], check=True)
        _, stats, samples = decode(build, out)
        looping = [s for s in samples if "loop" in [f[0] for f in s[3]]]
        bad = sum(s[2] for s in looping
                  if not check_stacks.possible([f[0] for f in s[3]]))
        print(f"| {ver} | {sum(s[2] for s in looping)} | {bad} | "
              f"{float(stats['error']):.2f}% | {float(stats['rate']):.0f} |")


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    versions = os.environ.get("VERSIONS", "3.11.7 3.12.1 3.13.0").split()
    runs = int(os.environ.get("RUNS", "3"))
    seconds = float(os.environ.get("STACK_SECONDS", "20"))
    with tempfile.TemporaryDirectory() as tmp:
        bias_table(build, versions, runs, tmp)
        print()
        stacks_table(build, versions, seconds, tmp)
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"\n{os.cpu_count()} CPUs, {os.uname().sysname} "
          f"{os.uname().release}, load average {load}, runs={runs}, "
          f"stacks {seconds:g} s per version")


if __name__ == "__main__":
    main()
