cp "$TESTDATA/bad/jsonl_dup_frame.jsonl" . && tachyon-validate jsonl_dup_frame.jsonl
