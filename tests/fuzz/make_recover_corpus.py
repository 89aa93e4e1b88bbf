#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make_recover_corpus.py LOG DIR - write the seed corpus of
fuzz_recover_file into DIR: a valid checkpoint copy (FILE.recover) made
from the binary log LOG, and crafted ones each breaking one of the
parser's rules (issue 22, item 6: the copy that cut an 8 KB log to 64
zero bytes is 'samples-end-0').

  copy = "TACHRCV1" u64 samples_end u64 trailer_len header[64] trailer
"""
import os
import struct
import sys


def copy(samples_end, trailer_len, header, trailer):
    return (b"TACHRCV1" + struct.pack("<QQ", samples_end, trailer_len) +
            header + trailer)


def main(log, out):
    data = open(log, "rb").read()
    header = data[:64]
    end = struct.unpack_from("<Q", header, 40)[0]
    trailer = data[end:]
    good = copy(end, len(trailer), header, trailer)
    seeds = {
        "valid": good,
        "samples-end-0": copy(0, 4, bytes(64), b"\0" * 4),
        "trailer-len-short": copy(end, len(trailer) - 1, header, trailer),
        "trailer-len-huge": copy(end, 1 << 40, header, trailer),
        "trailer-empty": copy(end, 0, header, b""),
        "truncated-head": good[:50],
        "bad-magic": b"TACHRCV2" + good[8:],
        "not-a-log-header": copy(end, len(trailer), b"\xff" * 64, trailer),
        "strings-elsewhere": copy(end, len(trailer),
                                  header[:40] + struct.pack("<Q", end + 8) +
                                  header[48:], trailer),
        "frames-outside": copy(end, len(trailer),
                               header[:48] + struct.pack(
                                   "<Q", end + len(trailer)) + header[56:],
                               trailer),
        "end-overflows": copy((1 << 64) - 2, len(trailer), header, trailer),
        "empty": b"",
    }
    os.makedirs(out, exist_ok=True)
    for name, blob in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(blob)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
