# SPDX-License-Identifier: MIT
# A target for tachyon-record tests: the main thread spins in
# Klass.method -> top -> mid -> leaf (the loop is on the lines marked
# LEAF_LOOP), and a second thread sleeps in sleeper(). Runs for the number
# of seconds given as argv[1] (default 2).
import sys
import threading
import time


def leaf(n):
    total = 0
    for i in range(n):  # LEAF_LOOP
        total += i * i  # LEAF_LOOP
    return total


def mid(n):
    return leaf(n)  # MID_CALL


def top(n):
    return mid(n)  # TOP_CALL


class Klass:
    def method(self, deadline):
        while time.monotonic() < deadline:
            top(20000)  # METHOD_CALL


def sleeper(stop):
    while not stop.is_set():
        time.sleep(0.01)  # SLEEP_LINE


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    stop = threading.Event()
    t = threading.Thread(target=sleeper, args=(stop,), name="sleeper")
    t.start()
    Klass().method(time.monotonic() + seconds)  # MAIN_CALL
    stop.set()
    t.join()


if __name__ == "__main__":
    main()  # MODULE_CALL
