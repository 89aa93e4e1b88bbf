cp "$TESTDATA/bad/jsonl_v1_zero_id.jsonl" . && tachyon-validate jsonl_v1_zero_id.jsonl
