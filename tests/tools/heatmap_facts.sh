#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# heatmap_facts.sh - regenerate testdata/heatmap/*.cpython.json: what
# CPython 3.15's own heatmap shows for each CPython fixture and each log in
# testdata/heatmap (heatmap_cpython.py, run by Pyodide's CPython 3.15 build
# in node; the npm package pyodide 315.x is not a build dependency).
#
# usage: tests/tools/heatmap_facts.sh PYODIDE_DIR [TACHYON_CONV]
#   PYODIDE_DIR: node_modules/pyodide of `npm install pyodide@315.0.0-alpha.2`
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
pyodide=$(cd "$1" && pwd)
conv=${2:-$root/build/tools/tachyon-conv}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
facts() {   # facts NAME LOG
    # CPython's replay model reads uncompressed little-endian logs.
    "$conv" --to bin -c none -o "$tmp/$1.bin" "$2"
    node "$here/pyodide_run.mjs" "$pyodide" "$here/heatmap_cpython.py" \
        "$tmp/$1.bin" "$root/testdata/heatmap/$1.cpython.json"
    echo "heatmap_facts: $1"
}
for c in single_full repeat_rle suffix_calls pop_push interleaved_threads \
         synthetic_frames workload; do
    facts "$c" "$root/testdata/cpython/$c/none.bin"
done
facts edge "$root/testdata/heatmap/edge.bin"
facts test_difflib_json "$root/testdata/heatmap/test_difflib_json.bin"
