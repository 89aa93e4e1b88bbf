# SPDX-License-Identifier: MIT
# A target for tachyon-record's mode and status tests: threads whose state
# is known, each measuring its own truth.
#   main     spins 2 ms (main_busy), sleeps 2 ms (main_idle), again
#   sleeper  sleeps in time.sleep (sleeper_wait)
#   handler  sleeps inside an except block (handler_wait)
#   hasher   hashes 4 MB at a time, the GIL released (hasher_work)
# Runs argv[1] seconds, then writes each thread's share of wall time on
# a CPU (thread_time / wall time) as JSON to argv[2].
import hashlib
import json
import sys
import threading
import time

stop = threading.Event()
truth = {}


def measured(name, fn):
    w0, c0 = time.perf_counter(), time.thread_time()
    fn()
    truth[name] = (time.thread_time() - c0) / (time.perf_counter() - w0)


def sleeper_wait():
    while not stop.is_set():
        time.sleep(0.005)


def handler_wait():
    try:
        raise ValueError("handled for the whole run")
    except ValueError:
        while not stop.is_set():
            time.sleep(0.003)


def hasher_work():
    data = b"x" * (4 << 20)
    while not stop.is_set():
        hashlib.sha256(data).digest()


def main_busy(until):
    while time.perf_counter() < until:
        pass


def main_idle():
    time.sleep(0.002)


def main_loop(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        main_busy(time.perf_counter() + 0.002)
        main_idle()


def main():
    seconds = float(sys.argv[1])
    threads = [threading.Thread(target=measured, args=(n, f), name=n)
               for n, f in (("sleeper", sleeper_wait),
                            ("handler", handler_wait),
                            ("hasher", hasher_work))]
    for t in threads:
        t.start()
    measured("main", lambda: main_loop(seconds))
    stop.set()
    for t in threads:
        t.join()
    with open(sys.argv[2], "w") as f:
        json.dump(truth, f)


if __name__ == "__main__":
    main()
