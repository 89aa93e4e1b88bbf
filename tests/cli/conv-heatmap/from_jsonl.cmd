# The heatmap of a JSONL export against the heatmap of the binary log it
# was exported from: the same files and, per line with samples (a page
# with its source lists every line), the same self and total counts and
# heat levels. CPython's seven fixtures (their expected.jsonl), then a
# real recording (test_difflib and test_json under CPython 3.13, its
# export written by tachyon-conv). The one known difference:
# workload.py:56 is fib(n - 1) + fib(n - 2), two columns of one recursive
# function on one stack, which an export's per-frame counts cannot tell
# apart from two calls (docs/formats.md says so).
check=$TESTDATA/../tests/tools/check_heatmap.py
for c in single_full repeat_rle suffix_calls pop_push interleaved_threads synthetic_frames workload; do
    echo "== $c"
    tachyon-conv -q --to heatmap -o $c.bin.d $TESTDATA/cpython/$c/none.bin &&
    tachyon-conv -q --to heatmap -o $c.jsonl.d $TESTDATA/cpython/$c/expected.jsonl || exit 1
    python3 $check $c.jsonl.d --same-lines $c.bin.d; echo "exit $?"
done
echo "== test_difflib_json"
real=$TESTDATA/heatmap/test_difflib_json.bin
tachyon-conv $real >real.jsonl &&
tachyon-conv -q --to heatmap -o real.bin.d $real &&
tachyon-conv -q --to heatmap -o real.jsonl.d real.jsonl || exit 1
python3 $check real.jsonl.d --same-lines real.bin.d; echo "exit $?"
# What a page and the index say; no caller or callee links from an export.
nf='s/ · [0-9]* of [0-9]* sources not found//'   # as this machine has them
grep -o '<p class="meta">[^<]*' workload.jsonl.d/index.html | sed "$nf"
grep -o '<div class="note">Counts from JSONL[^<]*' workload.jsonl.d/file_0000.html
grep -o '<footer>[^<]*' workload.jsonl.d/file_0000.html
grep -c 'class="up"\|class="dn"' workload.jsonl.d/file_0000.html workload.bin.d/file_0000.html
# A log merged with its own export counts as two logs would.
cp $TESTDATA/cpython/workload/expected.jsonl w.jsonl
tachyon-conv -q --to heatmap -o lj.d $TESTDATA/cpython/workload/none.bin w.jsonl; echo "exit $?"
tachyon-conv -q --to heatmap -o ll.d $TESTDATA/cpython/workload/none.bin $TESTDATA/cpython/workload/zstd.bin
grep -o '<p class="meta">[^<]*' lj.d/index.html | sed "$nf"
python3 $check lj.d --same-lines ll.d; echo "exit $?"
