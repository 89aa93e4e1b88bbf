#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
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


def pstats_eq(ours, ref, *more):
    """Both marshal files load to equal dicts (pairs of files)."""
    a, b = load_marshal(ours), load_marshal(ref)
    if a != b:
        fail(f"pstats differ:\n ours {a}\n want {b}")
    print(f"{ours}: loads equal to {ref}")
    if more:
        pstats_eq(*more)


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


def gecko_eq(ours, ref, *more):
    """Equal to CPython's after normalizing machine-dependent fields
    (pairs of files)."""
    gecko_eq1(ours, ref)
    print(f"{ours}: equals {ref} (normalized)")
    if more:
        gecko_eq(*more)


def gecko_eq1(ours, ref):
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


def parse_text_proto(text):
    """protoc's text format -> nested dicts of lists."""
    root, stack = {}, []
    cur = root
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.endswith("{"):
            child = {}
            cur.setdefault(line[:-1].strip(), []).append(child)
            stack.append(cur)
            cur = child
        elif line == "}":
            cur = stack.pop()
        else:
            key, val = line.split(":", 1)
            val = val.strip()
            if val.startswith('"'):
                val = ast.literal_eval(val)
            elif val in ("true", "false"):
                val = val == "true"
            else:
                val = int(val)
            cur.setdefault(key, []).append(val)
    return root


def decode_pprof(path, proto):
    """gunzip + protoc --decode (an independent decoder)."""
    import gzip
    import os
    import subprocess
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] != b"\x1f\x8b":
        fail("pprof: not gzipped")
    out = subprocess.run(
        ["protoc", "--decode=perftools.profiles.Profile",
         "-I", os.path.dirname(proto), proto],
        input=gzip.decompress(data), capture_output=True, check=True)
    return parse_text_proto(out.stdout.decode())


def one(m, key, default=0):
    return m.get(key, [default])[0]


def pprof_check_valid(p):
    """The rules of pprof's Profile.CheckValid that apply here."""
    st = p.get("string_table", [])
    if not st or st[0] != "":
        fail("pprof: string_table[0] must be empty")
    nvals = len(p.get("sample_type", []))
    funcs = {one(f, "id"): f for f in p.get("function", [])}
    locs = {one(l, "id"): l for l in p.get("location", [])}
    if 0 in funcs or 0 in locs or len(funcs) != len(p.get("function", [])) \
            or len(locs) != len(p.get("location", [])):
        fail("pprof: ids must be nonzero and unique")
    for s in p.get("sample", []):
        if len(s.get("value", [])) != nvals:
            fail("pprof: sample value count != sample_type count")
        for lid in s.get("location_id", []):
            if lid not in locs:
                fail(f"pprof: unknown location {lid}")
    maps = {one(m, "id") for m in p.get("mapping", [])}
    for l in locs.values():
        if one(l, "mapping_id") not in maps:
            fail("pprof: location without a mapping")
        for ln in l.get("line", []):
            if one(ln, "function_id") not in funcs:
                fail("pprof: unknown function")
    return funcs, locs


def pprof_collapsed(path, proto, collapsed, interval):
    """Decoded pprof, re-collapsed as CPython's CollapsedStackCollector
    keys stacks, equals CPython's expected.collapsed."""
    p = decode_pprof(path, proto)
    funcs, locs = pprof_check_valid(p)
    st = p["string_table"]
    types = [(st[one(t, "type")], st[one(t, "unit")])
             for t in p["sample_type"]]
    if types != [("samples", "count"), ("wall", "microseconds")]:
        fail(f"pprof: sample types {types}")
    got = {}
    for s in p.get("sample", []):
        parts = []
        for lid in reversed(s["location_id"]):
            ln = locs[lid]["line"][0]
            f = funcs[one(ln, "function_id")]
            name, fname = st[one(f, "name")], st[one(f, "filename")]
            line = one(ln, "line")
            if fname == "~" and line == 0:
                parts.append(name)
            else:
                parts.append(f"{fname.rsplit('/', 1)[-1]}:{name}:{line}")
        labels = {st[one(l, "key")]: one(l, "num") for l in s["label"]}
        key = f"tid:{labels['thread_id']};" + ";".join(parts)
        n, us = s["value"]
        if us != n * int(interval):
            fail(f"pprof: wall {us} != {n} x {interval}")
        got[key] = got.get(key, 0) + n
    want = {}
    with open(collapsed, encoding="utf-8") as f:
        for line in f:
            stack, n = line.rstrip("\n").rsplit(" ", 1)
            want[stack] = int(n)
    if got != want:
        fail(f"pprof stacks differ:\n ours {got}\n want {want}")


