# --top 0 means every row, in tachyon-conv as in tachyon-diff (issue 21):
# the same table as a --top larger than the rows, and no "(N more
# functions)" line; the default is 20.
i=$TESTDATA/cpython/workload/none.bin
tachyon-conv --to top -n 0 "$i" >all.txt
tachyon-conv --to top --top 1000000 "$i" | cmp - all.txt && echo "-n 0 = --top 1000000: $(wc -l <all.txt) lines"
grep -c 'more functions' all.txt
tachyon-conv --to top "$i" | tail -n 1
cd "$TESTDATA/diff" && tachyon-diff -q -n 0 base.bin regressed.bin | cmp - <(tachyon-diff -q --top 1000000 base.bin regressed.bin) && echo "diff: -n 0 = --top 1000000"
