# SPDX-License-Identifier: MIT
# bench/lib.sh - cases measured side by side, for run.sh and scale.sh
# (sourced by bash; not a test).
#
#   bench_init BUILD        a scratch directory for the figures ($bench_tmp);
#                           BUILD/bench/tachyon-rusage measures each run
#   case_add KEY CMD...     register a case; KEY names its figures
#   cases_run               $RUNS rounds, every case once a round in the
#                           order added, so that the load of a shared
#                           machine hits all of them alike; then the list
#                           is emptied (figures stay)
#   table_head              the header of the rows below
#   case_row LABEL KEY FLOOR SAMPLES BYTES
#                           a Markdown row: least CPU seconds (user +
#                           sys, from wait4), least wall seconds, samples and
#                           input MB per CPU second, the CPU ratio to the
#                           FLOOR case (md5sum of the same input), peak RSS
#   compare_row LABEL KEY BASE_KEY SAME
#                           a row of KEY against BASE_KEY (another build
#                           on the same input): CPU ratio, both RSS, and
#                           SAME (whether the output bytes are equal)
#   out_md5 TO CMD...       md5 of CMD's standard output, a --to TO output;
#                           gecko's meta.startTime (the clock at export)
#                           and "pid" (the converting process) are zeroed
#                           first, as CPython writes them too
#   load_avg                the load average now
#
# CPU time, not wall time, is what a case costs on a shared machine; both
# are shown. SAMPLES or BYTES of 0 print "-" in their columns.

bench_keys=()
declare -A bench_cmd

bench_init() {
    bench_rusage=$1/bench/tachyon-rusage
    [ -x "$bench_rusage" ] ||
        { echo "bench: missing $bench_rusage (build first)" >&2; exit 2; }
    bench_tmp=$(mktemp -d)
    trap 'rm -rf "$bench_tmp"' EXIT
}

case_add() {
    local key=$1
    shift
    bench_keys+=("$key")
    bench_cmd[$key]=$(printf '%q ' "$@")
}

cases_run() {
    local r key
    for r in $(seq "${RUNS:-5}"); do
        for key in "${bench_keys[@]}"; do
            eval "\"\$bench_rusage\" \"\$bench_tmp/\$key\" \
                  ${bench_cmd[$key]}" || exit 1
        done
    done
    bench_keys=()
}

# best KEY: "CPU WALL RSS_KB", the least CPU and wall, the largest RSS.
best() {
    awk 'NR == 1 || $1 < c { c = $1 } NR == 1 || $2 < w { w = $2 }
         $3 > r { r = $3 } END { printf "%s %s %s\n", c, w, r }' \
        "$bench_tmp/$1"
}

table_head() {
    echo "| case | CPU s | wall s | M samples/s | MB/s | x md5sum | peak RSS MB |"
    echo "|---|--:|--:|--:|--:|--:|--:|"
}

case_row() {
    local label=$1 key=$2 floor=$3 samples=$4 bytes=$5 fcpu
    if [ ! -f "$bench_tmp/$key" ]; then
        echo "| $label | n/a | | | | | |"
        return
    fi
    fcpu=$(best "$floor" | cut -d' ' -f1)
    best "$key" | awk -v l="$label" -v n="$samples" -v b="$bytes" \
        -v f="$fcpu" '{
        c = $1 > 0 ? $1 : 0.0001
        sps = n > 0 ? sprintf("%.1f", n / c / 1e6) : "-"
        mbs = b > 0 ? sprintf("%.0f", b / c / 1e6) : "-"
        printf "| %s | %.3f | %.3f | %s | %s | %.2f | %.1f |\n",
               l, $1, $2, sps, mbs, c / f, $3 / 1024 }'
}

compare_row() {
    local label=$1 key=$2 base=$3 same=$4
    paste -d' ' <(best "$base") <(best "$key") | awk -v l="$label" \
        -v s="$same" '{
        printf "| %s | %.3f | %.3f | %.2f | %.1f | %.1f | %s |\n",
               l, $1, $4, $4 / ($1 > 0 ? $1 : 0.0001), $3 / 1024,
               $6 / 1024, s }'
}

compare_head() {
    echo "| case | base CPU s | CPU s | x base | base RSS MB | RSS MB | output |"
    echo "|---|--:|--:|--:|--:|--:|---|"
}

out_md5() {
    local to=$1
    shift
    if [ "$to" = gecko ]; then
        "$@" | sed -e '0,/"startTime":[0-9.e+-]*/s//"startTime":0/' \
            -e 's/"pid":"[0-9]*"/"pid":"0"/g' | md5sum | cut -d' ' -f1
    else
        "$@" | md5sum | cut -d' ' -f1
    fi
}

load_avg() {
    cut -d' ' -f1-3 /proc/loadavg
}
