# SPDX-License-Identifier: MIT
# A target with non-ASCII names for tachyon-record's string test: the
# function names are a Latin-1 str (naïve: one byte per character, not
# ASCII) and a UCS-2 str (函数); check_recording.py copies this file to a
# name with an emoji (a UCS-4 str). Runs for argv[1] seconds.
import sys
import time


def 函数(n):
    return sum(i * i for i in range(n))  # UNICODE_LEAF


def naïve(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        函数(10000)  # UNICODE_CALL


if __name__ == "__main__":
    naïve(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)
