# SPDX-License-Identifier: MIT
# A target with many threads for tachyon-record's batched walk: argv[1]
# idle threads wait on an Event while the main thread spins in busy() for
# argv[2] seconds (defaults 12 and 1.5).
import sys
import threading
import time


def busy(seconds):
    end = time.monotonic() + seconds
    total = 0
    while time.monotonic() < end:
        total += sum(range(1000))  # BUSY_LINE
    return total


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 1.5
    stop = threading.Event()
    threads = [threading.Thread(target=stop.wait) for _ in range(count)]
    for t in threads:
        t.start()
    busy(seconds)
    stop.set()
    for t in threads:
        t.join()


if __name__ == "__main__":
    main()
