#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hostile_bench.py - what each hostile case of issue 14 costs: wall and
CPU time, peak RSS and the largest temporary file the tool held, for the
tools of one build (run it on two builds to compare before and after).
Each run may write files of at most 4 GiB (RLIMIT_FSIZE): without the
input limits, `validate /dev/zero` would otherwise spool until the disk is
full.

usage: bench/hostile_bench.py BUILD [GEN_BUILD]

BUILD/tools holds the tools measured; GEN_BUILD (default BUILD) has
tests/hostile/gen_hostile. A run past 120 s is stopped and shown as such.
"""
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time

LIMIT = 120
FSIZE = 4 << 30


def limits():
    resource.setrlimit(resource.RLIMIT_FSIZE, (FSIZE, FSIZE))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def held_temp_bytes(pid):
    """Largest deleted or /tmp file the process has open."""
    best = 0
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return 0
    for fd in fds:
        path = "/proc/%d/fd/%s" % (pid, fd)
        try:
            link = os.readlink(path)
            if "(deleted)" in link or link.startswith("/tmp/"):
                best = max(best, os.stat(path).st_size)
        except OSError:
            pass
    return best


def measure(label, args, cwd):
    start = time.monotonic()
    with open(os.devnull, "w") as null, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(args, cwd=cwd, stdout=null, stderr=err,
                             preexec_fn=limits)
        temp, status, usage, stopped = 0, 0, None, False
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            temp = max(temp, held_temp_bytes(p.pid))
            if time.monotonic() - start > LIMIT:
                p.send_signal(signal.SIGKILL)
                pid, status, usage = os.wait4(p.pid, 0)
                stopped = True
                break
            time.sleep(0.02)
        err.seek(0)
        first = err.readline().decode("utf-8", "replace").strip()
    wall = time.monotonic() - start
    code = "killed at %d s" % LIMIT if stopped else \
        "exit %d" % os.waitstatus_to_exitcode(status)
    print("| %s | %s | %.2f | %.2f | %.1f | %.0f | %s |" % (
        label, code, wall, usage.ru_utime + usage.ru_stime,
        usage.ru_maxrss / 1024, temp / (1 << 20), first[:110]))
    sys.stdout.flush()


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__)
        return 2
    tools = os.path.join(os.path.abspath(argv[1]), "tools")
    gen = os.path.join(os.path.abspath(argv[-1]), "tests", "hostile",
                       "gen_hostile")
    t = lambda name: os.path.join(tools, "tachyon-" + name)
    d = tempfile.mkdtemp(prefix="hostile-bench-")
    for case, name, mib in (("whole-bomb", "bomb.bin.zst", "3072"),
                            ("region-bomb", "region.bin", "3072"),
                            ("ignorable", "ign.jsonl.zst", "300"),
                            ("clean", "clean.bin", None)):
        subprocess.run([gen, case, os.path.join(d, name)] +
                       ([mib] if mib else []), check=True)
    print("load average %.2f %.2f %.2f; tools: %s" %
          (os.getloadavg() + (tools,)))
    print("| case | result | wall s | cpu s | peak RSS MB | temp file MB "
          "| first message |")
    print("|---|---|--:|--:|--:|--:|---|")
    measure("validate /dev/zero", [t("validate"), "/dev/zero"], d)
    measure("conv /dev/urandom", [t("conv"), "/dev/urandom"], d)
    measure("validate bomb.bin.zst (96 KiB -> 3 GiB)",
            [t("validate"), "bomb.bin.zst"], d)
    measure("conv --to bin region.bin (96 KiB, region -> 3 GiB)",
            [t("conv"), "--to", "bin", "-o", "out.bin", "region.bin"], d)
    measure("validate ign.jsonl.zst (29 KiB -> 300 MiB)",
            [t("validate"), "ign.jsonl.zst"], d)
    measure("diff ign.jsonl.zst ign.jsonl.zst",
            [t("diff"), "ign.jsonl.zst", "ign.jsonl.zst"], d)
    measure("conv --to collapsed, 20 chained --rewrite",
            [t("conv"), "--to", "collapsed"] +
            ["--rewrite=(.+)=>$1$1"] * 20 + ["clean.bin"], d)
    subprocess.run(["rm", "-rf", d])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
