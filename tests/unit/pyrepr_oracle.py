#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Python's own float repr, for test_pyrepr_python.c.

Reads batches from stdin: a 4-byte little-endian count n, then n doubles
in native byte order. Writes repr() of each, one per line, and flushes
after each batch. Ends at end of input.
"""
import array
import sys


def main():
    rd = sys.stdin.buffer
    wr = sys.stdout.buffer
    while True:
        head = rd.read(4)
        if len(head) < 4:
            return
        n = int.from_bytes(head, "little")
        values = array.array("d")
        values.frombytes(rd.read(8 * n))
        wr.write(("\n".join(map(repr, values)) + "\n").encode("ascii"))
        wr.flush()


if __name__ == "__main__":
    main()
