# SPDX-License-Identifier: MIT
"""--subprocesses: a log per Python process of the tree, DIR/NAME.PID.bin
beside DIR/NAME.bin, for children started by subprocess, through a
`sh -c` wrapper and by multiprocessing (fork); none for the wrapper shell
or a program that is not Python, and nothing said about them; and a
command that is itself a shell wrapper records its Python child; a fork
that runs Python and then execs: its fork image's log, and when it became
a new Python, that program's log too (the fork's renamed NAME.PID.fork.bin),
quietly."""
import argparse
import glob
import json
import os
import subprocess
import sys

from rec_common import check, decode, finish, tool_args

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "family_target.py")
FORK_EXEC = os.path.join(HERE, "fork_exec_target.py")


def child_main_share(args, path):
    got = decode(args.dump, path)
    if not got:
        return 0.0
    samples = got[2]
    total = sum(s[2] for s in samples)
    return sum(s[2] for s in samples
               if "child_main" in [f[0] for f in s[3]]) / max(total, 1)


def tree(args):
    out_dir = os.path.join(os.path.dirname(args.out), "family")
    os.makedirs(out_dir, exist_ok=True)
    for old in glob.glob(os.path.join(out_dir, "*")):
        os.unlink(old)
    out, pids = os.path.join(out_dir, "run.bin"), args.out + ".pids"
    p = subprocess.run([args.recorder, "-q", "-f", "--subprocesses", "-o",
                        out, "--", sys.executable, TARGET, pids],
                       capture_output=True, encoding="utf-8", timeout=60)
    check(p.returncode == 0 and p.stderr == "",
          f"recorder exit {p.returncode}: {p.stderr}")
    with open(pids) as f:
        family = json.load(f)
    logs = sorted(os.listdir(out_dir))
    want = sorted(["run.bin"] + [f"run.{pid}.bin" for pid in
                                 family["python"]])
    print(f"logs: {logs}; Python children {family['python']}, others "
          f"{family['other']}")
    check(logs == want, f"logs {logs}, want {want}")
    for pid in family["python"]:
        path = os.path.join(out_dir, f"run.{pid}.bin")
        if os.path.exists(path):
            share = child_main_share(args, path)
            check(share >= 0.2, f"{path}: child_main in {share:.0%}")


def wrapper(args):
    out = args.out + ".wrapped.bin"
    for old in glob.glob(args.out + ".wrapped*"):
        os.unlink(old)
    p = subprocess.run([args.recorder, "-q", "-f", "--subprocesses", "-o",
                        out, "--", "sh", "-c",
                        f"{sys.executable} {TARGET} child; true"],
                       capture_output=True, encoding="utf-8", timeout=60)
    logs = glob.glob(args.out + ".wrapped.*.bin")
    check(p.returncode == 0 and len(logs) == 1 and not os.path.exists(out),
          f"sh -c wrapper: exit {p.returncode}, logs {logs}: {p.stderr}")
    if logs:
        check(child_main_share(args, logs[0]) >= 0.2,
              "wrapped child not in child_main")


def fork_exec(args):
    out_dir = os.path.join(os.path.dirname(args.out), "forkexec")
    os.makedirs(out_dir, exist_ok=True)
    for old in glob.glob(os.path.join(out_dir, "*")):
        os.unlink(old)
    out, pids = os.path.join(out_dir, "run.bin"), args.out + ".forkexec"
    # The forks run Python for a second before they exec, time enough for
    # the follower (a look every 20 ms) to attach on a loaded machine.
    p = subprocess.run([args.recorder, "-q", "-f", "--subprocesses", "-o",
                        out, "--", sys.executable, FORK_EXEC, pids, "1.0"],
                       capture_output=True, encoding="utf-8", timeout=60)
    check(p.returncode == 0 and p.stderr == "",
          f"fork+exec: recorder exit {p.returncode}: {p.stderr}")
    with open(pids) as f:
        kids = json.load(f)
    a, b = kids["to_python"], kids["to_other"]
    logs = sorted(os.listdir(out_dir))
    children = [f"run.{a}.bin", f"run.{a}.fork.bin", f"run.{b}.bin"]
    want = sorted(["run.bin"] + children)
    print(f"fork+exec logs: {logs}")
    check(logs == want, f"fork+exec: logs {logs}, want {want}")
    for name in children:
        path = os.path.join(out_dir, name)
        if os.path.exists(path):
            share = child_main_share(args, path)
            check(share >= 0.2, f"{path}: child_main in {share:.0%}")


def main():
    ap = argparse.ArgumentParser()
    tool_args(ap)
    args = ap.parse_args()
    tree(args)
    wrapper(args)
    fork_exec(args)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
