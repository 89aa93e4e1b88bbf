#!/bin/sh
# SPDX-License-Identifier: MIT
# jsonl_bench.sh [BUILD_DIR] [FRAMES] - reading JSONL exports: tachyon-conv
# with a JSONL input next to tachyon-validate and md5sum of the same file.
#
# tachyon-diff-gen writes a binary log with FRAMES (default 1,050,000)
# unique functions; tachyon-conv exports it as JSONL (about 190 bytes a
# frame: 200 MB for 1,050,000). Cases, each run RUNS times (default 5),
# interleaved so that load on the machine hits all of them alike:
#   md5sum              the floor: reading the bytes once
#   validate            tachyon-validate of the export (parse + rulebook)
#   conv --to jsonl     read the export into a profile, write it back
#                       (to /dev/null): identity for a v0 export
#   conv --to top       read it, print the 20 hottest functions
#   conv jsonl x2       two exports merged (the same file twice)
#   with BASE=OTHER_BUILD, the same tachyon-validate and tachyon-conv
#   cases of another build (e.g. an earlier commit), and whether their
#   conv outputs are the same bytes
# For each: best CPU time (user + sys) of the runs, MB/s of the input at
# that CPU time, the ratio to md5sum's best and to validate's best (of
# the same build), peak RSS. CPU time, not wall time, is the cost on a
# shared machine; the load average is printed.
#
# IR=1 adds instruction counts (valgrind --tool=callgrind; load does not
# move them) of validate, conv --to jsonl and conv --to top, and their
# ratio to validate's: one run each, minutes for the default size.
set -eu
build=${1:-build}
frames=${2:-1050000}
gen=$build/bench/tachyon-diff-gen
rusage=$build/bench/tachyon-rusage
for x in "$gen" "$rusage" "$build/tools/tachyon-conv" \
    "$build/tools/tachyon-validate"; do
    [ -x "$x" ] || { echo "jsonl_bench: no $x (build first)" >&2; exit 2; }
done
if [ -n "${BASE:-}" ] && [ ! -x "$BASE/tools/tachyon-conv" ]; then
    echo "jsonl_bench: no $BASE/tools/tachyon-conv" >&2
    exit 2
fi
runs=${RUNS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$gen" big -o "$tmp/a.bin" --frames "$frames" --seed 1
"$build/tools/tachyon-conv" -q -o "$tmp/a.jsonl" "$tmp/a.bin"
rm -f "$tmp/a.bin"
bytes=$(wc -c <"$tmp/a.jsonl")

# measure NAME CMD...: append "cpu_s rss_kb" of one run to $tmp/NAME
# (tachyon-rusage: CPU time from wait4, to the microsecond).
measure() {
    name=$1
    shift
    rm -f "$tmp/time"
    "$rusage" "$tmp/time" "$@" 2>/dev/null ||
        { echo "jsonl_bench: $name failed" >&2; exit 1; }
    awk '{ printf "%.4f %d\n", $1, $3 }' "$tmp/time" >>"$tmp/$name"
}

# cases PREFIX BUILD: one round of the cases of a build.
cases() {
    measure "$1validate" "$2/tools/tachyon-validate" "$tmp/a.jsonl"
    measure "$1conv_jsonl" "$2/tools/tachyon-conv" -o /dev/null "$tmp/a.jsonl"
    measure "$1conv_top" "$2/tools/tachyon-conv" --to top "$tmp/a.jsonl"
    measure "$1conv_merge" "$2/tools/tachyon-conv" -o /dev/null \
        "$tmp/a.jsonl" "$tmp/a.jsonl"
}

i=0
while [ "$i" -lt "$runs" ]; do
    measure md5sum md5sum "$tmp/a.jsonl"
    cases "" "$build"
    [ -z "${BASE:-}" ] || cases base_ "$BASE"
    i=$((i + 1))
done

best() { sort -n "$tmp/$1" | head -n 1; }
floor=$(best md5sum | cut -d' ' -f1)

# row LABEL NAME MULT VALIDATE_NAME
row() {
    label=$1 name=$2 mult=$3
    [ -f "$tmp/$name" ] || return 0
    v=$(best "$4" | cut -d' ' -f1)
    set -- $(best "$name")
    awk -v l="$label" -v c="$1" -v r="$2" -v b="$bytes" -v f="$floor" \
        -v m="$mult" -v v="$v" 'function x(a, b) {
            return b > 0 ? sprintf(a / b < 100 ? "%.2f" : "%.0f", a / b) : "-" }
        BEGIN {
            printf "| %s | %.3f | %s | %s | %s | %.0f |\n", l, c,
                   x(m * b / 1e6, c), x(c, f), x(c, v), r / 1024 }'
}

echo "JSONL export of $frames unique frames: $bytes bytes;" \
     "$(nproc) CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg);" \
     "best of $runs"
echo
echo "| case | CPU s | MB/s | x md5sum | x validate | peak RSS MB |"
echo "|---|--:|--:|--:|--:|--:|"
row "md5sum" md5sum 1 validate
for p in "" base_; do
    [ -f "$tmp/${p}validate" ] || continue
    b=$([ -z "$p" ] || echo " (BASE)")
    row "tachyon-validate$b" "${p}validate" 1 "${p}validate"
    row "tachyon-conv --to jsonl$b" "${p}conv_jsonl" 1 "${p}validate"
    row "tachyon-conv --to top$b" "${p}conv_top" 1 "${p}validate"
    row "tachyon-conv, two exports merged$b" "${p}conv_merge" 2 "${p}validate"
done

if [ -n "${BASE:-}" ]; then
    for to in jsonl top; do
        a=$("$build/tools/tachyon-conv" --to "$to" -o - "$tmp/a.jsonl" | md5sum)
        b=$("$BASE/tools/tachyon-conv" --to "$to" -o - "$tmp/a.jsonl" | md5sum)
        echo
        echo "--to $to: $([ "$a" = "$b" ] && echo "the same bytes as BASE" ||
            echo "DIFFERENT bytes from BASE")"
    done
fi

# ir NAME CMD...: instructions of one run.
ir() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 \
        >/dev/null | sed -n 's/.*Collected : //p'
}

if [ -n "${IR:-}" ]; then
    command -v valgrind >/dev/null ||
        { echo "jsonl_bench: IR=1 needs valgrind" >&2; exit 2; }
    echo
    echo "| instructions | validate | conv --to jsonl | conv --to top |"
    echo "|---|--:|--:|--:|"
    for b in "$build" ${BASE:-}; do
        v=$(ir "$b/tools/tachyon-validate" "$tmp/a.jsonl")
        j=$(ir "$b/tools/tachyon-conv" -o /dev/null "$tmp/a.jsonl")
        t=$(ir "$b/tools/tachyon-conv" --to top "$tmp/a.jsonl")
        awk -v b="$b" -v v="$v" -v j="$j" -v t="$t" 'BEGIN {
            printf "| %s | %.1f M | %.1f M (%.2fx) | %.1f M (%.2fx) |\n",
                   b, v / 1e6, j / 1e6, j / v, t / 1e6, t / v }'
    done
fi
