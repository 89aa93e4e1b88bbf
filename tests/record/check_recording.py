# SPDX-License-Identifier: MIT
"""Record tests/record/busy.py with tachyon-record and check the log.

Run by record_test.sh with the interpreter under test, so the expected
locations come from that interpreter: the marker comments in busy.py give
the lines, and busy's own code objects (co_positions) give the columns.
The log is decoded by record_dump (libtachyonfmt); optional tachyon-validate
and tachyon-conv runs check the file with the toolkit's own tools.

Modes: spawn (record -- python busy.py), main (spawn without
--all-threads: the main thread only),
attach (record -p PID of a running busy.py), sigint (SIGINT ends the
recording), zstd (spawn with --compression zstd), churn (a recursive
target and a generator at 5 kHz: torn reads must stay rare and dropped),
unicode (function and file names that are not ASCII, in all three str
kinds, must come out as UTF-8), threads (12 idle threads and a busy one:
every thread in every sample).
"""
import argparse
import collections
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time

from rec_common import (HAS_GIL, MAIN_THREAD, check, config_word, finish,
                        parse_dump, share)

HERE = os.path.dirname(os.path.abspath(__file__))
BUSY = os.path.join(HERE, "busy.py")
CHURN = os.path.join(HERE, "churn.py")
UNICODE = os.path.join(HERE, "unicode_target.py")
THREADS = os.path.join(HERE, "threads_target.py")
IDLE_THREADS = 12


def markers():
    lines = collections.defaultdict(set)
    with open(BUSY) as f:
        for no, text in enumerate(f, 1):
            if "  # " in text:
                lines[text.rsplit("# ", 1)[1].strip()].add(no)
    return lines


def busy_positions():
    """Every location the interpreter can report for each busy function."""
    spec = importlib.util.spec_from_file_location("busy_target", BUSY)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    codes = {"leaf": mod.leaf.__code__, "mid": mod.mid.__code__,
             "top": mod.top.__code__,
             "Klass.method": mod.Klass.method.__code__,
             "sleeper": mod.sleeper.__code__}
    return {name: {tuple(-1 if v is None else v for v in p)
                   for p in code.co_positions()}
            for name, code in codes.items()}


def record(args, extra, target_cmd=None, pid=None):
    cmd = [args.recorder, "-q", "-f", "-o", args.out, "--rate", "1000"] + extra
    cmd += ["-p", str(pid)] if pid else ["--"] + target_cmd
    return cmd


def run_mode(args):
    busy = [sys.executable, BUSY, "1.5"]
    if args.mode == "unicode":
        os.makedirs(os.path.dirname(unicode_copy(args)), exist_ok=True)
        shutil.copyfile(UNICODE, unicode_copy(args))
        p = subprocess.run(record(args, [], [sys.executable,
                                             unicode_copy(args), "1"]),
                           timeout=30)
        check(p.returncode == 0, f"recorder exit {p.returncode}")
        return None
    if args.mode == "threads":
        p = subprocess.run(record(args, ["--all-threads"],
                                  [sys.executable, THREADS,
                                   str(IDLE_THREADS)]), timeout=30)
        check(p.returncode == 0, f"recorder exit {p.returncode}")
        return None
    if args.mode == "churn":
        p = subprocess.run(record(args, ["--all-threads", "--rate", "5000"],
                                  [sys.executable, CHURN]), timeout=30)
        check(p.returncode == 0, f"recorder exit {p.returncode}")
        return None
    if args.mode in ("spawn", "main", "zstd"):
        extra = [] if args.mode == "main" else ["--all-threads"]
        if args.mode == "zstd":
            extra += ["--compression", "zstd"]
        p = subprocess.run(record(args, extra, busy), timeout=30)
        check(p.returncode == 0, f"recorder exit {p.returncode}")
        return None
    if args.mode == "attach":
        target = subprocess.Popen([sys.executable, BUSY, "4"])
        time.sleep(0.5)
        p = subprocess.run(record(args, ["--all-threads", "--duration",
                                         "1.2"], pid=target.pid), timeout=30)
        check(p.returncode == 0, f"recorder exit {p.returncode}")
        check(target.poll() is None, "attached target did not survive")
        target.wait(timeout=30)
        check(target.returncode == 0, "target failed after attach")
        return target.pid
    rec = subprocess.Popen(record(args, ["--all-threads"],
                                  [sys.executable, BUSY, "20"]))
    time.sleep(1.2)
    rec.send_signal(signal.SIGINT)
    rc = rec.wait(timeout=30)
    # SIGINT to the recorder alone (Ctrl-C at a terminal would reach
    # busy.py too): it ends busy.py with SIGTERM and passes its 143 on.
    check(rc == 128 + signal.SIGTERM, f"recorder exit {rc} after SIGINT")
    return None


