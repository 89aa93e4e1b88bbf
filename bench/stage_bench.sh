#!/usr/bin/env bash
# bench/stage_bench.sh - where the time of a big conversion goes, stage by
# stage, and what more cores could give (README "Benchmarks", "Cores").
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
#   aggregate  tachyon-conv --to jsonl minus decode: the call tree and the
#              export
# Then the wall time each way of splitting the work would need at best on
# N cores (no hand-off cost counted; estimates, not measurements):
#   pipeline   decode | aggregate on two threads: max(decode, aggregate)
#   chunks     the region decoded in N chunks, aggregated in order on one
#              thread: aggregate + decode / N (zstd: one frame, so its
#              decompression stays serial: max(unzstd, that))
#   all split  decode and aggregation both in N pieces: total / N
set -euo pipefail

build=${1:-build}
size_mb=${2:-540}
runs=${RUNS:-3}
top=$(cd "$(dirname "$0")/.." && pwd)
conv=$build/tools/tachyon-conv
validate=$build/tools/tachyon-validate
gen=$build/bench/tachyon-gen
out=${BENCH_DIR:-$top/bench/out}
mkdir -p "$out"

for tool in "$conv" "$validate" "$gen"; do
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
    local b="" w u s rss c
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" "$@" > /dev/null
        read -r w u s rss < "$out/time.txt"
        c=$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')
        if [ -z "$b" ] || awk "BEGIN{exit !($c < ${b%% *})}"; then
            b="$c $w $rss"
        fi
    done
    echo "$b"
}

printf 'load average: %s; %s cores\n' "$(cut -d' ' -f1-3 /proc/loadavg)" \
    "$(nproc)"
printf '%s thread-samples; %s bytes uncompressed, %s bytes zstd\n' \
    "$samples" "$(stat -c %s "$plain")" "$(stat -c %s "$packed")"
read -r md5 md5w _ <<< "$(cpu md5sum "$plain")"
read -r dec decw decr <<< "$(cpu "$validate" -q "$plain")"
read -r zdec zdecw _ <<< "$(cpu "$validate" -q "$packed")"
read -r js jsw jsr <<< "$(cpu "$conv" --to jsonl "$plain")"
read -r zjs zjsw zjsr <<< "$(cpu "$conv" --to jsonl "$packed")"
rm -f "$out/time.txt"

awk -v n="$samples" -v md5="$md5" -v md5w="$md5w" -v dec="$dec" \
    -v decw="$decw" -v decr="$decr" -v zdec="$zdec" -v zdecw="$zdecw" \
    -v js="$js" -v jsw="$jsw" -v jsr="$jsr" -v zjs="$zjs" -v zjsw="$zjsw" \
    -v zjsr="$zjsr" '
function max(a, b) { return a > b ? a : b }
BEGIN {
    printf "%-34s %8s %8s %9s\n", "run", "cpu_s", "wall_s", "rss_MB"
    printf "%-34s %8.2f %8.2f %9s\n", "md5sum (uncompressed)", md5, md5w, "-"
    printf "%-34s %8.2f %8.2f %9.1f\n", "validate (uncompressed)", dec, decw, decr / 1024
    printf "%-34s %8.2f %8.2f %9s\n", "validate (zstd)", zdec, zdecw, "-"
    printf "%-34s %8.2f %8.2f %9.1f\n", "conv --to jsonl (uncompressed)", js, jsw, jsr / 1024
    printf "%-34s %8.2f %8.2f %9.1f\n", "conv --to jsonl (zstd)", zjs, zjsw, zjsr / 1024
    agg = js - dec; unz = zdec - dec
    printf "\nstages (cpu s): read %.2f, decode %.2f, unzstd %.2f, aggregate %.2f\n",
           md5, dec, unz, agg
    printf "decode is %.0f%% of --to jsonl (uncompressed), aggregate %.0f%%\n",
           100 * dec / js, 100 * agg / js
    printf "\nbest wall s for --to jsonl (estimates, no hand-off cost)\n"
    printf "%-28s %8s %8s %8s %8s\n", "split", "1 core", "2 cores", "8 cores", "16 cores"
    split("1 2 8 16", cores, " ")
    line = sprintf("%-28s", "pipeline (uncompressed)")
    for (i = 1; i <= 4; i++)
        line = line sprintf(" %8.2f", cores[i] == 1 ? js : max(dec, agg))
    print line
    line = sprintf("%-28s", "chunks (uncompressed)")
    for (i = 1; i <= 4; i++) line = line sprintf(" %8.2f", agg + dec / cores[i])
    print line
    line = sprintf("%-28s", "chunks (zstd, one frame)")
    for (i = 1; i <= 4; i++)
        line = line sprintf(" %8.2f", cores[i] == 1 ? zjs : max(unz, agg + dec / (cores[i] - 1)))
    print line
    line = sprintf("%-28s", "all split (uncompressed)")
    for (i = 1; i <= 4; i++) line = line sprintf(" %8.2f", js / cores[i])
    print line
}'
