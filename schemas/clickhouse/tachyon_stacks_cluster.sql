-- SPDX-License-Identifier: MIT
-- tachyon_stacks on a cluster: the table of tachyon_stacks.sql (same
-- columns, same meaning: see its comments) sharded and replicated.
--
-- On every server of the cluster `fleet` (remote_servers in its config),
-- with the macros {shard} and {replica} set per server and ZooKeeper (or
-- ClickHouse Keeper) configured for the replicas:
--   tachyon_stacks_local  the rows this server keeps: a replica of its
--                         shard (ReplicatedMergeTree, which copies every
--                         INSERT to the shard's other replicas)
--   tachyon_stacks        a Distributed table over every shard's
--                         tachyon_stacks_local: INSERT into it (rows go to
--                         a shard by run_id) and query it, with the same
--                         queries as on one server
-- Sharding by cityHash64(run_id) keeps each run on one shard, so a run's
-- rows are read together and a run loaded twice lands twice on the same
-- shard, where the duplicate query finds it.
--
-- Run the two statements on every server (tests/clickhouse/cluster_test.sh
-- does), or once with ON CLUSTER fleet after each table name when the
-- servers share distributed DDL through ZooKeeper. Insert with
-- insert_distributed_sync=1 so an INSERT returns once every shard has its
-- rows (ClickHouse 18.16 otherwise queues them and sends them later).
-- Without ZooKeeper, use MergeTree instead of ReplicatedMergeTree(...):
-- one replica a shard.
CREATE TABLE IF NOT EXISTS tachyon_stacks_local
(
    run_id String,
    run_id_version UInt8 DEFAULT 1,
    row UInt32,
    stack_hash UInt64,
    time DateTime,
    labels Nested(key String, value String),
    python String,
    mode String,
    start_time_us UInt64,
    interval_us UInt64,
    thread_id UInt64,
    interpreter_id UInt32,
    status UInt8,
    frames Nested(
        file String,
        function String,
        line Int32,
        end_line Int32,
        column Int32,
        end_column Int32,
        opcode UInt8),
    count UInt64
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/tachyon_stacks',
                             '{replica}')
PARTITION BY toYYYYMM(time)
ORDER BY (time, run_id, row);

CREATE TABLE IF NOT EXISTS tachyon_stacks AS tachyon_stacks_local
ENGINE = Distributed(fleet, currentDatabase(), tachyon_stacks_local,
                     cityHash64(run_id));
