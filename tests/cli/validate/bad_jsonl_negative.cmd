cp "$TESTDATA/bad/jsonl_negative.jsonl" . && tachyon-validate jsonl_negative.jsonl
