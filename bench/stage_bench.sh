#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/stage_bench.sh - where the time of a big conversion goes, stage by
# stage, what two cores give here and what more cores could give
# (bench/README.md, "Cores").
#
# Usage: bench/stage_bench.sh [BUILD_DIR] [SIZE_MB]
#   BUILD_DIR  a configured and built tree (default: build)
#   SIZE_MB    size of the uncompressed log to generate (default: 540); a
#              zstd log of the same samples is made too
#
# Stages, each measured as CPU time (user+sys, the fastest of $RUNS runs,
# default 3; CPU time moves less than wall time on a shared machine):
#   read       md5sum of the uncompressed file (the I/O floor)
#   decode     tachyon-validate -q of the uncompressed log: every record
#              decoded and checked, nothing kept
#   unzstd     validate of the zstd log minus validate of the uncompressed
#              one (same samples): decompressing the sample region
# Then tachyon-conv --to jsonl of the uncompressed log on one thread (-j 1)
# and on every CPU (-j NPROC): CPU and wall time, the best wall of $RUNS,
# and the md5 of both outputs (they must be equal). And the stages of
# the parallel read (libfmt/src/profile/profile_par.c), each alone on one
# thread (bench/par_stages.c): the scans (a chain: each part's scan starts
# where the one before ended) and the read of the whole log. From them,
# the best wall time on N cores (an estimate, not a measurement): the
# scan chain and the last part's read, or all the work over N cores,
# whichever is longer, plus what stays on one thread (the merge and the
# export): max(scan + read / (4 N), (scan + read) / N) + (jsonl - read).
set -euo pipefail

build=${1:-build}
size_mb=${2:-540}
runs=${RUNS:-3}
top=$(cd "$(dirname "$0")/.." && pwd)
conv=$build/tools/tachyon-conv
validate=$build/tools/tachyon-validate
gen=$build/bench/tachyon-gen
stages=$build/bench/tachyon-par-stages
cores=$(nproc)
out=${BENCH_DIR:-$top/bench/out}
mkdir -p "$out"

for tool in "$conv" "$validate" "$gen" "$stages"; do
    [ -x "$tool" ] || { echo "bench: missing $tool (build first)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

plain=$out/big.bin
packed=$out/big.zst.bin
if [ ! -f "$plain" ] || [ "$(cat "$out/big.size" 2>/dev/null)" != "$size_mb" ]; then
    "$gen" -o "$plain.tmp" --size "$size_mb" --report > "$out/big.report"
    mv "$plain.tmp" "$plain"
    samples=$(awk '/^samples/ {print $2}' "$out/big.report")
    "$gen" -o "$packed.tmp" --samples "$samples" --compression zstd
    mv "$packed.tmp" "$packed"
    echo "$size_mb" > "$out/big.size"
fi
samples=$(awk '/^samples/ {print $2}' "$out/big.report")

# cpu CMD...: "CPU WALL RSS_KB" of the run with the least CPU time.
cpu() {
    best_of 1 "$@"
}

# wall CMD...: "CPU WALL RSS_KB" of the run with the least wall time.
wall() {
    best_of 2 "$@"
}

best_of() {
    local by=$1 b="" bk="" w u s rss c k
    shift
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" "$@" > /dev/null
        read -r w u s rss < "$out/time.txt"
        c=$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')
        k=$c
        [ "$by" = 2 ] && k=$w
        if [ -z "$bk" ] || awk "BEGIN{exit !($k < $bk)}"; then
            b="$c $w $rss"
            bk=$k
        fi
    done
    echo "$b"
}

printf 'load average: %s; %s cores\n' "$(cut -d' ' -f1-3 /proc/loadavg)" \
    "$cores"
printf '%s thread-samples; %s bytes uncompressed, %s bytes zstd\n' \
    "$samples" "$(stat -c %s "$plain")" "$(stat -c %s "$packed")"
read -r md5 md5w _ <<< "$(cpu md5sum "$plain")"
read -r dec decw decr <<< "$(cpu "$validate" -q "$plain")"
read -r zdec zdecw _ <<< "$(cpu "$validate" -q "$packed")"
read -r js jsw jsr <<< "$(wall "$conv" -j 1 --to jsonl "$plain")"
read -r pj pjw pjr <<< "$(wall "$conv" -j "$cores" --to jsonl "$plain")"
read -r zjs zjsw zjsr <<< "$(cpu "$conv" --to jsonl "$packed")"
one=$("$conv" -j 1 --to jsonl "$plain" | md5sum | cut -c1-32)
all=$("$conv" -j "$cores" --to jsonl "$plain" | md5sum | cut -c1-32)
scan=$("$stages" "$plain" | awk '/^scan_s/ {print $2}')
read1=$("$stages" "$plain" | awk '/^read_s/ {print $2}')
rm -f "$out/time.txt"

awk -v n="$samples" -v md5="$md5" -v md5w="$md5w" -v dec="$dec" \
    -v decw="$decw" -v decr="$decr" -v zdec="$zdec" -v zdecw="$zdecw" \
    -v js="$js" -v jsw="$jsw" -v jsr="$jsr" -v zjs="$zjs" -v zjsw="$zjsw" \
    -v zjsr="$zjsr" -v pj="$pj" -v pjw="$pjw" -v pjr="$pjr" -v cores="$cores" \
    -v scan="$scan" -v read1="$read1" -v same="$([ "$one" = "$all" ] && echo yes || echo NO)" '
function max(a, b) { return a > b ? a : b }
BEGIN {
    printf "%-34s %8s %8s %9s\n", "run", "cpu_s", "wall_s", "rss_MB"
    printf "%-34s %8.2f %8.2f %9s\n", "md5sum (uncompressed)", md5, md5w, "-"
    printf "%-34s %8.2f %8.2f %9.1f\n", "validate (uncompressed)", dec, decw, decr / 1024
    printf "%-34s %8.2f %8.2f %9s\n", "validate (zstd)", zdec, zdecw, "-"
    printf "%-34s %8.2f %8.2f %9.1f\n", "conv --to jsonl -j 1", js, jsw, jsr / 1024
    printf "%-34s %8.2f %8.2f %9.1f\n", sprintf("conv --to jsonl -j %d", cores), pj, pjw, pjr / 1024
    printf "%-34s %8.2f %8.2f %9.1f\n", "conv --to jsonl (zstd: one thread)", zjs, zjsw, zjsr / 1024
    printf "\n-j %d against -j 1: wall %.2f -> %.2f s (%.0f%% less), cpu/wall %.2f, same bytes: %s\n",
           cores, jsw, pjw, 100 * (1 - pjw / jsw), pj / pjw, same
    printf "stages (cpu s, one thread): read %.2f (md5sum), decode %.2f, unzstd %.2f;\n", md5, dec, zdec - dec
    printf "  parallel read: scans %.2f, the read of the whole log %.2f, merge and export %.2f\n",
           scan, read1, js - read1
    printf "\nbest wall s for --to jsonl on N cores (estimates from the stages, no contention)\n"
    printf "%-10s %8s %8s %8s %8s\n", "", "1 core", "2 cores", "8 cores", "16 cores"
    split("1 2 8 16", c, " ")
    line = sprintf("%-10s", "estimate")
    for (i = 1; i <= 4; i++) {
        k = c[i]
        w = k == 1 ? js : max(scan + read1 / (4 * k), (scan + read1) / k) + (js - read1)
        line = line sprintf(" %8.2f", w)
    }
    print line
}'
