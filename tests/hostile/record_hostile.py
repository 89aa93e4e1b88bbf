#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""record_hostile.py - issue 22's holes in tachyon-record, as regression
tests. Every crafted input is made here, on the spot.

usage: record_hostile.py CASE    (CASE: see CASES at the end)

  record-links    no write through a link: the log (-f replaces a link,
                  without -f a link or a dangling one is refused), the
                  checkpoint copy FILE.recover and its old temporary name
                  FILE.recover.tmp planted as links, a FIFO planted as
                  FILE.recover (item 3)
  record-recover  --recover never destroys the log: the copy of item 6
                  (TACHRCV1, samples end 0, trailer 4 bytes) and others
                  that do not fit leave it byte for byte; a fitting one
                  restores it (item 5)
  record-dump     --dump of a process whose code objects name a FIFO,
                  /dev/zero, a root-only file (the target runs as nobody,
                  when this runs as root) or control bytes as their
                  co_filename and co_qualname: it ends, shows no line it
                  must not, and every name is escaped; --live too (items
                  1 and 3)
  record-names    names on stderr escaped: an output path and a COMMAND
                  with control bytes (item 3)
  record-children --subprocesses with an output path over 300 bytes: each
                  child's log gets its whole name (item 9)

Environment: TOOLS_DIR (the tools), PYENV_PYTHON (tests/tools/
pyenv_python.sh). The targets run under CPython 3.13 from pyenv, else
/usr/bin/python3.11..13; a case that needs one exits 77 without.
"""
import hashlib
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.path.abspath(os.environ.get("TOOLS_DIR",
                                       os.path.join(ROOT, "build/tools")))
RECORD = os.path.join(TOOLS, "tachyon-record")
VALIDATE = os.path.join(TOOLS, "tachyon-validate")
PYENV_PYTHON = os.environ.get("PYENV_PYTHON", os.path.join(
    ROOT, "tests/tools/pyenv_python.sh"))
LOG = os.path.join(ROOT, "testdata/cpython/workload/none.bin")
SKIP = 77

failures = []
TARGETS = []  # started targets, killed at the end whatever happened


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)
    else:
        print("ok   " + what)
    return ok


def system_python():
    """A CPython 3.11-3.13 any user can run, or None."""
    for minor in (13, 12, 11):
        path = "/usr/bin/python3.%d" % minor
        if os.access(path, os.X_OK):
            return path
    return None


def target_python():
    p = subprocess.run(["sh", PYENV_PYTHON, "3.13.0"], capture_output=True,
                       encoding="utf-8")
    if p.returncode == 0:
        return p.stdout.strip()
    return system_python()


def record(args, cwd, timeout=60, **kw):
    return subprocess.run([RECORD] + args, cwd=cwd, capture_output=True,
                          timeout=timeout, **kw)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def sha(path):
    return hashlib.sha256(read(path)).hexdigest()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def busy(seconds):
    return ["-c", "import time\nt = time.time()\n"
            "while time.time() - t < %s: pass\n" % seconds]


# ---- item 3: no write through a link ----

def case_record_links(d):
    py = target_python()
    if not py:
        return SKIP
    for name in ("victim1", "victim2", "victim3", "victim4"):
        write(os.path.join(d, name), "keep " + name)
    # The copy's old predictable temporary name and the copy itself,
    # planted as links; a SIGKILL leaves the copy of the last checkpoint.
    os.symlink("victim1", os.path.join(d, "out.bin.recover.tmp"))
    os.symlink("victim2", os.path.join(d, "out.bin.recover"))
    rec = subprocess.Popen([RECORD, "-q", "-f", "-o", "out.bin", py] +
                           busy(10), cwd=d)
    time.sleep(2.5)
    rec.kill()
    rec.wait()
    copy = os.path.join(d, "out.bin.recover")
    check(not os.path.islink(copy) and os.path.isfile(copy),
          "FILE.recover planted as a link was replaced by a file")
    check(os.path.islink(os.path.join(d, "out.bin.recover.tmp")),
          "the planted FILE.recover.tmp link was left alone")
    check(read(os.path.join(d, "victim1")) == b"keep victim1" and
          read(os.path.join(d, "victim2")) == b"keep victim2",
          "no victim of a planted link was written")
    left = [n for n in os.listdir(d) if ".tmp." in n]
    check(not left, "no temporary file left: %s" % left)
    # The log itself: -f replaces a link, without -f it is refused.
    os.symlink("victim3", os.path.join(d, "link.bin"))
    p = record(["-q", "-f", "-o", "link.bin", py] + busy(0.5), d)
    check(p.returncode == 0 and not os.path.islink(
        os.path.join(d, "link.bin")) and
        read(os.path.join(d, "victim3")) == b"keep victim3",
        "-f -o link.bin replaced the link, its target kept (exit %d)" %
        p.returncode)
    check(subprocess.run([VALIDATE, os.path.join(d, "link.bin")]).returncode
          == 0, "the log written where the link was is valid")
    os.symlink("victim4", os.path.join(d, "link2.bin"))
    os.symlink("absent", os.path.join(d, "dangling.bin"))
    for name in ("link2.bin", "dangling.bin"):
        p = record(["-o", name, py] + busy(0.3), d)
        check(p.returncode == 125 and b"file exists" in p.stderr,
              "-o %s without -f refused: exit %d %s" %
              (name, p.returncode, p.stderr))
    check(read(os.path.join(d, "victim4")) == b"keep victim4" and
          not os.path.exists(os.path.join(d, "absent")),
          "nothing written or created through a link without -f")
    # A FIFO planted as the copy: replaced, never opened (no hang).
    os.mkfifo(os.path.join(d, "fifo.bin.recover"))
    p = record(["-q", "-o", "fifo.bin", py] + busy(0.5), d, timeout=30)
    check(p.returncode == 0 and not os.path.exists(
        os.path.join(d, "fifo.bin.recover")),
        "a FIFO planted as FILE.recover did not hang the run (exit %d)" %
        p.returncode)
    return 0


# ---- item 6: --recover never destroys what it was given ----

def recover_copy(samples_end, trailer_len, header, trailer):
    return (b"TACHRCV1" + struct.pack("<QQ", samples_end, trailer_len) +
            header + trailer)


def torn(d, name):
    """A log killed while a checkpoint was written: its trailer is gone
    under new bytes; returns (path, the good copy)."""
    data = read(LOG)
    end = struct.unpack_from("<Q", data, 40)[0]
    good = recover_copy(end, len(data) - end, data[:64], data[end:])
    path = os.path.join(d, name)
    write(path, data[:end] + b"\xff" * 300)
    return path, good


def try_recover(d, path, copy, code, pattern, what):
    write(path + ".recover", copy)
    before = sha(path)
    p = record(["--recover", os.path.basename(path)], d)
    err = p.stderr.decode("utf-8", "replace")
    print("     " + err.strip())
    check(p.returncode == code and pattern in err,
          "%s: exit %d (want %d), message %r" % (what, p.returncode, code,
                                                 err.strip()))
    if code != 0:
        check(sha(path) == before, "%s: the log is byte for byte as it was"
              % what)
    left = [n for n in os.listdir(d) if ".rebuild." in n]
    check(not left, "%s: no rebuilt file left: %s" % (what, left))


def case_record_recover(d):
    path, good = torn(d, "run.bin")
    end, tlen = struct.unpack_from("<QQ", good, 8)
    header, trailer = good[24:88], good[88:]
    # Issue 22, item 6: it cut an 8 KB log to 64 zero bytes.
    try_recover(d, path, recover_copy(0, 4, bytes(64), b"abcd"), 1,
                "it says the samples end at byte 0, which no log can have",
                "the copy of issue 22 (end 0, length 4)")
    try_recover(d, path, good[:-1], 1, "but %d follow its header" %
                (tlen - 1), "a copy cut short")
    other = bytearray(header)
    other[12] ^= 0x55  # another recording's start time
    write(path, bytes(other) + read(path)[64:])
    try_recover(d, path, good, 1, "the log's header is not of the "
                "recording the copy was taken from", "another recording")
    path, good = torn(d, "short.bin")
    write(path, read(path)[:end - 100])
    try_recover(d, path, good, 1, "fewer than the %d bytes of samples" % end,
                "a log shorter than the checkpoint")
    path, good = torn(d, "garbage.bin")
    bad_trailer = bytearray(trailer)
    for i in range(0, len(bad_trailer) - 40, 7):
        bad_trailer[i] ^= 0xa5
    try_recover(d, path, recover_copy(end, tlen, header,
                                      bytes(bad_trailer)), 1,
                "does not read", "a fitting copy whose tables are garbage")
    # A copy planted as a link is not followed (its name is derived, never
    # one the user gave).
    path, good = torn(d, "linked.bin")
    write(os.path.join(d, "elsewhere"), good)
    os.symlink("elsewhere", path + ".recover")
    before = sha(path)
    p = record(["--recover", "linked.bin"], d)
    check(p.returncode == 1 and b"no usable linked.bin.recover" in p.stderr
          and sha(path) == before,
          "a copy that is a link is not followed: exit %d %s" %
          (p.returncode, p.stderr))
    # A copy that fits restores the log, which then reads.
    path, good = torn(d, "ok.bin")
    try_recover(d, path, good, 0, "recovered", "a fitting copy")
    check(sha(path) == sha(LOG), "the recovered log is the original")
    check(not os.path.exists(path + ".recover"), "the copy is gone after")
    return 0


# ---- items 1 and 3: --dump and --live on a hostile target ----

TARGET = r'''
import sys, time
name = sys.argv[1]
src = "def f():\n    while True:\n        time.sleep(0.02)\n"
ns = {"time": time}
exec(compile(src, name, "exec"), ns)
f = ns["f"]
evil = "f\x1b]0;pwned\x07\x1b[31m\u2028\x9b\x7fend"
f.__code__ = f.__code__.replace(co_name=evil, co_qualname=evil)
print("ready", flush=True)
f()
'''


def start_target(py, d, co_filename, user=None):
    script = os.path.join(d, "target.py")
    write(script, TARGET)
    os.chmod(script, 0o644)
    cmd = [py, script, co_filename]
    if user:
        cmd = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user,
               "--clear-groups"] + cmd
    t = subprocess.Popen(cmd, stdout=subprocess.PIPE)
    TARGETS.append(t)
    t.stdout.readline()
    time.sleep(0.3)
    return t


def raw_controls(data):
    """Bytes a terminal would act on, other than the line ends."""
    text = data.decode("utf-8", "replace")
    return [c for c in text if (ord(c) < 0x20 and c != "\n") or
            0x7f <= ord(c) <= 0x9f or c in "\u2028\u2029"]


def dump(d, pid, what, must_not=None):
    t0 = time.monotonic()
    try:
        p = record(["--dump", "-p", str(pid)], d, timeout=30)
    except subprocess.TimeoutExpired:
        check(False, "%s: --dump still running after 30 s" % what)
        return ""
    took = time.monotonic() - t0
    out = p.stdout.decode("utf-8", "replace")
    print("     " + out.replace("\n", "\n     ").rstrip())
    check(p.returncode == 0 and took < 10, "%s: --dump ended (exit %d, "
          "%.1f s)" % (what, p.returncode, took))
    check(not raw_controls(p.stdout + p.stderr),
          "%s: no raw control character in the dump" % what)
    check("in f\\x1b]0;pwned\\x07\\x1b[31m\\u2028\\u009b\\x7fend" in out,
          "%s: the function name is shown escaped" % what)
    if must_not:
        check(must_not not in out, "%s: %r not shown" % (what, must_not))
    return out


def case_record_dump(d):
    py = target_python()
    if not py:
        return SKIP
    os.chmod(d, 0o755)
    fifo = os.path.join(d, "fifo.py")
    os.mkfifo(fifo, 0o666)
    for name, what in ((fifo, "a FIFO as co_filename"),
                       ("/dev/zero", "/dev/zero as co_filename"),
                       (os.path.join(d, "e\x1b[2J\x9b.py"),
                        "control bytes in co_filename")):
        t = start_target(py, d, name)
        out = dump(d, t.pid, what)
        if "control" in what:
            check('e\\x1b[2J\\u009b.py", line 3' in out,
                  "the file name is shown escaped")
        t.kill()
        t.wait()
    # --live (not a terminal: a view a second on stdout) escapes too.
    t = start_target(py, d, os.path.join(d, "live\x1b[31m.py"))
    p = record(["--live", "-d", "1.5", "-p", str(t.pid)], d, timeout=30)
    t.kill()
    t.wait()
    check(p.returncode == 0 and b"(live\\x1b[31m.py:" in p.stdout and
          not raw_controls(p.stdout),
          "--live shows the names escaped (exit %d)" % p.returncode)
    # A root-only file named by a process running as nobody: root's dump
    # reads it as nobody, so it is not shown.
    system = system_python()
    if os.geteuid() != 0 or not system or not shutil.which("setpriv"):
        print("SKIP root-only source: needs root, setpriv and a system "
              "CPython 3.11-3.13")
        return 0
    secret = os.path.join(d, "secret.py")
    write(secret, "SECRET1\nSECRET2\n    SECRET_LINE_3 = 1\n")
    os.chmod(secret, 0o600)
    t = start_target(system, d, secret, user=65534)
    dump(d, t.pid, "a root-only file named by a nobody process",
         must_not="SECRET_LINE_3")
    t.kill()
    t.wait()
    t = start_target(system, d, secret)
    dump(d, t.pid, "the same file named by a root process (control)")
    t.kill()
    t.wait()
    return 0


# ---- item 3: names quoted on stderr ----

def case_record_names(d):
    evil = "out\x1b]0;pwned\x07\x9b.bin"
    write(os.path.join(d, evil), "exists")
    p = record(["-p", "1", "-o", evil], d)
    check(p.returncode == 2 and not raw_controls(p.stderr) and
          b"out\\x1b]0;pwned\\x07\\u009b.bin: file exists" in p.stderr,
          "an existing output's name escaped: %r" % p.stderr)
    p = record(["-o", "x.bin", "./cmd\x1b[2J"], d)
    check(p.returncode == 127 and not raw_controls(p.stderr) and
          b"./cmd\\x1b[2J: No such file or directory" in p.stderr,
          "a missing COMMAND's name escaped: %r" % p.stderr)
    write(os.path.join(d, "r\x1b[2J.bin"), b"\0" * 100)
    p = record(["--recover", "r\x1b[2J.bin"], d)
    check(p.returncode == 1 and not raw_controls(p.stderr) and
          b"r\\x1b[2J.bin" in p.stderr,
          "--recover's messages escape the names: %r" % p.stderr)
    return 0


# ---- item 9: a child's log name is never cut ----

CHILD = r'''
import subprocess, sys, time
subprocess.run([sys.executable, "-c", "import time\nt = time.time()\n"
                "while time.time() - t < 1.5: pass\n"])
'''


def case_record_children(d):
    py = target_python()
    if not py:
        return SKIP
    deep = os.path.join(d, "a" * 100, "b" * 100, "c" * 100)
    os.makedirs(deep)
    out = os.path.join(deep, "run.bin")
    script = os.path.join(d, "parent.py")
    write(script, CHILD)
    p = record(["-q", "--subprocesses", "-o", out, py, script], d)
    logs = sorted(os.listdir(deep))
    print("     %d-byte path; logs: %s" % (len(out), logs))
    check(len(out) > 300 and p.returncode == 0,
          "--subprocesses with a %d-byte -o: exit %d %s" %
          (len(out), p.returncode, p.stderr))
    children = [n for n in logs if n.startswith("run.") and n != "run.bin"]
    check(len(children) == 1 and children[0].endswith(".bin") and
          children[0][4:-4].isdigit(),
          "the child's log has its whole name: %s" % logs)
    for name in logs:
        check(subprocess.run([VALIDATE, os.path.join(deep, name)]).returncode
              == 0, "%s is a valid log" % name)
    return 0


CASES = {
    "record-links": case_record_links,
    "record-recover": case_record_recover,
    "record-dump": case_record_dump,
    "record-names": case_record_names,
    "record-children": case_record_children,
}


def main(argv):
    if len(argv) != 2 or argv[1] not in CASES:
        print("usage: record_hostile.py CASE (%s)" % ", ".join(CASES))
        return 2
    d = tempfile.mkdtemp(prefix="hostile-rec-")
    try:
        rc = CASES[argv[1]](d)
    finally:
        for t in TARGETS:
            t.kill()
            t.wait()
        shutil.rmtree(d, ignore_errors=True)
    if rc == SKIP:
        print("SKIP: no CPython 3.11-3.13 to run a target")
        return SKIP
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
