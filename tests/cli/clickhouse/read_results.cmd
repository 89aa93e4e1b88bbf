# Query results (real ClickHouse 18.16 output) are profiles: rows ordered
# by run_id and row give the same collapsed and JSONL bytes as the logs
# merged in run-id order; the other formats are equal in any order, but
# speedscope: rows have no time order, so it gets the aggregated samples
# (count x interval each) where the logs give a timeline (weights: the
# time each run of a stack lasted): the same threads and stacks; 64-bit
# integers quoted or not, compressed or on stdin.
# stacks FILE: speedscope's (thread, stack) pairs
stacks() {
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
names = [f["name"] + "@" + str(f.get("line")) for f in d["shared"]["frames"]]
keys = set()
for p in d["profiles"]:
    for s in p["samples"]:
        if s:
            keys.add((p["name"], tuple(names[i] for i in s)))
for k in sorted(keys):
    print(k)' "$1"
}
cd "$TESTDATA/cpython" || exit
logs=$(for n in interleaved_threads pop_push synthetic_frames suffix_calls; do
    echo "$(tachyon-conv --to clickhouse --time 0 $n/none.bin | head -c 45 |
            cut -c12-43) $n/none.bin"
done | sort | cut -d' ' -f2)
rows=../clickhouse/fixtures.rows.json
for to in collapsed jsonl pprof pstats top svg html speedscope; do
    # shellcheck disable=SC2086
    tachyon-conv --to $to -o "$OLDPWD/local.$to" $logs
    tachyon-conv --to $to -o "$OLDPWD/rows.$to" "$rows"
    [ $to = speedscope ] || {
        cmp "$OLDPWD/local.$to" "$OLDPWD/rows.$to" && echo "$to: same bytes"
    }
done
stacks "$OLDPWD/local.speedscope" > "$OLDPWD/local.stacks"
stacks "$OLDPWD/rows.speedscope" > "$OLDPWD/rows.stacks"
cmp "$OLDPWD/local.stacks" "$OLDPWD/rows.stacks" &&
    echo "speedscope: same stacks ($(wc -l < "$OLDPWD/rows.stacks"))"
tachyon-conv --to collapsed pop_push/none.bin suffix_calls/none.bin |
    sort > "$OLDPWD/two.local"
tachyon-conv --to collapsed ../clickhouse/unquoted.rows.json |
    sort > "$OLDPWD/two.rows"
cmp "$OLDPWD/two.local" "$OLDPWD/two.rows" && echo "unquoted: same stacks"
gzip -c "$rows" | tachyon-conv --to top -n 3 -
tachyon-conv -v --to top -n 1 --thread 9 "$rows" >/dev/null
tachyon-conv --to gecko "$rows"; echo "gecko: exit $?"
tachyon-conv --to bin "$rows"; echo "bin: exit $?"
