#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check a tachyon-conv heatmap directory: well-formed pages, and (with
--cpython FACTS.json, from heatmap_cpython.py) the same figures as
CPython 3.15's own heatmap of the same log.

Well-formed: every page parses with python3's html.parser with every
element closed in order (void elements excepted), ids are unique, and
every link to a page of the directory names an existing page and line.

Against CPython, for every file CPython shows (matched by path) and every
sampled line: self and total samples, the self and total heat levels,
each opcode's samples and locations (names too when the log's Python
version is the one CPython ran), and the callees (function, file,
samples). Where tachyon differs from CPython on purpose, the check is
the documented relation:
  - a column span counts its own range's samples; CPython adds an opcode's
    whole count to every range of it on the line, so ours are at most
    CPython's, and equal when each opcode of the span has one range there;
  - a caller is one per calling function with the samples of all its
    calling lines (CPython counts one arbitrary line of it): at least
    CPython's; callers are compared on lines of one function only (CPython
    keeps whichever function it saw last on a line);
  - a function's link goes to its lowest sampled line above 0 (CPython:
    the first seen): at most CPython's line, and present where CPython's
    first seen line was 0 (CPython then links nowhere).
The index may order files differently (CPython sorts by summed line
totals, tachyon by samples with the file on the stack), so files are
matched by path.

With --same-lines OTHER (another heatmap of the same samples, e.g. of a
binary log and of its JSONL export): the same files, and per sampled line
the same self and total counts and heat levels.

usage: check_heatmap.py DIR [--cpython FACTS.json] [--same-lines OTHER]
       [--quiet]