def check_main_thread(samples, lines, pos, mode, loaded):
    busy_main = [s for s in samples if s[1] & MAIN_THREAD and s[3]]
    check(busy_main, "no main-thread samples")

    def hot(s):
        st = s[3]
        names = [(f[0], os.path.basename(f[1]), f[2]) for f in st[-4:]]
        return (len(st) >= 6 and names[3][0] == "leaf" and
                names[3][2] in lines["LEAF_LOOP"] and
                names[:3] == [("Klass.method", "busy.py",
                               min(lines["METHOD_CALL"])),
                              ("top", "busy.py", min(lines["TOP_CALL"])),
                              ("mid", "busy.py", min(lines["MID_CALL"]))] and
                st[-1][1] == BUSY)
    # Among the samples inside Klass.method, the program's loop: the
    # interpreter's start and exit take longer on a loaded machine.
    inside = [s for s in busy_main if any(f[0] == "Klass.method" and
                                          f[1] == BUSY for f in s[3])]
    frac = share(inside, hot)
    print(f"main thread: {frac:.1%} of the samples in Klass.method in "
          f"leaf's loop")
    check(frac >= 0.8, f"only {frac:.1%} of main-thread samples in leaf")
    if mode != "attach":
        roots = [s for s in busy_main if hot(s)]
        check(all((s[3][0][0], s[3][0][2]) ==
                  ("<module>", min(lines["MODULE_CALL"])) and
                  (s[3][1][0], s[3][1][2]) == ("main", min(lines["MAIN_CALL"]))
                  for s in roots), "hot stacks do not start at busy.py main")
    for s in busy_main:
        for f in s[3]:
            if f[1] == BUSY and f[0] in pos:
                check(tuple(f[2:6]) in pos[f[0]],
                      f"{f[0]} location {f[2:6]} not in co_positions")
    gil = share(busy_main, lambda s: s[1] & HAS_GIL)
    # The sleeper takes the GIL every 10 ms; on a loaded machine it can be
    # preempted holding it, and the main thread then truly waits.
    least = 0.5 if loaded else 0.8
    check(gil >= least, f"main thread holds the GIL in only {gil:.1%}")


def check_sleeper(samples, lines, all_threads):
    others = [s for s in samples if not s[1] & MAIN_THREAD and s[3]]
    if not all_threads:
        check(samples and all(s[1] & MAIN_THREAD for s in samples),
              "a sample without --all-threads is not the main thread's")
        return
    sleeping = share(others, lambda s: (s[3][-1][0], s[3][-1][2]) ==
                     ("sleeper", min(lines["SLEEP_LINE"])))
    print(f"sleeper thread: {sleeping:.1%} of samples in time.sleep")
    check(others and sleeping >= 0.8, f"sleeper share {sleeping:.1%}")
    idle = share(others, lambda s: not s[1] & HAS_GIL)
    check(idle >= 0.8, f"sleeper thread without GIL only {idle:.1%}")


def unicode_copy(args):
    """Where the unicode target runs from: a file name with an emoji."""
    return os.path.join(os.path.dirname(os.path.abspath(args.out)),
                        "record_unicode", "目標_\U0001f40d.py")


