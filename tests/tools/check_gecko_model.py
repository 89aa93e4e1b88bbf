#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Gecko oracle and its use (golden case conv-viewers/gecko_model).

How the expected output of a log CPython's fixtures do not cover is
derived, and why it can be trusted:
1. make_log.py writes a log from write_sample() calls as CPython's writer
   does: it must reproduce every CPython-written none.bin byte for byte;
2. gecko_model.py replays a log as CPython's reader and GeckoCollector
   do: it must reproduce every CPython-written expected.gecko.json byte
   for byte;
3. make_views_fixtures.py must regenerate testdata/views/*.bin and the
   committed *.expected.gecko.json exactly (so they are what step 1 and
   2 say);
4. each Gecko case must exercise what it is there for: the model's output
   must differ from what a plausible other reading of CPython would give
   (the CPython fixtures cannot tell these apart: none has an empty stack,
   a first record later than the earliest sample, a last record earlier
   than the latest one, or a run the reader cuts):
   - empty_stacks: a thread with an empty stack still opens and closes
     its state markers (their names interned then) and adds no sample;
   - many_stacks: times count from the FIRST collect() call's first
     timestamp (not the earliest one, 2.77 ms before), and the interval
     and the markers closed at the end use the LAST call's last timestamp
     (not the latest one, 3 ms after);
   - idle_run: a REPEAT run of one status is one collect() call however
     the reader cuts it, and a status change at the cut starts a new one;
5. then tachyon-conv --to gecko of those logs, with the machine-dependent
   fields normalized as in the fixtures, must equal the model's output.

usage: check_gecko_model.py TESTDATA TACHYON-CONV SCRATCH
"""
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import gecko_model  # noqa: E402
import make_log  # noqa: E402


def dumps(d):
    return json.dumps(d, separators=(",", ":"))


def normalized(path):
    with open(path, encoding="ascii") as f:
        d = json.load(f)
    d["meta"].update(startTime=0.0, abi="NORMALIZED", oscpu="NORMALIZED",
                     platform="NORMALIZED", physicalCPUs=0, logicalCPUs=0)
    for t in d["threads"]:
        t["pid"] = "0"
    return dumps(d)


class Variant(gecko_model.Gecko):
    """GeckoCollector read another way (what CPython does NOT do)."""

    def __init__(self, how, calls):
        super().__init__()
        self.how = how
        stamps = [t for c in calls for t in c[3]]
        if how == "base=earliest":
            self.base = min(stamps)
        self.latest = max(stamps)

    def collect(self, tid, status, frames, stamps):
        if self.how == "empty stacks skipped" and not frames:
            return
        super().collect(tid, status, frames, stamps)
        if self.how == "empty stacks sampled" and not frames and stamps:
            s = self.threads[tid]["samples"]
            s["stack"] += [None] * len(stamps)
            s["time"] += [(t - self.base) / 1000 for t in stamps]
            s["eventDelay"] += [None] * len(stamps)

    def export(self):
        if self.how == "last=latest":
            self.last = (self.latest - self.base) / 1000
        return super().export()


def cut_calls(calls, rule):
    """The replay's calls with REPEAT runs cut after 4096 timestamps: each
    piece its own call, or pieces merged into the call before them even
    across a status change."""
    out = []
    for tid, status, stack, stamps in calls:
        if len(stamps) <= 4096:
            out.append((tid, status, stack, stamps))
        elif rule == "runs cut at 4096":
            out += [(tid, status, stack, stamps[i:i + 4096])
                    for i in range(0, len(stamps), 4096)]
        else:
            out.append((tid, status, stack, stamps))
    if rule == "cut runs merged across a status change":
        merged = []
        for c in out:
            p = merged[-1] if merged else None
            if p and p[0] == c[0] and p[2] == c[2] and len(p[3]) == 4096:
                merged[-1] = (p[0], p[1], p[2], p[3] + c[3])
            else:
                merged.append(c)
        out = merged
    return out


def variant(path, how):
    start, frames, data = gecko_model.read_log(path)[:3]
    calls = list(gecko_model.replay(start, frames, data))
    if how.startswith(("runs", "cut")):
        calls, g = cut_calls(calls, how), gecko_model.Gecko()
    else:
        g = Variant(how, calls)
    for tid, status, stack, stamps in calls:
        g.collect(tid, status, [frames[i] for i in stack[:256]], stamps)
    return dumps(g.export())


TELLS = {
    "empty_stacks": ("empty stacks skipped", "empty stacks sampled"),
    "many_stacks": ("base=earliest", "last=latest"),
    "idle_run": ("runs cut at 4096", "cut runs merged across a status "
                 "change"),
}


def main():
    testdata, conv, scratch = sys.argv[1:4]
    cp = os.path.join(testdata, "cpython")
    cases = sorted(c for c in os.listdir(cp)
                   if os.path.exists(os.path.join(cp, c, "input.json")))
    for c in cases:
        with open(os.path.join(cp, c, "input.json")) as f:
            got = make_log.write(json.load(f))
        with open(os.path.join(cp, c, "none.bin"), "rb") as f:
            if got != f.read():
                sys.exit(f"make_log: {c}: differs from CPython's none.bin")
        with open(os.path.join(cp, c, "expected.gecko.json")) as f:
            want = f.read()
        if dumps(gecko_model.model(os.path.join(cp, c, "none.bin"))) != want:
            sys.exit(f"gecko_model: {c}: differs from CPython's gecko")
    print(f"writer and Gecko models equal CPython's files: {len(cases)} "
          "cases")
    gen = os.path.join(scratch, "views")
    subprocess.run([sys.executable, os.path.join(here,
                    "make_views_fixtures.py"), gen], check=True)
    views = os.path.join(testdata, "views")
    for name in sorted(os.listdir(gen)):
        with open(os.path.join(gen, name), "rb") as a, \
                open(os.path.join(views, name), "rb") as b:
            if a.read() != b.read():
                sys.exit(f"testdata/views/{name}: not what the generator "
                         "writes")
    print("testdata/views: as generated")
    for case, hows in TELLS.items():
        log = os.path.join(views, case + ".bin")
        want = dumps(gecko_model.model(log))
        for how in hows:
            if variant(log, how) == want:
                sys.exit(f"{case}: the model does not tell CPython from "
                         f"'{how}'")
        print(f"{case}: tells CPython's replay from: {', '.join(hows)}")
    for case in (*TELLS, "opcodes"):
        log = os.path.join(views, case + ".bin")
        out = os.path.join(scratch, case + ".gecko.json")
        subprocess.run([conv, "--to", "gecko", "-o", out, log], check=True)
        want = dumps(gecko_model.model(log))
        if normalized(out) != want:
            sys.exit(f"{case}: tachyon-conv's gecko differs from the model")
        print(f"{case}: tachyon-conv --to gecko equals the model "
              f"({len(want)} bytes)")


if __name__ == "__main__":
    main()
