# Exports merged: counts summed per frame, equal byte for byte to the JSONL
# of the merged binary logs, for every ordered pair of CPython's fixtures
# (v0 + v1 exports, a binary log + an export, an export + a binary log),
# and for all seven.
cd "$TESTDATA/cpython" || exit
z=--run-id=00000000000000000000000000000000
cases="single_full repeat_rle suffix_calls pop_push interleaved_threads synthetic_frames workload"
pairs=0 same=0
for a in $cases; do
    for b in $cases; do
        tachyon-conv $z $a/none.bin $b/zstd.bin >"$OLDPWD/bins.jsonl"
        tachyon-conv $z $a/expected.jsonl $b/expected.v1.jsonl | cmp -s - "$OLDPWD/bins.jsonl" && same=$((same + 1))
        tachyon-conv $z $a/none.bin $b/expected.jsonl | cmp -s - "$OLDPWD/bins.jsonl" && same=$((same + 1))
        tachyon-conv $z $a/expected.jsonl $b/none.bin | cmp -s - "$OLDPWD/bins.jsonl" && same=$((same + 1))
        pairs=$((pairs + 3))
    done
done
echo "$same of $pairs merges equal to the merged binary logs"
tachyon-conv $z */expected.jsonl | cmp - <(tachyon-conv $z */none.bin) && echo "all seven exports: equal"
tachyon-conv -v --to top -n 3 workload/expected.jsonl workload/expected.v1.jsonl 2>&1 | sed "s|$TESTDATA/||"