def check_unicode(args, samples):
    path = unicode_copy(args)
    line = {}
    with open(UNICODE, encoding="utf-8") as f:
        for no, text in enumerate(f, 1):
            if "  # " in text:
                line[text.rsplit("# ", 1)[1].strip()] = no

    def hot(s):
        st = s[3]
        return (len(st) >= 3 and st[-1][1] == path and
                (st[-1][0], st[-1][2]) in (("函数", line["UNICODE_LEAF"]),
                                           ("函数.<locals>.<genexpr>",
                                            line["UNICODE_LEAF"])) and
                any(f[:3] == ("naïve", path, line["UNICODE_CALL"])
                    for f in st))
    # Among the samples inside naïve(): the interpreter's start and exit,
    # which take longer on a loaded machine, are not the program's loop.
    inside = [s for s in samples
              if any(f[:2] == ("naïve", path) for f in s[3])]
    frac = share(inside, hot)
    print(f"unicode: {frac:.1%} of the samples in naïve in 函数 called "
          f"from it")
    check(frac >= 0.8, f"only {frac:.1%} of samples in 函数 <- naïve")


def check_threads(samples):
    """All idle threads waiting in every sample the busy one is in, and
    every sample of the main thread marked so (its status read that tick:
    record.*.threads_late)."""
    mains = {tid for tid, status, w, st in samples if status & MAIN_THREAD}
    check(len(mains) == 1, f"main thread ids {sorted(mains)}")
    stale = sum(w for tid, status, w, st in samples
                if tid in mains and not status & MAIN_THREAD)
    check(stale == 0, f"{stale} samples of the main thread without "
          f"MAIN_THREAD (a status from an earlier tick)")
    weight = collections.Counter()
    waiting = collections.Counter()
    for tid, status, w, st in samples:
        if not st or status & MAIN_THREAD:
            weight["main"] += w if st and st[-1][0] == "busy" else 0
            continue
        weight[tid] += w
        if (st[0][0], st[-1][0]) == ("Thread._bootstrap", "Condition.wait"):
            waiting[tid] += w
    idle = [t for t in weight if t != "main"]
    print(f"threads: {len(idle)} idle threads, main in busy() "
          f"{weight['main']} times, idle samples "
          f"{min((weight[t] for t in idle), default=0)}.."
          f"{max((weight[t] for t in idle), default=0)}")
    check(len(idle) == IDLE_THREADS, f"{len(idle)} idle threads")
    for t in idle:
        check(waiting[t] >= 0.9 * weight[t], f"thread {t} not waiting")
        check(weight[t] >= 0.8 * weight["main"],
              f"thread {t}: {weight[t]} samples, busy main "
              f"{weight['main']}")


def check_churn(info, stats, samples):
    """Every kept sample must be a whole, plausible stack."""
    err = float(stats["error"])
    print(f"churn: {int(info['samples'])} samples, failed ticks {err:.2f}%")
    # A dropped tick is counted, not hidden; 0-0.9% alone or beside one or
    # two hogs, 3.2-3.3% under the whole record label at load 4.5-7.
    check(err < 10, f"failed ticks {err}% under churn")
    # Interpreter start-up (site, imports) is not part of the test.
    main_all = [s for s in samples if s[1] & MAIN_THREAD and s[3]]
    main = [s for s in main_all if s[3][0][1] == CHURN]
    other = [s for s in samples if not s[1] & MAIN_THREAD and s[3]]
    check(share(main_all, lambda s: s[3][0][1] == CHURN) >= 0.5,
          "fewer than half of the main thread's samples in churn.py")

    def recursing(s):
        names = [f[0] for f in s[3]]
        return (names[:2] == ["<module>", "main"] and
                all(n == "fib" for n in names[2:]))

    def generating(s):
        names = [f[0] for f in s[3]]
        return (names[3:7] == ["worker", "gen", "gen.<locals>.<genexpr>",
                               "fib"] and
                all(n == "fib" for n in names[6:]))
    for name, group, pred in (("main", main, recursing),
                              ("generator", other, generating)):
        frac = share(group, pred)
        print(f"{name} thread: {frac:.1%} of samples well-formed")
        check(frac >= 0.8, f"{name} thread: only {frac:.1%} well-formed")


