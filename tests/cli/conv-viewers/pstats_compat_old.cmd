# --pstats-compat in the oldest pstats.Stats it is for: CPython 3.8, 3.9
# and 3.10 (pyenv; skipped without them).
tools=$TESTDATA/../tests/tools
pys=$(sh $tools/pyenv_python.sh 3.8.18 3.9.18 3.10.13) || exit 77
tachyon-conv --pstats-compat -o w.pstats $TESTDATA/cpython/workload/none.bin || exit 1
for py in $pys; do
    echo "== ${py##*/}"
    $py $tools/pstats_compat.py check w.pstats $TESTDATA/cpython/workload/expected.pstats || exit 1
done
