#!/bin/sh
# SPDX-License-Identifier: MIT
# jsonl_bench.sh [BUILD_DIR] [FRAMES] - reading JSONL exports: tachyon-conv
# with a JSONL input next to tachyon-validate and md5sum of the same file.
#
# tachyon-diff-gen writes a binary log with FRAMES (default 1,000,000)
# unique functions; tachyon-conv exports it as JSONL (about 190 bytes a
# frame: 190 MB for a million). Cases, each run RUNS times (default 5),
# interleaved so that load on the machine hits all of them alike:
#   md5sum              the floor: reading the bytes once
#   validate            tachyon-validate of the export (parse + rulebook)
#   validate (BASE)     the same with BASE_VALIDATE=/path/to/an/older
#                       tachyon-validate, if given (e.g. a build of an
#                       earlier commit: "validate today")
#   conv --to jsonl     read the export into a profile, write it back
#                       (to /dev/null): identity for a v0 export
#   conv --to top       read it, sort every function by content, print 20
#   conv jsonl x2       two exports merged (the same file twice)
# For each: best CPU time (user + sys) of the runs, MB/s of the input at
# that CPU time, the ratio to md5sum's best, peak RSS. CPU time, not wall
# time, is the cost on a shared machine; the load average is printed.
set -eu
build=${1:-build}
frames=${2:-1000000}
gen=$build/bench/tachyon-diff-gen
conv=$build/tools/tachyon-conv
validate=$build/tools/tachyon-validate
for x in "$gen" "$conv" "$validate"; do
    [ -x "$x" ] || { echo "jsonl_bench: no $x (build first)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "jsonl_bench: needs /usr/bin/time" >&2; exit 2; }
runs=${RUNS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$gen" big -o "$tmp/a.bin" --frames "$frames" --seed 1
"$conv" -q -o "$tmp/a.jsonl" "$tmp/a.bin"
bytes=$(wc -c <"$tmp/a.jsonl")

# measure NAME CMD...: append "cpu_s rss_kb" of one run to $tmp/NAME.
measure() {
    name=$1
    shift
    /usr/bin/time -f "%U %S %M" -o "$tmp/time" "$@" >/dev/null 2>&1 ||
        { echo "jsonl_bench: $name failed" >&2; exit 1; }
    awk '{ printf "%.3f %d\n", $1 + $2, $3 }' "$tmp/time" >>"$tmp/$name"
}

i=0
while [ "$i" -lt "$runs" ]; do
    measure md5sum md5sum "$tmp/a.jsonl"
    measure validate "$validate" "$tmp/a.jsonl"
    if [ -n "${BASE_VALIDATE:-}" ]; then
        measure validate_base "$BASE_VALIDATE" "$tmp/a.jsonl"
    fi
    measure conv_jsonl "$conv" -o /dev/null "$tmp/a.jsonl"
    measure conv_top "$conv" --to top "$tmp/a.jsonl"
    measure conv_merge "$conv" -o /dev/null "$tmp/a.jsonl" "$tmp/a.jsonl"
    i=$((i + 1))
done

best() { sort -n "$tmp/$1" | head -n 1; }
floor=$(best md5sum | cut -d' ' -f1)

row() {
    label=$1 name=$2 mult=$3
    [ -f "$tmp/$name" ] || return 0
    set -- $(best "$name")
    awk -v l="$label" -v c="$1" -v r="$2" -v b="$bytes" -v f="$floor" \
        -v m="$mult" 'BEGIN {
            printf "| %s | %.2f | %.0f | %.2f | %.0f |\n", l, c,
                   m * b / 1e6 / c, c / f, r / 1024 }'
}

echo "JSONL export of $frames unique frames: $bytes bytes;" \
     "$(nproc) CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg);" \
     "best of $runs"
echo
echo "| case | CPU s | MB/s | x md5sum | peak RSS MB |"
echo "|---|--:|--:|--:|--:|"
row "md5sum" md5sum 1
row "tachyon-validate" validate 1
row "tachyon-validate (BASE_VALIDATE)" validate_base 1
row "tachyon-conv --to jsonl" conv_jsonl 1
row "tachyon-conv --to top" conv_top 1
row "tachyon-conv, two exports merged" conv_merge 2
