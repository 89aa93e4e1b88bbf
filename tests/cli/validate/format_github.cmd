cp "$TESTDATA/bad/jsonl_total.jsonl" "$TESTDATA/bad/bin_reserved.bin" "$TESTDATA/bad/bin_frame_index.bin" .
cp jsonl_total.jsonl 'odd,name:50%.jsonl'
tachyon-validate --format github jsonl_total.jsonl bin_reserved.bin bin_frame_index.bin 'odd,name:50%.jsonl'
