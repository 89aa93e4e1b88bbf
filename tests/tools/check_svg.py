#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tachyon-conv --to svg: every box against the samples it stands for.

A snapshot of an SVG only shows that the tool still writes what it once
wrote. Here each box is checked against counts computed from the
write_sample() calls themselves (profile_expect.py's reading of them, no
binary reader involved): the root's count is the samples with a stack,
each thread's box its samples, each frame's box the samples whose stack
starts (from the root) with the path down to it; the title's count and
percent, the width (count x 1180 / total px, to 0.01) and the position
(inside its parent, siblings side by side) follow from that count; and
every path wider than 0.1 px has its box.

Checked on every CPython fixture whose frames are told apart by file,
function and line, and on seeded random logs (make_log.py, the generator
of par_random.py), read with -j 1 and -j 3.

usage: check_svg.py TACHYON-CONV SCRATCH TESTDATA [SEEDS]   (default 6)
"""
import collections
import glob
import json
import os
import re
import subprocess
import sys
import xml.dom.minidom

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import make_log  # noqa: E402
import par_random  # noqa: E402
import profile_expect  # noqa: E402

WIDTH = 1180.0  # the drawing's width without its margins


def model(inp):
    """Samples per path: () is the root, then ("thread", tid), then one
    (file, function, line or 0) per frame from the root down."""
    count = collections.Counter()
    for tid, stack in profile_expect.thread_samples(inp, False):
        path = ()
        count[path] += 1
        path = (("thread", tid),)
        count[path] += 1
        for fn, loc, func in reversed(stack):
            path += ((fn, func, loc[0] if loc else 0),)
            count[path] += 1
    return count


TITLE = re.compile(r"^(\d+) samples, (\d+\.\d\d)%$")


def box_key(name, head):
    """The path element a box's title names."""
    if head.startswith("thread ") and head == name:
        return ("thread", int(head[7:]))
    rest = head[len(name):]
    if not (head.startswith(name) and rest.startswith(" (") and
            rest.endswith(")")):
        raise ValueError("title %r does not name %r" % (head, name))
    inner = rest[2:-1]
    m = re.match(r"^(.*):(\d+)$", inner)
    return (m.group(1), name, int(m.group(2))) if m else (inner, name, 0)


def boxes(path):
    """Each box as (level, path, count, percent, x, width), in document
    order (a depth-first walk: a box's parent is the last box drawn a
    level up)."""
    doc = xml.dom.minidom.parse(path)
    out, stack = [], []
    for g in doc.getElementsByTagName("g"):
        if g.getAttribute("class") != "f":
            continue
        level = int(g.getAttribute("data-d"))
        name = g.getAttribute("data-n")
        head, tail = g.getElementsByTagName("title")[0].firstChild.data \
            .split("\n")
        m = TITLE.match(tail)
        if not m:
            raise ValueError("title line %r" % tail)
        rect = g.getElementsByTagName("rect")[0]
        del stack[level:]
        if len(stack) != level:
            raise ValueError("box %r at level %d has no parent" %
                             (head, level))
        key = () if level == 0 else tuple(stack[-1][0]) + (
            box_key(name, head),)
        if level == 0 and head != "all":
            raise ValueError("the root is %r" % head)
        stack.append((key,))
        out.append((level, key, int(m.group(1)), m.group(2),
                    float(rect.getAttribute("x")),
                    float(rect.getAttribute("width"))))
    return out


def check(svg, inp, what):
    want = model(inp)
    total = want[()]
    scale = WIDTH / total
    got = collections.Counter()
    try:
        drawn = boxes(svg)
    except ValueError as e:
        return "%s: %s" % (what, e)
    if not drawn or drawn[0][1] != ():
        return "%s: no root box" % what
    children = collections.defaultdict(list)
    for i, (level, key, n, pct, x, w) in enumerate(drawn):
        got[key] += n
        if pct != "%.2f" % (100.0 * n / total):
            return "%s: box %r: %s%% for %d of %d samples" % (what, key, pct,
                                                              n, total)
        if abs(w - n * scale) > 0.0051:
            return "%s: box %r is %.2f px wide for %d samples" % (what, key,
                                                                   w, n)
        if level:
            children[drawn[i][1][:-1]].append((x, w, key))
    for parent, kids in children.items():
        px, pw = next((x, w) for _, k, _, _, x, w in drawn if k == parent)
        kids.sort()
        if kids[0][0] < px - 0.011 or \
                kids[-1][0] + kids[-1][1] > px + pw + 0.021:
            return "%s: the boxes below %r are not inside it" % (what, parent)
        for (x1, w1, k1), (x2, _, k2) in zip(kids, kids[1:]):
            if x1 + w1 > x2 + 0.021:
                return "%s: boxes %r and %r overlap" % (what, k1, k2)
    for key, n in got.items():
        if want[key] != n:
            return "%s: box %r has %d samples, the model %d" % (what, key, n,
                                                                want[key])
    for key, n in want.items():
        if n * scale >= 0.1 and key not in got:
            return "%s: no box for %r (%d samples)" % (what, key, n)
    return None


def distinct_boxes(inp):
    """True when no two frames share file, function and line: then the
    profile's nodes and the model's paths are the same."""
    seen = {}
    for s in inp["samples"]:
        for i in s["interps"]:
            for th in i["threads"]:
                for fr in th["frames"]:
                    loc = profile_expect.reader_location(fr[1])
                    k = par_random.line_key([fr[0], loc and list(loc),
                                             fr[2]])
                    if seen.setdefault(k, (fr[0], loc, fr[2],
                                           fr[3])) != (fr[0], loc, fr[2],
                                                       fr[3]):
                        return False
    return True


def run(tool, log, out, jobs):
    subprocess.run([tool, "-q", "-j", str(jobs), "--to", "svg", "--force",
                    "-o", out, log], check=True)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    tool, scratch, testdata = sys.argv[1:4]
    seeds = int(sys.argv[4]) if len(sys.argv) > 4 else 6
    out = os.path.join(scratch, "check.svg")
    cases = []
    for d in sorted(glob.glob(os.path.join(testdata, "cpython", "*", "input.json"))):
        d = os.path.dirname(d)
        with open(os.path.join(d, "input.json")) as f:
            inp = json.load(f)
        if distinct_boxes(inp):
            cases.append((os.path.basename(d), inp,
                          os.path.join(d, "none.bin")))
    fixtures = len(cases)
    for seed in range(seeds):
        inp = par_random.samples(seed, ticks=(500, 2000, 4000), unique=True)
        log = os.path.join(scratch, "svg%d.bin" % seed)
        with open(log, "wb") as f:
            f.write(make_log.write(inp))
        cases.append(("seed %d" % seed, inp, log))
    nboxes = 0
    for what, inp, log in cases:
        for jobs in (1, 3):
            run(tool, log, out, jobs)
            err = check(out, inp, "%s -j %d" % (what, jobs))
            if err:
                sys.exit(err + " (kept: %s)" % out)
        nboxes += len(boxes(out))
    print("%d fixtures and %d random logs (%d boxes): every box's count, "
          "percent, width and place are the model's" %
          (fixtures, seeds, nboxes))


if __name__ == "__main__":
    main()
