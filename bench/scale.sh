#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/scale.sh - every case of issue 13 in one run, each next to md5sum
# of the same input: the realistic profile (bench/run.sh), many unique
# stacks, ten thousand threads, stack depth, and JSONL input.
#
# Usage: bench/scale.sh [BUILD_DIR]
# Environment:
#   CASES      sections to run (default: realistic unique threads depth jsonl)
#   RUNS       rounds per section (default 3)
#   REAL_RUNS  rounds of the realistic section (default 5)
#   BASE       another built tree (e.g. of an older commit): every case
#              also runs with its tools, in the same rounds; a table per
#              section compares CPU, RSS and output bytes
#   UNIQUE     unique stacks of the unique section (default 1000000)
#   BENCH_DIR  where generated inputs are kept (default: bench/out)
#
# Sections (targets and limits are issue 13's):
#   realistic  bench/run.sh: every --to target on tachyon-gen's default
#              profile (gecko: at most 10x md5sum; bin: at most 1.5x)
#   unique     UNIQUE stacks, 3 x UNIQUE samples, one thread: collapsed
#              (at most 15x md5sum), jsonl and bin; RSS per unique stack
#   threads    10,000 threads, every target and clickhouse (under 64 MB):
#              "walk", each thread walking a script of the realistic
#              program (about 80 unique stacks a thread), and "few", ten
#              stacks a thread
#   depth      --to bin on stacks about 10 and about 200 frames deep (flat
#              in depth: the same ratio to md5sum)
#   jsonl      a JSONL export of 1,050,000 frames, 200 MB
#              (tachyon-diff-gen): tachyon-conv --to jsonl and --to top
#              next to tachyon-validate (issue 24: at most 1.5 times its
#              CPU time; bench/jsonl_bench.sh has the ratios)
# Rows: CPU seconds (user + sys) and wall seconds, best of the rounds;
# samples and MB of input per CPU second; CPU ratio to md5sum; peak
# RSS. Inputs are generated once by BUILD_DIR's generators and kept.
set -euo pipefail

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
out=${BENCH_DIR:-$here/out}
conv=$build/tools/tachyon-conv
gen=$build/bench/tachyon-gen
base=${BASE:-}
bconv=${base:+$base/tools/tachyon-conv}
all_targets="jsonl collapsed bin speedscope gecko pprof svg html pstats top"
. "$here/lib.sh"

for tool in "$conv" "$gen" "$build/bench/tachyon-diff-gen" \
    "$build/tools/tachyon-validate" ${base:+"$bconv"}; do
    [ -x "$tool" ] || { echo "bench: missing $tool (build first)" >&2; exit 2; }
done
mkdir -p "$out"
bench_init "$build"

# input NAME GEN_ARGS...: $out/NAME.bin from tachyon-gen, made once.
input() {
    local f=$out/$1.bin
    shift
    if [ ! -f "$f" ] || [ "$(cat "$f.args" 2>/dev/null)" != "$*" ]; then
        "$gen" -o "$f.tmp" "$@" && mv "$f.tmp" "$f"
        echo "$*" > "$f.args"
    fi
}

# extra TARGET: the options that make TARGET's output one fixed text
# (clickhouse: a run id and a time of its own, not random and mtime).
extra() {
    [ "$1" != clickhouse ] || echo "--run-id 00000000000000000000000000000000 --time 1"
}

# section NAME SAMPLES TARGET...: md5sum of $out/NAME.bin and tachyon-conv
# --to each TARGET on it (and BASE's), measured together; then the table.
section() {
    local name=$1 n=$2 f=$out/$1.bin size load to
    shift 2
    size=$(stat -c %s "$f")
    load=$(load_avg)
    case_add "$name-md5" md5sum "$f"
    for to in "$@"; do
        # shellcheck disable=SC2046
        case_add "$name-$to" "$conv" "$f" --to "$to" $(extra "$to")
        # shellcheck disable=SC2046
        [ -z "$base" ] || case_add "$name-$to-base" "$bconv" "$f" --to "$to" $(extra "$to")
    done
    cases_run
    echo "$size bytes, $n samples ($(cat "$f.args")); load average" \
         "$load at the start, $(load_avg) at the end; best of ${RUNS} rounds."
    echo
    table_head
    case_row md5sum "$name-md5" "$name-md5" "$n" "$size"
    for to in "$@"; do
        case_row "$to" "$name-$to" "$name-md5" "$n" "$size"
        [ -z "$base" ] || case_row "$to (base)" "$name-$to-base" "$name-md5" "$n" "$size"
    done
    echo
    [ -n "$base" ] || return 0
    compare_head
    for to in "$@"; do
        local a b same
        # shellcheck disable=SC2046
        a=$(out_md5 "$to" "$conv" "$f" --to "$to" $(extra "$to"))
        # shellcheck disable=SC2046
        b=$(out_md5 "$to" "$bconv" "$f" --to "$to" $(extra "$to"))
        [ "$a" = "$b" ] && same="same" || same="differs"
        compare_row "$to" "$name-$to" "$name-$to-base" "$same"
    done
    echo
}