"""
import html.parser
import json
import os
import re
import subprocess
import sys

VOID = {"meta", "input", "br", "img", "hr", "link", "wbr", "col", "area",
        "base", "embed", "source", "track"}


class Page(html.parser.HTMLParser):
    """Well-formedness plus what the checks need from one page."""

    def __init__(self, name):
        super().__init__(convert_charrefs=True)
        self.name, self.stack, self.errors = name, [], []
        self.ids, self.links, self.rows = set(), [], {}
        self.titles = {}            # index: page -> path
        self.cur = None             # the row being read
        self.field = None           # "sf", "tt", "c" text being read
        self.op = None              # the panel row being read
        self.cell = 0
        self.menu_item = None

    def error_at(self, msg):
        self.errors.append("%s:%d: %s" % (self.name, self.getpos()[0], msg))

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag not in VOID:
            self.stack.append((tag, a))
        if "id" in a:
            if a["id"] in self.ids:
                self.error_at("duplicate id %s" % a["id"])
            self.ids.add(a["id"])
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
            if "title" in a and self.name == "index.html":
                self.titles[a["href"]] = a["title"]
        self.start_row(tag, a)
        self.start_parts(tag, a)

    def start_row(self, tag, a):
        cls = a.get("class", "").split()
        if tag == "div" and "l" in cls and a.get("id", "").startswith("line-"):
            line = int(a["id"][5:])
            self.cur = {"self": 0, "total": 0, "self_level": 0,
                        "total_level": 0, "spans": [], "bytecode": {},
                        "caller": [], "callee": []}
            for c in cls:
                if re.fullmatch(r"[st][1-8]", c):
                    self.cur["self_level" if c[0] == "s" else
                             "total_level"] = int(c[1])
            self.rows[line] = self.cur
            self.row_line = line
        elif tag == "div" and "bc" in cls:
            self.panel = self.rows[self.row_line]

    def start_parts(self, tag, a):
        cls = a.get("class", "").split()
        if tag == "span" and self.cur is not None and cls and \
                cls[0] in ("sf", "tt"):
            self.field, self.text = cls[0], ""
        elif tag == "span" and "x" in cls and self.cur is not None:
            s, e = map(int, a["data-c"].split("-"))
            self.cur["spans"].append([s, e, int(a["data-n"]), a["title"]])
        elif tag == "tr" and "data-op" in a:
            self.op = {"op": int(a["data-op"]), "text": []}
            self.cell = 0
        elif tag == "td" and self.op is not None:
            self.cell += 1
            self.op["text"].append("")
        elif tag == "a" and self.cur is not None and \
                ("up" in cls or "dn" in cls):
            t = re.match(r"Go to (caller|callee): (.*) \((\d+) samples\)$",
                         a["title"])
            page, line = a["href"].split("#line-")
            self.cur[t.group(1)].append([page, int(line), t.group(2),
                                         int(t.group(3))])
        elif tag == "small" and self.menu_item is not None:
            self.menu_part = "file"
        elif tag == "summary" and ("up" in cls or "dn" in cls):
            self.menu = "caller" if "up" in cls else "callee"
        elif tag == "a" and self.cur is not None and \
                any(t == "div" and x.get("class") == "menu"
                    for t, x in self.stack[:-1]):
            page, line = a["href"].split("#line-")
            self.menu_item = [page, int(line), "", ""]
            self.menu_part = "count"

    def handle_data(self, data):
        if self.field:
            self.text += data
        if self.op is not None and self.cell:
            self.op["text"][-1] += data
        if self.menu_item is not None:
            if self.menu_part == "count":
                self.menu_item[3] += data
            elif self.menu_part == "name":
                self.menu_item[2] += data

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack:
            self.error_at("</%s> closes nothing" % tag)
            return
        open_tag, a = self.stack.pop()
        if open_tag != tag:
            self.error_at("</%s> closes <%s>" % (tag, open_tag))
        if tag == "span" and self.field:
            n = self.text.strip()
            self.cur["self" if self.field == "sf" else "total"] = \
                int(n) if n else 0
            self.field = None
        elif tag == "i" and self.menu_item is not None and \
                self.menu_part == "count":
            self.menu_part = "name"
        elif tag == "a" and self.menu_item is not None:
            item = self.menu_item
            item[2] = item[2].strip()
            item[3] = int(item[3])
            self.cur[self.menu].append(item)
            self.menu_item = None
        elif tag == "tr" and self.op is not None:
            self.end_op()
        elif tag == "div" and "l" in a.get("class", "").split():
            self.cur = None

    def end_op(self):
        name, count, _, cols = self.op["text"]
        locs = []
        for part in filter(None, cols.split(", ")):
            m = re.fullmatch(r"(-?\d+)-(-?\d+)(?::(-?\d+))?", part)
            s, e, e2 = m.groups()
            locs.append([self.row_line if e2 is None else int(e), int(s),
                         int(e if e2 is None else e2)])
        name = name.replace("SPECIALIZED", "").strip()
        self.panel["bytecode"][self.op["op"]] = [name, int(count),
                                                 sorted(locs)]
        self.op = None

    def close(self):
        super().close()
        for tag, _ in self.stack:
            self.error_at("<%s> never closed" % tag)


def read_dir(d):
    pages, errors = {}, []
    for name in sorted(os.listdir(d)):
        p = Page(name)
        with open(os.path.join(d, name), encoding="utf-8") as f:
            p.feed(f.read())
        p.close()
        pages[name] = p
        errors += p.errors
    for name, p in pages.items():
        for href in p.links:
            if "://" in href or href.startswith("#"):
                continue
            page, _, frag = href.partition("#")
            if page not in pages:
                errors.append("%s: link to missing %s" % (name, page))
            elif frag and frag not in pages[page].ids:
                errors.append("%s: link to missing %s#%s" % (name, page, frag))
    return pages, errors


def by_path(pages):
    return {path: pages[page] for page, path in
            pages["index.html"].titles.items()}


def cmp_bytecode(where, mine, theirs, same_version, out):
    want = {op: [name, n, locs] for op, name, n, locs in theirs}
    if set(mine) != set(want):
        out.append("%s: opcodes %s, CPython %s" % (where, sorted(mine),
                                                  sorted(want)))
        return
    for op, (name, n, locs) in want.items():
        got = mine[op]
        if got[1] != n or got[2] != locs:
            out.append("%s: opcode %d: %s, CPython %s" % (where, op, got[1:],
                                                         [n, locs]))
        if same_version and got[0] != name:
            out.append("%s: opcode %d named %r, CPython %r" %
                       (where, op, got[0], name))


def cmp_spans(where, mine, theirs, bytecode, out):
    ranges = {(s, e): n for s, e, n, _ in mine}
    want = {(s, e): n for s, e, n, _ in theirs}
    if set(ranges) != set(want):
        out.append("%s: spans %s, CPython %s" % (where, sorted(ranges),
                                                sorted(want)))
        return
    for r, n in want.items():
        single = all(len([loc for loc in locs if loc[0] == int(
            where.rsplit(":", 1)[1])]) <= 1 for op, _, _, locs in bytecode
            if any(tuple(loc[1:]) == r for loc in locs))
        if ranges[r] > n or (single and ranges[r] != n):
            out.append("%s: span %s has %d samples, CPython %d" %
                       (where, r, ranges[r], n))


def cmp_nav(where, row, facts, paths, unlinked, out):
    def named(items):
        return {(paths.get(p), f): (line, n) for p, line, f, n in items}

    mine = named(row["callee"])
    want = named(facts["nav"].get("callee", []))
    for k in set(mine) - set(want):
        if k in unlinked:       # CPython saw the function at line 0 first
            del mine[k]
    if set(mine) != set(want):
        out.append("%s: callees %s, CPython %s" % (where, sorted(mine),
                                                  sorted(want)))
    for k in set(mine) & set(want):
        if mine[k][1] != want[k][1] or mine[k][0] > want[k][0]:
            out.append("%s: callee %s: %s, CPython %s" % (where, k, mine[k],
                                                         want[k]))
    if len(facts["functions"]) != 1:
        return
    mine = named(row["caller"])
    want = named(facts["nav"].get("caller", []))
    if set(mine) != set(want):
        out.append("%s: callers %s, CPython %s" % (where, sorted(mine),
                                                  sorted(want)))
    for k in set(mine) & set(want):
        if want[k][1] is not None and mine[k][1] < want[k][1]:
            out.append("%s: caller %s: %s, CPython %s" % (where, k, mine[k],
                                                         want[k]))


def compare(pages, facts, same_version):
    out, files, lines = [], by_path(pages), 0
    paths = dict(pages["index.html"].titles)
    unlinked = {tuple(x) for x in facts.get("unlinked", [])}
    for f in facts["files"]:
        page = files.get(f["path"])
        if page is None:
            out.append("%s: no page" % f["path"])
            continue
        for line, want in f["lines"].items():
            row = page.rows.get(int(line))
            where = "%s:%s" % (f["path"], line)
            if row is None:
                out.append("%s: no row" % where)
                continue
            lines += 1
            for k in ("self", "total", "self_level", "total_level"):
                if row[k] != want[k]:
                    out.append("%s: %s %s, CPython %s" % (where, k, row[k],
                                                         want[k]))
            cmp_bytecode(where, row["bytecode"], want["bytecode"],
                         same_version, out)
            if line != "0":     # CPython never shows line 0's code
                cmp_spans(where, row["spans"], want["spans"],
                          want["bytecode"], out)
            cmp_nav(where, row, want, paths, unlinked, out)
    extra = set(files) - {f["path"] for f in facts["files"]}
    if extra:
        out.append("pages CPython does not show: %s" % sorted(extra))
    return out, lines


def fake_sources(facts, root):
    """A source per file of lines of spaces, wide enough for every span
    (the oracle rendered CPython's spans over such lines too)."""
    width = 1
    for f in facts["files"]:
        for want in f["lines"].values():
            for _, _, _, locs in want["bytecode"]:
                width = max([width] + [loc[2] + 1 for loc in locs])
    for f in facts["files"]:
        path = os.path.join(root, f["path"].lstrip("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        last = max(int(n) for n in f["lines"])
        with open(path, "w") as out:
            out.write((" " * width + "\n") * last)


def same_lines(pages, other):
    """Every file of either directory in both, and per sampled line (a
    line with samples in either; a page with its source lists every line)
    the same self and total counts and heat levels (files by path)."""
    a, b = by_path(pages), by_path(other)
    errors = ["%s: only in one directory" % p
              for p in sorted(set(a) ^ set(b))]
    n = 0
    zero = {"self": 0, "total": 0, "self_level": 0, "total_level": 0}
    for path in sorted(set(a) & set(b)):
        ra, rb = a[path].rows, b[path].rows
        for line in sorted(set(ra) | set(rb)):
            x, y = ra.get(line, zero), rb.get(line, zero)
            if not (x["self"] or x["total"] or y["self"] or y["total"]):
                continue
            n += 1
            for k in ("self", "total", "self_level", "total_level"):
                if x[k] != y[k]:
                    errors.append("%s:%d: %s %d, the other's %d"
                                  % (path, line, k, x[k], y[k]))
    return errors, len(set(a) & set(b)), n


def main():
    args = sys.argv[1:]
    quiet = "--quiet" in args
    args = [a for a in args if a != "--quiet"]
    facts = None
    if "--cpython" in args:
        i = args.index("--cpython")
        with open(args[i + 1]) as f:
            facts = json.load(f)
        del args[i:i + 2]
    if "--run" in args:
        # --run CONV LOG WORKDIR: convert LOG with fake sources, then check.
        i = args.index("--run")
        conv, log, work = args[i + 1:i + 4]
        src, out = os.path.join(work, "src"), os.path.join(work, "heatmap")
        fake_sources(facts, src)
        code = subprocess.call([conv, "-q", "--to", "heatmap", "-o", out,
                                "--source-root", src, log])
        if code != 0:
            print("tachyon-conv exited %d" % code)
            return 1
        args = [out]
    other = None
    if "--same-lines" in args:
        i = args.index("--same-lines")
        other = args[i + 1]
        del args[i:i + 2]
    pages, errors = read_dir(args[0])
    if other is not None:
        other_pages, other_errors = read_dir(other)
        diffs, files, lines = same_lines(pages, other_pages)
        errors += other_errors + diffs
        if not quiet:
            print("%d files, %d sampled lines compared with %s"
                  % (files, lines, os.path.basename(other)))
    if facts is not None:
        index = open(os.path.join(args[0], "index.html")).read()
        version = re.search(r"Python (\d+\.\d+)\.\d+ log", index).group(1)
        same = facts["python"].startswith(version + ".")
        diffs, lines = compare(pages, translate(facts, pages), same)
        errors += diffs
        if not quiet:
            print("%d files, %d sampled lines compared with CPython's "
                  "heatmap" % (len(facts["files"]), lines))
    for e in errors[:50]:
        print(e)
    if len(errors) > 50:
        print("... %d more" % (len(errors) - 50))
    if not quiet:
        print("%d pages, %d problems" % (len(pages), len(errors)))
    return 1 if errors else 0


def translate(facts, pages):
    """CPython's page names in nav items become ours (by path)."""
    cpaths = {f["page"]: f["path"] for f in facts["files"]}
    ours = {path: page for page, path in pages["index.html"].titles.items()}
    for f in facts["files"]:
        for want in f["lines"].values():
            for items in want["nav"].values():
                for item in items:
                    path = cpaths.get(item[0])
                    item[0] = ours.get(path, "?" + str(path))
    return facts


if __name__ == "__main__":
    sys.exit(main())
