#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a Tachyon binary log from an input.json, as CPython's writer does.

input.json has the shape of the CPython fixtures' (testdata/cpython/*/
input.json): the write_sample() calls, frames innermost first. The bytes
follow CPython's writer (Modules/_remote_debugging/binary_io_writer.c, as
restated in the project's format notes): newest header layout, no
compression, one REPEAT group pending per thread (flushed before it would
pass 16 KiB, before the thread's next non-REPEAT record, and at the end in
thread-creation order), FULL / SUFFIX / POP_PUSH chosen against the
thread's previous stack, stacks cut to their 256 innermost frames, strings
and frames interned innermost first (filename before funcname). Two keys
the fixtures do not use: "features" (capture feature bits, recorded in the
profiling config word as CPython's collector does when it knows them) and
"python_version" ([major, minor, micro]; default 3.15.0).

`--check` rewrites every CPython fixture's input.json and compares with
its none.bin byte for byte, which is how this model is trusted.

usage: make_log.py INPUT.json OUT.bin
       make_log.py --check TESTDATA_CPYTHON_DIR
"""
import json
import os
import struct
import sys

MAX_DEPTH = 256
PENDING_MAX = 16384
MAX_REAL_OPCODE = 254
MODES = {"wall": 0, "cpu": 1, "gil": 2, "all": 3, "exception": 4}


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def zz(v):
    return varint(((v << 1) ^ (v >> 31)) & 0xFFFFFFFF)


class Writer:
    def __init__(self, start, interval):
        self.start, self.interval = start, interval
        self.data = bytearray()
        self.strings, self.smap = [], {}
        self.frames, self.fmap = [], {}
        self.threads = {}  # (tid, interp) -> state, in creation order
        self.count = 0

    def string(self, s):
        if s not in self.smap:
            self.smap[s] = len(self.strings)
            self.strings.append(s)
        return self.smap[s]

    def frame(self, f):
        filename, loc, funcname, opcode = f
        fi, fu = self.string(filename), self.string(funcname)
        loc = list(loc) if loc is not None else [-1, -1, -1, -1]
        if opcode is None or not 0 <= opcode <= MAX_REAL_OPCODE:
            opcode = 255
        key = (fi, fu, *loc, opcode)
        if key not in self.fmap:
            self.fmap[key] = len(self.frames)
            self.frames.append(key)
        return self.fmap[key]

    def flush(self, key, st):
        if st["pending"]:
            self.data += struct.pack("<QIB", key[0], key[1], 0)
            self.data += varint(st["npending"]) + st["pending"]
            st["pending"], st["npending"] = bytearray(), 0

    def sample(self, tid, interp, status, frames, ts):
        key = (tid, interp)
        st = self.threads.setdefault(
            key, {"prev_ts": self.start, "stack": [], "pending": bytearray(),
                  "npending": 0})
        delta = (ts - st["prev_ts"]) & (2**64 - 1)
        stack = [self.frame(f) for f in frames[:MAX_DEPTH]]
        prev = st["stack"]
        if stack == prev:
            if len(st["pending"]) + 11 > PENDING_MAX:
                self.flush(key, st)
            st["pending"] += varint(delta) + bytes([status & 0xFF])
            st["npending"] += 1
        else:
            shared = 0
            while (shared < len(prev) and shared < len(stack)
                   and prev[-1 - shared] == stack[-1 - shared]):
                shared += 1
            pop, push = len(prev) - shared, len(stack) - shared
            head = varint(delta) + bytes([status & 0xFF])
            if shared == 0 or (pop > 0 and shared < len(stack) // 2):
                rec = (1, head + varint(len(stack))
                       + b"".join(varint(i) for i in stack))
            elif pop == 0:
                rec = (2, head + varint(shared) + varint(push)
                       + b"".join(varint(i) for i in stack[:push]))
            else:
                rec = (3, head + varint(pop) + varint(push)
                       + b"".join(varint(i) for i in stack[:push]))
            self.flush(key, st)
            self.data += struct.pack("<QIB", tid, interp, rec[0]) + rec[1]
            st["stack"] = stack
        st["prev_ts"] = ts
        self.count += 1

    def finish(self, mode, stats, features=None, version=(3, 15, 0)):
        for key, st in self.threads.items():
            self.flush(key, st)
        str_off = 64 + len(self.data)
        strings = b"".join(varint(len(s.encode())) + s.encode()
                           for s in self.strings)
        frame_off = str_off + len(strings)
        frames = bytearray()
        for fi, fu, line, eline, col, ecol, op in self.frames:
            frames += varint(fi) + varint(fu) + zz(line)
            frames += zz(0 if line == -1 or eline == -1 else eline - line)
            frames += zz(col)
            frames += zz(0 if col == -1 or ecol == -1 else ecol - col)
            frames.append(op)
        ext = b""
        if stats:
            flags = (1 if stats.get("error_rate") is not None else 0) | \
                    (2 if stats.get("missed") is not None else 0)
            ext = struct.pack("<ddddII8sII", stats["duration"],
                              stats["sample_rate"],
                              stats.get("error_rate") or 0.0,
                              stats.get("missed") or 0.0, flags, 0,
                              b"TACHSTAT", 1, 56)
        size = frame_off + len(frames) + len(ext) + 32
        config = 0 if mode is None else MODES[mode] + 1
        if features is not None:  # the capture features are recorded
            config |= 8 | features << 4
        head = struct.pack("<II4BQQQIQQII", 0x54414348, 1, *version, 0,
                           self.start, self.interval, self.count,
                           len(self.threads), str_off, frame_off, 0, config)
        foot = struct.pack("<IIQ16x", len(self.strings), len(self.frames),
                           size)
        return head + bytes(self.data) + strings + bytes(frames) + ext + foot


def write(inp):
    w = Writer(inp["start_time_us"], inp["sample_interval_us"])
    for s in inp["samples"]:
        for interp in s["interps"]:
            for th in interp["threads"]:
                w.sample(th["tid"], interp["id"], th["status"], th["frames"],
                         s["t"])
    return w.finish(inp.get("mode"), inp.get("stats"), inp.get("features"),
                    tuple(inp.get("python_version", (3, 15, 0))))


def main():
    if sys.argv[1] == "--check":
        top = sys.argv[2]
        for case in sorted(os.listdir(top)):
            path = os.path.join(top, case, "input.json")
            if not os.path.exists(path):
                continue
            with open(path) as f:
                got = write(json.load(f))
            with open(os.path.join(top, case, "none.bin"), "rb") as f:
                want = f.read()
            if got != want:
                sys.exit(f"{case}: differs from CPython's none.bin")
            print(f"{case}: equal to CPython's none.bin")
        return
    with open(sys.argv[1]) as f:
        data = write(json.load(f))
    with open(sys.argv[2], "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
