#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cluster_test.sh - ctest clickhouse.cluster: the fleet past one server
# (docs/guide-fleet.md, "Past one server"), run for real on loopback.
#
# Starts a cluster `fleet` of two shards: shard 01 with two replicas (s1a,
# s1b) that copy each other through a standalone ZooKeeper, shard 02 with
# one (s2); without ZooKeeper (Debian's zookeeper package and java), shard
# 01 has one replica and the tables are plain MergeTree, and the test says
# so. Every server gets schemas/clickhouse/tachyon_stacks_cluster.sql (a
# replicated local table and a Distributed table named tachyon_stacks over
# them), and a plain server (one) gets tachyon_stacks.sql. Then:
#   1. the example fleet (testdata/fleet) is loaded through the
#      Distributed table on s1a (insert_distributed_sync=1), and into the
#      plain server;
#   2. the guide's example queries (schemas/clickhouse/queries) give the
#      same answers on the cluster as on one server, and on 18.16 the
#      committed .out files;
#   3. 40 generated logs are loaded too: the rows land on both shards
#      (each local table holds some, their sum is all, no run on both),
#      and s1b's copy equals s1a's (replication);
#   4. SELECT * through the Distributed table reads back as exactly the
#      profile tachyon-conv makes of the logs merged locally (collapsed and
#      JSONL in run-id order, pprof and top in any order), and a run
#      loaded twice through it is read once, with the warning.
# Exit 77 (skipped) when clickhouse-server, its config or curl is missing.
#
# usage: cluster_test.sh TOOLS_DIR TACHYON_GEN SOURCE_DIR
set -euo pipefail
export LC_ALL=C
tools=$1
gen=$2
src=$3
# shellcheck source=lib.sh
. "$src/tests/clickhouse/lib.sh"
ch_init clickhouse.cluster
fail() { ch_fail "$@"; }
conv="$tools/tachyon-conv"
cd "$CH_WORK"

# ---- the servers ----

servers=(s1a s2)
replicated=0
if zk_start; then
    replicated=1
    servers=(s1a s1b s2)
fi
for n in "${servers[@]}" one; do ch_ports "$n"; done
replica() { printf '<replica><host>127.0.0.1</host><port>%s</port></replica>' \
    "${CH_TCP[$1]}"; }
shard1=$(replica s1a)
[ "$replicated" = 0 ] || shard1+=$(replica s1b)
# The cluster as every server's config says it (docs/guide-fleet.md shows
# this file).
cluster="<remote_servers><fleet>
  <shard><internal_replication>true</internal_replication>$shard1</shard>
  <shard><internal_replication>true</internal_replication>$(replica s2)</shard>
</fleet></remote_servers>"
zk=""
[ "$replicated" = 0 ] ||
    zk="<zookeeper><node><host>127.0.0.1</host><port>$ZK_PORT</port></node></zookeeper>"
macros() { printf '<macros><shard>%s</shard><replica>%s</replica></macros>' \
    "$1" "$2"; }
ch_start s1a "$cluster $zk $(macros 01 a)"
[ "$replicated" = 0 ] || ch_start s1b "$cluster $zk $(macros 01 b)"
ch_start s2 "$cluster $zk $(macros 02 a)"
ch_start one
version=$(chq s1a "SELECT version()")
if [ "$replicated" = 1 ]; then
    echo "clickhouse.cluster: clickhouse-server $version: 2 shards (2" \
         "replicas + 1) through ZooKeeper on 127.0.0.1:$ZK_PORT"
else
    echo "clickhouse.cluster: clickhouse-server $version: 2 shards of one" \
         "replica (no ZooKeeper: install zookeeper and java for replicas)"
fi

# The DDL file, one statement at a time (HTTP takes one), on every server.
ddl=$(grep -v 'SPDX-License-Identifier' \
      "$src/schemas/clickhouse/tachyon_stacks_cluster.sql")
