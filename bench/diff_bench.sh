#!/bin/sh
# SPDX-License-Identifier: MIT
# diff_bench.sh [BUILD_DIR] [FRAMES] - tachyon-diff on two profiles with
# FRAMES (default 1,000,000) unique leaf functions each.
#
# tachyon-diff-gen writes two binary logs of the same synthetic program
# (seeds 1 and 2: every function's count differs slightly), each with
# FRAMES unique functions under 1000 files, ~2.5 samples per function.
# Cases: bin vs bin (table, top 20), the same with the gate (every row
# through its selection), bin vs bin (json, every row, to a file), and,
# with JSONL=1, JSONL vs JSONL (tachyon-conv exports). For each:
# wall time, user and system CPU, peak RSS (best wall of RUNS, default 3),
# plus tachyon-diff -v's phase timings (wall, and CPU of all threads).
# Prints a Markdown table.
#
# On a loaded machine wall time is noise; CPU time (user + sys) is the
# cost. The load average is printed with the table.
set -eu
build=${1:-build}
frames=${2:-1000000}
diff=$build/tools/tachyon-diff
gen=$build/bench/tachyon-diff-gen
conv=$build/tools/tachyon-conv
for x in "$diff" "$gen"; do
    [ -x "$x" ] || { echo "diff_bench: no $x (build first)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "diff_bench: needs /usr/bin/time" >&2; exit 2; }
runs=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$gen" big -o "$tmp/a.bin" --frames "$frames" --seed 1
"$gen" big -o "$tmp/b.bin" --frames "$frames" --seed 2
if [ "${JSONL:-0}" = 1 ]; then
    "$conv" "$tmp/a.bin" -o "$tmp/a.jsonl" --run-id random -q
    "$conv" "$tmp/b.bin" -o "$tmp/b.jsonl" --run-id random -q
fi

# case NAME ARGS...: best wall time of $runs runs, with that run's figures.
case_run() {
    name=$1
    shift
    best=""
    i=0
    while [ "$i" -lt "$runs" ]; do
        /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" \
            "$diff" -v -f "$@" >/dev/null 2>"$tmp/phases" || true
        line=$(tail -n 1 "$tmp/time")
        wall=${line%% *}
        if [ -z "$best" ] || awk "BEGIN{exit !($wall < ${best%% *})}"; then
            best=$line
            phases=$(grep -E ': (load|compare|output):' "$tmp/phases" |
                     sed 's/^tachyon-diff: //; s/: wall \([0-9.]*\) s, cpu \([0-9.]*\) s/ \1 (\2)/' |
                     tr '\n' ' ')
        fi
        i=$((i + 1))
    done
    set -- $best
    printf '| %s | %s | %s | %s | %.0f | %s|\n' "$name" "$1" "$2" "$3" \
        "$(echo "$4 / 1024" | bc -l)" "$phases"
}

echo "Unique functions per side: $frames; $(nproc) CPUs;" \
     "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| case | wall s | user s | sys s | peak RSS MB | phases: wall (cpu) s |"
echo "|---|--:|--:|--:|--:|---|"
case_run "bin vs bin, table" "$tmp/a.bin" "$tmp/b.bin"
case_run "bin vs bin, table, gate 0.5" --fail-on-regression 0.5 \
    "$tmp/a.bin" "$tmp/b.bin"
case_run "bin vs bin, json (all rows)" -F json -o "$tmp/out.json" \
    "$tmp/a.bin" "$tmp/b.bin"
if [ "${JSONL:-0}" = 1 ]; then
    case_run "jsonl vs jsonl, table" "$tmp/a.jsonl" "$tmp/b.jsonl"
fi
