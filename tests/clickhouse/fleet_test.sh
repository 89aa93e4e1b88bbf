#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fleet_test.sh - ctest clickhouse.fleet: tachyon's fleet path through a
# real ClickHouse server (docs/guide-fleet.md).
#
# Starts clickhouse-server on loopback in a temporary directory (free
# ports, its own data and log folders), creates the table of
# schemas/clickhouse/tachyon_stacks.sql, and then:
#   1. loads the bundled fleet logs (testdata/fleet) with the guide's
#      loop over HTTP, runs the guide's example queries and compares their
#      output with schemas/clickhouse/queries/*.out (on 18.16, the version
#      those were made with), and the merged-profile script with the same
#      tools run on the logs themselves;
#   2. loads 300 generated logs with labels and checks that SELECT * of
#      every run, and of each service, read back through tachyon-conv gives
#      exactly what tachyon-conv gives for the same logs merged locally
#      (collapsed and JSONL with rows in run order; pprof, pstats, top and
#      svg in any order; speedscope's stacks);
#   3. loads one run twice and checks that the guide's duplicate query
#      finds it and that the tools read the doubled result as the single
#      one, with a warning (conv) and TV309 (validate); copies that differ
#      (another label) stay an error;
#   4. loads one log as tachyon 0.1 did (no run_id_version column,
#      another run id) and as 0.2 does: the tools warn of one recording
#      under two run ids.
# The server is stopped whatever happens (trap). Exit 77 (skipped) when
# clickhouse-server, its Debian config or curl is missing.
#
# usage: fleet_test.sh TOOLS_DIR TACHYON_GEN SOURCE_DIR
set -euo pipefail
export LC_ALL=C
tools=$1
gen=$2
src=$3
# shellcheck source=lib.sh
. "$src/tests/clickhouse/lib.sh"
ch_init clickhouse.fleet
work=$CH_WORK
fail() { ch_fail "$@"; }

# ---- the server ----

ch_start one
CH="http://127.0.0.1:${CH_HTTP[one]}/"
export CH
# q SQL: run a query, its output on stdout; an HTTP error fails the test.
q() { chq one "$1"; }
version=$(q "SELECT version()")
echo "clickhouse.fleet: clickhouse-server $version on 127.0.0.1:${CH_HTTP[one]}"

conv="$tools/tachyon-conv"
diff_tool="$tools/tachyon-diff"
validate="$tools/tachyon-validate"
label() {   # KEY: the expression of one label in SQL
    echo "labels.value[indexOf(labels.key, '$1')]"
}
create_table() {
    q "DROP TABLE IF EXISTS tachyon_stacks" >/dev/null
    q "$(cat "$src/schemas/clickhouse/tachyon_stacks.sql")" >/dev/null
}
# guide_has TEXT: docs/guide-fleet.md holds TEXT verbatim (several lines).
guide_has() {
    python3 -c 'import sys; sys.exit(sys.argv[2] not in open(sys.argv[1]).read())' \
        "$src/docs/guide-fleet.md" "$1"
}
# same OUT A B: byte-compare two outputs (what is compared: OUT)
same() {
    cmp -s "$2" "$3" || {
        { diff "$2" "$3" | head -20 >&2; } || true
        fail "$1 differs"
    }
}

# ---- 1. the guide's data, loop and queries ----

create_table
cd "$work"
mkdir readme && cd readme
# The guide's load loop, verbatim (checked below).
load_loop='for f in testdata/fleet/*.bin; do
    IFS=- read -r service version build host <<< "$(basename "$f" .bin)"
    build/tools/tachyon-conv --to clickhouse --label service="$service" \
        --label version="$version" --label build="$build" --label host="$host" "$f"