def reference_collapsed(input_json, spec):
    """CPython's collapsed output of input.json's samples with tachyon's
    filters applied, computed independently from the filter definitions
    in fmt_profile.h (Python's re stands in for PCRE2)."""
    import re
    with open(input_json, encoding="utf-8") as f:
        data = json.load(f)
    tids = spec.get("threads")
    inc = [re.compile(r) for r in spec.get("include", [])]
    exc = [re.compile(r) for r in spec.get("exclude", [])]
    rew = [(re.compile(a), re.sub(r"\$(\d+)", r"\\\1", b))
           for a, b in (r.split("=>", 1) for r in spec.get("rewrite", []))]

    def rename(s):
        for rx, to in rew:
            s = rx.sub(to, s)
        return s

    def hit(rules, file, func):
        return any(r.search(file) or r.search(func) for r in rules)

    counts = {}
    for smp in data["samples"]:
        for interp in smp["interps"]:
            for t in interp["threads"]:
                st = t["status"]
                if tids is not None and t["tid"] not in tids:
                    continue
                if spec.get("skip_idle") and not st & 3:
                    continue
                if st & spec.get("all", 0) != spec.get("all", 0):
                    continue
                stack = []
                for file, loc, func, _ in reversed(t["frames"]):
                    line = 0 if loc is None or loc[0] == -1 else loc[0]
                    stack.append((rename(file), rename(func), line))
                if not stack:
                    continue
                incd = [not inc or hit(inc, fi, fu) for fi, fu, _ in stack]
                excd = [hit(exc, fi, fu) for fi, fu, _ in stack]
                if spec.get("drop_frames"):
                    stack = [fr for fr, i, e in zip(stack, incd, excd)
                             if i and not e]
                elif any(excd) or not any(incd):
                    continue
                if spec.get("collapse"):
                    out = []
                    for fr in stack:
                        if out and out[-1][:2] == fr[:2]:
                            out[-1] = fr
                        else:
                            out.append(fr)
                    stack = out
                if not stack:
                    continue
                parts = [fu if fi == "~" and ln == 0 else
                         f"{fi.rsplit('/', 1)[-1]}:{fu}:{ln}"
                         for fi, fu, ln in stack]
                key = f"tid:{t['tid']};" + ";".join(parts)
                counts[key] = counts.get(key, 0) + 1
    return counts


def filter_collapsed(ours, input_json, spec):
    """Our collapsed export of a filtered profile equals the reference."""
    want = reference_collapsed(input_json, json.loads(spec))
    got = {}
    with open(ours, encoding="utf-8") as f:
        for line in f:
            stack, n = line.rstrip("\n").rsplit(" ", 1)
            got[stack] = int(n)
    if got != want:
        fail(f"filtered stacks differ:\n ours {got}\n want {want}")


def gecko_collapsed(ours, collapsed, *more):
    """Every Gecko sample, walked up its stack table, gives the stacks and
    counts of the collapsed export of the same input and filters (its
    frames as "resource:function:line", a null line being 0, and a
    pseudo-frame of file "~" as its bare name, as collapsed writes it)."""
    with open(ours, encoding="ascii") as f:
        d = json.load(f)
    strs = d["shared"]["stringArray"]
    got = {}
    for t in d["threads"]:
        st, fr, fu = t["stackTable"], t["frameTable"], t["funcTable"]
        res = t["resourceTable"]
        labels = []
        for i in range(fr["length"]):
            fn = fr["func"][i]
            line = fr["line"][i]
            file = strs[res["name"][fu["resource"][fn]]]
            name = strs[fu["name"][fn]]
            if file == "~" and line is None:    # "<GC>", "<native>"
                labels.append(name)
            else:
                labels.append("%s:%s:%s" % (file, name,
                                            0 if line is None else line))
        for s in t["samples"]["stack"]:
            frames = []
            while s is not None:
                frames.append(labels[st["frame"][s]])
                s = st["prefix"][s]
            key = ";".join(["tid:%d" % t["tid"]] + frames[::-1])
            got[key] = got.get(key, 0) + 1
    want = read_collapsed(collapsed)
    if got != want:
        diff = sorted(set(got.items()) ^ set(want.items()))[:6]
        fail(f"gecko samples differ from {collapsed}: {diff}")
    print(f"{ours}: samples equal {collapsed}")
    if more:
        gecko_collapsed(*more)


