# Query results (real ClickHouse 18.16 output) are profiles: rows ordered
# by run_id and row give the same collapsed and JSONL bytes as the logs
# merged in run-id order; the other formats are equal in any order; 64-bit
# integers quoted or not, compressed or on stdin.
cd "$TESTDATA/cpython" || exit
logs=$(for n in interleaved_threads pop_push synthetic_frames suffix_calls; do
    echo "$(tachyon-conv --to clickhouse --time 0 $n/none.bin | head -c 45 |
            cut -c12-43) $n/none.bin"
done | sort | cut -d' ' -f2)
rows=../clickhouse/fixtures.rows.json
for to in collapsed jsonl pprof speedscope pstats top svg html; do
    # shellcheck disable=SC2086
    tachyon-conv --to $to -o "$OLDPWD/local.$to" $logs
    tachyon-conv --to $to -o "$OLDPWD/rows.$to" "$rows"
    cmp "$OLDPWD/local.$to" "$OLDPWD/rows.$to" && echo "$to: same bytes"
done
tachyon-conv --to collapsed pop_push/none.bin suffix_calls/none.bin |
    sort > "$OLDPWD/two.local"
tachyon-conv --to collapsed ../clickhouse/unquoted.rows.json |
    sort > "$OLDPWD/two.rows"
cmp "$OLDPWD/two.local" "$OLDPWD/two.rows" && echo "unquoted: same stacks"
gzip -c "$rows" | tachyon-conv --to top -n 3 -
tachyon-conv -v --to top -n 1 --thread 9 "$rows" >/dev/null
tachyon-conv --to gecko "$rows"; echo "gecko: exit $?"
tachyon-conv --to bin "$rows"; echo "bin: exit $?"
