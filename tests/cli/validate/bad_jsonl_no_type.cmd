cp "$TESTDATA/bad/jsonl_no_type.jsonl" . && tachyon-validate jsonl_no_type.jsonl
