#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trial.py DIFF RUNS_DIR [GATE] - tachyon-diff's gate on real recordings
(record.sh writes them: u01.bin... unchanged, c01.bin... with --slower;
testdata/gate/ holds a set, zstd-compressed).

Counts how often `--fail-on-regression GATE` (default 0.5) trips, on
--metric self and cumulative:
  - unchanged, five runs a side: every ordered split of ten unchanged
    runs into base and new (252);
  - changed, five runs a side: every five unchanged runs (252) against the
    five changed ones, and the interleaved set (u01-u05 vs c01-c05);
  - single runs: every ordered pair of unchanged runs (90), and every
    unchanged run against every changed one (50).
For the changed sets it also gives the measured change of the slowed
function (mean of the per-run self percents, new minus base).
"""
import csv
import io
import itertools
import os
import statistics
import subprocess
import sys

REWRITES = ["--rewrite", "^.*/bench/gate/=>",
            "--rewrite", "^.*/lib/python3\\.[0-9]+/=>"]
TARGET = "prog.py:transform"


def gate(tool, base, new, pp, metric):
    """1 if the gate tripped (exit 3), else 0, and the CSV rows."""
    args = [tool, "-q", "-F", "csv", "--top", "0", "--metric", metric,
            "--fail-on-regression", str(pp)] + REWRITES
    if len(base) == 1 and len(new) == 1:
        args += [base[0], new[0]]
    else:
        args += [a for b in base for a in ("--base", b)]
        args += [a for n in new for a in ("--new", n)]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode not in (0, 3):  # 3: the gate tripped
        sys.exit("trial: %s failed: %s" % (tool, p.stderr))
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    return int(p.returncode == 3), rows


def count(tool, pairs, pp, label, by_change=False):
    trips = {"self": 0, "cumulative": 0}
    deltas = []
    tripped_by = {}
    bins = {}
    for base, new in pairs:
        for metric in trips:
            code, rows = gate(tool, base, new, pp, metric)
            trips[metric] += code
            if metric == "self":
                t = [r for r in rows if r["key"] == TARGET]
                deltas.append(float(t[0]["self_delta_pp"]) if t else 0.0)
                b = bins.setdefault(round(deltas[-1] * 5) / 5, [0, 0])
                b[0] += 1
                b[1] += code
            if code:
                col = "self" if metric == "self" else "cum"
                for r in rows:
                    q = r.get(col + "_gate_q", "0")  # older builds: none
                    if r["verdict"] == "regressed" and q and float(q) < 0.05:
                        k = (metric, r["key"])
                        tripped_by[k] = tripped_by.get(k, 0) + 1
    n = len(pairs)
    print("| %s | %d | %d (%.1f%%) | %d (%.1f%%) | %s |" % (
        label, n, trips["self"], 100.0 * trips["self"] / n,
        trips["cumulative"], 100.0 * trips["cumulative"] / n,
        "%.2f .. %.2f (mean %.2f)" % (min(deltas), max(deltas),
                                      statistics.mean(deltas))))
    for (metric, key), k in sorted(tripped_by.items()):
        print("|   tripped by %s `%s` | | %d | | |" % (metric, key, k))
    if by_change:
        for b in sorted(bins):
            print("|   change %.1f +- 0.1 pp | %d | %d (%.0f%%) | | |" % (
                b, bins[b][0], bins[b][1], 100.0 * bins[b][1] / bins[b][0]))


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: trial.py DIFF RUNS_DIR [GATE]")
    tool, d = sys.argv[1], sys.argv[2]
    pp = float(sys.argv[3]) if len(sys.argv) > 3 else 0.5
    runs = [f for f in os.listdir(d) if f.endswith((".bin", ".bin.zst"))]
    u = sorted(os.path.join(d, f) for f in runs if f.startswith("u"))
    c = sorted(os.path.join(d, f) for f in runs if f.startswith("c"))
    print("%s, gate %g pp; %d unchanged and %d changed runs\n" % (
        tool, pp, len(u), len(c)))
    print("| comparison | sets | self trips | cumulative trips | "
          "change of %s (pp) |" % TARGET)
    print("|---|--:|--:|--:|---|")
    halves = [(list(b), [x for x in u if x not in b])
              for b in itertools.combinations(u, len(u) // 2)]
    count(tool, halves, pp, "unchanged, %d vs %d runs" % (
        len(u) // 2, len(u) - len(u) // 2))
    k = len(c)
    changed = [(list(b), c) for b in itertools.combinations(u, k)]
    count(tool, changed, pp, "changed, %d vs %d runs (every base set)" % (
        k, k), by_change=True)
    count(tool, [(u[:k], c)], pp, "changed, %d vs %d runs (interleaved)" % (
        k, k))
    count(tool, [([a], [b]) for a, b in itertools.permutations(u, 2)], pp,
          "unchanged, single runs")
    count(tool, [([a], [b]) for a in u for b in c], pp,
          "changed, single runs")


if __name__ == "__main__":
    main()
