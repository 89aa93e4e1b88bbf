# tachyon-diff reads query results like logs (the same figures as the
# logs' own diff); tachyon-validate checks them.
cd "$TESTDATA" || exit
tachyon-diff -F csv clickhouse/unquoted.rows.json cpython/workload/none.bin |
    sort > "$OLDPWD/rows.csv"
tachyon-diff -F csv --base cpython/pop_push/none.bin \
    --base cpython/suffix_calls/none.bin --new cpython/workload/none.bin |
    sort > "$OLDPWD/logs.csv"
cmp "$OLDPWD/rows.csv" "$OLDPWD/logs.csv" && echo "diff: same figures"
tachyon-diff --top 4 clickhouse/fixtures.rows.json clickhouse/unquoted.rows.json
echo "exit $?"
tachyon-validate -v clickhouse/fixtures.rows.json clickhouse/unquoted.rows.json
echo "exit $?"
