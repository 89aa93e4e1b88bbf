-- SPDX-License-Identifier: MIT
-- tachyon_stacks: Tachyon profiles as stack rows, for fleet queries in
-- ClickHouse (18.16 and every later version: only String, integer,
-- DateTime, Array and Nested columns, which all versions share).
--
-- One row per (run, thread, status, stack) with its sample count, as
-- written by `tachyon-conv --to clickhouse [--label KEY=VALUE]... LOG...`.
-- A profile's samples are the sum of `count` over its rows; a fleet
-- profile is the sum over any WHERE. `SELECT * FROM tachyon_stacks
-- [WHERE ...] FORMAT JSONEachRow` is itself a profile: every tachyon tool
-- reads it (docs/guide-fleet.md).
--
-- Columns:
--   run_id          32 lowercase hex digits naming the run: the log's
--                   fingerprint (the run id of `tachyon-conv --to jsonl`
--                   for the same log), or --run-id.
--   run_id_version  how run_id was made: 2 a hash of every byte of the log
--                   (tachyon 0.2), 1 tachyon 0.1's fingerprint (header,
--                   footer, tables and size; the default for rows loaded
--                   before the column existed), 0 chosen with --run-id.
--                   The same log loaded by 0.1 and 0.2 has two run ids;
--                   the tools warn of runs with the same start time.
--   row             the row's number within its run, from 0, in the order
--                   the run's stacks first got a sample. (run_id, row) is
--                   the row's identity: a run loaded twice shows up as
--                   repeated pairs (docs/guide-fleet.md has the query),
--                   and ORDER BY run_id, row replays a run in first-seen
--                   order.
--   stack_hash      a hash of the frames only (equal for the same stack in
--                   any run, thread or status): FNV-1a 64 over each frame,
--                   root first, of file, a 0 byte, function, a 0 byte,
--                   then line, end_line, column, end_column as 4-byte
--                   little-endian integers and the opcode byte.
--   time            wall-clock time of the run: the log file's modification
--                   time (when the profiler finished writing it), or
--                   --time. The binary log itself has no wall-clock time.
--   labels.key      --label keys, in command-line order (service, version,
--   labels.value    host, build, ...) and their values; look one up with
--                   labels.value[indexOf(labels.key, 'service')].
--   python          version of the Python that wrote the log ("3.15.0").
--   mode            profiling mode: wall, cpu, gil, all, exception, or ''
--                   when the log does not say.
--   start_time_us   the log's start time, microseconds of the recording
--                   machine's monotonic clock (for ordering runs of one
--                   host, not a wall-clock time).
--   interval_us     sampling interval, microseconds.
--   thread_id       the sampled thread's id, and the interpreter it ran in.
--   interpreter_id
--   status          the samples' thread status bits: 1 holds the GIL,
--                   2 on CPU, 4 unknown, 8 GIL requested, 16 exception
--                   set, 32 main thread.
--   frames.*        the stack, ROOT FIRST (frames.function[1] is the
--                   outermost call, the last element the running
--                   function): file, function, line, end_line, column,
--                   end_column (-1: no location) and opcode (255: none).
--   count           thread-samples with exactly this thread, status and
--                   stack.
--
-- Ordered by time, then run: queries over a time range read only their
-- parts, and a run's rows lie together. Partitioned by month, so old
-- months drop with ALTER TABLE ... DROP PARTITION.
CREATE TABLE IF NOT EXISTS tachyon_stacks
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
ENGINE = MergeTree
PARTITION BY toYYYYMM(time)
ORDER BY (time, run_id, row);
