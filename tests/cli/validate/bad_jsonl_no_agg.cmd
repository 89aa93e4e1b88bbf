cp "$TESTDATA/bad/jsonl_no_agg.jsonl" . && tachyon-validate jsonl_no_agg.jsonl
