#!/usr/bin/env python3
"""make_rle.py OUT [N] - a hostile but valid binary log: one FULL sample
and one REPEAT record of N samples (default 2,000,000, ~4 MB) whose status
alternates on every sample, the shape that makes CPython's replay
quadratic (cpython#152721). A linear reader validates it in well under a
second."""
import struct
import sys


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000000
    rec = struct.pack("<QIB", 1, 0, 1) + varint(0) + b"\x01" + varint(1) \
        + varint(0)
    rec += struct.pack("<QIB", 1, 0, 0) + varint(n) + b"\x01\x01\x01\x02" \
        * (n // 2) + (b"\x01\x01" if n % 2 else b"")
    strings = varint(4) + b"f.py" + varint(4) + b"main"
    frames = varint(0) + varint(1) + varint(2) + varint(0) + varint(1) \
        + varint(0) + b"\xff"
    str_off = 64 + len(rec)
    frame_off = str_off + len(strings)
    size = frame_off + len(frames) + 32
    header = struct.pack("<II4BQQQIQQII", 0x54414348, 1, 3, 15, 0, 0, 0,
                         1000, n + 1, 1, str_off, frame_off, 0, 0)
    footer = struct.pack("<IIQ16x", 2, 1, size)
    with open(out, "wb") as f:
        f.write(header + rec + strings + frames + footer)


if __name__ == "__main__":
    main()
