# SPDX-License-Identifier: MIT
"""tachyon-record's command line with a COMMAND (issue 21, items 1 and
4): the COMMAND's exit status passes through (3; 128+N when signal N
ended it), options end at the COMMAND's name (its own options reach it),
the recorder's own failures are 125 even when the COMMAND exited 0 (a
usage error, an output that cannot be written, a command that is not
Python, /bin/true, a Python that exits at once before it could be read)
and 126/127 for a COMMAND that cannot run or does not exist; the summary
says how the COMMAND ended and ends with the command that opens the log;
-p PID keeps 0/1/2; -o - and -o /dev/null are written as they are."""
import argparse
import os
import re
import signal
import subprocess
import sys
import time

from rec_common import check, decode, finish, tool_args

PY = sys.executable


def run(args, extra, timeout=60):
    return subprocess.run([args.recorder] + extra, capture_output=True,
                          encoding="utf-8", timeout=timeout,
                          cwd=os.path.dirname(os.path.abspath(args.out)))


def lines(p):
    return p.stderr.rstrip("\n").split("\n")


def passthrough(args):
    out = args.out + ".exit3.bin"
    p = run(args, ["-f", "-o", out, PY, "-c",
                   "import sys, time; time.sleep(0.5); sys.exit(3)"])
    got = lines(p)
    print(f"exit 3: {p.returncode}; {got}")
    check(p.returncode == 3, f"exit 3 passed through as {p.returncode}")
    check(len(got) >= 3 and got[-2].endswith(" exited with status 3") and
          got[-2].startswith(f"tachyon-record: {PY} "),
          f"the line before last says how it ended: {got[-2:]}")
    name = os.path.basename(out)
    html = name[:-4] + ".html"
    check(got[-1] == f"tachyon-record: open it with: tachyon-conv -o "
          f"{os.path.dirname(out)}/{html} {out}",
          f"the last line opens the log: {got[-1]}")
    check(decode(args.dump, out) is not None, "no valid log for exit 3")
    for sig in (signal.SIGTERM, signal.SIGKILL):
        p = run(args, ["-f", "-o", out, PY, "-c",
                       "import os, time; time.sleep(0.5); "
                       f"os.kill(os.getpid(), {int(sig)})"])
        want = 128 + int(sig)
        print(f"{sig.name}: {p.returncode}; {lines(p)[-2:]}")
        check(p.returncode == want, f"{sig.name}: exit {p.returncode}, want "
              f"{want}")
        check(f"was killed by {sig.name} (signal {int(sig)})" in p.stderr,
              f"{sig.name}: the summary does not say so")
        check(decode(args.dump, out) is not None,
              f"{sig.name}: no valid log")


def options_end_at_command(args):
    out = args.out + ".opts.bin"
    # Words after the COMMAND's name that look like the recorder's own
    # options belong to the COMMAND.
    code = ("import sys, time; time.sleep(0.3); "
            "sys.exit(0 if sys.argv[1:] == ['-o', 'x', '--compression', "
            "'pass', '-q'] else 9)")
    p = run(args, ["-q", "-f", "-o", out, PY, "-c", code, "-o", "x",
                   "--compression", "pass", "-q"])
    check(p.returncode == 0 and p.stderr == "",
          f"options after COMMAND: exit {p.returncode}: {p.stderr}")
    check(not os.path.exists(os.path.join(os.path.dirname(out), "x")),
          "the COMMAND's -o x was taken by the recorder")
    # -- still works, and "python3 -c pass" is no option value.
    p = run(args, ["-q", "-f", "-o", out, "--", PY, "-c", code, "-o", "x",
                   "--compression", "pass", "-q"])
    check(p.returncode == 0, f"with --: exit {p.returncode}: {p.stderr}")
    p = run(args, ["-f", "-o", out, PY, "-c", "pass"])
    print(f"python -c pass: exit {p.returncode}: {p.stderr.strip()}")
    check("invalid argument" not in p.stderr and
          "permission denied" not in p.stderr, "python -c pass misread")
    check(p.returncode == 0 or (
        p.returncode == 125 and "exited with status 0 before its CPython "
        "interpreter could be read; nothing recorded" in p.stderr),
        f"python -c pass: exit {p.returncode}")


def exits_at_once(args):
    """A Python that exits before it can be read: 125 and why, or (when
    it was read in time) a log and its own status."""
    out = args.out + ".once.bin"
    p = run(args, ["-f", "-o", out, PY, "-c", "import sys; sys.exit(4)"])
    print(f"exits at once: exit {p.returncode}: {p.stderr.strip()}")
    if p.returncode == 125:
        check(lines(p) == [
            f"tachyon-record: {PY} exited with status 4 before its CPython "
            "interpreter could be read; nothing recorded"],
            f"exits at once: {lines(p)}")
    else:
        check(p.returncode == 4 and decode(args.dump, out) is not None,
              f"exits at once: exit {p.returncode}")


