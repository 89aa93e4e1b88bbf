# SPDX-License-Identifier: MIT
"""phased_target.py SECONDS IDLE PHASE_MS - a CPU-bound target that
measures what something done to it costs, on a machine whose speed
varies.

The main thread runs a 3-deep call chain (top -> mid -> leaf) in units of
about 0.2 ms for SECONDS, beside IDLE idle threads. Time is cut into
phases of PHASE_MS: the even ones are those in which the recorder
(TACHYON_RECORD_BENCH_PHASE_MS) or bench/pause_cost.c acts on it, the odd
ones those in which nothing does. The process CPU time of each unit goes
to the phase it ran in; units that straddle a boundary or start in the
first 3 ms of a phase are left out. The phases interleave many times a
second, so a change in the machine's speed hits both alike.

Prints the extra CPU time per unit of work in the even phases over the
odd ones, in percent ("nan" if a phase had no unit)."""
import sys
import threading
import time


def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def mid(n):
    return leaf(n)


def top(n):
    return mid(n)


def main():
    seconds, nidle = float(sys.argv[1]), int(sys.argv[2])
    phase, settle = int(sys.argv[3]) * 1_000_000, 3_000_000
    stop = threading.Event()
    idle = [threading.Thread(target=stop.wait) for _ in range(nidle)]
    for t in idle:
        t.start()
    cpu, units = [0, 0], [0, 0]
    clock, pclock = time.monotonic_ns, time.process_time_ns
    end = clock() + int(seconds * 1e9)
    while True:
        t0 = clock()
        if t0 > end:
            break
        c0 = pclock()
        top(3000)
        c1 = pclock()
        p = (t0 // phase) % 2
        if (clock() // phase) % 2 == p and t0 % phase >= settle:
            cpu[p] += c1 - c0
            units[p] += 1
    stop.set()
    for t in idle:
        t.join()
    if not units[0] or not units[1]:
        print("nan")
        return
    acted, quiet = cpu[0] / units[0], cpu[1] / units[1]
    print(f"{(acted / quiet - 1) * 100:.2f}")


if __name__ == "__main__":
    main()
