cp "$TESTDATA/bad/jsonl_wrong_type.jsonl" . && tachyon-validate jsonl_wrong_type.jsonl