def not_python(args):
    for cmd in (["/bin/true"], ["sleep", "0.5"]):
        p = run(args, ["-f", "-o", args.out + ".np.bin"] + cmd)
        got = lines(p)
        print(f"{cmd}: exit {p.returncode}: {got}")
        name = cmd[0]
        is_not = (f"tachyon-record: {name} is not Python (no CPython "
                  "interpreter in it) and exited with status 0; nothing "
                  "recorded (to record the Python programs it starts: "
                  "--subprocesses)")
        early = (f"tachyon-record: {name} exited with status 0 before a "
                 "CPython interpreter was found in it; nothing recorded")
        # sleep is surely seen after its exec; /bin/true may be gone first.
        want = [is_not] if name == "sleep" else [is_not, early]
        check(p.returncode == 125 and len(got) == 1 and got[0] in want,
              f"{cmd}: exit {p.returncode}, {got}")
        check("permission denied" not in p.stderr, "permission denied for "
              "a command that exited")
        check(not os.path.exists(args.out + ".np.bin"), "a log was left")


def own_failures(args):
    # A usage error with a COMMAND is 125; without one, 2.
    p = run(args, ["-r", "0", PY, "-c", "pass"])
    check(p.returncode == 125 and "invalid --rate '0'" in p.stderr,
          f"usage error with COMMAND: {p.returncode} {p.stderr}")
    p = run(args, ["-r", "0", "-p", "1"])
    check(p.returncode == 2, f"usage error with -p: {p.returncode}")
    p = run(args, ["--frob", PY])
    check(p.returncode == 125, f"unknown option with COMMAND: {p.returncode}")
    p = run(args, ["/etc/passwd"])
    check(p.returncode == 126 and lines(p) ==
          ["tachyon-record: /etc/passwd: Permission denied"],
          f"not executable: {p.returncode} {p.stderr}")
    # The log cannot be written: the COMMAND runs on its own way, and the
    # recorder says so with 125 even though it exits 0.
    p = run(args, ["-o", "/nonexistent/dir/x.bin", PY, "-c",
                   "import time; time.sleep(0.5)"])
    print(f"unwritable log: exit {p.returncode}: {lines(p)}")
    check(p.returncode == 125 and "/nonexistent/dir/x.bin" in p.stderr and
          "exit status 125: the recording failed" in p.stderr,
          f"unwritable log: exit {p.returncode}")


def stream_outputs(args):
    """-o - and -o /dev/null: the sink writes them as they are, without -f,
    checkpoints or a .recover copy; the log on stdout is whole."""
    target = subprocess.Popen([PY, "-c", "import time; time.sleep(3)"])
    time.sleep(0.5)
    out = args.out + ".stdout.bin"
    with open(out, "wb") as f:
        p = subprocess.run([args.recorder, "-q", "-d", "0.5", "-o", "-",
                            "-p", str(target.pid)], stdout=f,
                           stderr=subprocess.PIPE, timeout=30)
    check(p.returncode == 0 and decode(args.dump, out) is not None,
          f"-o - to a file: exit {p.returncode} {p.stderr}")
    check(not os.path.exists(os.path.join(os.path.dirname(args.out),
                                          "-.recover")),
          "-o - left a '-.recover'")
    p = run(args, ["-q", "-d", "0.3", "-o", "/dev/null", "-p",
                   str(target.pid)])
    check(p.returncode == 0 and p.stderr == "",
          f"-o /dev/null without -f: exit {p.returncode} {p.stderr}")
    target.kill()
    target.wait()


def attached(args):
    target = subprocess.Popen([PY, "-c", "import time; time.sleep(3)"])
    time.sleep(0.5)
    out = args.out + ".pid.bin"
    p = run(args, ["-f", "-d", "0.5", "-o", out, "-p", str(target.pid)])
    target.kill()
    target.wait()
    got = lines(p)
    check(p.returncode == 0 and
          got[-2] == f"tachyon-record: process {target.pid} runs on" and
          got[-1].startswith("tachyon-record: open it with: tachyon-conv "),
          f"-p: exit {p.returncode}, {got}")


def main():
    ap = argparse.ArgumentParser()
    tool_args(ap)
    args = ap.parse_args()
    passthrough(args)
    options_end_at_command(args)
    exits_at_once(args)
    not_python(args)
    own_failures(args)
    stream_outputs(args)
    attached(args)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
