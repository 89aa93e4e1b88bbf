#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An independent model of what CPython 3.15 writes for `replay --gecko`.

It is written from a reading of CPython's sources, not from tachyon's C
code, and serves as the oracle for logs the CPython fixtures do not cover:

1. The binary reader (Modules/_remote_debugging/binary_io_reader.c,
   binary_reader_replay): records are decoded in FILE order; a FULL,
   SUFFIX or POP_PUSH record is one collect() call with one timestamp; a
   REPEAT record's pairs are split into maximal runs of equal status, one
   collect() call per run (its stack: the thread's current one). Each call
   carries exactly one interpreter and one thread. Timestamps accumulate
   per (thread id, interpreter id), starting at the header's start time.
   The stack handed on is the thread's reconstructed stack, innermost
   first, at most 256 frames; an empty stack is handed on too.

2. GeckoCollector (Lib/profiling/sampling/gecko_collector.py) with
   skip_idle=False and opcodes=False, as `replay --gecko` builds it
   (opcodes=True, as `run --gecko --opcodes` builds it, when the log's
   header says opcodes were recorded: see 3):
   - times are (ts - first_ts) / 1000 where first_ts is the FIRST
     timestamp of the FIRST collect() call, whatever its stack;
   - per call: interval bookkeeping (overwritten at export), then per
     thread (created on first sight, empty stack or not): the state
     transitions (GIL, CPU, code type, GIL wait, exception, GC) at the
     call's first time, the thread marked initialized, and, only when the
     stack is not empty, the stack interned and one sample per timestamp;
     sample_count grows by the call's timestamps in every case;
   - at export: interval = last_sample_time / sample_count (the last
     call's last time), every still-open state closed at last_sample_time
     in the order has_gil, no_gil, on_cpu, off_cpu, python_code,
     native_code, gil_wait, gc, exception, no_exception (dict order:
     threads in the order their state was opened), then json.dump with
     separators (",", ":").
   Strings are interned into one global array as the collector meets
   them: function name, then the resource name, then the file's basename
   for Python files; marker names when the marker is added.

3. With opcodes=True, after a call's samples (not for an empty stack):
   the leaf frame's (opcode, lineno, col_offset, funcname, filename) is
   the thread's opcode state, opened at the call's first time; when it
   changes, an "Opcode" marker (category 7) closes the previous one,
   unless its opcode was None; at export the open ones close at the last
   time after every state marker, in the order the threads' states were
   first opened; the marker schema lists the Opcode schema. Names follow
   opcode_utils (get_opcode_info, format_opcode) with the log's Python
   version's table from scripts/opcodes/ (CPython uses its own
   interpreter's, which for a log it recorded is the same version; those
   tables are checked against each interpreter by the record tests).

Machine-dependent fields are written normalized as in the fixtures
(startTime 0.0, "NORMALIZED", CPU counts 0, pid "0").

usage: gecko_model.py LOG.bin [OUT.json]   (an uncompressed log)
"""
import json
import os
import struct
import sys

OPCODES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "..", "..", "scripts", "opcodes")

HAS_GIL, ON_CPU, UNKNOWN, GIL_REQ, HAS_EXC, MAIN = 1, 2, 4, 8, 16, 32

CATEGORIES = [
    ("Other", "grey"), ("Python", "yellow"), ("Native", "blue"),
    ("GC", "orange"), ("GIL", "green"), ("CPU", "purple"),
    ("Code Type", "red"), ("Opcodes", "magenta"), ("Exception", "lightblue"),
]
CAT_PYTHON, CAT_NATIVE, CAT_GC, CAT_GIL, CAT_CPU, CAT_CODE, CAT_EXC = (
    1, 2, 3, 4, 5, 6, 8)


# ---- the binary log ----

def varint(d, off):
    v = shift = 0
    while True:
        b = d[off]
        off += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, off


def zigzag(v):
    return (v >> 1) ^ -(v & 1)


def read_log(path):
    """(strings, frames, records) of an uncompressed little-endian log."""
    with open(path, "rb") as f:
        d = f.read()
    if d[:4] != b"HCAT":
        raise SystemExit(f"{path}: not an uncompressed little-endian log")
    size = len(d)
    # u64 sample count layout: offsets at 40/48; u32 layout: 36/44.
    str_off, frame_off = struct.unpack_from("<QQ", d, 40)
    comp = struct.unpack_from("<I", d, 56)[0]
    if not (64 <= str_off <= frame_off <= size):
        str_off, frame_off = struct.unpack_from("<QQ", d, 36)
        comp = struct.unpack_from("<I", d, 52)[0]
    if comp != 0:
        raise SystemExit(f"{path}: compressed; convert with --compression none")
    start = struct.unpack_from("<Q", d, 12)[0]
    version = (d[8], d[9])
    # the profiling config word (u64 count layout only): bit 3 says the
    # capture features (bits 4-8) are recorded; opcodes is feature 1 << 3
    config = struct.unpack_from("<I", d, 60)[0] if str_off == \
        struct.unpack_from("<Q", d, 40)[0] else 0
    opcodes = bool(config & 8) and bool((config >> 4) & 8)
    nstr, nframe = struct.unpack_from("<II", d, size - 32)
    strings, off = [], str_off
    for _ in range(nstr):
        n, off = varint(d, off)
        strings.append(d[off:off + n].decode("utf-8", "replace"))
        off += n
    frames, off = [], frame_off
    for _ in range(nframe):
        fi, off = varint(d, off)
        fu, off = varint(d, off)
        line, off = varint(d, off)
        dl, off = varint(d, off)
        col, off = varint(d, off)
        dc, off = varint(d, off)
        op = d[off]
        off += 1
        line, col = zigzag(line), zigzag(col)
        loc = None
        if line != -1:
            ecol = -1 if col == -1 else col + zigzag(dc)
            loc = (line, line + zigzag(dl), col, ecol)
        frames.append((strings[fi], loc, strings[fu], None if op == 255 else op))
    return start, frames, d[64:str_off], version, opcodes


def replay(start, frames, data):
    """CPython's collect() calls: (tid, status, stack, [timestamps])."""
    state = {}  # (tid, interp) -> [prev_ts, stack]
    off = 0
    while off < len(data):
        tid, interp, enc = struct.unpack_from("<QIB", data, off)
        off += 13
        st = state.setdefault((tid, interp), [start, []])
        if enc == 0:
            count, off = varint(data, off)
            run, run_status = [], None
            for _ in range(count):
                delta, off = varint(data, off)
                status = data[off]
                off += 1
                st[0] = (st[0] + delta) & (2**64 - 1)
                if run and status != run_status:
                    yield tid, run_status, st[1], run
                    run = []
                run_status = status
                run.append(st[0])
            if run:
                yield tid, run_status, st[1], run
            continue
        delta, off = varint(data, off)
        status = data[off]
        off += 1
        a, off = varint(data, off)
        if enc == 1:
            new, keep = [], []
            for _ in range(a):
                i, off = varint(data, off)
                new.append(i)
        else:
            b, off = varint(data, off)
            new = []
            for _ in range(b):
                i, off = varint(data, off)
                new.append(i)
            prev = st[1]
            keep = prev[len(prev) - a:] if enc == 2 else prev[a:]
            if enc == 2 and a == 0:
                keep = []
        st[1] = new + keep
        st[0] = (st[0] + delta) & (2**64 - 1)
        yield tid, status, st[1], [st[0]]


# ---- the collector ----

class OpcodeNames:
    """opcode_utils.get_opcode_info and format_opcode for one version."""

    def __init__(self, version):
        path = os.path.join(OPCODES_DIR, "%d.%d.json" % version)
        self.names, self.deopt = {}, {}
        if os.path.exists(path):
            with open(path) as f:
                t = json.load(f)
            self.names = {op: n for op, n in enumerate(t["names"]) if n}
            self.deopt = {op: b for op, b in enumerate(t["base"])
                          if b != op and op in self.names}

    def info(self, op):
        name = self.names.get(op)
        if name is None:
            return f"<{op}>", f"<{op}>", False
        if op in self.deopt:
            b = self.deopt[op]
            return name, self.names.get(b, f"<{b}>"), True
        return name, name, False

    def format(self, op):
        name, base, spec = self.info(op)
        return f"{name} ({base})" if spec else name


class Gecko:
    STATES = ["has_gil", "no_gil", "on_cpu", "off_cpu", "python_code",
              "native_code", "gil_wait", "gc", "exception", "no_exception"]
    NAMES = {"has_gil": ("Has GIL", CAT_GIL), "no_gil": ("No GIL", CAT_GIL),
             "on_cpu": ("On CPU", CAT_CPU), "off_cpu": ("Off CPU", CAT_CPU),
             "python_code": ("Python Code", CAT_CODE),
             "native_code": ("Native Code", CAT_CODE),
             "gil_wait": ("Waiting for GIL", CAT_GIL),
             "gc": ("GC Collecting", CAT_GC),
             "exception": ("Has Exception", CAT_EXC),
             "no_exception": ("No Exception", CAT_EXC)}

    def __init__(self, opcodes=None):
        self.opcodes = opcodes  # an OpcodeNames, or None: opcodes off
        self.opcode_state = {}
        self.strings, self.smap = ["(root)"], {"(root)": 0}
        self.threads = {}
        self.open = {s: {} for s in self.STATES}
        self.initialized = set()
        self.sample_count = 0
        self.last = 0
        self.interval = 1.0
        self.base = None

    def intern(self, s):
        if s not in self.smap:
            self.smap[s] = len(self.strings)
            self.strings.append(s)
        return self.smap[s]

    def marker(self, tid, state, start, end):
        name, cat = self.NAMES[state]
        if tid not in self.threads:
            return
        m = self.threads[tid]["markers"]
        m["data"].append({"type": name.replace(" ", ""),
                          "duration": end - start, "tid": tid})
        m["name"].append(self.intern(name))
        m["startTime"].append(start)
        m["endTime"].append(end)
        m["phase"].append(1)
        m["category"].append(cat)

    def opcode_marker(self, tid, state, end):
        op, line, col, funcname, _file, start = state
        if tid not in self.threads or op is None:
            return
        _name, base, spec = self.opcodes.info(op)
        opname = self.opcodes.format(op)
        m = self.threads[tid]["markers"]
        m["name"].append(self.intern(opname))
        m["startTime"].append(start)
        m["endTime"].append(end)
        m["phase"].append(1)
        m["category"].append(7)
        m["data"].append({"type": "Opcode", "opcode": op, "opname": opname,
                          "base_opname": base, "is_specialized": spec,
                          "line": line,
                          "column": col if col >= 0 else None,
                          "function": funcname, "duration": end - start})

    def track_opcode(self, tid, leaf, now):
        filename, loc, funcname, op = leaf
        line, col = (loc[0], loc[2]) if isinstance(loc, tuple) else (loc, -1)
        cur = (op, line, col, funcname, filename)
        if tid not in self.opcode_state:
            self.opcode_state[tid] = (*cur, now)
        elif self.opcode_state[tid][:5] != cur:
            self.opcode_marker(tid, self.opcode_state[tid], now)
            self.opcode_state[tid] = (*cur, now)

    def transition(self, tid, cond, active, inactive, now):
        if tid not in self.initialized:
            self.open[active if cond else inactive][tid] = now
            return
        on, off = (active, inactive) if cond else (inactive, active)
        self.open[on].setdefault(tid, now)
        if tid in self.open[off]:
            self.marker(tid, off, self.open[off].pop(tid), now)

    def span(self, tid, cond, state, now):
        if cond:
            self.open[state].setdefault(tid, now)
        elif tid in self.open[state]:
            self.marker(tid, state, self.open[state].pop(tid), now)

    def new_thread(self, tid, main):
        cols = lambda *k: {x: [] for x in k}
        t = {"name": f"Thread-{tid}", "isMainThread": main,
             "processStartupTime": 0, "processShutdownTime": None,
             "registerTime": 0, "unregisterTime": None, "pausedRanges": [],
             "pid": "0", "tid": tid, "processType": "default",
             "processName": "Python Process",
             "samples": {"stack": [], "time": [], "eventDelay": [],
                         "weight": None, "weightType": "samples",
                         "length": 0},
             "stackTable": dict(cols("frame", "category", "subcategory",
                                     "prefix"), length=0),
             "frameTable": dict(cols("address", "category", "subcategory",
                                     "func", "innerWindowID",
                                     "implementation", "optimizations",
                                     "line", "column", "inlineDepth",
                                     "nativeSymbol"), length=0),
             "funcTable": dict(cols("name", "isJS", "relevantForJS",
                                    "resource", "fileName", "lineNumber",
                                    "columnNumber"), length=0),
             "resourceTable": dict(cols("lib", "name", "host", "type"),
                                   length=0),
             "nativeSymbols": dict(cols("libIndex", "address", "name",
                                        "functionSize"), length=0),
             "markers": dict(cols("data", "name", "startTime", "endTime",
                                  "phase", "category"), length=0)}
        t["_c"] = ({}, {}, {}, {})  # stack, frame, func, resource caches
        self.threads[tid] = t

    @staticmethod
    def is_python(filename):
        return not filename.startswith("<") or filename in ("<stdin>",
                                                            "<string>")

    def func(self, t, filename, funcname, line):
        cache = t["_c"][2]
        if (filename, funcname) in cache:
            return cache[(filename, funcname)]
        ft = t["funcTable"]
        idx = len(ft["name"])
        name = self.intern(funcname)
        py = self.is_python(filename)
        rc = t["_c"][3]
        if filename not in rc:
            rt = t["resourceTable"]
            rc[filename] = len(rt["name"])
            rname = os.path.basename(filename) if "/" in filename else filename
            rt["name"].append(self.intern(rname))
            rt["lib"].append(None)
            rt["host"].append(None)
            rt["type"].append(1)
        ft["name"].append(name)
        ft["isJS"].append(py)
        ft["relevantForJS"].append(py)
        ft["resource"].append(rc[filename])
        if py:
            ft["fileName"].append(self.intern(os.path.basename(filename)))
            ft["lineNumber"].append(line)
        else:
            ft["fileName"].append(None)
            ft["lineNumber"].append(None)
        ft["columnNumber"].append(None)
        cache[(filename, funcname)] = idx
        return idx

    def frame(self, t, func, line, col):
        key = (func, line, col if col >= 0 else None)
        cache = t["_c"][1]
        if key in cache:
            return cache[key]
        ft = t["frameTable"]
        idx = len(ft["func"])
        py = t["funcTable"]["isJS"][func]
        for k, v in (("address", -1), ("inlineDepth", 0),
                     ("category", CAT_PYTHON if py else CAT_NATIVE),
                     ("subcategory", 0), ("func", func),
                     ("nativeSymbol", None), ("innerWindowID", None),
                     ("implementation", None), ("line", line if line else None),
                     ("column", col if col >= 0 else None),
                     ("optimizations", None)):
            ft[k].append(v)
        cache[key] = idx
        return idx

    def stack(self, t, frames):
        prefix = None
        st = t["stackTable"]
        for filename, loc, funcname, _op in reversed(frames):
            if loc is None:
                line, col = None, -1
            else:
                line, col = loc[0], loc[2]
            f = self.frame(t, self.func(t, filename, funcname, line), line,
                           col)
            key = (f, prefix)
            if key not in t["_c"][0]:
                t["_c"][0][key] = len(st["frame"])
                st["frame"].append(f)
                st["prefix"].append(prefix)
                st["category"].append(CAT_PYTHON if self.is_python(filename)
                                      else CAT_NATIVE)
                st["subcategory"].append(0)
            prefix = t["_c"][0][key]
        return prefix

    def collect(self, tid, status, frames, stamps):
        if not stamps:
            return
        if self.base is None:
            self.base = stamps[0]
        times = [(ts - self.base) / 1000 for ts in stamps]
        now = times[0]
        if self.sample_count > 0 and self.last > 0:
            self.interval = (times[-1] - self.last) / self.sample_count
        self.last = times[-1]
        if tid not in self.threads:
            self.new_thread(tid, bool(status & MAIN))
        gil, cpu = bool(status & HAS_GIL), bool(status & ON_CPU)
        self.transition(tid, gil, "has_gil", "no_gil", now)
        self.transition(tid, cpu, "on_cpu", "off_cpu", now)
        if gil:
            self.transition(tid, True, "python_code", "native_code", now)
        elif cpu:
            self.transition(tid, True, "native_code", "python_code", now)
        elif tid in self.initialized:
            for s in ("python_code", "native_code"):
                if tid in self.open[s]:
                    self.marker(tid, s, self.open[s].pop(tid), now)
        self.span(tid, status & GIL_REQ, "gil_wait", now)
        self.transition(tid, bool(status & HAS_EXC), "exception",
                        "no_exception", now)
        self.span(tid, any(f[2] == "<GC>" for f in frames), "gc", now)
        self.initialized.add(tid)
        if frames:
            idx = self.stack(self.threads[tid], frames)
            s = self.threads[tid]["samples"]
            for t in times:
                s["stack"].append(idx)
                s["time"].append(t)
                s["eventDelay"].append(None)
            if self.opcodes:
                self.track_opcode(tid, frames[0], now)
        self.sample_count += len(times)

    def export(self):
        if self.sample_count > 0 and self.last > 0:
            self.interval = self.last / self.sample_count
        for s in self.STATES:
            for tid in list(self.open[s]):
                self.marker(tid, s, self.open[s].pop(tid), self.last)
        for tid, state in list(self.opcode_state.items()):
            self.opcode_marker(tid, state, self.last)
        self.opcode_state.clear()
        threads = []
        for t in self.threads.values():
            del t["_c"]
            t["samples"]["length"] = len(t["samples"]["stack"])
            t["stackTable"]["length"] = len(t["stackTable"]["frame"])
            t["frameTable"]["length"] = len(t["frameTable"]["func"])
            t["funcTable"]["length"] = len(t["funcTable"]["name"])
            t["resourceTable"]["length"] = len(t["resourceTable"]["name"])
            t["markers"]["length"] = len(t["markers"]["name"])
            threads.append(t)
        meta = {"interval": self.interval, "startTime": 0.0,
                "abi": "NORMALIZED", "misc": "Python profiler",
                "oscpu": "NORMALIZED", "platform": "NORMALIZED",
                "processType": 0,
                "categories": [{"name": n, "color": c,
                                "subcategories": ["Other"]}
                               for n, c in CATEGORIES],
                "stackwalk": 0, "toolkit": "", "version": 32,
                "preprocessedProfileVersion": 57, "appBuildID": "",
                "physicalCPUs": 0, "logicalCPUs": 0, "CPUName": "",
                "product": "Python", "symbolicated": True,
                "markerSchema": [OPCODE_SCHEMA] if self.opcodes else [],
                "importedFrom": "Tachyon Sampling Profiler",
                "extensions": {"id": [], "name": [], "baseURL": [],
                               "length": 0}}
        return {"meta": meta, "libs": [], "threads": threads, "pages": [],
                "shared": {"stringArray": self.strings,
                           "sources": {"length": 0, "uuid": [],
                                       "filename": []}}}


OPCODE_SCHEMA = {
    "name": "Opcode", "display": ["marker-table", "marker-chart"],
    "tooltipLabel": "{marker.data.opname}",
    "tableLabel": "{marker.data.opname} at line {marker.data.line}",
    "chartLabel": "{marker.data.opname}",
    "fields": [
        {"key": "opname", "label": "Opcode", "format": "string",
         "searchable": True},
        {"key": "base_opname", "label": "Base Opcode", "format": "string"},
        {"key": "is_specialized", "label": "Specialized",
         "format": "string"},
        {"key": "line", "label": "Line", "format": "integer"},
        {"key": "column", "label": "Column", "format": "integer"},
        {"key": "function", "label": "Function", "format": "string"},
        {"key": "duration", "label": "Duration", "format": "duration"}]}


def model(path):
    start, frames, data, version, opcodes = read_log(path)
    g = Gecko(OpcodeNames(version) if opcodes else None)
    for tid, status, stack, stamps in replay(start, frames, data):
        g.collect(tid, status, [frames[i] for i in stack[:256]], stamps)
    return g.export()


def main():
    out = json.dumps(model(sys.argv[1]), separators=(",", ":"))
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
