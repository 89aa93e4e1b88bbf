# SPDX-License-Identifier: MIT
"""Synthetic frames and opcodes as CPython 3.15 writes them, on
frames_target.py: <GC> (file "~", no location, no opcode) innermost while
the collector runs, for the share of samples the program itself measured
collecting (gc.callbacks), and none with --no-gc; with --native, <native>
between a Python key function and the frame that called sorted(), never
innermost or outermost and never between two frames that call directly;
with --opcodes every Python frame's opcode byte, callers at a call
instruction of this interpreter's own numbering, and tachyon-conv's Gecko
timeline of that log with CPython's Opcode markers (the Gecko model's,
byte for byte, named as this interpreter's dis names them); and the
header's capture features in each case."""
import argparse
import dis
import json
import opcode
import os
import subprocess
import sys

from rec_common import (check, config_word, decode, finish, load_avg,
                        record, tool_args)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import check_gecko_model  # noqa: E402
import gecko_model  # noqa: E402
TARGET = os.path.join(HERE, "frames_target.py")
NONE = 255
BUSY_MACHINE = 15


def run(args, tag, extra):
    out, truth = f"{args.out}.{tag}.bin", f"{args.out}.{tag}.truth"
    p = record(args.recorder, out, extra,
               [sys.executable, TARGET, "2", truth])
    check(p.returncode == 0, f"{tag}: recorder exit {p.returncode}")
    got = decode(args.dump, out)
    with open(truth) as f:
        return got, float(f.read())


def synthetic(stack, name):
    return [i for i, f in enumerate(stack) if f[0] == name]


def check_gc(args):
    got, truth = run(args, "gc", [])
    if not got:
        return
    info, stats, samples = got
    check(int(info["config"]) == config_word(gc=True), "gc: config")
    total = sum(s[2] for s in samples)
    gc_w = 0
    for s in samples:
        at = synthetic(s[3], "<GC>")
        if not at:
            continue
        gc_w += s[2]
        f = s[3][at[0]]
        check(at == [len(s[3]) - 1] and len(s[3]) > 1,
              f"<GC> not innermost above a Python frame: {s[3]}")
        check(f[1:] == ("~", -1, -1, -1, -1, NONE),
              f"<GC> frame fields {f[1:]}")
    share = gc_w / max(total, 1)
    missed = float(stats["missed"])
    margin = 0.05 if missed <= BUSY_MACHINE else 0.15
    print(f"<GC> in {share:.1%} of {total} samples, collecting {truth:.1%} "
          f"of the time by gc.callbacks; missed {missed:.0f}%, load "
          f"average {load_avg()}")
    check(abs(share - truth) <= margin,
          f"<GC> share {share:.1%} against {truth:.1%} true")
    got, _ = run(args, "nogc", ["--no-gc"])
    if got:
        check(int(got[0]["config"]) == config_word(gc=False),
              "--no-gc: config")
        check(not any(synthetic(s[3], "<GC>") for s in got[2]),
              "<GC> frames with --no-gc")


def check_native(args):
    # On a loaded machine the key() phase can go unsampled: then the run
    # is repeated (at most three times in all).
    for _ in range(3):
        got, _ = run(args, "native", ["--native", "--no-gc"])
        if not got:
            return
        info, _, samples = got
        in_key = [s for s in samples if s[3] and s[3][-1][0] == "key"]
        if in_key:
            break
        print("--native: no sample in key(), too few to judge; again")
    check(int(info["config"]) == config_word(gc=False, native=True),
          "--native: config")
    marked = [s for s in in_key
              if [f[0] for f in s[3][-3:]] == ["keyed", "<native>", "key"]]
    print(f"--native: {len(in_key)} samples in key(), {len(marked)} with "
          f"keyed <- <native> <- key")
    check(in_key and len(marked) == len(in_key),
          "key() called by sorted() without <native> between")
    for s in samples:
        names = [f[0] for f in s[3]]
        at = synthetic(s[3], "<native>")
        check(all(0 < i < len(names) - 1 for i in at),
              f"<native> innermost or outermost: {names}")
        if "leaf" in names:
            check(names[-2:] == ["direct", "leaf"],
                  f"direct Python call marked: {names}")
        check(all(s[3][i][1:] == ("~", -1, -1, -1, -1, NONE) for i in at),
              "<native> frame fields")
    got, _ = run(args, "plain", ["--no-gc"])
    if got:
        check(not any(synthetic(s[3], "<native>") for s in got[2]),
              "<native> frames without --native")


