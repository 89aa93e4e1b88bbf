cp "$TESTDATA/bad/jsonl_dup_agg.jsonl" . && tachyon-validate jsonl_dup_agg.jsonl
