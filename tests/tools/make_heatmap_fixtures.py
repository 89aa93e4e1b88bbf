#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate testdata/heatmap/edge.bin and its sources src/edge.py and
src/util.py: a small log whose samples exercise every rule of the heatmap
(the golden test pins its pages; heatmap_cpython.py gives CPython's view
of it for check_heatmap.py).

The log is written by make_log.py (CPython's writer, checked byte for byte
against CPython's fixtures; it says Python 3.15.0, so opcodes are named
from the 3.15 table). The sources sit at /srv/edge/ in the log; the tests
map that to testdata/heatmap/src/ with --path-map. What the samples hold:
  - a generator's frame on the same line as its caller (line 5 twice on a
    stack: counted once in the total), and a recursion (fib, line 12
    three times);
  - line 8 holds non-ASCII text before its columns (columns are UTF-8
    bytes) and two instructions at different columns;
  - line 9 starts with a tab and has a range reaching into line 10 (not
    drawn), line 10 is a form feed (one line for Python's tokenizer,
    where str.splitlines would make it two);
  - line 14 ends with CRLF; line 13 holds two functions (a lambda);
  - a <GC> leaf (its caller gets no self), a <frozen ...> caller (no
    page), a frame without a location (line 0), a line past the end of
    edge.py (40), a stdlib file with no source here, an opcode byte 3.15
    does not define (230) and specialised instructions;
  - main's line 15 calls three functions (a menu of callees).

usage: make_heatmap_fixtures.py OUT_DIR   (writes OUT_DIR/edge.bin and
       OUT_DIR/src/{edge,util}.py)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_log  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OPS = json.load(open(os.path.join(HERE, "..", "..", "scripts", "opcodes",
                                  "3.15.json")))["names"]

EDGE = [
    "# edge.py - the heatmap's edge cases (make_heatmap_fixtures.py)\n",
    "import functools\n",
    "\n",
    "\n",
    "def leaf(xs): return sum(x * 2 for x in xs)\n",
    "\n",
    "def caf\u00e9(n):\n",
    "    s = \"h\u00e9llo \u2192 w\u00f6rld\"; t = len(s) + n\n",
    "\treturn leaf(range(t)) + functools.reduce(max, [t, n,\n",
    "\f   0])\n",
    "def fib(n):\n",
    "    return n if n < 2 else fib(n - 1) + fib(n - 2)\n",
    "key = lambda v: v[0]; order = sorted([(2, 'b'), (1, 'a')], key=key)\n",
    "def main():\r\n",
    "    return caf\u00e9(3) + fib(5) + util.helper(4)\n",
    "if __name__ == \"__main__\":\n",
    "    main()\n",
]

UTIL = [
    "def helper(n):\n",
    "    total = 0\n",
    "    for i in range(n):\n",
    "        total += i * i\n",
    "    return total\n",
]

E, U, LIB = "/srv/edge/edge.py", "/srv/edge/util.py", \
    "/usr/lib/python3.15/functools.py"


def col(lines, n, text, nth=0):
    """(start, end) byte columns of the nth `text` on line n (1-based)."""
    line = lines[n - 1].encode()
    at = -1
    for _ in range(nth + 1):
        at = line.index(text.encode(), at + 1)
    return at, at + len(text.encode())


def fr(path, lines, n, text, func, op, nth=0, end_line=None, end_col=None):
    s, e = col(lines, n, text, nth)
    loc = [n, end_line or n, s, end_col if end_col is not None else e]
    return [path, loc, func, OPS.index(op) if isinstance(op, str) else op]


