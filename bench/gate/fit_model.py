#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fit_model.py DIFF RUN.bin... > model.txt - the run-to-run variation of
real recordings, as tachyon-gate-sim's model.

Each run's folded stacks (frames as file:func keys) come from tachyon-diff
itself (-F collapsed-diff --normalize none of the run against itself, raw
counts), its thread-samples from -F json. For every stack the model keeps
the mean and the standard deviation over the runs of its share of the
run's samples (a stack missing from a run has share 0 there), and for the
runs their mean and standard deviation of samples. The share's deviation
is what one run differs from the next, sampling noise included. Each
stack line also carries its share in every run, so tachyon-gate-sim can
draw new runs with the real runs' covariance (stacks that trade samples
stay linked, and shares sum to 1 without rescaling).

Model lines:  samples MEAN SD
              runs R
              stack MEAN_SHARE SD_SHARE SHARE_1 .. SHARE_R FRAME;FRAME;...
              (frames root first)
"""
import json
import math
import statistics
import subprocess
import sys

REWRITES = ["^.*/bench/gate/=>", "^.*/lib/python3\\.[0-9]+/=>"]


def diff(tool, run, fmt):
    args = [tool, "-q", "-F", fmt, "--normalize", "none"]
    for r in REWRITES:
        args += ["--rewrite", r]
    out = subprocess.run(args + [run, run], check=True, capture_output=True,
                         text=True).stdout
    return out


def one_run(tool, run):
    samples = json.loads(diff(tool, run, "json"))["base"]["samples"]
    stacks = {}
    for line in diff(tool, run, "collapsed-diff").splitlines():
        stack, _base, new = line.rsplit(" ", 2)
        stacks[stack] = stacks.get(stack, 0) + int(new)
    return samples, stacks


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: fit_model.py DIFF RUN.bin RUN.bin...")
    tool, runs = sys.argv[1], sys.argv[2:]
    data = [one_run(tool, r) for r in runs]
    samples = [s for s, _ in data]
    keys = sorted({k for _, st in data for k in st})
    print("# tachyon-gate-sim model: %d runs (%s)" % (
        len(runs), " ".join(r.rsplit("/", 1)[-1] for r in runs)))
    print("samples %.1f %.1f" % (statistics.mean(samples),
                                 statistics.stdev(samples)))
    print("runs %d" % len(runs))
    rows = []
    for k in keys:
        shares = [st.get(k, 0) / s for s, st in data]
        rows.append((statistics.mean(shares), statistics.stdev(shares), k,
                     shares))
    rows.sort(key=lambda r: (-r[0], r[2]))
    for mean, sd, k, shares in rows:
        print("stack %.8f %.8f %s %s" % (
            mean, sd, " ".join("%.8f" % x for x in shares), k))
    print("# stacks: %d; total share %.6f" % (
        len(rows), math.fsum(r[0] for r in rows)), file=sys.stderr)


if __name__ == "__main__":
    main()
