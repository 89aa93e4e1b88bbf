#!/bin/sh
# SPDX-License-Identifier: MIT
# async_bench.sh [BUILD_DIR] - what tachyon-record --async-aware costs a
# sample, with thousands of tasks.
#
# For each CPython 3.14 found (3.14.7 and 3.14.7t from
# scripts/build-cpython.sh's cache, or $PY314 / $PY314T; $VERSIONS to
# choose) and each task count ($TASKS, default 1000 and 10000), start an
# asyncio program with that many idle tasks (asleep in asyncio.sleep) and
# one busy task (a loop of CPU work and `await asyncio.sleep(0)`), attach
# to it, and record for $DURATION seconds (default 2; all: $DURATION_ALL,
# default 6, so that the first sample, which follows each list node by
# node, weighs little) three ways, in the
# same round: the threads (-a, the reference), --async-aware (running:
# each thread's running task) and --async-aware --async-mode all (every
# task: a stack per idle task each tick). Reports, medians of $RUNS
# rounds (default 3): the rate achieved, the recorder's time per tick
# (tachyon-record -v: read the target, build the stacks, write them),
# its CPU time per tick (user + system, tachyon-rusage), reads (system
# calls) and stacks per tick, failed ticks, and each mode's CPU time per
# tick over the reference's. Requested rates: $RATE (default 1000 Hz)
# for threads and running, $RATE_ALL (default 100 Hz) for all. The log
# goes to /dev/null: written as it is, without the checkpoints' syncs
# (a sync on a busy disk stalls a recording for a second). On a loaded
# machine the time per tick is mostly waiting for a CPU: the CPU time per
# tick is the cost.
# Prints a Markdown table on stdout.
set -eu
build=${1:-build}
rec=$build/tools/tachyon-record
rusage=$build/bench/tachyon-rusage
[ -x "$rec" ] || { echo "async_bench: no $rec (build first)" >&2; exit 2; }
[ -x "$rusage" ] || { echo "async_bench: no $rusage" >&2; exit 2; }
runs=${RUNS:-3}
tasks=${TASKS:-"1000 10000"}
duration=${DURATION:-2}
duration_all=${DURATION_ALL:-6}
rate=${RATE:-1000}
rate_all=${RATE_ALL:-100}
versions=${VERSIONS:-"3.14.7 3.14.7t"}
tmp=$(mktemp -d)
target_pid=
trap '[ -n "$target_pid" ] && kill "$target_pid" 2>/dev/null; rm -rf "$tmp"' EXIT

cat > "$tmp/target.py" <<'PY'
import asyncio, sys

def spin(n):
    s = 0
    for i in range(n):
        s += i * i
    return s

async def idle():
    await asyncio.sleep(3600)

async def busy():
    while True:
        spin(20000)
        await asyncio.sleep(0)

async def main(n, ready):
    keep = [asyncio.create_task(idle()) for _ in range(n)]
    keep.append(asyncio.create_task(busy(), name="busy"))
    await asyncio.sleep(0.5)
    open(ready, "w").close()
    await asyncio.sleep(3600)

asyncio.run(main(int(sys.argv[1]), sys.argv[2]))
PY

find_python() {
    sh "$(dirname "$0")/../tests/tools/pyenv_python.sh" "$1" 2>/dev/null
}

median() {
    sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}

# start_target PY N: the target, its pid in $target_pid once ready.
start_target() {
    rm -f "$tmp/ready"
    "$1" "$tmp/target.py" "$2" "$tmp/ready" &
    target_pid=$!
    i=0
    while [ ! -e "$tmp/ready" ] && [ $i -lt 600 ]; do
        sleep 0.1
        i=$((i + 1))
    done
}

# record NAME HZ ARGS...: one recording of the target, its -v lines in
# $tmp/NAME.log and its rusage line (CPU, wall, RSS) in $tmp/NAME.cpu.
record() {
    name=$1 hz=$2 secs=$duration
    shift 2
    [ "$name" = all ] && secs=$duration_all
    "$rusage" "$tmp/$name.cpu" "$rec" -v -f -r "$hz" -d "$secs" "$@" \
        -o /dev/null -p "$target_pid" 2>> "$tmp/$name.log"
}

# figures NAME: "Hz us/tick cpu_us/tick reads/tick stacks/tick failed%"
# for each run of NAME, one line each (from the -v lines: "T ticks in S s
# (H Hz), N samples, F ticks failed (P%)" and "U us per tick, R reads").
figures() {
    sed -n 's/.*: \([0-9]*\) ticks in [0-9.]* s (\([0-9.]*\) Hz), \([0-9]*\) samples, [0-9]* ticks failed (\([0-9.]*\)%).*/\1 \2 \3 \4/p' \
        "$tmp/$1.log" > "$tmp/$1.t"
    sed -n 's/.*: \([0-9.]*\) us per tick, \([0-9.]*\) reads per tick.*/\1 \2/p' \
        "$tmp/$1.log" > "$tmp/$1.u"
    paste -d' ' "$tmp/$1.t" "$tmp/$1.u" "$tmp/$1.cpu" |
        awk '{printf "%s %s %.1f %s %.1f %s\n", $2, $5, $7 * 1e6 / $1, $6,
              $3 / $1, $4}'
}

col() {
    cut -d' ' -f"$1" | median
}

# bench_one PY N: three table rows.
bench_one() {
    py=$1 n=$2
    for m in threads running all; do
        : > "$tmp/$m.log"
        : > "$tmp/$m.cpu"
    done
    start_target "$py" "$n"
    r=0
    while [ $r -lt "$runs" ]; do
        record threads "$rate" -a
        record running "$rate" --async-aware
        record all "$rate_all" --async-aware --async-mode all
        r=$((r + 1))
    done
    kill "$target_pid" 2>/dev/null || :
    wait "$target_pid" 2>/dev/null || :
    target_pid=
    ver=$("$py" -c 'import sys, sysconfig
ft = sysconfig.get_config_var("Py_GIL_DISABLED")
print(sys.version.split()[0] + ("t" if ft else ""))')
    ref=$(figures threads | col 3)
    for m in threads running all; do
        figures $m > "$tmp/$m.rows"
        hz=$(col 1 < "$tmp/$m.rows")
        us=$(col 2 < "$tmp/$m.rows")
        cpu=$(col 3 < "$tmp/$m.rows")
        reads=$(col 4 < "$tmp/$m.rows")
        stacks=$(col 5 < "$tmp/$m.rows")
        fail=$(col 6 < "$tmp/$m.rows")
        req=$rate
        [ $m = all ] && req=$rate_all
        x=$(awk -v a="$cpu" -v b="$ref" 'BEGIN {printf "%.1f", a / b}')
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%% | %sx |\n' \
            "$ver" "$n" "$m" "$req" "$hz" "$us" "$cpu" "$reads" "$stacks" \
            "$fail" "$x"
    done
}

echo "| CPython | tasks | stacks of | requested Hz | achieved Hz |" \
     "us/tick | CPU us/tick | reads/tick | stacks/tick | failed |" \
     "CPU/tick over threads' |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for ver in $versions; do
    if ! py=$(find_python "$ver"); then
        echo "| $ver | skipped: not found |"
        continue
    fi
    for n in $tasks; do
        bench_one "$py" "$n"
    done
done
echo
load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "$(nproc) CPUs, $(uname -sr), load average $load, runs=$runs," \
     "duration=${duration}s (all: ${duration_all}s); $(date -u +%F)"
