#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tachyon-conv -j 1..4 against an independent model on random logs.

The parallel reader (libfmt/src/profile/profile_par.c) cuts a log into
parts, reads them on threads and merges the parts' profiles. Comparing it
with the serial reader only shows that the two agree; here both are
compared with profile_expect.py, which computes CPython's JSONL and
collapsed outputs from the write_sample() calls themselves (no binary
reader involved). Each seeded log is written by make_log.py (CPython's
writer): 2-6 threads, thread ids shared between interpreters, stacks that
grow, shrink, change their innermost frames, jump and empty, status bits flipping (so REPEAT groups of
mixed status), synthetic frames, and enough ticks that -j 4 cuts the
region into four parts or more. Two of the logs are also converted
together (tachyon-conv A B), against the model of A's samples then B's.

usage: par_random.py TACHYON-CONV SCRATCH [SEEDS]   (default 8 seeds)
"""
import os
import random
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import make_log  # noqa: E402
import profile_expect  # noqa: E402

RUN_ID = "0" * 32
FILES = ["/app/a.py", "/usr/lib/python3.15/json/decoder.py", "b.py",
         "<frozen runpy>", "~", "<string>", "/x/y/", "noslash"]
FUNCS = ["main", "run", "decode", "<module>", "<GC>", "<native>", "f", "g"]


def rframe(rng):
    r = rng.random()
    if r < 0.1:
        loc = None
    elif r < 0.2:
        loc = [0, 0, -1, -1]
    else:
        line, col = rng.randint(1, 60), rng.choice([-1, 0, 3])
        loc = [line, line + rng.randint(0, 2), col,
               -1 if col == -1 else col + 4]
    return [rng.choice(FILES), loc, rng.choice(FUNCS), None]


def next_stack(rng, st, pool):
    r = rng.random()
    if r < 0.05:
        return []
    if r < 0.2:
        st = st + [rng.choice(pool) for _ in range(rng.randint(1, 4))]
    elif r < 0.3 and st:
        st = st[:rng.randint(0, len(st))]
    elif r < 0.35 and st:   # returns, then calls: POP_PUSH records
        st = st[:rng.randint(0, len(st) - 1)] + [
            rng.choice(pool) for _ in range(rng.randint(1, 3))]
    elif r < 0.4:
        st = [rng.choice(pool) for _ in range(rng.randint(0, 12))]
    return st[:300]     # past 256: the writer keeps the innermost 256


def line_key(fr):
    """What a flame graph shows of a frame: file, function, line or 0."""
    loc = fr[1]
    return (fr[0], fr[2], loc[0] if loc and loc[0] > 0 else 0)


def samples(seed, ticks=(3000, 6000, 9000), unique=False):
    """A random input.json; `unique`: no two frames of the pool share
    file, function and line (so each one is a box of its own)."""
    rng = random.Random(seed)
    n = rng.randint(2, 6)
    tids = [rng.choice([1, 2, 3, 140000000000 + i]) for i in range(n)]
    interps = [rng.choice([0, 0, 0, 1]) for _ in range(n)]
    stacks, status = [[] for _ in range(n)], [rng.randint(0, 63)] * n
    pool = [rframe(rng) for _ in range(rng.randint(5, 80))]
    if unique:
        pool = list({line_key(fr): fr for fr in pool}.values())
    t, out = 10**6, []
    for _ in range(rng.choice(ticks)):
        by = {}
        for k in range(n):
            if rng.random() < 0.2:
                continue
            stacks[k] = next_stack(rng, stacks[k], pool)
            if rng.random() < 0.1:
                status[k] = rng.randint(0, 63)
            by.setdefault(interps[k], {})[tids[k]] = {
                "tid": tids[k], "status": status[k],
                "frames": list(reversed(stacks[k]))}
        if by:
            out.append({"t": t, "interps": [
                {"id": i, "threads": list(th.values())}
                for i, th in by.items()]})
        t += rng.choice([1000, 1000, 997, 0, 1])
    return {"start_time_us": 10**6, "sample_interval_us": 1000,
            "mode": None, "stats": None, "samples": out}


def conv(tool, fmt, jobs, *logs):
    run_id = ["--run-id", RUN_ID] if fmt == "jsonl" else []
    p = subprocess.run([tool, "-q", "-j", str(jobs), "--to", fmt] + run_id +
                       list(logs), capture_output=True)
    if p.returncode != 0:
        sys.exit("tachyon-conv -j %d --to %s %s: exit %d: %s" %
                 (jobs, fmt, " ".join(logs), p.returncode,
                  p.stderr.decode()))
    return p.stdout.decode()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tool, scratch = sys.argv[1:3]
    seeds = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    region_min = None
    for seed in range(seeds):
        inp = samples(seed)
        data = make_log.write(inp)
        log = os.path.join(scratch, "par%d.bin" % seed)
        with open(log, "wb") as f:
            f.write(data)
        region = int.from_bytes(data[40:48], "little") - 64
        region_min = region if region_min is None else min(region, region_min)
        want = {"jsonl": profile_expect.jsonl(inp, False),
                "collapsed": profile_expect.collapsed(inp, False)}
        for jobs in (1, 2, 3, 4):
            for fmt, expected in want.items():
                if conv(tool, fmt, jobs, log) != expected:
                    sys.exit("seed %d: tachyon-conv -j %d --to %s differs "
                             "from the model (kept: %s)" %
                             (seed, jobs, fmt, log))
        if seed > 1:
            os.unlink(log)
    # Two logs merged: the model of their samples one after the other.
    both = [os.path.join(scratch, "par%d.bin" % k) for k in (0, 1)]
    inp = samples(0)
    inp["samples"] += samples(1)["samples"]
    want = {"jsonl": profile_expect.jsonl(inp, False),
            "collapsed": profile_expect.collapsed(inp, False)}
    for jobs in (1, 2):
        for fmt, expected in want.items():
            if conv(tool, fmt, jobs, *both) != expected:
                sys.exit("seeds 0 and 1 merged: tachyon-conv -j %d --to %s "
                         "differs from the model" % (jobs, fmt))
    for log in both:
        os.unlink(log)
    # Parts are never under 8 KiB: four need a region of 32 KiB.
    if region_min < 4 * 8192:
        sys.exit("a log's region has %d bytes: too small for four parts" %
                 region_min)
    print("%d random logs (regions of %d KiB or more): tachyon-conv -j 1, "
          "2, 3 and 4 give the model's jsonl and collapsed on each, and on "
          "two merged" % (seeds, region_min // 1024))


if __name__ == "__main__":
    main()
