# SPDX-License-Identifier: MIT
"""Recordings survive: a recorder killed with SIGKILL leaves a valid log
holding the samples up to its last checkpoint (at most a second old);
the log is valid while the recording runs; a started command dies with
the recorder; a kill in the middle of writing a checkpoint is undone by
--recover FILE from FILE.recover; with zstd as without; and CPython
3.15's own reader reads the killed and the recovered logs (uncompressed:
its WebAssembly build has no zstd) to the same collapsed stacks as
tachyon-conv, when that reader is installed."""
import argparse
import os
import random
import signal
import subprocess
import sys
import time

from rec_common import check, cpython_collapsed, decode, finish, tool_args

HERE = os.path.dirname(os.path.abspath(__file__))
BUSY = os.path.join(HERE, "busy.py")


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def last_time(samples):
    return max((s[4] for s in samples), default=0)


def kill_run(args, tag, extra, after):
    """Record busy.py, SIGKILL the recorder `after` seconds in; the log
    must hold the samples of all but the last second or so."""
    out = f"{args.out}.{tag}.bin"
    for stale in (out, out + ".recover"):
        if os.path.exists(stale):
            os.unlink(stale)
    rec = subprocess.Popen([args.recorder, "-q", "-f", "-o", out] + extra +
                           ["--", sys.executable, BUSY, "30"])
    time.sleep(after)
    kids = children(rec.pid)
    rec.send_signal(signal.SIGKILL)
    rec.wait()
    time.sleep(0.3)
    check(kids and not any(alive(k) for k in kids),
          f"{tag}: the started command outlived the recorder")
    # Killed while a checkpoint was written, the log reads as unfinished
    # until --recover puts the last checkpoint back.
    got = decode(args.dump, out, must=False)
    if got is None:
        p = subprocess.run([args.recorder, "--recover", out],
                           capture_output=True, encoding="utf-8")
        print(f"{tag}: recovered: {p.stderr.strip()}")
        check(p.returncode == 0, f"{tag}: --recover exit {p.returncode}")
        got = decode(args.dump, out)
    if not check(got is not None, f"{tag}: no valid log after SIGKILL"):
        return None
    info, stats, samples = got
    kept = float(stats.get("duration", 0))
    print(f"{tag}: killed after {after:.2f} s, log holds "
          f"{int(info['samples'])} samples over {kept:.2f} s")
    # Start-up (finding the interpreter) takes part of the time.
    check(kept >= after - 2.5, f"{tag}: only {kept:.2f} s kept of "
          f"{after:.2f}")
    return out


def valid_while_running(args):
    out = f"{args.out}.live.bin"
    rec = subprocess.Popen([args.recorder, "-q", "-f", "-o", out, "--",
                            sys.executable, BUSY, "3"])
    time.sleep(2.0)
    # For a few milliseconds of each checkpoint the file is not valid (new
    # samples over the old trailer; FILE.recover covers a kill then): a
    # read that lands there is tried again, up to three times in all.
    for attempt in range(3):
        p = subprocess.run([args.dump, out], capture_output=True,
                           encoding="utf-8")
        if p.returncode == 0:
            break
        print(f"live log not valid at read {attempt + 1}: "
              f"{p.stderr.strip()}")
        time.sleep(0.15)
    got = decode(args.dump, out)
    check(got is not None and int(got[0]["samples"]) > 0,
          "the log is not a valid log while recording")
    check(rec.wait(timeout=30) == 0, "recorder failed")
    check(not os.path.exists(out + ".recover"),
          "FILE.recover left after a normal finish")


def torn_checkpoint(args, out):
    """A kill while a checkpoint was being written: new samples over the
    old trailer, the new trailer not yet there."""
    if not out:
        return
    want = int(decode(args.dump, out)[0]["samples"])
    with open(out, "r+b") as f:
        head = f.read(64)
        samples_end = int.from_bytes(head[40:48], "little")
        f.seek(samples_end)
        f.write(os.urandom(3000))
    bad = subprocess.run([args.dump, out], capture_output=True)
    check(bad.returncode != 0, "garbage left the log valid?")
    p = subprocess.run([args.recorder, "--recover", out],
                       capture_output=True, encoding="utf-8")
    got = decode(args.dump, out)
    print(f"torn checkpoint: {p.stderr.strip()}")
    check(p.returncode == 0 and got is not None and
          int(got[0]["samples"]) == want,
          f"--recover: exit {p.returncode}, log "
          f"{got[0]['samples'] if got else None} samples, want {want}")
    p = subprocess.run([args.recorder, "--recover", out],
                       capture_output=True, encoding="utf-8")
    check(p.returncode == 0 and "a complete log already" in p.stderr,
          "--recover of a complete log")


def main():
    ap = argparse.ArgumentParser()
    tool_args(ap)
    args = ap.parse_args()
    valid_while_running(args)
    out = kill_run(args, "kill", [], 3.3)
    kill_run(args, "zstd", ["-c", "zstd"], 2.6)
    rnd = random.Random(7)
    killed = [kill_run(args, f"random{i}", ["-a"], rnd.uniform(0.4, 2.5))
              for i in range(4)]
    torn_checkpoint(args, out)
    logs = [p for p in [out] + killed if p]
    cpython_collapsed(logs, args.conv, os.path.dirname(os.path.abspath(
        args.out)))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
