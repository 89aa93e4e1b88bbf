# SPDX-License-Identifier: MIT
# A target for tachyon-record's impossible-stack test: every thread loops
# over a deep recursion and a shallow call that change the stack all the
# time. deep() and shallow() have the same code shape, so their frames
# have the same size (the case a frame-size check alone cannot tell
# apart); rec() has another. Valid stacks are only
#   ... loop (deep * 1..D+1 [work] | shallow [work] | rec * 1..R+1 [work])
# Runs argv[1] seconds with argv[2] extra threads; with argv[3], writes
# there the CPU seconds it used and the seconds it ran (a free-threaded
# build runs its threads at once: more CPU time than wall time).
import sys
import threading
import time

D, R = 40, 12


def work(n):
    s = 0
    for i in range(n):
        s += i
    return s


def deep(k):
    if k == 0:
        return work(30)
    return deep(k - 1)


def shallow(k):
    if k == 0:
        return work(30)
    return shallow(k - 1)


def rec(k, pad=None):
    if k == 0:
        return work(20)
    return rec(k - 1, pad)


def loop(end):
    while time.monotonic() < end:
        deep(D)
        shallow(0)
        rec(R)


def main():
    seconds, extra = float(sys.argv[1]), int(sys.argv[2])
    start = time.monotonic()
    end = start + seconds
    threads = [threading.Thread(target=loop, args=(end,))
               for _ in range(extra)]
    for t in threads:
        t.start()
    loop(end)
    for t in threads:
        t.join()
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            f.write(f"{time.process_time()} {time.monotonic() - start}\n")


if __name__ == "__main__":
    main()