def call_family():
    """This interpreter's opcodes that call Python directly."""
    names = {"CALL", "CALL_KW", "CALL_FUNCTION_EX", "PRECALL", "SEND",
             "FOR_ITER", "BINARY_SUBSCR", "LOAD_ATTR", "EXIT_INIT_CHECK"}
    fam = {n for n in names}
    for base, variants in opcode._specializations.items():
        if base in names:
            fam.update(variants)
    fam.update("INSTRUMENTED_" + n for n in names)
    return {op for op, n in enumerate(dis._all_opname[:256]) if n in fam}


def check_opcodes(args):
    got, _ = run(args, "opcodes", ["--opcodes", "--no-gc"])
    if not got:
        return
    info, _, samples = got
    check(int(info["config"]) == config_word(gc=False, opcodes=True),
          "--opcodes: config")
    calls = call_family()
    frames = callers = at_call = 0
    for s in samples:
        for i, f in enumerate(s[3]):
            frames += s[2]
            check(f[6] != NONE and not dis._all_opname[f[6]].startswith("<"),
                  f"frame {f[0]} without a known opcode: {f[6]}")
            nxt = s[3][i + 1] if i + 1 < len(s[3]) else None
            if nxt and f[1] == TARGET and nxt[1] == TARGET and \
                    (f[0], nxt[0]) in (("direct", "leaf"), ("main", "direct"),
                                       ("main", "keyed")):
                callers += s[2]
                at_call += s[2] if f[6] in calls else 0
    print(f"--opcodes: {frames} frames, callers at a call instruction "
          f"{at_call} of {callers}")
    check(callers and at_call == callers, "a caller not at a call opcode")
    if args.conv:
        check_gecko_opcodes(args, f"{args.out}.opcodes.bin")
    got, _ = run(args, "noop", ["--no-gc"])
    if got:
        check(all(f[6] == NONE for s in got[2] for f in s[3]),
              "opcodes recorded without --opcodes")


def specialized_bases():
    """variant opcode -> base opcode, as CPython's opcode_utils builds it."""
    opmap = dis._all_opmap if hasattr(dis, "_all_opmap") else {
        n: op for op, n in enumerate(dis._all_opname)}
    return {opmap[v]: opmap[b] for b, vs in opcode._specializations.items()
            for v in vs if v in opmap and b in opmap}


def check_gecko_opcodes(args, log):
    """conv --to gecko of an --opcodes log: the model's bytes, and names as
    this interpreter's dis gives them."""
    out = log + ".gecko.json"
    p = subprocess.run([args.conv, "-q", "-f", "--to", "gecko", "-o", out,
                        log])
    check(p.returncode == 0, f"conv --to gecko: exit {p.returncode}")
    if p.returncode:
        return
    got = check_gecko_model.normalized(out)
    check(got == check_gecko_model.dumps(gecko_model.model(log)),
          "gecko differs from the model")
    got = json.loads(got)
    bases = specialized_bases()
    markers = bad = 0
    for t in got["threads"]:
        for d in t["markers"]["data"]:
            if d["type"] != "Opcode":
                continue
            markers += 1
            op, name = d["opcode"], dis._all_opname[d["opcode"]]
            base = dis._all_opname[bases[op]] if op in bases else name
            want_name = f"{name} ({base})" if op in bases else name
            if (d["opname"], d["base_opname"], d["is_specialized"]) != \
                    (want_name, base, op in bases):
                bad += 1
    schema = [s["name"] for s in got["meta"]["markerSchema"]]
    print(f"gecko: {markers} Opcode markers, {bad} misnamed, schema {schema}")
    check(markers > 0 and bad == 0 and schema == ["Opcode"],
          "Opcode markers")


def main():
    ap = argparse.ArgumentParser()
    tool_args(ap)
    args = ap.parse_args()
    check_gc(args)
    check_native(args)
    check_opcodes(args)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
