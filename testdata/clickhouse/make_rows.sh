#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make_rows.sh TOOLS_DIR - write fixtures.rows.json and unquoted.rows.json
# (see README.md here) from a real ClickHouse server on loopback, as the
# tests read them: four CPython fixtures loaded with tachyon-conv, read
# back with SELECT *. Run it from the repository root after a build, when
# the rows tachyon-conv writes change: `testdata/clickhouse/make_rows.sh
# build/tools`.
set -euo pipefail
export LC_ALL=C
tools=$(realpath "$1")
src=$(realpath "$(dirname "$0")/../..")
# shellcheck source=../../tests/clickhouse/lib.sh
. "$src/tests/clickhouse/lib.sh"
ch_init make_rows
ch_start one
chq one "$(grep -v 'SPDX-License-Identifier' \
    "$src/schemas/clickhouse/tachyon_stacks.sql")" >/dev/null
for name in interleaved_threads pop_push synthetic_frames suffix_calls; do
    "$tools/tachyon-conv" --to clickhouse --label fixture=$name --label host=h1 \
        --time 1700000000 "$src/testdata/cpython/$name/none.bin"
done >"$CH_WORK/rows.json"
code=$(curl -sS -o "$CH_WORK/load.out" -w '%{http_code}' \
       --data-binary @"$CH_WORK/rows.json" \
       "http://127.0.0.1:${CH_HTTP[one]}/?query=INSERT%20INTO%20tachyon_stacks%20FORMAT%20JSONEachRow")
[ "$code" = 200 ] || ch_fail "load: $(cat "$CH_WORK/load.out")"
out=$src/testdata/clickhouse
chq one "SELECT * FROM tachyon_stacks ORDER BY run_id, row
         FORMAT JSONEachRow" >"$out/fixtures.rows.json"
curl -sSf --data-binary "SELECT * FROM tachyon_stacks
    WHERE labels.value[indexOf(labels.key, 'fixture')]
          IN ('pop_push', 'suffix_calls') FORMAT JSONEachRow" \
    "http://127.0.0.1:${CH_HTTP[one]}/?output_format_json_quote_64bit_integers=0" \
    >"$out/unquoted.rows.json"
echo "make_rows: $(wc -l <"$out/fixtures.rows.json") and" \
     "$(wc -l <"$out/unquoted.rows.json") rows written"
