# tachyon-diff reads query results like logs: the same counts per key as
# the logs' own diff (the statistics differ where the logs are several
# runs a side and the result one input); tachyon-validate checks them.
counts() {
    python3 -c 'import csv, sys
for r in sorted(csv.DictReader(sys.stdin), key=lambda r: r["key"]):
    print(r["key"], r["self_base"], r["self_new"], r["cum_base"], r["cum_new"])'
}
cd "$TESTDATA" || exit
tachyon-diff -F csv clickhouse/unquoted.rows.json cpython/workload/none.bin \
    2>/dev/null | counts > "$OLDPWD/rows.txt"
tachyon-diff -F csv --base cpython/pop_push/none.bin \
    --base cpython/suffix_calls/none.bin --new cpython/workload/none.bin \
    2>/dev/null | counts > "$OLDPWD/logs.txt"
cmp "$OLDPWD/rows.txt" "$OLDPWD/logs.txt" && echo "diff: same counts"
wc -l < "$OLDPWD/rows.txt"
tachyon-diff --top 4 clickhouse/fixtures.rows.json clickhouse/unquoted.rows.json
echo "exit $?"
tachyon-validate -v clickhouse/fixtures.rows.json clickhouse/unquoted.rows.json
echo "exit $?"
