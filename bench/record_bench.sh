#!/bin/sh
# SPDX-License-Identifier: MIT
# record_bench.sh [BUILD_DIR] - tachyon-record's cost and accuracy.
#
# For each CPython found (3.11.7, 3.12.1, 3.13.0 from pyenv, 3.14.7 and
# 3.14.7t from scripts/build-cpython.sh's cache, or $PY311 ... $PY314T;
# $VERSIONS to choose) and each requested rate (1 kHz and 5 kHz, or
# $RATES), record a CPU-bound target (a 3-deep call chain, plus $IDLE idle
# threads, default 1, with --all-threads) and report: achieved sampling rate, mean time per sample
# (walk + write, from tachyon-record -v), failed-sample and missed-tick
# rates, and the target's slowdown: its own wall time and CPU time for a
# fixed amount of work when recorded, over the same alone (medians of $RUNS
# interleaved runs). On a loaded machine the wall-time ratio is noise; the
# CPU-time ratio shows what sampling costs the target itself.
# $REC_ARGS adds options to every recording (e.g. --nonblocking, to see
# what pausing the running thread costs).
# Prints a Markdown table on stdout.
set -eu
build=${1:-build}
rec=$build/tools/tachyon-record
[ -x "$rec" ] || { echo "record_bench: no $rec (build first)" >&2; exit 2; }
runs=${RUNS:-3}
rates=${RATES:-"1000 5000"}
work=${WORK:-60}
idle=${IDLE:-1}
versions=${VERSIONS:-"3.11.7 3.12.1 3.13.0 3.14.7 3.14.7t"}
rec_args=${REC_ARGS:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/target.py" <<'PY'
import sys, threading, time

def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s

def mid(n):
    return leaf(n)

def top(n):
    return mid(n)

stop = threading.Event()
idle = [threading.Thread(target=stop.wait) for _ in range(int(sys.argv[2]))]
for t in idle:
    t.start()
t0, c0 = time.perf_counter(), time.process_time()
for _ in range(int(sys.argv[1])):
    top(100000)
print(f"{time.perf_counter() - t0:.4f} {time.process_time() - c0:.4f}")
stop.set()
for t in idle:
    t.join()
PY

# The interpreter of CPython $1, found as the tests find it.
find_python() {
    sh "$(dirname "$0")/../tests/tools/pyenv_python.sh" "$1" 2>/dev/null
}

median() {
    sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}

# ratio A B: (A / B - 1) as a signed percentage.
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN {printf "%+.1f", (a / b - 1) * 100}'
}

# bench_one PY RATE: one table row.
bench_one() {
    py=$1 rate=$2
    : > "$tmp/base" ; : > "$tmp/rec" ; : > "$tmp/log"
    i=0
    while [ $i -lt "$runs" ]; do
        "$py" "$tmp/target.py" "$work" "$idle" >> "$tmp/base"
        "$rec" -v -a -f --rate "$rate" $rec_args -o "$tmp/out.bin" -- \
            "$py" "$tmp/target.py" "$work" "$idle" >> "$tmp/rec" \
            2>> "$tmp/log"
        i=$((i + 1))
    done
    base=$(cut -d' ' -f1 "$tmp/base" | median)
    recd=$(cut -d' ' -f1 "$tmp/rec" | median)
    cbase=$(cut -d' ' -f2 "$tmp/base" | median)
    crecd=$(cut -d' ' -f2 "$tmp/rec" | median)
    hz=$(sed -n 's/.*s (\([0-9.]*\) Hz).*/\1/p' "$tmp/log" | median)
    us=$(sed -n 's/.*: \([0-9.]*\) us per tick.*/\1/p' "$tmp/log" | median)
    reads=$(sed -n 's/.*, \([0-9.]*\) reads per tick.*/\1/p' "$tmp/log" |
            median)
    failed=$(sed -n 's/.*failed (\([0-9.]*\)%).*/\1/p' "$tmp/log" | median)
    miss=$(sed -n 's/.*: \([0-9.]*\)% missed.*/\1/p' "$tmp/log" | median)
    p99=$(sed -n 's/.*, p99 \([0-9]*\) us,.*/\1/p' "$tmp/log" | median)
    "$build/tests/record/record_dump" "$tmp/out.bin" > /dev/null ||
        echo "record_bench: last log does not decode" >&2
    slow=$(ratio "$recd" "$base")
    cslow=$(ratio "$crecd" "$cbase")
    ver=$("$py" -c 'import sys, sysconfig
ft = sysconfig.get_config_var("Py_GIL_DISABLED")
print(sys.version.split()[0] + ("t" if ft else ""))')
    row='| %s | %s | %s | %s | %s | %s%% | %s%% | %s '
    row="$row| %ss -> %ss (%s%%) | %ss -> %ss (%s%%) |\n"
    printf "$row" "$ver" "$rate" "$hz" "$us" "$reads" "$failed" "$miss" \
        "$p99" "$base" "$recd" "$slow" "$cbase" "$crecd" "$cslow"
}

echo "| CPython | requested Hz | achieved Hz | us/sample | reads/sample |" \
     "failed | missed ticks | lateness p99 (us) |" \
     "target wall time alone -> recorded |" \
     "target CPU time alone -> recorded |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for ver in $versions; do
    if ! py=$(find_python "$ver"); then
        echo "| $ver | skipped: not found |"
        continue
    fi
    for rate in $rates; do
        bench_one "$py" "$rate"
    done
done
echo
load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "$(nproc) CPUs, $(uname -sr), load average $load," \
     "runs=$runs, work=$work, idle threads=$idle${rec_args:+, $rec_args};" \
     "$(date -u +%F)"
