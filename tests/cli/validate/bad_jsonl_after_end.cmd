cp "$TESTDATA/bad/jsonl_after_end.jsonl" . && tachyon-validate jsonl_after_end.jsonl
