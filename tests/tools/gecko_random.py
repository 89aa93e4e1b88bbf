#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tachyon-conv --to gecko against the Gecko model on random logs.

Two generators, seeded, so every log can be made again:
- mixed: 1-5 threads (thread ids shared between interpreters), stacks
  that grow, shrink, jump and empty at random, synthetic frames (no
  location, line 0), "<GC>", status bits flipping, threads missing from
  ticks, time steps of 0, 1 us, 2.77 ms and backwards; so records come
  out of time order (REPEAT groups flushed late) and the first and last
  records are often not the earliest and latest samples;
- long: a thread idle through a run that crosses the reader's 4,096-
  timestamp cut, status changes around it, written after (or before)
  another thread's records, so the last collect() calls may end before 0.
Each log is written by make_log.py (CPython's writer) and its expected
Gecko output derived by gecko_model.py (CPython's replay and collector),
the machine-dependent fields normalized as in the fixtures.

usage: gecko_random.py TACHYON-CONV SCRATCH [MIXED-SEEDS [LONG-SEEDS]]
       (a seed count N means seeds 0..N-1; defaults 60 and 40)
"""
import json
import os
import random
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import gecko_model  # noqa: E402
import make_log  # noqa: E402

FILES = ["/app/a.py", "/usr/lib/python3.15/json/decoder.py", "b.py",
         "<frozen runpy>", "~", "<string>", "<stdin>", "/x/y/", "noslash"]
FUNCS = ["main", "run", "decode", "<module>", "<GC>", "<native>", "f", "g",
         "Off CPU"]


def rframe(rng):
    r = rng.random()
    if r < 0.15:
        loc = None
    elif r < 0.25:
        loc = [0, 0, -1, -1]
    else:
        line, col = rng.randint(1, 40), rng.choice([-1, 0, 3, 7])
        loc = [line, line + rng.randint(0, 2), col,
               -1 if col == -1 else col + 5]
    return [rng.choice(FILES), loc, rng.choice(FUNCS), None]


def next_stack(rng, st, pool):
    r = rng.random()
    if r < 0.1:
        return []
    if r < 0.3:
        st = st + [rng.choice(pool) for _ in range(rng.randint(1, 3))]
    elif r < 0.45 and st:
        st = st[:rng.randint(0, len(st))]
    elif r < 0.5:
        st = [rng.choice(pool) for _ in range(rng.randint(0, 8))]
    return st[:200]


def mixed(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 5)
    tids = [rng.choice([1, 2, 3, 140000000000 + i]) for i in range(n)]
    interps = [rng.choice([0, 0, 0, 1]) for _ in range(n)]
    stacks, status = [[] for _ in range(n)], [rng.randint(0, 63)] * n
    pool = [rframe(rng) for _ in range(rng.randint(3, 40))]
    start = rng.randint(0, 10**9)
    t, samples = start + rng.randint(0, 5000), []
    for i in range(rng.choice([5, 30, 200, 1000, 5000])):
        by = {}
        for k in range(n):
            if i and rng.random() < 0.3:
                continue
            stacks[k] = next_stack(rng, stacks[k], pool)
            if rng.random() < 0.2:
                status[k] = rng.randint(0, 63)
            # one thread id once per interpreter and tick
            by.setdefault(interps[k], {})[tids[k]] = {
                "tid": tids[k], "status": status[k],
                "frames": list(reversed(stacks[k]))}
        if by:
            samples.append({"t": t, "interps": [
                {"id": i_, "threads": list(th.values())}
                for i_, th in by.items()]})
        step = rng.choice([1000, 1000, 997, 0, 1, 2770])
        t = max(0, t + (step if rng.random() > 0.02
                        else -rng.randint(1, 3000)))
    return samples, start


def long(seed):
    rng = random.Random(seed)

    def fr(line, fn):
        return ["/a.py", [line, line, 0, 5], fn, None]
    start = 1000000
    t, samples = start, []
    n1 = rng.choice([4095, 4096, 4097, 5000, 8192, 8193, 9000])
    flip = rng.choice([None, 4095, 4096, 4097, 100, 8192])
    idle = [] if rng.random() < 0.5 else [fr(1, "idle")]
    for i in range(n1):
        st = 0 if flip is None or i < flip else 2
        samples.append({"t": t, "interps": [{"id": 0, "threads": [
            {"tid": 1, "status": st, "frames": idle}]}]})
        t += rng.choice([1000, 1000, 0, 1])
    t2 = (t + rng.choice([-10**6, 2770, 0]) if rng.random() < 0.7
          else start + 500)
    for k in range(rng.randint(1, 20)):
        samples.append({"t": t2 + 1000 * k, "interps": [{"id": 0, "threads": [
            {"tid": 2, "status": rng.choice([3, 35, 1]),
             "frames": [fr(10 + k, f"f{k}"), fr(1, "<module>")]}]}]})
    if rng.random() < 0.5:  # thread 1 again, same stack
        for k in range(rng.randint(1, 5000)):
            samples.append({"t": t2 + 50000 + 1000 * k, "interps": [
                {"id": 0, "threads": [{"tid": 1, "status": rng.choice(
                    [0, 0, 0, 2]), "frames": idle}]}]})
    return samples, start


def normalized(path):
    with open(path, encoding="ascii") as f:
        d = json.load(f)
    d["meta"].update(startTime=0.0, abi="NORMALIZED", oscpu="NORMALIZED",
                     platform="NORMALIZED", physicalCPUs=0, logicalCPUs=0)
    for t in d["threads"]:
        t["pid"] = "0"
    return json.dumps(d, separators=(",", ":"))


def check(conv, scratch, name, gen, seed):
    samples, start = gen(seed)
    log = os.path.join(scratch, f"{name}{seed}.bin")
    with open(log, "wb") as f:
        f.write(make_log.write({"start_time_us": start,
                                "sample_interval_us": 1000, "mode": None,
                                "stats": None, "samples": samples}))
    out = log + ".json"
    subprocess.run([conv, "--to", "gecko", "--force", "-o", out, log],
                   check=True)
    want = json.dumps(gecko_model.model(log), separators=(",", ":"))
    if normalized(out) != want:
        sys.exit(f"{name} seed {seed}: tachyon-conv's gecko differs from "
                 f"the model (kept: {log})")
    os.unlink(log)
    os.unlink(out)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    conv, scratch = sys.argv[1:3]
    counts = [int(a) for a in sys.argv[3:5]] + [60, 40][len(sys.argv) - 3:]
    for (name, gen), n in zip((("mixed", mixed), ("long", long)), counts):
        for seed in range(n):
            check(conv, scratch, name, gen, seed)
        print(f"{name}: {n} random logs, tachyon-conv's gecko equals the "
              "model on each")


if __name__ == "__main__":
    main()