def frames():
    mod = fr(E, EDGE, 17, "main()", "<module>", "CALL")
    main = fr(E, EDGE, 15, "caf\u00e9(3)", "main", "CALL_PY_EXACT_ARGS")
    cafe = fr(E, EDGE, 9, "leaf(range(t))", "caf\u00e9", "CALL_PY_EXACT_ARGS")
    leaf = fr(E, EDGE, 5, "sum(x * 2 for x in xs)", "leaf", "CALL_BUILTIN_FAST")
    gen = fr(E, EDGE, 5, "x * 2", "leaf.<locals>.<genexpr>",
             "BINARY_OP_MULTIPLY_INT")
    fibs = [fr(E, EDGE, 12, "n - 1", "fib", "BINARY_OP_SUBTRACT_INT"),
            fr(E, EDGE, 12, "fib(n - 1)", "fib", "CALL_PY_EXACT_ARGS"),
            fr(E, EDGE, 12, "fib(n - 2)", "fib", "CALL_PY_EXACT_ARGS")]
    main_fib = fr(E, EDGE, 15, "fib(5)", "main", "CALL_PY_EXACT_ARGS")
    main_help = fr(E, EDGE, 15, "util.helper(4)", "main", "CALL")
    reduce_call = fr(E, EDGE, 9, "functools.reduce", "caf\u00e9", "CALL",
                     end_line=10, end_col=5)
    return {
        "gen": [gen, leaf, cafe, main, mod],
        "fib": fibs + [main_fib, mod],
        "len": [fr(E, EDGE, 8, "len(s)", "caf\u00e9", "CALL_LEN"), main, mod],
        "store": [fr(E, EDGE, 8, "s = \"h\u00e9llo \u2192 w\u00f6rld\"",
                     "caf\u00e9", "STORE_FAST"), main, mod],
        "gc": [["~", None, "<GC>", None], cafe, main, mod],
        "frozen": [fr(E, EDGE, 15, "fib(5)", "main", 230),
                   ["<frozen runpy>", [88, 88, 4, 30], "_run_code", 50]],
        "lambda": [fr(E, EDGE, 13, "v[0]", "<lambda>",
                      "BINARY_OP_SUBSCR_TUPLE_INT"),
                   fr(E, EDGE, 13, "sorted([(2, 'b'), (1, 'a')], key=key)",
                      "<module>", "CALL_BUILTIN_FAST")],
        "noloc": [[E, None, "main", None], mod],
        "ghost": [[E, [40, 40, 4, 9], "ghost", OPS.index("RETURN_VALUE")],
                  mod],
        "lib": [[LIB, [1010, 1010, 8, 30], "reduce", OPS.index("CALL")],
                reduce_call, main, mod],
        "helper": [fr(U, UTIL, 4, "total += i * i", "helper",
                      "BINARY_OP_ADD_INT"), main_help, mod],
        "helper2": [fr(U, UTIL, 3, "range(n)", "helper", "FOR_ITER_RANGE"),
                    main_help, mod],
    }


WEIGHTS = {"gen": 40, "fib": 25, "len": 6, "store": 4, "gc": 3, "frozen": 2,
           "lambda": 5, "noloc": 1, "ghost": 1, "lib": 7, "helper": 12,
           "helper2": 3}


def log():
    st = frames()
    samples, t = [], 5000000
    for rnd in range(max(WEIGHTS.values())):
        for name in sorted(st):
            if rnd < WEIGHTS[name]:
                t += 1000
                samples.append({"t": t, "interps": [{"id": 0, "threads": [
                    {"tid": 7, "status": 3, "frames": st[name]}]}]})
    return {"start_time_us": 5000000, "sample_interval_us": 1000,
            "mode": "wall", "samples": samples,
            "stats": {"duration": 0.109, "sample_rate": 1000.0,
                      "error_rate": 2.5, "missed": 20.0}}


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "src"), exist_ok=True)
    with open(os.path.join(out, "edge.bin"), "wb") as f:
        f.write(make_log.write(log()))
    for name, lines in (("edge.py", EDGE), ("util.py", UTIL)):
        with open(os.path.join(out, "src", name), "w", encoding="utf-8",
                  newline="") as f:
            f.write("".join(lines))


if __name__ == "__main__":
    main()
