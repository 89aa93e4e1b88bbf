cp "$TESTDATA/bad/jsonl_total.jsonl" "$TESTDATA/bad/bin_frame_index.bin" .
cp "$TESTDATA/cpython/single_full/expected.jsonl" good.jsonl
tachyon-validate --format json good.jsonl jsonl_total.jsonl bin_frame_index.bin missing.jsonl
