#!/bin/sh
# SPDX-License-Identifier: MIT
# record_bench.sh [BUILD_DIR] - what tachyon-record costs the process it
# records, and how it samples.
#
# The target: a CPU-bound 3-deep call chain in the main thread plus $IDLE
# idle threads (default 1), recorded with --all-threads at each rate of
# $RATES (default "1000 5000") on each CPython of $VERSIONS (default
# 3.11.7 3.12.1 3.13.0 3.14.7 3.14.7t, found as the tests find them). For
# each, $RUNS rounds (default 5), each round:
#
#   1. the target alone, a fixed amount of work ($WORK, default 60 calls):
#      its own CPU time (time.process_time, all its threads);
#   2. the same recorded (-v): its CPU time, and the recorder's figures;
#   3. a phased recording ($PHASE_SECONDS s, default 4): the recorder
#      samples only in every other $PHASE_MS ms (default 100; the
#      recorder's TACHYON_RECORD_BENCH_PHASE_MS), and the target
#      (bench/phased_target.py) measures its CPU time per unit of work in
#      the phases sampled and in those not. The phases interleave ten times a second, so a change in the
#      machine's speed hits both alike: on a shared machine, whose speed
#      varies by tens of percent from one second to the next, this is the
#      figure to trust; the whole runs of 1 and 2 show the same on a quiet
#      one.
#
# Columns: achieved rate; the recorder's time per tick; reads
# (process_vm_readv calls) per tick; threads paused per tick, and the
# share of those stopped ahead of the tick's reads (they ran at the tick
# before: the cheap pause); mean pause from the stop asked to the thread
# let go; ticks failed (dropped) and missed (late or skipped); lateness
# p99; the target's extra CPU time from the phases and from the whole
# runs, median [least, most] of the rounds. Figures other than the last
# two are medians of the recorded whole runs.
#
# RT=1 runs the target at SCHED_FIFO priority 2 and the recorder at 1 with
# TACHYON_RECORD_DEFAULT_SCHED (root or CAP_SYS_NICE): on a machine busy
# with other work, this gives both a CPU as on a quiet machine, which the
# recorder's own scheduling cannot; the target is then never preempted,
# which is what the figures of a quiet machine assume. $REC_ARGS adds
# options to every recording (e.g. --nonblocking, to see what pausing
# costs). Prints a Markdown table and its conditions on stdout.
set -eu
build=${1:-build}
rec=$build/tools/tachyon-record
[ -x "$rec" ] || { echo "record_bench: no $rec (build first)" >&2; exit 2; }
runs=${RUNS:-5}
rates=${RATES:-"1000 5000"}
work=${WORK:-60}
idle=${IDLE:-1}
phase_ms=${PHASE_MS:-100}
phase_s=${PHASE_SECONDS:-4}
versions=${VERSIONS:-"3.11.7 3.12.1 3.13.0 3.14.7 3.14.7t"}
rec_args=${REC_ARGS:-}
rt=${RT:-0}
here=$(dirname "$0")
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

# Under RT=1, the prefixes that give the target and the recorder a CPU.
if [ "$rt" = 1 ]; then
    chrt -f 1 true 2>/dev/null ||
        { echo "record_bench: RT=1 needs SCHED_FIFO (root)" >&2; exit 2; }
    run_target="chrt -f 2"
    run_rec="chrt -f 1 env TACHYON_RECORD_DEFAULT_SCHED=1"
else
    run_target=""
    run_rec=""
fi

# The interpreter of CPython $1, found as the tests find it.
find_python() {
    sh "$here/../tests/tools/pyenv_python.sh" "$1" 2>/dev/null
}

median() {
    sort -g | awk '{a[NR] = $1} END {print NR ? a[int((NR + 1) / 2)] : "-"}'
}

# "median [least, most]" of signed percentages, one a line.
spread() {
    sort -g | awk '{a[NR] = $1}
        END {if (!NR) {print "-"; exit}
             printf "%+.1f%% [%+.1f, %+.1f]", a[int((NR + 1) / 2)], a[1], a[NR]}'
}

# field SED_EXPR: the median over the recorded runs' logs.
field() {
    sed -n "$1" "$tmp/log" | median
}