done | curl -sS -T - -X POST "$CH?query=INSERT%20INTO%20tachyon_stacks%20FORMAT%20JSONEachRow"'
guide_has "$load_loop" || fail "the guide's load loop differs"
mkdir -p testdata build
ln -s "$src/testdata/fleet" testdata/fleet
ln -s "$tools" build/tools
eval "$load_loop"
rows=$(q "SELECT count() FROM tachyon_stacks")
[ "$rows" -gt 0 ] || fail "no rows loaded"
for sql in "$src"/schemas/clickhouse/queries/*.sql; do
    name=$(basename "$sql" .sql)
    query=$(grep -v 'SPDX-License-Identifier' "$sql")
    q "$query" >"$name.got"
    [ -s "$name.got" ] || fail "$name: no output"
    guide_has "$query" || fail "$name: the guide shows another query"
    guide_has "$(cat "$src/schemas/clickhouse/queries/$name.out")" ||
        fail "$name: the guide shows another output"
    case $version in
    18.16.*) same "$name output" "$src/schemas/clickhouse/queries/$name.out" \
                  "$name.got" ;;
    esac
done
# Query 5: the merged profiles, against the same tools on the logs.
TOOLS="$tools" sh "$src/schemas/clickhouse/queries/5-merged-profile.sh" \
    >merged.got
guide_has "$(grep -v '^#' "$src/schemas/clickhouse/queries/5-merged-profile.sh")" ||
    fail "the guide shows another merged-profile script"
api() { ls "$src"/testdata/fleet/api-"$1"-*.bin; }
# counts: key and counts of tachyon-diff -F csv, sorted (the statistics
# differ: the logs are several runs a side, a query result one input).
counts() {
    python3 -c 'import csv, sys
for r in sorted(csv.DictReader(sys.stdin), key=lambda r: r["key"]):
    print(r["key"], r["self_base"], r["self_new"], r["cum_base"], r["cum_new"])'
}
"$conv" --to top -n 5 $(api 42) >top.local
same "merged profile (top)" top.local <(sed -n '1,/^(/p' merged.got)
"$diff_tool" -F csv v41.json v42.json 2>/dev/null | counts >diff.got
# shellcheck disable=SC2046
"$diff_tool" -F csv $(api 41 | sed 's/^/--base /') \
    $(api 42 | sed 's/^/--new /') 2>/dev/null | counts >diff.local
same "merged profiles (diff counts)" diff.local diff.got
python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' \
    v42.svg || fail "v42.svg is not well-formed"
echo "clickhouse.fleet: the guide's loop and 5 example queries: ok ($rows rows)"

# ---- 2. a few hundred generated logs, round trip ----

create_table
cd "$work"
mkdir gen && cd gen
n=300
for i in $(seq 1 "$n"); do
    "$gen" -o "log$i.bin" --samples 100 --threads $((1 + i % 3)) \
        --seed "$i" --program 7
done
service_of() { [ $(($1 % 3)) = 0 ] && echo batch || echo api; }
for i in $(seq 1 "$n"); do
    "$conv" --to clickhouse --label service="$(service_of "$i")" \
        --label version=$((40 + i % 2)) --label host=h$((i % 16)) \
        --time $((1700000000 + i * 600)) "log$i.bin" >part.json
    # The run id of each log, for by_run_id.
    echo "$(head -c 45 part.json | cut -c12-43) log$i.bin" >>ids.txt
    cat part.json
done >rows.json
code=$(curl -sS -o load.out -w '%{http_code}' --data-binary @rows.json \
       "${CH}?query=INSERT%20INTO%20tachyon_stacks%20FORMAT%20JSONEachRow")
[ "$code" = 200 ] || fail "load failed: $(cat load.out)"
[ "$(q "SELECT count() FROM tachyon_stacks")" = "$(wc -l <rows.json)" ] ||
    fail "rows loaded differ from rows written"
[ "$(q "SELECT uniqExact(run_id) FROM tachyon_stacks")" = "$n" ] ||
    fail "not $n runs"

# by_run_id FILES...: the logs in the order ORDER BY run_id gives their
# runs (ids.txt: "RUN_ID FILE" per log).
by_run_id() {
    printf '%s\n' "$@" | sort >want.txt
    sort -k2 ids.txt | join -1 2 -2 1 -o 1.1,1.2 - want.txt | sort |
        cut -d' ' -f2
}

# ss_stacks FILE: the (thread, stack) pairs of a speedscope file.
ss_stacks() {
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
names = [f["name"] + "@" + str(f.get("line")) for f in d["shared"]["frames"]]
keys = {(p["name"], tuple(names[i] for i in s))
        for p in d["profiles"] for s in p["samples"] if s}
for k in sorted(keys):
    print(k)' "$1"
}

# round_trip NAME WHERE FILES...: the query result as a profile equals
# the local merge of FILES (in run-id order for the ordered formats).
round_trip() {
    local name=$1 where=$2
    shift 2
    local ordered=() f
    while read -r f; do ordered+=("$f"); done < <(by_run_id "$@")
    q "SELECT * FROM tachyon_stacks $where ORDER BY run_id, row
       FORMAT JSONEachRow" >"$name.ordered.json"
    q "SELECT * FROM tachyon_stacks $where FORMAT JSONEachRow" \
        >"$name.any.json"
    for to in collapsed jsonl; do
        "$conv" --to "$to" -o "$name.$to.local" "${ordered[@]}"
        "$conv" --to "$to" -o "$name.$to.ch" "$name.ordered.json"
        same "$name --to $to" "$name.$to.local" "$name.$to.ch"
    done
    for to in pprof pstats top svg; do
        "$conv" --to "$to" -o "$name.$to.local" "$@"
        "$conv" --to "$to" -o "$name.$to.ch" "$name.any.json"
        same "$name --to $to" "$name.$to.local" "$name.$to.ch"
    done
    # speedscope: the logs give a timeline, rows (no time order) the
    # aggregated samples; the same threads and stacks.
    "$conv" --to speedscope -o "$name.ss.local" "$@"
    "$conv" --to speedscope -o "$name.ss.ch" "$name.any.json"
    same "$name --to speedscope (stacks)" <(ss_stacks "$name.ss.local") \
        <(ss_stacks "$name.ss.ch")
    "$validate" -q "$name.any.json" || fail "$name: result not valid"
}
all=()
api_logs=()
for i in $(seq 1 "$n"); do
    all+=("log$i.bin")
    [ "$(service_of "$i")" = api ] && api_logs+=("log$i.bin")
done
round_trip all "" "${all[@]}"
round_trip api "WHERE $(label service) = 'api'" "${api_logs[@]}"
# A release comparison of two query results is the comparison of the logs
# (the same counts for every key).
for v in 40 41; do
    q "SELECT * FROM tachyon_stacks WHERE $(label version) = '$v'
       ORDER BY run_id, row FORMAT JSONEachRow" >"v$v.json"
done
"$diff_tool" -F csv v40.json v41.json 2>/dev/null | counts >diff.ch
# shellcheck disable=SC2046
"$diff_tool" -F csv \
    $(seq -f '--base log%g.bin' 2 2 "$n") \
    $(seq -f '--new log%g.bin' 1 2 "$n") 2>/dev/null | counts >diff.local
same "tachyon-diff of query results (counts)" diff.local diff.ch
stats=$(q "SELECT sum(rows), sum(data_compressed_bytes),
           sum(data_uncompressed_bytes) FROM system.parts
           WHERE table = 'tachyon_stacks' AND active")
echo "clickhouse.fleet: $n generated logs: round trip ok; rows," \
     "compressed bytes, uncompressed bytes: $stats"

# ---- 3. a run loaded twice ----

# load FILE: INSERT a file of rows into tachyon_stacks.
load() {
    local code
    code=$(curl -sS -o load.out -w '%{http_code}' --data-binary @"$1" \
           "${CH}?query=INSERT%20INTO%20tachyon_stacks%20FORMAT%20JSONEachRow")
    [ "$code" = 200 ] || fail "load of $1 failed: $(cat load.out)"
}
# reads_once: the doubled result reads as the single one, with one warning
# counting the copies (conv) and TV309 (validate, still valid).
q "SELECT * FROM tachyon_stacks ORDER BY run_id, row FORMAT JSONEachRow" \
    >single.json
first_id=$(head -c 45 part.json | cut -c12-43)
load part.json # the last log's rows again: the run loaded twice
dup_query='SELECT run_id, count() AS rows, uniqExact(row) AS distinct_rows
FROM tachyon_stacks
GROUP BY run_id
HAVING rows > distinct_rows'
guide_has "$dup_query" || fail "the guide's duplicate query"
[ "$(q "$dup_query" | cut -f1)" = "$first_id" ] ||
    fail "the duplicate query does not find the run loaded twice"
copies=$(wc -l <part.json)
q "SELECT * FROM tachyon_stacks ORDER BY run_id, row FORMAT JSONEachRow" \
    >doubled.json
for to in collapsed jsonl; do
    "$conv" --to $to -o single.$to single.json 2>/dev/null
    "$conv" --to $to -o doubled.$to doubled.json 2>conv.err ||
        fail "tachyon-conv refused a run loaded twice: $(cat conv.err)"
    same "a run loaded twice, --to $to" single.$to doubled.$to
done
want="run $first_id: $copies identical copies of its rows read once"
grep -qF "$want" conv.err && [ "$(wc -l <conv.err)" = 1 ] ||
    fail "tachyon-conv's warning: $(cat conv.err) (want: $want)"
"$validate" doubled.json >validate.out 2>&1 ||
    fail "tachyon-validate: a run loaded twice is not an error: $(cat validate.out)"
grep -q ": warning: TV309: run $first_id" validate.out ||
    fail "tachyon-validate: no TV309: $(cat validate.out)"
# The same log loaded again with another label: copies that differ stay
# an error naming the run.
sed 's/"labels.value":\["[a-z]*"/"labels.value":["other"/' part.json >other.json
load other.json
q "SELECT * FROM tachyon_stacks FORMAT JSONEachRow" >differ.json
set +e
"$conv" --to top differ.json >/dev/null 2>conv.err
conv_rc=$?
"$validate" differ.json >validate.out 2>&1
validate_rc=$?
set -e
[ "$conv_rc" = 1 ] && grep -q "of run $first_id comes twice with different" \
    conv.err || fail "tachyon-conv took differing copies ($conv_rc)"
[ "$validate_rc" = 1 ] && grep -q ': TV308: ' validate.out ||
    fail "tachyon-validate took differing copies ($validate_rc)"
echo "clickhouse.fleet: a run loaded twice is read once, with a warning: ok"

# ---- 4. the same recording under tachyon 0.1's run id ----

# A fleet loaded by 0.1 (a table without run_id_version, rows with another
# run id), upgraded with schemas/clickhouse/upgrade-0.2.sql, then loaded
# by 0.2: the old rows are version 1, and the tools warn of the one
# recording under two run ids.
q "DROP TABLE IF EXISTS tachyon_stacks" >/dev/null
q "$(grep -v -e 'SPDX-License-Identifier' -e 'run_id_version UInt8' \
     "$src/schemas/clickhouse/tachyon_stacks.sql")" >/dev/null
sed -e 's/"run_id":"[0-9a-f]*"/"run_id":"00000000000000000000000000000001"/' \
    -e 's/"run_id_version":2,//' part.json >v01.json
load v01.json
q "$(grep -v 'SPDX-License-Identifier' \
     "$src/schemas/clickhouse/upgrade-0.2.sql")" >/dev/null
load part.json
[ "$(q "SELECT run_id_version, count() FROM tachyon_stacks
        GROUP BY run_id_version ORDER BY run_id_version")" = \
  "$(printf '1\t%s\n2\t%s' "$copies" "$copies")" ] ||
    fail "run_id_version column: $(q "SELECT run_id_version, count() FROM tachyon_stacks GROUP BY run_id_version")"
q "SELECT * FROM tachyon_stacks FORMAT JSONEachRow" >versions.json
"$conv" --to top versions.json >/dev/null 2>conv.err
grep -q "runs .* (run id versions 2 and 1) have the same start time" \
    conv.err || grep -q "(run id versions 1 and 2) have the same start" \
    conv.err || fail "no warning of one recording under two run ids: $(cat conv.err)"
echo "clickhouse.fleet: one recording under run ids of 0.1 and 0.2 is told: ok"
echo "clickhouse.fleet: 4 passed, 0 failed"
