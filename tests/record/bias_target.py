# SPDX-License-Identifier: MIT
# A target for tachyon-record's bias test: the main thread spins 2 ms
# (busy) and sleeps 2 ms (idle), over and over, and measures the share of
# wall time it spent in busy(). Runs argv[1] seconds, writes that share to
# argv[2].
import sys
import time


def busy(until):
    while time.perf_counter() < until:
        pass


def idle():
    time.sleep(0.002)


def main():
    seconds = float(sys.argv[1])
    spent = {"busy": 0.0, "idle": 0.0}
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        busy(t0 + 0.002)
        t1 = time.perf_counter()
        idle()
        t2 = time.perf_counter()
        spent["busy"] += t1 - t0
        spent["idle"] += t2 - t1
    with open(sys.argv[2], "w") as f:
        f.write(repr(spent["busy"] / (spent["busy"] + spent["idle"])))


if __name__ == "__main__":
    main()
