# --pstats-compat alone means --to pstats: the bytes of one fixture's file
# (marshal: no ("__sampled__",) marker, callers as 4-tuples), and every
# fixture checked with Debian's python3 (3.11 on Debian 12).
tachyon-conv --pstats-compat $TESTDATA/cpython/single_full/none.bin | od -An -tx1 -v
for c in single_full repeat_rle suffix_calls pop_push interleaved_threads synthetic_frames workload; do
    tachyon-conv --to pstats --pstats-compat -o $c.pstats $TESTDATA/cpython/$c/none.bin &&
    python3 $TESTDATA/../tests/tools/pstats_compat.py check $c.pstats $TESTDATA/cpython/$c/expected.pstats | sed 's/;.*//' || exit 1
done
