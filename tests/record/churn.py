# SPDX-License-Identifier: MIT
# A target for tachyon-record's torn-read test: the stack changes on almost
# every sample. The main thread recurses in fib(); a second thread drives
# a generator whose frames live outside the thread's frame stack. Runs for
# argv[1] seconds (default 1.5).
import sys
import threading
import time


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def gen():
    yield from (fib(15) for _ in range(10 ** 9))


def worker(seconds):
    g = gen()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        next(g)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.5
    t = threading.Thread(target=worker, args=(seconds,))
    t.start()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        fib(20)
    t.join()


if __name__ == "__main__":
    main()
