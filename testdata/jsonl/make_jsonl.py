#!/usr/bin/env python3
"""make_jsonl.py - regenerate the valid JSONL variants in testdata/jsonl/.

Each one is a valid profile that exercises a reader path the CPython
fixtures do not: Windows line endings, forward-compatible additions
(unknown record types and fields), and tables and aggregates split into
several 256-entry chunks with a known mode.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "cpython", "synthetic_frames",
                   "expected.jsonl")
RUN = "0123456789abcdef0123456789abcdef"


def dump(records):
    return "".join(json.dumps(r, separators=(",", ":")) + "\n"
                   for r in records)


def rec(rtype, **fields):
    """A record with CPython's key order: type, v, run_id, then fields."""
    r = {"type": rtype, "v": 0, "run_id": RUN}
    r.update(fields)
    return r


def chunks(items, n=256):
    return [items[i:i + n] for i in range(0, len(items), n)]


def chunked():
    """600 frames of 2 strings each; each frame sampled (i % 5) times as
    the leaf under frame 0; one thread-stack per sample."""
    n = 600
    strings = [{"str_id": i, "value": "f%d" % i} for i in range(2 * n)]
    frames = [{"frame_id": i, "path_str_id": 2 * i, "func_str_id": 2 * i + 1,
               "line": i + 1} for i in range(n)]
    leaf = [i % 5 if i else 0 for i in range(n)]
    total = sum(leaf)
    entries = [{"frame_id": i, "self": leaf[i],
                "cumulative": total if i == 0 else leaf[i]}
               for i in range(n)]
    out = [rec("meta", sample_interval_usec=100, mode="wall")]
    out += [rec("string_table", strings=c) for c in chunks(strings)]
    out += [rec("frame_table", frames=c) for c in chunks(frames)]
    out += [rec("agg", kind="frame", scope="final", samples_total=total,
                entries=c) for c in chunks(entries)]
    out.append(rec("end", samples_total=total))
    return dump(out)


def forward_compat(base):
    recs = [json.loads(l) for l in base.splitlines()]
    recs[0]["host"] = {"name": "ci-7", "cpus": [0, 1]}
    recs[2]["frames"][0]["inlined"] = False
    recs.insert(4, {"type": "window", "v": 3, "run_id": recs[0]["run_id"],
                    "start_us": 0, "samples": [[0, 1]]})
    return dump(recs)


def main():
    with open(SRC) as f:
        base = f.read()
    files = {
        "crlf.jsonl": base.replace("\n", "\r\n"),
        "forward_compat.jsonl": forward_compat(base),
        "chunked.jsonl": chunked(),
    }
    for name, text in files.items():
        with open(os.path.join(HERE, name), "w", newline="") as f:
            f.write(text)


if __name__ == "__main__":
    main()