def check_header(info, stats, args):
    want = ".".join(map(str, sys.version_info[:3]))
    check(info["py"] == want, f"python version {info['py']} != {want}")
    config = config_word(all_threads=args.mode not in ("main", "unicode"))
    check(int(info["config"]) == config, f"config {info['config']}")
    check(info["compression"] == ("1" if args.mode == "zstd" else "0"),
          "compression field")
    check(stats.get("present") == "1" and stats["flags"] == "3",
          "statistics block missing or without error/missed flags")
    rate, err = float(stats["rate"]), float(stats["error"])
    print(f"rate {rate:.0f} Hz, failed {err:.2f}%, duration "
          f"{float(stats['duration']):.2f} s")
    hz = 5000 if args.mode == "churn" else 1000
    check(100 <= rate <= hz * 1.05, f"implausible rate {rate}")
    check(err < 5, f"failed samples {err}%")
    # The header says the interval achieved: samples x interval is the
    # time recorded.
    check(abs(int(info["interval"]) - 1e6 / rate) <= 1,
          f"interval {info['interval']} us at {rate:.1f} Hz")
    loaded = rate < hz / 2
    if loaded:
        print(f"busy machine: {rate:.0f} Hz of {hz} (load average "
              f"{' '.join(open('/proc/loadavg').read().split()[:3])})")
    return loaded


def toolkit_checks(args):
    if args.validate:
        p = subprocess.run([args.validate, "--strict", args.out])
        check(p.returncode == 0, f"tachyon-validate exit {p.returncode}")
    if args.conv:
        for fmt in args.formats.split(","):
            out = f"{args.out}.{fmt}"
            p = subprocess.run([args.conv, "--to", fmt, "-f", "-o", out,
                                args.out])
            check(p.returncode == 0 and os.path.getsize(out) > 0,
                  f"tachyon-conv --to {fmt} exit {p.returncode}")
            if fmt == "collapsed" and p.returncode == 0 and \
                    args.mode not in ("churn", "unicode", "threads"):
                with open(out, encoding="utf-8") as f:
                    # Lines are sorted by count; skip the sleeping thread.
                    hottest = next((ln for ln in f if "sleeper" not in ln),
                                   "")
                check("busy.py:Klass.method:29;busy.py:top:23;busy.py:mid:19;"
                      "busy.py:leaf:1" in hottest,
                      f"hottest collapsed stack is not leaf's: {hottest}")


# Functions that can never be a thread's outermost frame: a stack rooted
# at one of them was cut short by a race and should have been dropped.
NOT_ROOTS = {
    "churn": {"fib", "gen", "gen.<locals>.<genexpr>", "worker"},
    "unicode": {"函数", "函数.<locals>.<genexpr>", "naïve"},
    "threads": {"busy", "Event.wait", "Condition.wait"},
}
BUSY_NOT_ROOTS = {"leaf", "mid", "top", "Klass.method", "sleeper"}


def check_roots(args, samples):
    bad = NOT_ROOTS.get(args.mode, BUSY_NOT_ROOTS)
    cut = [s for s in samples if s[3] and s[3][0][0] in bad]
    check(not cut, f"{len(cut)} stacks cut short, e.g. "
          f"{cut[0][3] if cut else None}")


def check_log(args, info, stats, samples):
    loaded = check_header(info, stats, args)
    check_roots(args, samples)
    if args.mode == "churn":
        check_churn(info, stats, samples)
        return
    if args.mode == "unicode":
        check_unicode(args, samples)
        return
    if args.mode == "threads":
        check_threads(samples)
        return
    lines, pos = markers(), busy_positions()
    check_main_thread(samples, lines, pos, args.mode, loaded)
    check_sleeper(samples, lines, args.mode != "main")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--recorder", required=True)
    ap.add_argument("--dump", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--mode", default="spawn")
    ap.add_argument("--validate")
    ap.add_argument("--conv")
    ap.add_argument("--formats", default="jsonl,collapsed,bin")
    args = ap.parse_args()
    if os.path.exists(args.out):
        os.unlink(args.out)
    run_mode(args)
    p = subprocess.run([args.dump, args.out], capture_output=True,
                       encoding="utf-8")
    check(p.returncode == 0, f"record_dump exit {p.returncode}: {p.stderr}")
    if p.returncode == 0:
        check_log(args, *parse_dump(p.stdout))
    toolkit_checks(args)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
