cp "$TESTDATA/bad/jsonl_range_then_end.jsonl" . && tachyon-validate jsonl_range_then_end.jsonl
