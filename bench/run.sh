#!/usr/bin/env bash
# bench/run.sh - conversion throughput of tachyon-conv on a generated
# profile, next to the I/O floor (md5sum of the same file).
#
# Usage: bench/run.sh [BUILD_DIR] [SAMPLES]
#   BUILD_DIR  a configured and built tree (default: build)
#   SAMPLES    thread-samples to generate (default: 4000000)
#
# For each case it reports the best of $RUNS runs (default 5): wall time,
# thread-samples per second, MB/s of input, the ratio to md5sum's time and
# peak RSS. Reference: CPython 3.15's `replay` converts about 190,000
# thread-samples per second on this machine kind (23 s for 4.48 million).
# Other scripts in bench/ add their own cases (diff, record). The viewer
# formats run too; VIEWERS="" skips them, VIEWERS="svg top" picks some.
set -euo pipefail

build=${1:-build}
samples=${2:-4000000}
runs=${RUNS:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
conv=$build/tools/tachyon-conv
gen=$build/bench/tachyon-gen
out=${BENCH_DIR:-$top/bench/out}
mkdir -p "$out"

for tool in "$conv" "$gen"; do
    [ -x "$tool" ] || { echo "bench: missing $tool (build first)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

plain=$out/profile.bin
packed=$out/profile.zst.bin
if [ ! -f "$plain" ] || [ "$(cat "$out/samples" 2>/dev/null)" != "$samples" ]; then
    "$gen" -o "$plain.tmp" --samples "$samples" --report && mv "$plain.tmp" "$plain"
    "$gen" -o "$packed.tmp" --samples "$samples" --compression zstd && mv "$packed.tmp" "$packed"
    echo "$samples" > "$out/samples"
fi
size=$(stat -c %s "$plain")

# best_of CMD...: prints "SECONDS MAXRSS_KB" of the fastest run.
best_of() {
    local best="" rss="" t
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" > /dev/null
        t=$(cut -d' ' -f1 "$out/time.txt")
        if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then
            best=$t
            rss=$(cut -d' ' -f2 "$out/time.txt")
        fi
    done
    echo "$best $rss"
}

read -r floor _ <<< "$(best_of md5sum "$plain")"
printf '%s thread-samples, %s bytes uncompressed (%s bytes zstd); md5sum %.3f s\n' \
    "$samples" "$size" "$(stat -c %s "$packed")" "$floor"
printf '%-22s %8s %14s %9s %8s %9s\n' case seconds samples/s MB/s x_md5 rss_MB
for input in plain packed; do
    file=${!input}
    for to in jsonl collapsed ${VIEWERS-speedscope gecko pprof svg html pstats top}; do
        read -r secs rss <<< "$(best_of "$conv" "$file" --to "$to")"
        awk -v c="$input-$to" -v s="$secs" -v n="$samples" -v b="$size" \
            -v f="$floor" -v r="$rss" 'BEGIN {
            if (s <= 0) s = 0.001;
            printf "%-22s %8.3f %14.0f %9.0f %8.2f %9.1f\n",
                   c, s, n / s, b / s / 1e6, s / (f > 0 ? f : 0.001), r / 1024 }'
    done
done
