cp "$TESTDATA/bad/jsonl_total.jsonl" "$TESTDATA/bad/bin_reserved.bin" .
cp "$TESTDATA/cpython/single_full/expected.jsonl" good.jsonl
tachyon-validate --format junit good.jsonl jsonl_total.jsonl bin_reserved.bin