def gecko_times(ours, times):
    """Sample times are repr((ts - first) / 1000) of the log's timestamps
    ("tid ts" lines, the first one the base), per thread in order, and
    each marker's duration is repr(endTime - startTime), as CPython's
    GeckoCollector computes them (texts compared, not parsed floats)."""
    with open(ours, encoding="ascii") as f:
        d = json.load(f, parse_float=str)
    want, base = {}, None
    with open(times, encoding="ascii") as f:
        for line in f:
            tid, ts = map(int, line.split())
            base = ts if base is None else base
            want.setdefault(tid, []).append(repr((ts - base) / 1000))
    for t in d["threads"]:
        if t["samples"]["time"] != want.get(t["tid"]):
            fail(f"thread {t['tid']}: times {t['samples']['time']}, "
                 f"want {want.get(t['tid'])}")
        m = t["markers"]
        for data, a, b in zip(m["data"], m["startTime"], m["endTime"]):
            if data["duration"] != repr(float(b) - float(a)):
                fail(f"duration {data['duration']} of {a}..{b}")
    if set(want) != {t["tid"] for t in d["threads"]}:
        fail("threads differ")


def read_collapsed(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            stack, n = line.rstrip("\n").rsplit(" ", 1)
            out[stack] = int(n)
    return out


def speedscope_collapsed(ours, collapsed, interval):
    """Valid per speedscope's file-format schema rules, and its samples,
    re-collapsed, equal CPython's expected.collapsed."""
    with open(ours, encoding="ascii") as f:
        d = json.load(f)
    if d.get("$schema") != "https://www.speedscope.app/file-format-schema.json":
        fail("speedscope: $schema")
    frames = d["shared"]["frames"]
    if any(not isinstance(fr.get("name"), str) for fr in frames):
        fail("speedscope: frame without a name")
    got = {}
    for p in d["profiles"]:
        if p["type"] != "sampled" or p["unit"] != "microseconds":
            fail("speedscope: profile type/unit")
        if len(p["samples"]) != len(p["weights"]) or \
                p["endValue"] - p["startValue"] != sum(p["weights"]):
            fail("speedscope: samples/weights/endValue disagree")
        tid = p["name"].split()[1]
        for stack, w in zip(p["samples"], p["weights"]):
            parts = []
            for i in stack:
                if not 0 <= i < len(frames):
                    fail("speedscope: frame index out of range")
                fr = frames[i]
                if "file" not in fr:
                    parts.append(fr["name"])
                else:
                    base = fr["file"].rsplit("/", 1)[-1]
                    parts.append(f"{base}:{fr['name']}:{fr.get('line', 0)}")
            key = f"tid:{tid};" + ";".join(parts)
            got[key] = got.get(key, 0) + w // int(interval)
    want = read_collapsed(collapsed)
    if got != want:
        fail(f"speedscope stacks differ:\n ours {got}\n want {want}")


def gecko_threads(path):
    """tid -> [(time in us, stack as (name, line) root first)] of a Gecko
    file, in its (chronological) order."""
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    strs = d["shared"]["stringArray"]
    out = {}
    for t in d["threads"]:
        st, ft, fn = t["stackTable"], t["frameTable"], t["funcTable"]

        def stack(i):
            frames = []
            while i is not None:
                fr = st["frame"][i]
                frames.append((strs[fn["name"][ft["func"][fr]]],
                               ft["line"][fr]))
                i = st["prefix"][i]
            return tuple(reversed(frames))
        s = t["samples"]
        out[t["tid"]] = [(round(tm * 1000), stack(i))
                         for i, tm in zip(s["stack"], s["time"])]
    return out, d["meta"]


def speedscope_timeline(ours, gecko, interval):
    """Each thread's speedscope samples are the thread's Gecko samples (a
    chronological replay by CPython's collector) in the same order: every
    Gecko sample lies in a speedscope run of the same stack starting
    (weights summed from the thread's first sample) where that run's first
    Gecko sample is, empty runs keep the time of samples Gecko does not
    show, and the last run ends one interval after the last sample.
    Gecko threads without samples (only empty stacks) have no profile."""
    with open(ours, encoding="ascii") as f:
        d = json.load(f)
    frames = d["shared"]["frames"]
    want, _ = gecko_threads(gecko)
    interval = int(interval)
    for p in d["profiles"]:
        tid = int(p["name"].split()[1])
        runs, at = [], 0
        for stack, w in zip(p["samples"], p["weights"]):
            if w <= 0:
                fail(f"speedscope: thread {tid}: weight {w}")
            key = tuple((frames[i]["name"], frames[i].get("line"))
                        for i in stack)
            if key[:1] == (("<truncated>", None),):
                key = key[1:]   # tachyon's marker, not in CPython's
            runs.append((at, at + w, key))
            at += w
        samples = want.pop(tid, [])
        if not samples:
            fail(f"speedscope: thread {tid} has no Gecko samples")
        t0, k, firsts = samples[0][0], 0, set()
        for tm, key in samples:
            tm -= t0
            while k < len(runs) and runs[k][1] <= tm:
                k += 1
            if k == len(runs) or runs[k][2] != key or runs[k][0] > tm:
                fail(f"speedscope: thread {tid}: Gecko sample at {tm} us "
                     f"{key[-1:]} not in run {k} of {len(runs)}")
            if runs[k][0] == tm:
                firsts.add(k)
        for i, r in enumerate(runs):
            if r[2] and i not in firsts:
                fail(f"speedscope: thread {tid}: run {i} at {r[0]} us starts "
                     "at no Gecko sample")
        if at != samples[-1][0] - t0 + interval:
            fail(f"speedscope: thread {tid}: ends at {at} us, Gecko's last "
                 f"sample + interval is {samples[-1][0] - t0 + interval}")
        print(f"thread {tid}: {len(samples)} samples in {len(runs)} runs "
              f"({sum(1 for r in runs if not r[2])} empty), {at} us")
    missing = sorted(tid for tid, v in want.items() if v)
    if missing:
        fail(f"speedscope: no profile for Gecko threads {missing}")


def svg_check(ours, collapsed, title):
    """Well-formed XML; the title; the root box spans the full width and
    each thread box its share of CPython's collapsed counts."""
    import xml.etree.ElementTree as ET
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(ours).getroot()
    if root.tag != ns + "svg":
        fail("svg: root element")
    texts = [t.text for t in root.iter(ns + "text")]
    if title not in texts:
        fail(f"svg: title {title!r} not in {texts[:4]}")
    width = float(root.get("data-w"))
    per_tid = {}
    for stack, n in read_collapsed(collapsed).items():
        tid = stack.split(";")[0][4:]
        per_tid[tid] = per_tid.get(tid, 0) + n
    total = sum(per_tid.values())
    boxes = {}
    for g in root.iter(ns + "g"):
        if g.get("class") != "f":
            continue
        rect = g.find(ns + "rect")
        boxes.setdefault(g.get("data-n"), []).append(
            float(rect.get("width")))
    if boxes.get("all") != [round(width, 2)]:
        fail(f"svg: root width {boxes.get('all')}")
    for tid, n in per_tid.items():
        w = boxes.get(f"thread {tid}")
        if w != [round(n / total * width, 2)]:
            fail(f"svg: thread {tid} width {w}, want {n / total * width}")


def main():
    cmds = {"pstats-eq": pstats_eq, "pstats-expect": pstats_expect,
            "pstats-stats": pstats_stats, "gecko-eq": gecko_eq,
            "gecko-collapsed": gecko_collapsed,
            "gecko-times": gecko_times,
            "pprof-collapsed": pprof_collapsed,
            "filter-collapsed": filter_collapsed,
            "speedscope-collapsed": speedscope_collapsed,
            "speedscope-timeline": speedscope_timeline,
            "svg-check": svg_check}
    # checks that take groups of arguments, repeated to batch many files
    arity = {"pprof-collapsed": 4, "filter-collapsed": 3,
             "speedscope-collapsed": 3, "speedscope-timeline": 3,
             "svg-check": 3}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        fail(__doc__)
    args, n = sys.argv[2:], arity.get(sys.argv[1])
    if n is None:
        cmds[sys.argv[1]](*args)
        return
    for i in range(0, len(args), n):
        cmds[sys.argv[1]](*args[i:i + n])


if __name__ == "__main__":
    main()
