#!/bin/sh
# SPDX-License-Identifier: MIT
# pause_cost.sh [BUILD_DIR] - what each means the recorder has of reading
# a running thread costs that thread, measured alone: nothing, one or
# three readings of its perf clock, a ptrace pause (seize, interrupt,
# detach), a pause of a thread kept seized (interrupt, continue), and a
# pause held 100 us longer (BUILD/bench/tachyon-pause-cost, on
# bench/phased_target.py: the extra CPU time of the phases acted in).
#
# $RATE acts a second (default 1000), $RUNS rounds (default 5) of every
# mode in turn, $SECONDS_EACH s a run (default 4), on CPython $VERSION
# (default 3.13.0). RT=1 runs the target at SCHED_FIFO 2 and the acting
# tracer at 1 (root), as bench/record_bench.sh does on a busy machine.
# Prints a Markdown table.
set -eu
build=${1:-build}
tool=$build/bench/tachyon-pause-cost
[ -x "$tool" ] || { echo "pause_cost: no $tool (build first)" >&2; exit 2; }
here=$(dirname "$0")
rate=${RATE:-1000}
runs=${RUNS:-5}
secs=${SECONDS_EACH:-4}
version=${VERSION:-3.13.0}
modes="none clock clock3 seize seized hold"
py=$(sh "$here/../tests/tools/pyenv_python.sh" "$version")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "${RT:-0}" = 1 ]; then
    run_target="chrt -f 2"
    run_tool="chrt -f 1"
else
    run_target=""
    run_tool=""
fi

i=0
while [ $i -lt "$runs" ]; do
    for m in $modes; do
        $run_tool "$tool" "$m" "$rate" 100 -- $run_target "$py" \
            "$here/phased_target.py" "$secs" 1 100 >> "$tmp/$m" \
            2>> "$tmp/$m.log"
    done
    i=$((i + 1))
done

load=$(cut -d' ' -f1-3 /proc/loadavg)
cond="CPython $version; $(nproc) CPUs, $(uname -sr), load average $load"
if [ "${RT:-0}" = 1 ]; then cond="$cond, RT=1 (SCHED_FIFO)"; fi
echo "| done to the running thread, $rate times a second |" \
     "its extra CPU time | tracer's time per act (us) |"
echo "|---|---|---|"
for m in $modes; do
    extra=$(sort -g "$tmp/$m" | awk '{a[NR] = $1}
        END {printf "%+.1f%% [%+.1f, %+.1f]", a[int((NR + 1) / 2)], a[1], a[NR]}')
    us=$(sed -n 's/.*acts, \([0-9.]*\) us each.*/\1/p' "$tmp/$m.log" |
         sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
    echo "| $m | $extra | $us |"
done
echo
echo "Median [least, most] of $runs runs of ${secs} s; $cond; $(date -u +%F)"
