#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/run.sh - tachyon-conv on a realistic generated profile, every
# --to target, next to the I/O floor (md5sum of the same file).
#
# Usage: bench/run.sh [BUILD_DIR] [SAMPLES]
#   BUILD_DIR  a configured and built tree (default: build)
#   SAMPLES    samples to generate (default: 4000000)
# Environment:
#   RUNS       rounds (default 5); each case shows its best
#   VIEWERS    viewer targets on the uncompressed log (default: speedscope
#              gecko pprof svg html pstats top; "" skips them)
#   BASE       another built tree (e.g. of an older commit): each case also
#              runs with its tachyon-conv, in the same rounds, on the same
#              input; a last table compares the two, output bytes included
#   BENCH_DIR  where generated logs are kept (default: bench/out)
#
# The log comes from BUILD_DIR's tachyon-gen (bench/README.md says what it
# looks like). A row gives CPU seconds (user + sys) and wall seconds, the
# best of the rounds; samples and input MB per CPU second; the CPU
# ratio to md5sum of the uncompressed log; peak RSS. Reference: CPython
# 3.15's `replay` converts about 190,000 samples per second on this
# machine kind (23 s for 4.48 million). bench/scale.sh runs this and the
# scale cases (unique stacks, threads, depth, JSONL input).
set -euo pipefail

build=${1:-build}
samples=${2:-4000000}
here=$(cd "$(dirname "$0")" && pwd)
out=${BENCH_DIR:-$here/out}
conv=$build/tools/tachyon-conv
gen=$build/bench/tachyon-gen
base=${BASE:-}
. "$here/lib.sh"

for tool in "$conv" "$gen" ${base:+"$base/tools/tachyon-conv"}; do
    [ -x "$tool" ] || { echo "bench: missing $tool (build first)" >&2; exit 2; }
done
mkdir -p "$out"
bench_init "$build"

plain=$out/profile.bin
packed=$out/profile.zst.bin
if [ ! -f "$plain" ] || [ "$(cat "$out/samples" 2>/dev/null)" != "$samples" ]; then
    "$gen" -o "$plain.tmp" --samples "$samples" --report >&2 && mv "$plain.tmp" "$plain"
    "$gen" -o "$packed.tmp" --samples "$samples" --compression zstd && mv "$packed.tmp" "$packed"
    echo "$samples" > "$out/samples"
fi
size=$(stat -c %s "$plain")

targets=(jsonl collapsed bin ${VIEWERS-speedscope gecko pprof svg html pstats top})
cases=()
for t in "${targets[@]}"; do cases+=("plain $t"); done
for t in jsonl collapsed bin; do cases+=("packed $t"); done

load_start=$(load_avg)
case_add md5 md5sum "$plain"
for c in "${cases[@]}"; do
    read -r input to <<< "$c"
    case_add "$input-$to" "$conv" "${!input}" --to "$to"
    [ -z "$base" ] || case_add "base-$input-$to" "$base/tools/tachyon-conv" "${!input}" --to "$to"
done
cases_run

label() { [ "$1" = plain ] && echo "$2" || echo "zstd input, $2"; }

echo "### Realistic profile: $samples samples, $size bytes" \
     "($(stat -c %s "$packed") bytes zstd)"
echo
echo "$(nproc) CPUs; load average $load_start at the start, $(load_avg) at" \
     "the end; best of ${RUNS:-5} rounds. Ratios are of CPU time."
echo
table_head
case_row md5sum md5 md5 "$samples" "$size"
for c in "${cases[@]}"; do
    read -r input to <<< "$c"
    case_row "$(label "$input" "$to")" "$input-$to" md5 "$samples" "$size"
    [ -z "$base" ] || case_row "$(label "$input" "$to") (base)" "base-$input-$to" md5 "$samples" "$size"
done
[ -n "$base" ] || exit 0

echo
echo "Against BASE ($base): CPU and RSS of the same case; output: the md5"
echo "of the bytes each writes."
echo
compare_head
for c in "${cases[@]}"; do
    read -r input to <<< "$c"
    a=$(out_md5 "$to" "$conv" "${!input}" --to "$to")
    b=$(out_md5 "$to" "$base/tools/tachyon-conv" "${!input}" --to "$to")
    [ "$a" = "$b" ] && same="same ($a)" || same="differs ($b -> $a)"
    compare_row "$(label "$input" "$to")" "$input-$to" "base-$input-$to" "$same"
done
