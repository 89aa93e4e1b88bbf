# SPDX-License-Identifier: MIT
"""pstats_compat.py - check a `tachyon-conv --pstats-compat` file with the
pstats module of the Python running this script (3.8 and later).

usage: python pstats_compat.py check OURS [CPYTHON_PSTATS]
       python pstats_compat.py show OURS
       python pstats_compat.py export OURS BINARY

export: OURS, from a JSONL export, loads and runs as in check, has no
callers, and has BINARY's (the same recording's log) functions with the
same direct samples and tottime.

check: pstats.Stats loads OURS (it must not be CPython 3.15's marked
file); with CPYTHON_PSTATS (CPython's own --pstats output of the same
samples), every function's (direct, cumulative, tottime, cumtime) equals
CPython's, and every caller's value is cProfile's tuple (n, n, tt, ct)
with n CPython's count, ct = n x interval and 0 <= tt <= ct, the tt of a
function's callers adding up to at most its tottime. Then sort_stats,
print_stats, print_callers, print_callees and add() must run, and add()
of the file to itself must double every total. Prints one summary line;
exit 1 with a message on the first difference.

show: the print_stats and print_callers text (sorted by cumulative time,
file date line left out), to compare between Python versions.
"""
import io
import marshal
import pstats
import sys

MARKER = ("__sampled__",)


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def load_reference(path):
    with open(path, "rb") as f:
        ref = marshal.load(f)
    ref.pop(MARKER, None)
    return ref


def interval_of(ref):
    """Seconds per sample, from any function with samples."""
    for direct, cum, tt, ct, _ in ref.values():
        if cum:
            return ct / cum
    return 0.0


def check_callers(func, ours, theirs, sec, tottime):
    if set(ours) != set(theirs):
        fail("%r: callers %r, CPython's %r" % (func, sorted(ours),
                                               sorted(theirs)))
    tt_sum = 0.0
    for caller, value in ours.items():
        if not isinstance(value, tuple) or len(value) != 4:
            fail("%r <- %r: %r is not a 4-tuple" % (func, caller, value))
        n, cc, tt, ct = value
        want = theirs[caller]
        if n != want or cc != want or abs(ct - want * sec) > 1e-9 * want:
            fail("%r <- %r: %r, CPython's count %r" % (func, caller,
                                                       value, want))
        if tt < 0 or tt > ct + 1e-12:
            fail("%r <- %r: tottime %r outside [0, %r]" % (func, caller,
                                                           tt, ct))
        tt_sum += tt
    if tt_sum > tottime + 1e-9:
        fail("%r: callers' tottime %r > its tottime %r" % (func, tt_sum,
                                                          tottime))


def compare(stats, ref):
    if set(stats) != set(ref):
        fail("functions differ: ours only %r, CPython's only %r"
             % (sorted(set(stats) - set(ref)), sorted(set(ref) - set(stats))))
    sec = interval_of(ref)
    for func, value in stats.items():
        if value[:4] != ref[func][:4]:
            fail("%r: %r, CPython's %r" % (func, value[:4], ref[func][:4]))
        check_callers(func, value[4], ref[func][4], sec, value[2])


def exercise(path):
    """Everything a pstats user does; returns the Stats."""
    s = pstats.Stats(path, stream=io.StringIO())
    s.sort_stats("cumulative").print_stats()
    s.print_callers()
    s.print_callees()
    s.sort_stats("tottime", "calls").print_stats(5)
    twice = pstats.Stats(path, stream=io.StringIO())
    twice.add(path)
    if twice.total_calls != 2 * s.total_calls or \
            twice.prim_calls != 2 * s.prim_calls:
        fail("add(): %d calls, %d primitive; want twice %d, %d"
             % (twice.total_calls, twice.prim_calls, s.total_calls,
                s.prim_calls))
    return s


def check(path, ref_path=None):
    s = exercise(path)
    what = "loads"
    if ref_path:
        compare(s.stats, load_reference(ref_path))
        what = "equals CPython's figures"
    edges = sum(len(v[4]) for v in s.stats.values())
    print("%s: %s; %d functions, %d caller edges, %d samples (primitive "
          "calls), %.3f s" % (path, what, len(s.stats), edges, s.prim_calls,
                              s.total_tt))


def show(path):
    out = io.StringIO()
    s = pstats.Stats(path, stream=out)
    s.sort_stats("cumulative").print_stats()
    s.print_callers()
    for line in out.getvalue().splitlines():
        if not line.rstrip().endswith(path):  # the file's date line
            print(line.rstrip())


def export(path, binary_path):
    s = exercise(path)
    b = pstats.Stats(binary_path, stream=io.StringIO())
    if set(s.stats) != set(b.stats):
        fail("functions differ from %s" % binary_path)
    for func, value in s.stats.items():
        if value[4]:
            fail("%r: callers %r from an export" % (func, value[4]))
        if value[0] != b.stats[func][0] or value[2] != b.stats[func][2]:
            fail("%r: %r, the log's %r" % (func, value[:4],
                                           b.stats[func][:4]))
    print("%s: %d functions, no callers, direct samples and tottime as in "
          "%s" % (path, len(s.stats), binary_path))


def main(argv):
    if len(argv) >= 2 and argv[0] == "check" and len(argv) <= 3:
        check(*argv[1:])
    elif len(argv) == 2 and argv[0] == "show":
        show(argv[1])
    elif len(argv) == 3 and argv[0] == "export":
        export(argv[1], argv[2])
    else:
        fail(__doc__.strip().splitlines()[2])


if __name__ == "__main__":
    main(sys.argv[1:])
