# Every CPython fixture and both heatmap logs against what CPython 3.15's own
# heatmap shows for them (testdata/heatmap/*.cpython.json, made by
# tests/tools/heatmap_facts.sh): counts, heat levels, opcodes, column spans,
# callers and callees, and well-formed pages.
check="python3 $TESTDATA/../tests/tools/check_heatmap.py"
for c in single_full repeat_rle suffix_calls pop_push interleaved_threads synthetic_frames workload; do
    mkdir $c && echo "$c: $($check --cpython $TESTDATA/heatmap/$c.cpython.json --run "$(command -v tachyon-conv)" $TESTDATA/cpython/$c/none.bin $c | tr '\n' ' ')"
done
for c in edge test_difflib_json; do
    mkdir $c && echo "$c: $($check --cpython $TESTDATA/heatmap/$c.cpython.json --run "$(command -v tachyon-conv)" $TESTDATA/heatmap/$c.bin $c | tr '\n' ' ')"
done
