# Big-endian twins of CPython's files (testdata/bigendian, made by
# tests/tools/make_bigendian.sh) convert to the same JSONL and re-encode to
# CPython's little-endian none.bin.
z=00000000000000000000000000000000
for fx in interleaved_threads pop_push repeat_rle single_full suffix_calls synthetic_frames workload; do
    d=$TESTDATA/cpython/$fx ok=0
    for v in none none.hdr-u32 zstd; do
        tachyon-conv --run-id $z $TESTDATA/bigendian/$fx.$v.bin | cmp - $d/expected.jsonl &&
        tachyon-conv --to collapsed $TESTDATA/bigendian/$fx.$v.bin | cmp - $d/expected.collapsed &&
        tachyon-conv --to bin -c none $TESTDATA/bigendian/$fx.$v.bin | cmp - $d/none.bin && ok=$((ok + 1))
    done
    echo "$fx: $ok of 3 ok"
done
