#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent model of CPython's JsonlCollector and CollapsedStackCollector
run over a fixture's input.json (the write_sample() calls), used to derive
expected outputs for options the CPython fixtures do not cover (skip_idle).

It first checks itself against the CPython-written expected.jsonl and
expected.collapsed (skip_idle off), then writes
  <out>/<case>.skip_idle.jsonl and <out>/<case>.skip_idle.collapsed.

Usage: profile_expect.py TESTDATA_CPYTHON_DIR OUT_DIR CASE...
"""
import collections
import json
import os
import sys

HAS_GIL, ON_CPU = 1, 2


def reader_location(loc):
    """What CPython's binary writer+reader give back for a location."""
    if loc is None or loc[0] == -1:
        return None
    line, end_line, col, end_col = loc
    if end_line == -1:
        end_line = line
    if col == -1:
        end_col = -1
    elif end_col == -1:
        end_col = col
    return (line, end_line, col, end_col)


def thread_samples(inp, skip_idle):
    for sample in inp["samples"]:
        for interp in sample["interps"]:
            for th in interp["threads"]:
                frames = [(f[0], reader_location(f[1]), f[2])
                          for f in th["frames"][:256]]
                if skip_idle and not th["status"] & (HAS_GIL | ON_CPU):
                    continue
                if frames:
                    yield th["tid"], frames


def jsonl(inp, skip_idle, run_id="0" * 32):
    strings, sid = [], {}
    frames, fid = [], {}
    self_, cum = collections.Counter(), collections.Counter()
    total = 0

    def intern(s):
        if s not in sid:
            sid[s] = len(strings)
            strings.append({"str_id": sid[s], "value": s})
        return sid[s]

    for _tid, stack in thread_samples(inp, skip_idle):
        total += 1
        seen = set()
        for i, (fn, loc, func) in enumerate(stack):
            line, end_line, col, end_col = loc if loc else (0, 0, -1, -1)
            fields = {"line": line}
            if end_line > 0:
                fields["end_line"] = end_line
            if col >= 0:
                fields["col"] = col
            if end_col >= 0:
                fields["end_col"] = end_col
            f_id, p_id = intern(func), intern(fn)
            key = (p_id, f_id, line, fields.get("end_line"),
                   fields.get("col"), fields.get("end_col"))
            if key not in fid:
                fid[key] = len(frames)
                frames.append({"frame_id": fid[key], "path_str_id": p_id,
                               "func_str_id": f_id, **fields})
            k = fid[key]
            if i == 0:
                self_[k] += 1
            if k not in seen:
                seen.add(k)
                cum[k] += 1
    out = []

    def rec(r):
        out.append(json.dumps(r, separators=(",", ":")) + "\n")

    base = {"v": 0, "run_id": run_id}
    meta = {"type": "meta", **base,
            "sample_interval_usec": inp["sample_interval_us"]}
    if inp.get("mode") is not None:
        meta["mode"] = ["wall", "cpu", "gil", "all", "exception"][inp["mode"]]
    rec(meta)
    agg = [{"frame_id": f["frame_id"], "self": self_[f["frame_id"]],
            "cumulative": cum[f["frame_id"]]} for f in frames]
    for typ, field, items, extra in (
            ("string_table", "strings", strings, {}),
            ("frame_table", "frames", frames, {}),
            ("agg", "entries", agg, {"kind": "frame", "scope": "final",
                                     "samples_total": total})):
        for i in range(0, len(items), 256):
            rec({"type": typ, **base, **extra, field: items[i:i + 256]})
    rec({"type": "end", **base, "samples_total": total})
    return "".join(out)


def collapsed(inp, skip_idle):
    counter = collections.Counter()
    for tid, stack in thread_samples(inp, skip_idle):
        tree = tuple((fn, loc[0] if loc else 0, func)
                     for fn, loc, func in reversed(stack))
        counter[(tree, tid)] += 1
    lines = []
    for (tree, tid), count in counter.items():
        parts = [f"tid:{tid}"]
        for fn, line, func in tree:
            if fn == "~" and line == 0:
                parts.append(func)
            else:
                parts.append(f"{os.path.basename(fn)}:{func}:{line}")
        lines.append((";".join(parts), count))
    lines.sort(key=lambda x: (-x[1], x[0]))
    return "".join(f"{s} {c}\n" for s, c in lines)


def main():
    src, dst, cases = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(dst, exist_ok=True)
    for case in cases:
        d = os.path.join(src, case)
        with open(os.path.join(d, "input.json")) as f:
            inp = json.load(f)
        for name, got in (("expected.jsonl", jsonl(inp, False)),
                          ("expected.collapsed", collapsed(inp, False))):
            with open(os.path.join(d, name)) as f:
                if f.read() != got:
                    sys.exit(f"model disagrees with {case}/{name}")
        for ext, got in (("jsonl", jsonl(inp, True)),
                         ("collapsed", collapsed(inp, True))):
            with open(os.path.join(dst, f"{case}.skip_idle.{ext}"), "w") as f:
                f.write(got)
        print(case, "ok")


if __name__ == "__main__":
    main()
