# SPDX-License-Identifier: MIT
# A target for tachyon-record --subprocesses: the parent starts a Python
# child with subprocess, one through a `sh -c` wrapper, one with
# multiprocessing (fork), and a program that is not Python (sleep); every
# Python process spins in child_main for a while. The parent writes the
# pids of the Python children and of the non-Python ones to argv[1].
import json
import multiprocessing
import subprocess
import sys
import time


def child_main(seconds=1.0):
    end = time.monotonic() + seconds
    s = 0
    while time.monotonic() < end:
        for i in range(1000):
            s += i


def main():
    if sys.argv[1] == "child":
        child_main()
        return
    direct = subprocess.Popen([sys.executable, __file__, "child"])
    wrapper = subprocess.Popen(
        ["sh", "-c", f"sleep 0.2; {sys.executable} {__file__} child; true"])
    other = subprocess.Popen(["sleep", "1"])
    forked = multiprocessing.get_context("fork").Process(target=child_main)
    forked.start()
    time.sleep(0.5)
    with open(f"/proc/{wrapper.pid}/task/{wrapper.pid}/children") as f:
        wrapped = [int(x) for x in f.read().split()]
    child_main()
    for p in (direct, wrapper, other):
        p.wait()
    forked.join()
    with open(sys.argv[1], "w") as f:
        json.dump({"python": [direct.pid, forked.pid] + wrapped,
                   "other": [wrapper.pid, other.pid]}, f)


if __name__ == "__main__":
    main()
