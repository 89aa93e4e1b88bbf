# SPDX-License-Identifier: MIT
# A target for tachyon-record's synthetic frame and opcode tests. The main
# thread alternates, for argv[1] seconds:
#   collect()  makes cyclic garbage and runs gc.collect() on it;
#   keyed()    sorts with a Python key function (C code calls Python);
#   direct()   plain Python calls.
# gc.callbacks time every collection; the share of wall time spent
# collecting is written to argv[2].
import gc
import sys
import time

collecting = [0.0]
started = [0.0]


def on_gc(phase, info):
    if phase == "start":
        started[0] = time.perf_counter()
    else:
        collecting[0] += time.perf_counter() - started[0]


def make_cycles(n):
    for _ in range(n):
        a, b = [], []
        a.append(b)
        b.append(a)


def collect():
    make_cycles(20000)
    gc.collect()


def key(x):
    # Some work of its own, so that samples land in key() and not only in
    # sorted()'s C code around it (about 2 of 2000 did with `return -x`).
    for _ in range(8):
        x = -x
    return x


def keyed():
    sorted(range(3000), key=key)


def leaf(n):
    return sum(range(n))


def direct():
    for _ in range(50):
        leaf(200)


def main():
    gc.callbacks.append(on_gc)
    t0 = time.perf_counter()
    end = t0 + float(sys.argv[1])
    while time.perf_counter() < end:
        collect()
        keyed()
        direct()
    wall = time.perf_counter() - t0
    gc.callbacks.remove(on_gc)
    with open(sys.argv[2], "w") as f:
        f.write(repr(collecting[0] / wall))


if __name__ == "__main__":
    main()
