#!/usr/bin/env python3
"""The Gecko oracle and its use (golden case conv-viewers/gecko_model).

How the expected output of a log CPython's fixtures do not cover is
derived, and why it can be trusted:
1. make_log.py writes a log from write_sample() calls as CPython's writer
   does: it must reproduce every CPython-written none.bin byte for byte;
2. gecko_model.py replays a log as CPython's reader and GeckoCollector
   do: it must reproduce every CPython-written expected.gecko.json byte
   for byte;
3. make_views_fixtures.py must regenerate testdata/views/*.bin and
   empty_stacks.expected.gecko.json exactly (so they are what step 1 and
   2 say);
4. then tachyon-conv --to gecko of those logs, with the machine-dependent
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
    for case in ("empty_stacks", "many_stacks"):
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
