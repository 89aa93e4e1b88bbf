#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate testdata/views/*: binary logs for the viewer tests, written by
make_log.py (CPython's writer algorithm, checked byte for byte against
CPython's own none.bin files), and the expected Gecko output of the two
Gecko cases, derived by gecko_model.py (a model of CPython's replay and
GeckoCollector, checked byte for byte against CPython's expected.gecko.json
of every fixture in testdata/cpython).

Cases:
  deep          one thread: a 301-frame recursion (cut to the 256 innermost
                frames by the writer) and a 2-frame stack; what the
                "<truncated>" marker is tested on.
  empty_stacks  threads whose stacks are empty: a fresh thread whose first
                stack is empty (a REPEAT record of depth 0), a later empty
                stack (a FULL record of depth 0), a thread that is only
                ever empty while its CPU state flips (so "Off CPU"/"On CPU"
                markers, and their strings, come before later functions), a
                thread that starts empty and then enters <GC>. The first
                sample is 2770 us after the header's start time.
  many_stacks   about 1,200 distinct thread stacks over three threads (a
                random walk with a fixed seed), a long idle run (one REPEAT
                group of 500 samples, batched by status), a thread whose
                first stacks are empty (one REPEAT group written after the
                first record, which is another thread's 2.77 ms later: some
                times are negative), and a thread that ends 3 ticks early
                while idle, whose REPEAT group is flushed last (threads in
                creation order), so the last collect() call ends 3 ms
                before the latest sample: the interval and the markers
                closed at the end take that earlier time.
  idle_run      empty-stack runs the reader cuts after 4,096 timestamps
                (one status through 8,000 samples: one collect() call;
                a status change right at the cut: a new call), written
                last and before the first record, so the interval comes
                from collect() (the last call ends before 0).
  opcodes       a log that says it recorded opcodes (Python 3.15): the
                leaf instruction changes by opcode, by line, by column, by
                function and file, not by end line or end column; a
                specialised instruction, an instrumented one, a byte 3.15
                does not name, runs of None, a "<GC>" leaf without a
                location, a function name JSON escapes, status changes
                inside one run (REPEAT records split by status), a
                thread whose first stacks are empty, and two states
                closed only at the end (the string array's last two
                names, interned then).
  rate_1khz, rate_100hz  one program recorded at 1 kHz (2,000 samples) and
                at 100 Hz (200 samples), same stacks in the same shares:
                the differential flame graph must call nothing changed
                (cpython#154032 scaled one side by the sampled time).

usage: make_views_fixtures.py OUT_DIR   (writes OUT_DIR/<case>.bin, and
       <case>.expected.gecko.json for empty_stacks, idle_run and opcodes)
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gecko_model  # noqa: E402
import make_log  # noqa: E402

GIL, CPU, GILREQ, EXC, MAIN = 1, 2, 8, 16, 32


def frame(file, line, func, col=4):
    return [file, [line, line, col, col + 10], func, None]


def log(samples, start=1000000):
    return {"start_time_us": start, "sample_interval_us": 1000,
            "mode": None, "stats": None, "samples": samples}


def at(t, *threads):
    return {"t": t, "interps": [{"id": 0, "threads": [
        {"tid": tid, "status": st, "frames": fr} for tid, st, fr in threads]}]}


def deep():
    rec = [frame("/app/r.py", 10 + i % 3, "rec") for i in range(300)]
    rec.append(frame("/app/r.py", 50, "<module>", 0))
    short = [frame("/app/r.py", 5, "work"), frame("/app/r.py", 51,
                                                  "<module>", 0)]
    return log([at(1001000 + 1000 * i, (7, GIL | CPU | MAIN,
                                        rec if i % 4 else short))
                for i in range(40)])


def empty_stacks():
    main = [frame("/app/m.py", 3, "step"), frame("/app/m.py", 9, "main"),
            frame("/app/m.py", 12, "<module>", 0)]
    other = [frame("/app/w.py", 7, "wait"), frame("/lib/threading.py", 99,
                                                 "run")]
    gc = [["~", None, "<GC>", None]] + other
    samples, t = [], 1002770
    for i in range(30):
        a = [] if i < 3 or 12 <= i < 15 else main
        b_status = CPU if i % 5 < 2 else 0
        threads = [(100, MAIN | GIL | CPU if a else MAIN, a),
                   (200, b_status, [])]
        if i >= 8:
            c = [] if i < 10 else (gc if 16 <= i < 20 else other)
            threads.append((300, GIL if 16 <= i < 20 else GILREQ, c))
        samples.append(at(t, *threads))
        t += 1000 if i % 7 else 1250
    return log(samples)


def many_stacks():
    r = random.Random(12)
    funcs = [(f"/app/mod{i % 7}.py", 10 + i, f"f{i}") for i in range(60)]
    state = {1: [funcs[0], funcs[1]], 2: [], 3: []}
    samples, t0 = [], 1002770
    n = 900
    for i in range(n):
        # thread 1 joins 2.77 ms after thread 2's first sample
        t = t0 if i == 0 else t0 + 2770 + 1000 * (i - 1) + 37 * (i // 5)
        threads = []
        for tid in (2, 1, 3):
            if tid == 1 and i == 0:
                continue  # its first record (i == 1) opens the file
            if tid == 3 and (i < 5 or i >= n - 3):
                continue  # starts late, ends 3 ticks before the others
            st = state[tid]
            if tid == 3 and 150 <= i < 650:
                pass  # a long idle run: one REPEAT group
            elif tid == 2 and i < 40:
                st = []  # empty at first: one REPEAT group, written late
            elif tid == 3 and i >= n - 40:
                pass  # idle to its end: pending until the file's end
            else:
                x = r.random()
                if x < 0.45 and len(st) < 18:
                    st = st + [r.choice(funcs)]
                elif x < 0.8 and st:
                    st = st[:-1]
                elif x < 0.85:
                    st = [r.choice(funcs) for _ in range(r.randint(1, 9))]
            state[tid] = st
            status = (GIL | CPU) if (i + tid) % 3 else CPU
            if tid == 3 and (150 <= i < 650 or i >= n - 40):
                status = 0
            frames = [frame(f, ln, fn) for f, ln, fn in reversed(st)]
            if tid == 3 and not frames:
                frames = [frame("/app/idle.py", 1, "idle")]
            threads.append((tid, status | (MAIN if tid == 1 else 0),
                            frames))
        samples.append(at(t, *threads))
    # thread 3 (created last: flushed last) ends idle 3 ticks early: the
    # last record is its REPEAT group, 3 ms before the latest sample
    return log(samples)


def idle_run():
    """Two threads whose stacks stay empty through long runs sampled every
    100 us (one REPEAT record each, flushed at the end of the file in
    creation order): thread 20's 8,000 samples keep one status (one
    collect() call that the reader delivers in two pieces), thread 30's
    5,000 samples change status right where the reader cuts a run (after
    4,096 timestamps: a new collect() call all the same). Both runs lie
    before the first written record (thread 10's, 2.77 ms after them), so
    their times are negative, the last collect() calls end before 0 and
    GeckoCollector keeps the interval collect() computed when thread 20's
    whole run came in."""
    work = [frame("/app/w.py", 5, "work"), frame("/app/w.py", 30, "main")]
    samples = []
    t = 1000500
    for i in range(8000):
        threads = [(20, 0, [])]
        if i < 5000:
            threads.append((30, CPU if i < 4096 else 0, []))
        samples.append(at(t, *threads))
        t += 100
    t += 2770
    for k in range(12):
        fr = [frame("/app/w.py", 6 + k % 4, "step")] + work if k % 2 \
            else work
        samples.append(at(t, (10, MAIN | GIL | CPU, fr)))
        t += 1000
    return log(samples)


def op_frame(file, line, func, op, col=4, end=0):
    return [file, [line, line + end, col, col + 10 + end], func, op]


def opcodes():
    LOAD_ATTR_SLOT, BINARY_OP, CALL, INSTR_LINE, UNNAMED = 194, 42, 50, \
        253, 120
    LOAD_FAST, CALL_PY_EXACT_ARGS = 83, 164
    outer = [op_frame("/app/o.py", 30, "main", CALL, 0)]
    leaves = [
        op_frame("/app/o.py", 10, "get", LOAD_ATTR_SLOT),
        op_frame("/app/o.py", 10, "get", LOAD_ATTR_SLOT),       # same
        op_frame("/app/o.py", 10, "get", LOAD_ATTR_SLOT, end=2),  # same key
        op_frame("/app/o.py", 10, "get", BINARY_OP),            # opcode
        op_frame("/app/o.py", 11, "get", BINARY_OP),            # line
        op_frame("/app/o.py", 11, "get", BINARY_OP, col=9),     # column
        op_frame("/app/p.py", 11, "get", BINARY_OP, col=9),     # file
        op_frame("/app/p.py", 11, 'say "h\u00e9"', BINARY_OP, col=9),
        op_frame("/app/p.py", 12, "get", None),                 # None
        op_frame("/app/p.py", 13, "get", None),
        ["~", None, "<GC>", None],                              # no location
        op_frame("/app/p.py", 14, "get", INSTR_LINE),
        op_frame("/app/p.py", 15, "get", UNNAMED),
        op_frame("/app/p.py", 15, "get", UNNAMED),
    ]
    samples, t = [], 1001000
    for i in range(40):
        # the last states, closed at the end, are the only ones with their
        # names: the string array shows which thread closed first
        leaf = leaves[i % len(leaves)] if i < 39 else op_frame(
            "/app/o.py", 16, "get", LOAD_FAST)
        status = GIL | CPU | MAIN if i % 3 else CPU | MAIN
        threads = [(1, status, [leaf] + outer)]
        w = [] if i < 9 else [op_frame("/app/w.py", 3 + i // 6, "work",
                                       BINARY_OP if i < 36 else
                                       CALL_PY_EXACT_ARGS), op_frame(
            "/app/w.py", 40, "run", CALL, 0)]
        threads.insert(0, (2, GIL if w else 0, w))
        samples.append(at(t, *threads))
        t += 1000
    out = log(samples)
    out["features"] = 8  # opcodes recorded
    return out


def rate(interval, n):
    """One program at two sampling rates: the same stacks in the same
    proportions (60% / 30% / 10%), `n` samples `interval` us apart."""
    a = [frame("/app/p.py", 3, "parse"), frame("/app/p.py", 20, "main")]
    b = [frame("/app/p.py", 8, "render"), frame("/app/p.py", 21, "main")]
    c = [frame("/app/p.py", 12, "save"), frame("/app/p.py", 22, "main")]
    out = log([at(1000000 + interval * (i + 1),
                  (5, GIL | CPU | MAIN, a if i % 10 < 6 else
                   b if i % 10 < 9 else c)) for i in range(n)])
    out["sample_interval_us"] = interval
    return out


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, fn, gecko in (("deep", deep, False),
                            ("empty_stacks", empty_stacks, True),
                            ("many_stacks", many_stacks, False),
                            ("idle_run", idle_run, True),
                            ("opcodes", opcodes, True),
                            ("rate_1khz", lambda: rate(1000, 2000), False),
                            ("rate_100hz", lambda: rate(10000, 200), False)):
        path = os.path.join(out, name + ".bin")
        with open(path, "wb") as f:
            f.write(make_log.write(fn()))
        if gecko:
            with open(os.path.join(out, name + ".expected.gecko.json"),
                      "w") as f:
                f.write(json.dumps(gecko_model.model(path),
                                   separators=(",", ":")))


if __name__ == "__main__":
    main()
