# SPDX-License-Identifier: MIT
"""Only real stacks: record stacks_target.py (stacks changing all the
time, several threads) at 5 kHz with every thread and a CPU hog alongside,
and require that no written stack is one the program can never be in: a
shallow() calling deep(), a recursion deeper than the program goes, a
work() under the wrong depth. Reports the failed (dropped) samples."""
import argparse
import os
import sys

from rec_common import (check, cpu_hog, decode, finish, load_avg, record,
                        tool_args)

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "stacks_target.py")
D, R = 40, 12


def possible(names):
    """Whether a stack (root first) is one stacks_target.py can be in."""
    if "loop" not in names:
        return True     # start-up and shutdown: not what is tested
    rest = names[names.index("loop") + 1:]
    if not rest:
        return True
    head = rest[0]
    limit = {"deep": D + 1, "shallow": 1, "rec": R + 1}.get(head)
    if limit is None:
        return False
    k = 0
    while k < len(rest) and rest[k] == head:
        k += 1
    tail = rest[k:]
    return k <= limit and (tail == [] or (tail == ["work"] and k == limit))


def main():
    ap = argparse.ArgumentParser()
    tool_args(ap)
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    times = args.out + ".times"
    with cpu_hog():
        p = record(args.recorder, args.out, ["-a", "-r", "5000"],
                   [sys.executable, TARGET, str(args.seconds), "3", times])
    check(p.returncode == 0, f"recorder exit {p.returncode}")
    got = decode(args.dump, args.out)
    if got:
        info, stats, samples = got
        looping = [s for s in samples if "loop" in [f[0] for f in s[3]]]
        bad = [s for s in looping if not possible([f[0] for f in s[3]])]
        n, nbad = sum(s[2] for s in looping), sum(s[2] for s in bad)
        print(f"{n} thread-samples in the loops, {nbad} impossible; "
              f"failed ticks {float(stats['error']):.2f}%; load average "
              f"{load_avg()}")
        if os.path.exists(times):
            cpu, wall = map(float, open(times).read().split())
            print(f"the target's 4 threads used {cpu:.2f} CPU-seconds in "
                  f"{wall:.2f} s: {cpu / wall:.2f} CPUs at once on average")
        check(n >= 2000, f"only {n} samples")
        check(not bad, f"{nbad} impossible stacks, e.g. "
              f"{[f[0] for f in bad[0][3]] if bad else None}")
        # Dropped ticks are honest (counted in the statistics block), but
        # a recorder that drops most of them is broken. Each tick reads
        # four threads, one of them running and changing its stack faster
        # than a read: 0.6-2.4% with a hog at load 7-12, 5% alone at load
        # 2, up to 24% with another test beside it at load 1.7.
        check(float(stats["error"]) < 50,
              f"failed ticks {stats['error']}%")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
