# SPDX-License-Identifier: MIT
"""The edges a new user meets: --duration bounds the search for the
interpreter; one message for a command that cannot be run (127); an
existing output is kept without --force (125); --help ends with a newline; a warning
when the achieved rate is far below the requested one, and when the
profile is empty; a hint with "permission denied"; SIGHUP ends a
recording like SIGTERM; a started command dies with the recorder."""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import time

from rec_common import check, decode, finish, tool_args

HERE = os.path.dirname(os.path.abspath(__file__))
BUSY = os.path.join(HERE, "busy.py")


def run(args, extra, timeout=60):
    return subprocess.run([args.recorder] + extra, capture_output=True,
                          encoding="utf-8", timeout=timeout)


def duration_bounds_search(args):
    t0 = time.monotonic()
    p = run(args, ["-d", "1", "-o", args.out + ".sleep", "--", "sleep",
                   "30"])
    took = time.monotonic() - t0
    print(f"-d 1 on a non-Python command: exit {p.returncode} after "
          f"{took:.1f} s: {p.stderr.strip()}")
    check(p.returncode == 125 and took < 5, "-d does not bound the search")
    check("tachyon-record: sleep is not Python: no CPython interpreter in it "
          "before the recording ended (it runs " in p.stderr,
          "no message for the ended search")


def missing_command(args):
    p = run(args, ["-o", args.out + ".none", "--", "/nonexistent/cmd"])
    lines = p.stderr.splitlines()
    check(p.returncode == 127 and lines == [
        "tachyon-record: /nonexistent/cmd: No such file or directory"],
        f"missing command: exit {p.returncode}, {lines}")


def force(args):
    out = args.out + ".exists"
    with open(out, "w") as f:
        f.write("keep me")
    target = ["--", sys.executable, BUSY, "0.3"]
    p = run(args, ["-q", "-o", out] + target)
    with open(out) as f:
        kept = f.read() == "keep me"
    check(p.returncode == 125 and kept and p.stderr.strip() ==
          f"tachyon-record: {out}: file exists (use --force to replace it)",
          f"existing output without --force: {p.returncode} {p.stderr}")
    p = run(args, ["-q", "--force", "-o", out] + target)
    check(p.returncode == 0 and decode(args.dump, out) is not None,
          "--force did not replace the output")


def help_text(args):
    p = run(args, ["--help"])
    check(p.returncode == 0 and p.stdout.endswith("\n") and
          "--mode" in p.stdout and "--force" in p.stdout,
          "--help: exit, final newline or options")


def warnings(args):
    p = run(args, ["-f", "-r", "100000", "-o", args.out + ".fast", "--",
                   sys.executable, BUSY, "1"])
    check(p.returncode == 0 and
          "under 90% of the requested 100000 Hz" in p.stderr,
          f"no warning for an unreachable rate: {p.stderr}")
    # A sleeping process never holds the GIL.
    sleeper = subprocess.Popen([sys.executable, "-c",
                                "import time; time.sleep(10)"])
    time.sleep(0.5)
    p = run(args, ["-f", "--mode", "gil", "-d", "0.5", "-o",
                   args.out + ".empty", "-p", str(sleeper.pid)])
    sleeper.kill()
    sleeper.wait()
    check(p.returncode == 0 and
          "warning: the profile is empty: no thread matched --mode" in
          p.stderr, f"no warning for an empty profile: {p.stderr}")


def permission_hint(args):
    """As root, drop to nobody and attach to a root process; otherwise
    attach to process 1."""
    setpriv = shutil.which("setpriv")
    target = None
    if os.geteuid() == 0 and setpriv:
        target = subprocess.Popen([sys.executable, BUSY, "5"])
        time.sleep(0.3)
        cmd = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
               args.recorder, "-d", "1", "-o", "/tmp/denied.bin", "-p",
               str(target.pid)]
    elif os.geteuid() != 0:
        cmd = [args.recorder, "-d", "1", "-o", args.out + ".denied", "-p",
               "1"]
    else:
        print("SKIP permission hint: no setpriv")
        return
    p = subprocess.run(cmd, capture_output=True, encoding="utf-8",
                       timeout=30)
    if target:
        target.kill()
        target.wait()
    print(f"permission: {p.stderr.strip()}")
    check(p.returncode == 2 and "permission denied" in p.stderr and
          "CAP_SYS_PTRACE" in p.stderr, "no permission hint")


def sighup_and_parent_death(args):
    out = args.out + ".hup"
    rec = subprocess.Popen([args.recorder, "-q", "-f", "-o", out, "--",
                            sys.executable, BUSY, "20"])
    time.sleep(1.0)
    rec.send_signal(signal.SIGHUP)
    # The recorder ends busy.py with SIGTERM and passes its status on.
    check(rec.wait(timeout=30) == 128 + signal.SIGTERM,
          "SIGHUP did not end the recording cleanly")
    check(decode(args.dump, out) is not None, "no valid log after SIGHUP")
    rec = subprocess.Popen([args.recorder, "-q", "-f", "-o", out + "2",
                            "--", sys.executable, BUSY, "20"])
    time.sleep(1.0)
    child = [int(x) for x in open(f"/proc/{rec.pid}/task/{rec.pid}/"
                                  "children").read().split()]
    rec.kill()
    rec.wait()
    time.sleep(0.5)
    alive = [c for c in child if os.path.exists(f"/proc/{c}") and
             open(f"/proc/{c}/stat").read().split(")")[-1].split()[0] !=
             "Z"]
    check(child and not alive, f"started command outlived the recorder: "
          f"{alive}")


def main():
    ap = argparse.ArgumentParser()
    tool_args(ap)
    args = ap.parse_args()
    duration_bounds_search(args)
    missing_command(args)
    force(args)
    help_text(args)
    warnings(args)
    permission_hint(args)
    sighup_and_parent_death(args)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
