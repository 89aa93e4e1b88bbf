cp "$TESTDATA/bad/jsonl_dup_str.jsonl" . && tachyon-validate jsonl_dup_str.jsonl
