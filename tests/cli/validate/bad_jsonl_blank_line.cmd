cp "$TESTDATA/bad/jsonl_blank_line.jsonl" . && tachyon-validate jsonl_blank_line.jsonl
