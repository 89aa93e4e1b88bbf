cp "$TESTDATA/bad/jsonl_no_newline.jsonl" . && tachyon-validate jsonl_no_newline.jsonl