# Pauses per tick ($per) and the share of them stopped ahead of the
# tick's reads ($ahead), medians of the recorded runs.
pause_figures() {
    sed -n 's/.*: \([0-9]*\) ticks in .*/\1/p' "$tmp/log" > "$tmp/ticks"
    sed -n 's/.*; \([0-9]*\) pauses, .*/\1/p' "$tmp/log" > "$tmp/pauses"
    sed -n 's/.*failed; \([0-9]*\) threads running.*/\1/p' "$tmp/log" \
        > "$tmp/ahead"
    per=$(paste -d' ' "$tmp/ticks" "$tmp/pauses" |
          awk '$1 > 0 {print $2 / $1}' | median)
    ahead=$(paste -d' ' "$tmp/pauses" "$tmp/ahead" |
            awk '{print ($1 > 0 ? 100 * $2 / $1 : 0)}' | median)
}

# bench_one PY RATE: one table row.
bench_one() {
    py=$1 rate=$2
    : > "$tmp/whole" ; : > "$tmp/phases" ; : > "$tmp/log" ; : > "$tmp/plog"
    i=0
    while [ $i -lt "$runs" ]; do
        base=$($run_target "$py" "$tmp/target.py" "$work" "$idle" |
               cut -d' ' -f2)
        recd=$($run_rec "$rec" -v -a -f --rate "$rate" $rec_args \
                   -o "$tmp/out.bin" -- \
                   $run_target "$py" "$tmp/target.py" "$work" "$idle" \
                   2>> "$tmp/log" | cut -d' ' -f2)
        awk -v a="$recd" -v b="$base" \
            'BEGIN {printf "%.2f\n", (a / b - 1) * 100}' >> "$tmp/whole"
        TACHYON_RECORD_BENCH_PHASE_MS=$phase_ms $run_rec "$rec" -a -f -q \
            --rate "$rate" $rec_args -o "$tmp/phased.bin" -- \
            $run_target "$py" "$here/phased_target.py" "$phase_s" "$idle" \
            "$phase_ms" >> "$tmp/phases" 2>> "$tmp/plog"
        i=$((i + 1))
    done
    "$build/tests/record/record_dump" "$tmp/out.bin" > /dev/null ||
        echo "record_bench: last log does not decode" >&2
    hz=$(field 's/.*s (\([0-9.]*\) Hz).*/\1/p')
    us=$(field 's/.*: \([0-9.]*\) us per tick.*/\1/p')
    reads=$(field 's/.*, \([0-9.]*\) reads per tick.*/\1/p')
    failed=$(field 's/.*failed (\([0-9.]*\)%).*/\1/p')
    miss=$(field 's/.*: \([0-9.]*\)% missed.*/\1/p')
    p99=$(field 's/.*, p99 \([0-9]*\) us,.*/\1/p')
    pause=$(field 's/.* pauses, \([0-9.]*\) us each.*/\1/p')
    pause_figures
    ver=$("$py" -c 'import sys, sysconfig
ft = sysconfig.get_config_var("Py_GIL_DISABLED")
print(sys.version.split()[0] + ("t" if ft else ""))')
    printf '| %s | %s | %s | %s | %s | %.2f (%.0f%% ahead) | %s | %s%% | ' \
        "$ver" "$rate" "$hz" "$us" "$reads" "$per" "$ahead" "$pause" \
        "$failed"
    printf '%s%% | %s | %s | %s |\n' "$miss" "$p99" \
        "$(spread < "$tmp/phases")" "$(spread < "$tmp/whole")"
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "| CPython | requested Hz | achieved Hz | us/tick | reads/tick |" \
     "pauses/tick | pause (us) | failed | missed ticks | lateness p99 (us) |" \
     "target's extra CPU, phases | target's extra CPU, whole runs |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
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
echo "Extra CPU: the target's CPU time recorded over unrecorded, median" \
     "[least, most] of $runs rounds; phases: ${phase_ms} ms sampled and" \
     "not, interleaved in one ${phase_s} s run (the figure to trust on a" \
     "busy machine); whole runs: $work calls recorded over the same" \
     "alone, run in turn."
cond="runs=$runs, idle threads=$idle${rec_args:+, $rec_args}"
if [ "$rt" = 1 ]; then cond="$cond, RT=1 (SCHED_FIFO)"; fi
echo "$(nproc) CPUs, $(uname -sr), load average $load0 at the start," \
     "$(cut -d' ' -f1-3 /proc/loadavg) at the end; $cond; $(date -u +%F)"
