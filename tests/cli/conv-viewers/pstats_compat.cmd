# --pstats-compat files load in pstats.Stats of CPython 3.11, 3.12 and
# 3.13 (pyenv; skipped without them) with CPython's figures, and read the
# same in each: print_stats and print_callers of one fixture below.
tools=$TESTDATA/../tests/tools
pys=$(sh $tools/pyenv_python.sh 3.11.7 3.12.1 3.13.0) || exit 77
cases="single_full repeat_rle suffix_calls pop_push interleaved_threads synthetic_frames workload"
for c in $cases; do
    tachyon-conv --pstats-compat -o $c.pstats $TESTDATA/cpython/$c/none.bin || exit 1
done
for py in $pys; do
    echo "== ${py##*/}"
    for c in $cases; do
        $py $tools/pstats_compat.py check $c.pstats $TESTDATA/cpython/$c/expected.pstats || exit 1
    done
    $py $tools/pstats_compat.py show interleaved_threads.pstats >show.${py##*/} || exit 1
done
set -- show.*
for f; do cmp -s $1 $f || { echo "$f differs from $1"; diff $1 $f; exit 1; }; done
echo "== print_stats and print_callers, the same in each version:"
cat $1
# A JSONL export of the same recording: the same functions, no callers
# (a warning says so).
cp $TESTDATA/cpython/workload/expected.jsonl w.jsonl && tachyon-conv --pstats-compat -o j.pstats w.jsonl || exit 1
for py in $pys; do
    $py $tools/pstats_compat.py export j.pstats workload.pstats || exit 1
done
