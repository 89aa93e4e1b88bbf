#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What CPython 3.15's own heatmap shows for a log, as JSON facts.

Runs CPython's HeatmapCollector (Lib/profiling/sampling/heatmap_collector.py,
imported, not copied) on the samples of an uncompressed binary log, replayed
as CPython's reader does (gecko_model.replay, checked byte for byte against
CPython's fixtures), then asks the collector for what each page shows: per
file its figures, per sampled line the self and total counts, the heat levels
its script derives from the intensities, the bytecode panel (opcode numbers,
samples, locations), the column spans (rendered over a line of spaces long
enough for every range) and the caller/callee buttons. check_heatmap.py
compares tachyon-conv's pages with these facts.

Needs `profiling.sampling` (CPython 3.15). Where no 3.15 interpreter is
installed, Pyodide's build runs it:
    node tests/tools/pyodide_run.mjs node_modules/pyodide \\
        tests/tools/heatmap_cpython.py LOG.bin OUT.json

usage: heatmap_cpython.py LOG.bin OUT.json
"""
import html
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gecko_model import read_log, replay  # noqa: E402

from profiling.sampling.heatmap_collector import HeatmapCollector  # noqa


def level(text):
    """heatmap_shared.js: intensityToHeatLevel(parseFloat(text))."""
    x = float(text)
    if x <= 0:
        return 0
    for lv in range(1, 8):
        if x <= lv * 0.125:
            return lv
    return 8


def attr(s, name):
    m = re.search(r'%s="([^"]*)"' % name, s)
    return html.unescape(m.group(1)) if m else None


def nav(button_html):
    """A button's targets: [file, line, func, count] (count None unknown)."""
    out = {}
    for cls, body in re.findall(r'<button class="nav-btn (caller|callee)"'
                                r'(.*?)>', button_html):
        m = re.search(r"data-nav='([^']*)'", body)
        if m:
            d = json.loads(html.unescape(m.group(1)))
            t = re.search(r'\((\d+) samples\)', attr(body, "title") or "")
            page, line = d["link"].split("#line-")
            out[cls] = [[page, int(line), d["func"],
                         int(t.group(1)) if t else None]]
            continue
        m = re.search(r"data-nav-multi='([^']*)'", body)
        items = json.loads(html.unescape(m.group(1)))
        out[cls] = [[i["link"].split("#line-")[0],
                     int(i["link"].split("#line-")[1]), i["func"], i["count"]]
                    for i in items]
    return out


def spans(line_html):
    return [[int(attr(s, "data-col-start")), int(attr(s, "data-col-end")),
             int(attr(s, "data-samples")), attr(s, "data-opcodes")]
            for s in re.findall(r'<span class="instr-span"[^>]*>', line_html)]


def line_facts(c, filename, line, counts, selfs, width):
    content = " " * width
    out = c._build_line_html(line, content, counts, selfs,
                             max(counts.values()), max(selfs.values())
                             if selfs else 1, filename)
    bc = []
    m = re.search(r"data-bytecode='([^']*)'", out)
    if m:
        for i in json.loads(html.unescape(m.group(1))):
            bc.append([i["opcode"], i["opname"], i["samples"],
                       sorted([l["end_lineno"], l["col_offset"],
                               l["end_col_offset"]] for l in i["locations"])])
    return {
        "self": selfs.get(line, 0), "total": counts.get(line, 0),
        "self_level": level(attr(out, "data-self-intensity")),
        "total_level": level(attr(out, "data-cumulative-intensity")),
        "bytecode": bc,
        "spans": spans(out),
        "nav": nav(out),
        "functions": sorted(c._line_funcs.get((filename, line), set())),
    }


class Oracle(HeatmapCollector):
    """Remembers every function seen on a line (CPython keeps the last)."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self._line_funcs = {}

    def _record_line_sample(self, filename, lineno, funcname, **kw):
        if funcname:
            self._line_funcs.setdefault((filename, lineno),
                                        set()).add(funcname)
        super()._record_line_sample(filename, lineno, funcname, **kw)


def main():
    log, out = sys.argv[1], sys.argv[2]
    start, frames, data = read_log(log)[:3]
    c = Oracle(1000)
    for tid, status, stack, times in replay(start, frames, data):
        if stack:
            c.process_frames([frames[i] for i in stack], tid,
                             weight=len(times))
    stats = c._calculate_file_stats()
    c._create_file_index(stats)
    files = []
    for st in stats:
        counts = {k: v for k, v in c.file_samples[st.filename].items()
                  if k >= 0}
        selfs = {k: v for k, v in c.file_self_samples.get(
            st.filename, {}).items() if k >= 0}
        lines = {}
        for line in sorted(counts):
            width = 1 + max([loc[2] for data in c.line_opcodes.get(
                (st.filename, line), {}).values() for loc in data["locations"]]
                or [0])
            lines[str(line)] = line_facts(c, st.filename, line, counts, selfs,
                                          width)
        files.append({"path": st.filename, "page": c.file_index[st.filename],
                      "line_sum": st.total_samples,
                      "self": st.total_self_samples,
                      "lines_hit": st.num_lines, "max_total": st.max_samples,
                      "max_self": st.max_self_samples, "lines": lines})
    with open(out, "w") as f:
        # Functions CPython links nowhere: the first line it saw was 0.
        unlinked = sorted([f, fn] for (f, fn), line in
                          c.function_definitions.items() if line <= 0)
        json.dump({"samples": c._total_samples, "python": sys.version,
                   "unlinked": unlinked,
                   "files": files}, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
