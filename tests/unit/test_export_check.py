#!/usr/bin/env python3
"""Independent checks of tachyon's viewer exports, run by test_export_*.c.

usage: test_export_check.py COMMAND ARGS...; exit status 0 when the check
passes, 1 (with a message on stderr) when it fails.
"""
import ast
import json
import marshal
import pstats
import sys


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def load_marshal(path):
    with open(path, "rb") as f:
        return marshal.load(f)


def pstats_eq(ours, ref):
    """Both marshal files load to equal dicts."""
    a, b = load_marshal(ours), load_marshal(ref)
    if a != b:
        fail(f"pstats differ:\n ours {a}\n want {b}")


def pstats_expect(ours, literal):
    """The marshal file loads to the dict given as a Python literal."""
    a, b = load_marshal(ours), ast.literal_eval(literal)
    if a != b:
        fail(f"pstats differ:\n ours {a}\n want {b}")


def stats_outcome(path):
    try:
        pstats.Stats(path)
        return "ok"
    except Exception as e:  # the outcome itself is what is compared
        return type(e).__name__


def pstats_stats(ours, ref, total):
    """pstats.Stats treats ours as CPython's file; without the marker it
    loads and counts `total` calls."""
    o, r = stats_outcome(ours), stats_outcome(ref)
    if o != r:
        fail(f"pstats.Stats: ours {o}, CPython's {r}")
    d = load_marshal(ours)
    d.pop(("__sampled__",))
    with open(ours + ".nm", "wb") as f:
        marshal.dump(d, f)
    s = pstats.Stats(ours + ".nm")
    if s.total_calls != int(total):
        fail(f"pstats.Stats total_calls {s.total_calls}, want {total}")


NORMALIZED = {"startTime": 0.0, "abi": "NORMALIZED", "oscpu": "NORMALIZED",
              "platform": "NORMALIZED", "physicalCPUs": 0, "logicalCPUs": 0}


def gecko_eq(ours, ref):
    """Equal to CPython's after normalizing machine-dependent fields."""
    with open(ours, encoding="ascii") as f:
        a = json.load(f)
    with open(ref, encoding="utf-8") as f:
        b = json.load(f)
    a["meta"].update(NORMALIZED)
    for t in a["threads"]:
        t["pid"] = "0"
    if a != b:
        for k in b:
            if a.get(k) != b[k]:
                fail(f"gecko differs in {k!r}:\n ours {json.dumps(a.get(k))[:3000]}"
                     f"\n want {json.dumps(b[k])[:3000]}")
        fail("gecko differs")


def main():
    cmds = {"pstats-eq": pstats_eq, "pstats-expect": pstats_expect,
            "pstats-stats": pstats_stats, "gecko-eq": gecko_eq}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        fail(__doc__)
    cmds[sys.argv[1]](*sys.argv[2:])


if __name__ == "__main__":
    main()
