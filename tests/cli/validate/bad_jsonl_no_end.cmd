cp "$TESTDATA/bad/jsonl_no_end.jsonl" . && tachyon-validate jsonl_no_end.jsonl
