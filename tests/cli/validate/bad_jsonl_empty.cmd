cp "$TESTDATA/bad/jsonl_empty.jsonl" . && tachyon-validate jsonl_empty.jsonl
