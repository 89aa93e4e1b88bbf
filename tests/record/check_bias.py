# SPDX-License-Identifier: MIT
"""Unbiased under load: record bias_target.py (2 ms busy, 2 ms asleep)
in the default mode (wall time, main thread) alone and with a CPU hog
alongside, and compare the share of samples in busy() with the share of
wall time the program measured there itself: within 5 points. The
recorder must sample on time even when the machine is busy (a late
sampler wakes when the target stops running, and sees it idle)."""
import argparse
import os
import sys

from rec_common import check, cpu_hog, decode, finish, load_avg, record
from rec_common import tool_args

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "bias_target.py")
# Missed ticks (%) above which the machine was too busy for the recorder.
BUSY_MACHINE = 15


def measure(args, hog):
    tag = "hog" if hog else "alone"
    out, truth_path = f"{args.out}.{tag}.bin", f"{args.out}.{tag}.truth"
    with cpu_hog(hog):
        p = record(args.recorder, out, [],
                   [sys.executable, TARGET, "3", truth_path])
    check(p.returncode == 0, f"{tag}: recorder exit {p.returncode}")
    got = decode(args.dump, out)
    if not got:
        return
    _, stats, samples = got
    with open(truth_path) as f:
        truth = float(f.read())
    n = {"busy": 0, "idle": 0}
    for s in samples:
        names = [f[0] for f in s[3]]
        for leaf in ("busy", "idle"):
            if leaf in names:
                n[leaf] += s[2]
    measured = n["busy"] / max(n["busy"] + n["idle"], 1)
    print(f"{tag}: busy {measured:.1%} of {n['busy'] + n['idle']} samples, "
          f"truth {truth:.1%}; rate {float(stats['rate']):.0f} Hz, "
          f"missed {float(stats['missed']):.1f}%; load average "
          f"{load_avg()}")
    missed = float(stats["missed"])
    if missed <= BUSY_MACHINE:
        check(abs(measured - truth) <= 0.05,
              f"{tag}: busy share {measured:.1%} against {truth:.1%} true")
        return
    # The recorder itself could not get a CPU on time (other work on the
    # machine, beyond the one hog): the 5-point claim is not tested here.
    print(f"{tag}: inconclusive, {missed:.0f}% of ticks missed")
    check(abs(measured - truth) <= 0.15,
          f"{tag}: busy share {measured:.1%} against {truth:.1%} true")


def main():
    ap = argparse.ArgumentParser()
    tool_args(ap)
    args = ap.parse_args()
    measure(args, hog=False)
    measure(args, hog=True)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
