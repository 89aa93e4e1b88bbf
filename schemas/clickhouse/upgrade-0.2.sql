-- SPDX-License-Identifier: MIT
-- Upgrade a tachyon_stacks table made by tachyon 0.1 for the rows of 0.2,
-- which carry run_id_version (see tachyon_stacks.sql). Rows already in
-- the table get 1: their run ids are 0.1's fingerprints, so the tools can
-- tell a recording loaded by both versions (warning TV310). Until this
-- runs, ClickHouse refuses 0.2's rows ("Unknown field found while parsing
-- JSONEachRow format: run_id_version"). On a cluster, run it on every
-- server for tachyon_stacks_local and tachyon_stacks alike.
ALTER TABLE tachyon_stacks ADD COLUMN run_id_version UInt8 DEFAULT 1 AFTER run_id;
