# SPDX-License-Identifier: MIT
"""--dump and --live on modes_target.py (threads in known places):
--dump -p prints every thread, traceback-style as CPython 3.15's dump,
innermost last, with status and source lines, and exits 0; --dump -d S
-- COMMAND dumps a started command after S seconds and ends it; --live
redraws the hottest functions every second, q quits, t filters one
thread, and -o records at the same time."""
import argparse
import os
import re
import subprocess
import sys
import time

from rec_common import check, decode, finish, tool_args

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "modes_target.py")


def sections(text):
    out = {}
    for block in text.strip().split("\n\n"):
        lines = block.split("\n")
        m = re.match(r"Stack dump( for PID \d+)?, thread (\d+) \((.*); most "
                     r"recent call last\):$", lines[0])
        if check(m, f"dump header: {lines[0]}"):
            funcs = [re.search(r", in (\S+)", ln).group(1)
                     for ln in lines[1:] if ln.startswith("  File ")]
            out[int(m.group(2))] = (m.group(3), funcs, lines[1:])
    return out


def dump_attached(args):
    target = subprocess.Popen([sys.executable, TARGET, "5",
                               args.out + ".truth"])
    time.sleep(1.0)
    p = subprocess.run([args.recorder, "--dump", "-p", str(target.pid)],
                       capture_output=True, encoding="utf-8", timeout=30,
                       cwd=HERE)
    target.kill()
    target.wait()
    check(p.returncode == 0 and p.stderr == "", f"--dump exit "
          f"{p.returncode}: {p.stderr}")
    print(p.stdout)
    got = sections(p.stdout)
    check(p.stdout.startswith(f"Stack dump for PID {target.pid}, thread "),
          "first line does not name the PID")
    main = got.get(target.pid)
    check(main and main[0].startswith("main thread") and
          main[1][-1] in ("main_busy", "main_idle"),
          f"main thread section: {main}")
    leaves = {funcs[-1]: status for status, funcs, _ in got.values()
              if funcs}
    check("has exception" in leaves.get("handler_wait", ""),
          "handler thread not shown with 'has exception'")
    # A sleeper may just be waking up: never handling an exception.
    check("sleeper_wait" in leaves and
          "exception" not in leaves["sleeper_wait"], "sleeper's status")
    check("hasher_work" in leaves, "hasher thread missing")
    sleeper = [lines for _, funcs, lines in got.values()
               if funcs and funcs[-1] == "sleeper_wait"]
    check(sleeper and sleeper[0][-2:] == [
        '  File "modes_target.py", line 28, in sleeper_wait',
        "    time.sleep(0.005)"],
        f"sleeper's innermost frame and source line: {sleeper}")


def dump_started(args):
    t0 = time.monotonic()
    p = subprocess.run([args.recorder, "--dump", "-d", "1", "--",
                        sys.executable, TARGET, "30", args.out + ".truth"],
                       capture_output=True, encoding="utf-8", timeout=30)
    took = time.monotonic() - t0
    check(p.returncode == 0 and "in main_loop" in p.stdout and took < 10,
          f"--dump -d 1 of a started command: exit {p.returncode} after "
          f"{took:.1f} s: {p.stderr}")


def live(args):
    out = args.out + ".live.bin"
    rec = subprocess.Popen([args.recorder, "-q", "-f", "--live", "-a", "-o",
                            out, "--", sys.executable, TARGET, "30",
                            args.out + ".truth"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, encoding="utf-8")
    time.sleep(2.5)
    rec.stdin.write("t")
    rec.stdin.flush()
    time.sleep(1.2)
    t0 = time.monotonic()
    rec.stdin.write("q")
    rec.stdin.flush()
    text, _ = rec.communicate(timeout=30)
    took = time.monotonic() - t0
    views = text.split("tachyon-record --live: process ")[1:]
    print(f"--live: {len(views)} views, quit {took:.1f} s after q")
    # q ends the COMMAND too (SIGTERM), and its status is passed on.
    check(rec.returncode == 143 and took < 5, f"q: exit {rec.returncode} "
          f"after {took:.1f} s")
    check(len(views) >= 3, f"{len(views)} views in 3.7 s")
    check(views and "hasher_work" in views[1], "hasher_work not shown")
    check(any(re.search(r"threads: \d+ of \d+;", v) for v in views),
          "t did not filter one thread")
    check("\033[" not in text, "escape codes without a terminal")
    check(decode(args.dump, out) is not None, "no valid log with -o")


def main():
    ap = argparse.ArgumentParser()
    tool_args(ap)
    args = ap.parse_args()
    dump_attached(args)
    dump_started(args)
    live(args)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