if [ "$replicated" = 0 ]; then
    ddl=$(printf '%s\n' "$ddl" | python3 -c 'import re, sys
print(re.sub(r"ReplicatedMergeTree\([^)]*\)", "MergeTree", sys.stdin.read()))')
fi
for n in "${servers[@]}"; do
    printf '%s\n' "$ddl" | python3 -c 'import sys
for s in sys.stdin.read().split(";"):
    s = "\n".join(l for l in s.splitlines() if not l.startswith("--"))
    if s.strip():
        sys.stdout.write(s.strip() + "\0")' |
        while IFS= read -r -d '' stmt; do chq "$n" "$stmt" >/dev/null; done
done
chq one "$(grep -v 'SPDX-License-Identifier' \
    "$src/schemas/clickhouse/tachyon_stacks.sql")" >/dev/null
# The Distributed table has the plain table's columns, in its order.
[ "$(chq s1a "DESCRIBE TABLE tachyon_stacks")" = \
  "$(chq one "DESCRIBE TABLE tachyon_stacks")" ] ||
    fail "the cluster table's columns differ from tachyon_stacks.sql's"

# ---- 1. load through the Distributed table ----

local_count() { chq "$1" "SELECT count() FROM tachyon_stacks_local"; }
# Until s1b has every row s1a has: a query may read shard 01 from either.
sync_replicas() {
    [ "$replicated" = 1 ] || return 0
    for _ in $(seq 1 150); do
        [ "$(local_count s1b)" = "$(local_count s1a)" ] && return 0
        sleep 0.2
    done
    fail "replica s1b did not catch up with s1a"
}
insert() {   # SERVER FILE
    local code
    code=$(curl -sS -o load.out -w '%{http_code}' --data-binary @"$2" \
           "http://127.0.0.1:${CH_HTTP[$1]}/?insert_distributed_sync=1&query=INSERT%20INTO%20tachyon_stacks%20FORMAT%20JSONEachRow")
    [ "$code" = 200 ] || fail "load into $1 failed: $(cat load.out)"
    [ "$1" = one ] || sync_replicas
}
logs=()
for f in "$src"/testdata/fleet/*.bin; do
    IFS=- read -r service version build host <<<"$(basename "$f" .bin)"
    "$conv" --to clickhouse --label service="$service" \
        --label version="$version" --label build="$build" --label host="$host" "$f"
    logs+=("$f")
done >fleet.json
for i in $(seq 1 40); do
    "$gen" -o "log$i.bin" --samples 100 --threads $((1 + i % 3)) --seed "$i" \
        --program 7
    "$conv" --to clickhouse --label service=gen --label host=h$((i % 4)) \
        --time $((1700000000 + i * 600)) "log$i.bin"
    logs+=("log$i.bin")
done >gen.json
insert s1a fleet.json
insert one fleet.json

# ---- 2. the example fleet: the same answers as one server ----

same() {   # WHAT A B
    cmp -s "$2" "$3" || {
        { diff "$2" "$3" | head -20 >&2; } || true
        fail "$1 differs"
    }
}
for sql in "$src"/schemas/clickhouse/queries/*.sql; do
    name=$(basename "$sql" .sql)
    query=$(grep -v 'SPDX-License-Identifier' "$sql")
    chq s1a "$query" >"$name.cluster"
    chq one "$query" >"$name.one"
    same "$name on the cluster and on one server" "$name.one" "$name.cluster"
    case $version in
    18.16.*) same "$name against its .out" \
                 "$src/schemas/clickhouse/queries/$name.out" "$name.cluster" ;;
    esac
done
echo "clickhouse.cluster: the example queries: the same answers as one server"

# ---- 3. every log: both shards hold rows; replicas agree ----

insert s1a gen.json
total=$(($(wc -l <fleet.json) + $(wc -l <gen.json)))

c1=$(local_count s1a)
c2=$(local_count s2)
[ "$c1" -gt 0 ] && [ "$c2" -gt 0 ] ||
    fail "rows on one shard only (shard 01: $c1, shard 02: $c2)"
[ $((c1 + c2)) = "$total" ] && [ "$(chq s1a "SELECT count() FROM tachyon_stacks")" = "$total" ] ||
    fail "shards hold $c1 + $c2 rows, $total were loaded"
runs_on() { chq "$1" "SELECT DISTINCT run_id FROM tachyon_stacks_local ORDER BY run_id"; }
[ -z "$(comm -12 <(runs_on s1a) <(runs_on s2))" ] ||
    fail "a run's rows are on both shards"
if [ "$replicated" = 1 ]; then
    digest="SELECT count(), sum(cityHash64(run_id, row, count)) FROM tachyon_stacks_local"
    [ "$(chq s1b "$digest")" = "$(chq s1a "$digest")" ] ||
        fail "replica s1b differs from s1a: $(chq s1b "$digest") / $(chq s1a "$digest")"
fi
echo "clickhouse.cluster: $total rows of ${#logs[@]} runs: $c1 on shard 01," \
     "$c2 on shard 02$([ "$replicated" = 0 ] || echo ", s1b a replica of s1a")"

# ---- 4. round trips through the Distributed table ----

# The logs in the order ORDER BY run_id gives their runs.
for f in "${logs[@]}"; do
    echo "$("$conv" --to clickhouse --time 0 "$f" | head -c 45 | cut -c12-43) $f"
done | sort | cut -d' ' -f2 >by_run_id.txt
mapfile -t ordered <by_run_id.txt
chq s1a "SELECT * FROM tachyon_stacks ORDER BY run_id, row FORMAT JSONEachRow" \
    >all.ordered.json
chq s1a "SELECT * FROM tachyon_stacks FORMAT JSONEachRow" >all.any.json
for to in collapsed jsonl; do
    "$conv" --to $to -o "local.$to" "${ordered[@]}"
    "$conv" --to $to -o "cluster.$to" all.ordered.json
    same "--to $to of the cluster's rows and of the logs" "local.$to" "cluster.$to"
done
for to in pprof top; do
    "$conv" --to $to -o "local.$to" "${logs[@]}"
    "$conv" --to $to -o "cluster.$to" all.any.json
    same "--to $to of the cluster's rows and of the logs" "local.$to" "cluster.$to"
done
# A run loaded twice through the Distributed table lands twice on its
# shard, where the duplicate query finds it; the tools read it once.
head -1 gen.json >twice.json
insert s1a twice.json
run=$(head -c 45 twice.json | cut -c12-43)
dup_query='SELECT run_id, count() AS rows, uniqExact(row) AS distinct_rows
FROM tachyon_stacks
GROUP BY run_id
HAVING rows > distinct_rows'
[ "$(chq s1a "$dup_query" | cut -f1)" = "$run" ] ||
    fail "the duplicate query does not find the run loaded twice"
chq s1a "SELECT * FROM tachyon_stacks ORDER BY run_id, row FORMAT JSONEachRow" \
    >twice.ordered.json
"$conv" --to collapsed -o twice.collapsed twice.ordered.json 2>conv.err
same "a run loaded twice, read once" local.collapsed twice.collapsed
grep -q "run $run: 1 identical copy of its rows read once" conv.err ||
    fail "no warning of the run loaded twice: $(cat conv.err)"
echo "clickhouse.cluster: round trips through the Distributed table: ok"
echo "clickhouse.cluster: 4 passed, 0 failed"