# rss_per NAME-TARGET COUNT: peak RSS over COUNT, in bytes.
rss_per() {
    best "$1" | awk -v n="$2" '{ printf "%.0f", $3 * 1024 / n }'
}

realistic() {
    RUNS=${REAL_RUNS:-5} "$here/run.sh" "$build"
    echo
}

unique() {
    local u=${UNIQUE:-1000000}
    input unique --unique "$u" --samples $((3 * u)) --threads 1
    echo "### $u unique stacks, one thread"
    echo
    section unique $((3 * u)) collapsed jsonl bin
    echo "Peak RSS per unique stack: collapsed $(rss_per unique-collapsed "$u")" \
         "bytes, jsonl $(rss_per unique-jsonl "$u") bytes."
    echo
}

threads() {
    input threads-walk --threads 10000 --samples 4600000
    input threads-few --threads 10000 --unique 100000 --samples 4000000
    echo "### 10,000 threads, walking the realistic program"
    echo
    section threads-walk 4600000 $all_targets clickhouse
    echo "### 10,000 threads, ten stacks each"
    echo
    section threads-few 4000000 $all_targets clickhouse
    echo "Peak RSS per thread (all of it, over 10,000):" \
         "jsonl $(rss_per threads-few-jsonl 10000) bytes," \
         "gecko $(rss_per threads-few-gecko 10000) bytes."
    echo
}

depth() {
    local d
    for d in 10 200; do
        input "depth-$d" --depth "$d" --samples 4000000
        echo "### Stacks about $d frames deep, 8 threads"
        echo
        section "depth-$d" 4000000 bin jsonl
    done
}

jsonl() {
    local f=$out/export.jsonl size load validate=$build/tools/tachyon-validate
    if [ ! -f "$f" ]; then
        "$build/bench/tachyon-diff-gen" big -o "$out/export.bin" \
            --frames 1050000 --seed 1
        "$conv" -q -o "$f.tmp" "$out/export.bin" && mv "$f.tmp" "$f"
    fi
    size=$(stat -c %s "$f")
    load=$(load_avg)
    case_add jsonl-md5 md5sum "$f"
    case_add jsonl-validate "$validate" "$f"
    case_add jsonl-conv "$conv" "$f" --to jsonl
    case_add jsonl-top "$conv" "$f" --to top
    [ -z "$base" ] || case_add jsonl-validate-base "$base/tools/tachyon-validate" "$f"
    cases_run
    echo "### JSONL input: an export of 1,050,000 frames (200 MB)"
    echo
    echo "$size bytes; load average $load at the start, $(load_avg) at" \
         "the end; best of ${RUNS} rounds."
    echo
    table_head
    case_row md5sum jsonl-md5 jsonl-md5 0 "$size"
    case_row "tachyon-validate" jsonl-validate jsonl-md5 0 "$size"
    [ -z "$base" ] || case_row "tachyon-validate (base)" jsonl-validate-base jsonl-md5 0 "$size"
    case_row "tachyon-conv --to jsonl" jsonl-conv jsonl-md5 0 "$size"
    case_row "tachyon-conv --to top" jsonl-top jsonl-md5 0 "$size"
    echo
}

RUNS=${RUNS:-3}
echo "## tachyon-conv at scale: $build$([ -z "$base" ] || echo " against $base"), $(nproc) CPUs"
echo
for c in ${CASES:-realistic unique threads depth jsonl}; do
    case $c in
    realistic | unique | threads | depth | jsonl) "$c" ;;
    *) echo "bench: unknown case $c" >&2; exit 2 ;;
    esac
done
